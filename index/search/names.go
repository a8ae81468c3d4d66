package search

import (
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// nameTable holds the distinct names and qualified names of all units, the
// units behind each, and a trigram index over their lower-cased forms for
// the fuzzy fallback.
type nameTable struct {
	keys  []string  // distinct Name and QualName values
	lower []string  // strings.ToLower(keys[i])
	units [][]int32 // units reached through keys[i]
	byKey map[string]int32
	tri   map[uint64][]int32 // trigram of lower[i] -> key indexes
	triN  []uint16           // distinct trigrams of lower[i]
	// blob is every lower[i] followed by "\n", so a literal can be found in
	// all names with one fast substring scan; offs[i] is where lower[i]
	// starts in it.
	blob string
	offs []int32
}

func buildNameTable(units []*index.Unit) nameTable {
	t := nameTable{byKey: make(map[string]int32, len(units)), tri: map[uint64][]int32{}}
	add := func(key string, u int32) {
		if key == "" {
			return
		}
		k, ok := t.byKey[key]
		if !ok {
			k = int32(len(t.keys))
			t.byKey[key] = k
			t.keys = append(t.keys, key)
			t.lower = append(t.lower, strings.ToLower(key))
			t.units = append(t.units, nil)
		}
		if n := len(t.units[k]); n == 0 || t.units[k][n-1] != u {
			t.units[k] = append(t.units[k], u)
		}
	}
	for i, u := range units {
		if u.Kind == index.KindChunk {
			continue
		}
		add(u.Name, int32(i))
		add(u.QualName, int32(i))
	}
	var blob strings.Builder
	t.offs = make([]int32, len(t.lower))
	for k, low := range t.lower {
		t.offs[k] = int32(blob.Len())
		blob.WriteString(low)
		blob.WriteByte('\n')
	}
	t.blob = blob.String()
	var buf []uint64
	t.triN = make([]uint16, len(t.lower))
	for k, low := range t.lower {
		buf = trigramSet([]rune(low), buf)
		t.triN[k] = uint16(min(len(buf), 65535))
		for _, g := range buf {
			t.tri[g] = append(t.tri[g], int32(k))
		}
	}
	return t
}

// fuzzyCandidates are how many best trigram-overlap keys get the full
// (costlier) similarity score.
const fuzzyCandidates = 300

// caseBonus lifts a candidate whose last name part matches the query's
// exactly, case included.
const (
	caseBonus  = 0.02
	caseWeight = 0.03
)

// lastPart is what follows the last dot of a dotted name.
func lastPart(name string) string { return name[strings.LastIndex(name, ".")+1:] }

// scoredKey is a name key with its similarity to the query.
type scoredKey struct {
	key   int32
	score float64
}

// fuzzy ranks keys by FuzzyScore against query (lower-cased), scoring only the
// keys that share the most trigrams with it (and pass keep, if set).
func (t *nameTable) fuzzy(query string, limit int, keep func(int32) bool) []scoredKey {
	q := []rune(strings.ToLower(query))
	if len(q) == 0 || len(t.keys) == 0 || len(q) > maxQueryLen {
		return nil
	}
	counts := make([]uint16, len(t.keys))
	var touched []int32
	for _, g := range trigramSet(q, nil) {
		for _, k := range t.tri[g] {
			if counts[k] == 0 {
				touched = append(touched, k)
			}
			if counts[k] < 65535 {
				counts[k]++
			}
		}
	}
	if keep != nil {
		in := touched[:0]
		for _, k := range touched {
			if keep(k) {
				in = append(in, k)
			}
		}
		touched = in
	}
	touched = topByCount(touched, counts, fuzzyCandidates)
	out := make([]scoredKey, 0, len(touched))
	ks := newKeyScorer(query)
	last := lastPart(query)
	for _, k := range touched {
		// Mostly case-blind; the case-aware part breaks ties like
		// Symbol vs SYMBOL for "Symbl".
		sc := ks.score(t.lower[k], t.keys[k], int(counts[k]), int(t.triN[k]))
		if lastPart(t.keys[k]) == last {
			// Same spelling, case included, of the final name: Symbol
			// over SYMBOL for "Symbol", which lower-casing ties.
			sc = min(1, sc+caseBonus)
		}
		out = append(out, scoredKey{k, sc})
	}
	sortScored(out, t)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// topByCount keeps the n keys sharing the most trigrams with the query.
// Counts are small (at most the query's trigram count), so a counting pass
// replaces a sort of every touched key.
func topByCount(touched []int32, counts []uint16, n int) []int32 {
	if len(touched) <= n {
		return touched
	}
	top := 0
	for _, k := range touched {
		top = max(top, int(counts[k]))
	}
	hist := make([]int32, top+1)
	for _, k := range touched {
		hist[counts[k]]++
	}
	cut, kept := top, int32(0)
	for ; cut > 0 && kept+hist[cut] < int32(n); cut-- {
		kept += hist[cut]
	}
	out := make([]int32, 0, n)
	room := n - int(kept)
	for _, k := range touched {
		switch c := int(counts[k]); {
		case c > cut:
			out = append(out, k)
		case c == cut && room > 0:
			out = append(out, k)
			room--
		}
	}
	return out
}

func sortScored(out []scoredKey, t *nameTable) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return t.keys[out[i].key] < t.keys[out[j].key]
	})
}

// regexScoreCap bounds how many regex-matching keys get a similarity score
// for ranking; past it the shortest names are kept (they match the pattern
// most tightly). maxRegexMatches stops the scan of a pattern so broad that
// ranking its matches means nothing (".*").
const (
	regexScoreCap   = 200
	maxRegexMatches = 2000
)

// matchKeys returns the keys the matcher accepts (and keep, if set), best
// first by similarity to the query's literal text. Keys lacking one of the
// pattern's required literals are skipped without running the regexp.
// matched counts the matching keys, even those left unranked past
// regexScoreCap; broad reports a scan stopped at maxRegexMatches.
func (t *nameTable) matchKeys(match func(string) bool, lits []string, literal string, keep func(int32) bool) (out []scoredKey, matched int, broad bool) {
	var hits []int32
	for _, k := range t.candidates(lits) {
		if containsAll(t.lower[k], lits) && match(t.keys[k]) && (keep == nil || keep(k)) {
			hits = append(hits, k)
			if len(hits) == maxRegexMatches {
				broad = true
				break
			}
		}
	}
	matched = len(hits)
	if len(hits) > regexScoreCap {
		slices.SortFunc(hits, func(a, b int32) int {
			if d := len(t.keys[a]) - len(t.keys[b]); d != 0 {
				return d
			}
			return int(a - b)
		})
		hits = hits[:regexScoreCap]
	}
	ks := newKeyScorer(literal)
	out = make([]scoredKey, 0, len(hits))
	for _, k := range hits {
		out = append(out, scoredKey{k, ks.scoreKey(t.lower[k], t.keys[k])})
	}
	sortScored(out, t)
	return out, matched, broad
}

// candidates are the keys that contain the longest required literal, found
// by scanning the blob of all names; every key when there is none.
func (t *nameTable) candidates(lits []string) []int32 {
	lit := ""
	for _, l := range lits {
		if len(l) > len(lit) && !strings.Contains(l, "\n") {
			lit = l
		}
	}
	if lit == "" {
		all := make([]int32, len(t.keys))
		for i := range all {
			all[i] = int32(i)
		}
		return all
	}
	var out []int32
	for p := 0; p < len(t.blob); {
		i := strings.Index(t.blob[p:], lit)
		if i < 0 {
			break
		}
		at := p + i
		k := int32(sort.Search(len(t.offs), func(j int) bool { return int(t.offs[j]) > at }) - 1)
		out = append(out, k)
		// Skip to the next key: one hit per key is enough.
		if int(k)+1 < len(t.offs) {
			p = int(t.offs[k+1])
		} else {
			break
		}
	}
	return out
}
