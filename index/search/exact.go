package search

import (
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// exactUnits finds units by full id, qualified name, name, or module path
// ("pkg.mod.Class.method", or any dotted tail of it).
func (s *Searcher) exactUnits(q string, sc scope) []int32 {
	if i := strings.Index(q, ":"); i > 0 {
		return s.byID(q, sc)
	}
	var out []int32
	if k, ok := s.names.byKey[q]; ok {
		out = append(out, s.inScope(s.names.units[k], sc)...)
	}
	// A module path may start above the indexed root ("sympy.core.x" when
	// the root is sympy/ itself): drop leading parts while a dotted name
	// is left.
	for d := q; len(out) == 0 && strings.Contains(d, "."); {
		out = s.byDotted(d, sc)
		d = d[strings.Index(d, ".")+1:]
	}
	s.rankUnits(out)
	return out
}

// byID looks up "path:Qualified.name", also written "path::Class::method".
func (s *Searcher) byID(q string, sc scope) []int32 {
	q = strings.ReplaceAll(q, "::", ":")
	i := strings.Index(q, ":")
	p, name := q[:i], strings.ReplaceAll(q[i+1:], ":", ".")
	fi, ok := s.resolveFile(p)
	if !ok || !sc.has(fi, s.files[fi].Path) {
		return nil
	}
	u, ok := s.ix.Unit(s.files[fi].Path + ":" + name)
	if !ok {
		return nil
	}
	return s.inScope([]int32{s.unitIndex(u)}, sc)
}

// byDotted matches a dotted name against module.path.QualName: first as a
// tail at a dot boundary, then with the leading parts only required to
// appear in order ("models.QuerySet" for a class re-exported by a package).
func (s *Searcher) byDotted(q string, sc scope) []int32 {
	parts := strings.Split(q, ".")
	last := parts[len(parts)-1]
	k, ok := s.names.byKey[last]
	if !ok {
		return nil
	}
	cands := s.inScope(s.names.units[k], sc)
	var tail, loose []int32
	for _, u := range cands {
		if s.units[u].Name != last {
			continue
		}
		d := s.dotted[u]
		switch {
		case d == q || strings.HasSuffix(d, "."+q):
			tail = append(tail, u)
		case inOrder(strings.Split(d, "."), parts):
			loose = append(loose, u)
		}
	}
	if len(tail) > 0 {
		return tail
	}
	return loose
}

// inOrder tells whether want is a subsequence of have ending at its end.
func inOrder(have, want []string) bool {
	if len(want) == 0 || len(have) == 0 || have[len(have)-1] != want[len(want)-1] {
		return false
	}
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}

func (s *Searcher) unitIndex(u *index.Unit) int32 {
	if i, ok := s.unitIdx[u.ID]; ok {
		return i
	}
	return -1
}
