package search

import (
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// mergeScored unions two rankings, keeping each key's better score.
func mergeScored(a, b []scoredKey, t *nameTable) []scoredKey {
	best := map[int32]float64{}
	for _, k := range append(a, b...) {
		if sc, ok := best[k.key]; !ok || k.score > sc {
			best[k.key] = k.score
		}
	}
	out := make([]scoredKey, 0, len(best))
	for k, sc := range best {
		out = append(out, scoredKey{k, sc})
	}
	sortScored(out, t)
	return out
}

// minFuzzyScore drops candidates too unlike the query to be worth a line;
// fuzzyRelative drops candidates far below the best one.
const (
	minFuzzyScore = 0.3
	fuzzyRelative = 0.6
)

// fileKeys scores every unit name of one file against q: a file has few
// units, so the trigram prefilter is not needed.
func (s *Searcher) fileKeys(q string, fi int32) []scoredKey {
	low := strings.ToLower(q)
	seen := map[int32]bool{}
	var out []scoredKey
	for _, id := range s.files[fi].Units {
		u, ok := s.ix.Unit(id)
		if !ok || u.Kind == index.KindChunk {
			continue
		}
		for _, key := range []string{u.Name, u.QualName} {
			k, ok := s.names.byKey[key]
			if ok && !seen[k] {
				seen[k] = true
				out = append(out, scoredKey{k, FuzzyScore(low, s.names.lower[k])})
			}
		}
	}
	sortScored(out, &s.names)
	return out
}

// expandKeys turns ranked keys into ranked units inside the scope. limit 0
// keeps every unit; total counts all units in scope.
func (s *Searcher) expandKeys(keys []scoredKey, sc scope, limit int) ([]int32, []float64, int) {
	var ids []int32
	var scores []float64
	seen := map[int32]bool{}
	total := 0
	for _, k := range keys {
		group := s.inScope(s.names.units[k.key], sc)
		s.rankUnits(group)
		for _, u := range group {
			if seen[u] {
				continue
			}
			seen[u] = true
			total++
			if limit == 0 || len(ids) < limit {
				ids = append(ids, u)
				scores = append(scores, k.score)
			}
		}
	}
	return ids, scores, total
}

// keyInScope filters name keys to those with a unit in scope; nil for the
// whole repository.
func (s *Searcher) keyInScope(sc scope) func(int32) bool {
	if !sc.isFile() && sc.dir == "" {
		return nil
	}
	return func(k int32) bool {
		return slices.ContainsFunc(s.names.units[k], func(u int32) bool { return s.unitInScope(u, sc) })
	}
}

func (s *Searcher) inScope(units []int32, sc scope) []int32 {
	out := make([]int32, 0, len(units))
	for _, u := range units {
		if s.unitInScope(u, sc) {
			out = append(out, u)
		}
	}
	return out
}

// unitInScope tells whether unit u is in an indexed file inside the scope.
func (s *Searcher) unitInScope(u int32, sc scope) bool {
	fi := s.unitFile[u]
	return fi >= 0 && sc.has(fi, s.units[u].Path)
}

// rankUnits orders units that match equally well: code before tests,
// top-level before nested, the most called first, then shorter paths.
func (s *Searcher) rankUnits(ids []int32) {
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		ta, tb := s.isTest[s.unitFile[a]], s.isTest[s.unitFile[b]]
		if ta != tb {
			return !ta
		}
		ua, ub := s.units[a], s.units[b]
		if (ua.Parent == "") != (ub.Parent == "") {
			return ua.Parent == ""
		}
		if s.inDeg[a] != s.inDeg[b] {
			return s.inDeg[a] > s.inDeg[b]
		}
		if len(ua.Path) != len(ub.Path) {
			return len(ua.Path) < len(ub.Path)
		}
		return ua.ID < ub.ID
	})
}
