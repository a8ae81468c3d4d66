package search

import (
	"regexp"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// aliasLine matches a module-level assignment of a plain (dotted) name,
// possibly chained: "A = B = pkg.C" binds A and B to pkg.C.
var aliasLine = regexp.MustCompile(`^((?:[A-Za-z_]\w*\s*=\s*)+)([A-Za-z_][\w.]*)\s*(?:#.*)?$`)

// aliasSite is where a module-level name is bound to another name.
type aliasSite struct {
	file   int32
	line   int
	target string // the right-hand name as written
}

// aliases maps each module-level alias name to where it is bound, built on
// first use from the lines outside every class and function that start in
// column 0.
func (s *Searcher) aliases() map[string][]aliasSite {
	s.aliasOnce.Do(func() {
		m := map[string][]aliasSite{}
		for fi := range s.files {
			for l := 1; l <= s.lineCount(int32(fi)); l++ {
				if !s.moduleLevel(int32(fi), l) {
					continue
				}
				s.addAlias(m, int32(fi), l)
			}
		}
		s.alias = m
	})
	return s.alias
}

func (s *Searcher) addAlias(m map[string][]aliasSite, fi int32, l int) {
	src, _ := s.ix.Source(s.files[fi].Path)
	off := s.lines[fi][l-1]
	if int(off) >= len(src) || !isIdentStart(src[off]) || src[off] >= 0x80 {
		return
	}
	t := s.lineText(fi, l)
	if !strings.Contains(t, "=") || strings.Contains(t, "==") {
		return
	}
	sub := aliasLine.FindStringSubmatch(t)
	if sub == nil {
		return
	}
	for _, lhs := range strings.Split(sub[1], "=") {
		if name := strings.TrimSpace(lhs); name != "" && name != lastPart(sub[2]) {
			m[name] = append(m[name], aliasSite{fi, l, sub[2]})
		}
	}
}

// maxAliasHops bounds a chain of aliases (Matrix = MutableMatrix =
// MutableDenseMatrix spread over two lines is two hops).
const maxAliasHops = 4

// alias is a resolved module-level alias.
type alias struct {
	path   string
	line   int
	text   string
	target []int32
}

// resolveAlias finds `name = Other` at module level and the units Other
// names, following chains of aliases: issues quote the public alias
// (sympy's Matrix) while the code defines the class under another name.
func (s *Searcher) resolveAlias(name string) (alias, bool) {
	if name == "" || strings.ContainsAny(name, ".:") {
		return alias{}, false
	}
	first := aliasSite{file: -1}
	for hop := 0; hop < maxAliasHops; hop++ {
		sites := s.aliases()[name]
		if len(sites) == 0 {
			return alias{}, false
		}
		site := sites[0]
		for _, c := range sites {
			if !s.isTest[c.file] {
				site = c
				break
			}
		}
		if first.file < 0 {
			first = site
		}
		name = lastPart(site.target)
		if k, ok := s.names.byKey[name]; ok {
			return alias{
				path:   s.files[first.file].Path,
				line:   first.line,
				text:   strings.TrimSpace(s.lineText(first.file, first.line)),
				target: s.names.units[k],
			}, true
		}
	}
	return alias{}, false
}

// moduleLevel tells whether a line is outside every class and function.
func (s *Searcher) moduleLevel(fi int32, line int) bool {
	own := s.owner[fi]
	if line >= len(own) || own[line] < 0 {
		return true
	}
	return s.units[own[line]].Kind == index.KindChunk
}
