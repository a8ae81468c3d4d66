package search

import (
	"slices"
	"strings"
)

// Similarity measures for fuzzy definition lookup. Each takes two strings
// (callers lower-case them first) and returns a value in [0, 1], 1 for equal
// strings. They work on runes so that non-ASCII identifiers are not split.

// Fuzzy score weights. Trigrams reward shared fragments anywhere in the name
// (`filter_or_exclude` vs `_filter_or_exclude`), Jaro–Winkler rewards a
// shared prefix and small typos (`Symbl` vs `Symbol`), LCS rewards names
// that keep the query's letters in order (`qsfilter` vs `QuerySet.filter`).
const (
	weightTrigram = 0.4
	weightJaro    = 0.35
	weightLCS     = 0.25
)

// FuzzyScore is the weighted sum of trigram, Jaro–Winkler and LCS similarity
// that ranks fuzzy find_code_def results.
func FuzzyScore(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	return weightTrigram*trigramSim(ra, rb) + weightJaro*jaroWinkler(ra, rb) + weightLCS*lcsSim(ra, rb)
}

// TrigramSimilarity is the Dice coefficient of the two strings' sets of
// padded character trigrams.
func TrigramSimilarity(a, b string) float64 { return trigramSim([]rune(a), []rune(b)) }

// JaroWinkler is the Jaro similarity boosted by a common prefix of up to four
// runes (scaling factor 0.1, as Winkler proposed).
func JaroWinkler(a, b string) float64 { return jaroWinkler([]rune(a), []rune(b)) }

// LCSSimilarity is 2·LCS(a, b) / (|a| + |b|), LCS being the longest common
// subsequence.
func LCSSimilarity(a, b string) float64 { return lcsSim([]rune(a), []rune(b)) }

// trigramPad marks the ends of a string so short names still have trigrams
// and prefixes/suffixes weigh a little more.
const trigramPad = '\x00'

// trigramSet returns the sorted, de-duplicated padded trigrams of r packed
// into uint64 keys; sorted slices beat maps for the short names compared here.
func trigramSet(r []rune, buf []uint64) []uint64 {
	buf = buf[:0]
	n := len(r) + 2
	at := func(i int) rune {
		if i == 0 || i == n-1 {
			return trigramPad
		}
		return r[i-1]
	}
	for i := 0; i+3 <= n; i++ {
		buf = append(buf, packTrigram(at(i), at(i+1), at(i+2)))
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

func packTrigram(a, b, c rune) uint64 {
	return uint64(a)<<42 | uint64(b)<<21 | uint64(c)
}

func trigramSim(a, b []rune) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	ta := trigramSet(a, make([]uint64, 0, len(a)+2))
	tb := trigramSet(b, make([]uint64, 0, len(b)+2))
	return 2 * float64(commonSorted(ta, tb)) / float64(len(ta)+len(tb))
}

// commonSorted counts the values two sorted, de-duplicated sets share.
func commonSorted(a, b []uint64) int {
	common, i, k := 0, 0, 0
	for i < len(a) && k < len(b) {
		switch {
		case a[i] == b[k]:
			common++
			i++
			k++
		case a[i] < b[k]:
			i++
		default:
			k++
		}
	}
	return common
}

func jaroWinkler(a, b []rune) float64 {
	var sc scratch
	return sc.jaroWinkler(a, b)
}

// scratch holds the buffers of the similarity measures, so scoring many
// candidates against one query does not allocate for each.
type scratch struct {
	ma, mb    []bool
	prev, cur []int
}

func (sc *scratch) jaroWinkler(a, b []rune) float64 {
	j := sc.jaro(a, b)
	prefix := 0
	for prefix < 4 && prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	return j + float64(prefix)*0.1*(1-j)
}

func boolBuf(buf []bool, n int) []bool {
	if cap(buf) < n {
		return make([]bool, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

func (sc *scratch) jaro(a, b []rune) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	sc.ma, sc.mb = boolBuf(sc.ma, len(a)), boolBuf(sc.mb, len(b))
	ma, mb := sc.ma, sc.mb
	matches := 0
	for i := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for k := lo; k < hi; k++ {
			if !mb[k] && a[i] == b[k] {
				ma[i], mb[k] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range a {
		if !ma[i] {
			continue
		}
		for !mb[k] {
			k++
		}
		if a[i] != b[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	return (m/float64(len(a)) + m/float64(len(b)) + (m-float64(transpositions)/2)/m) / 3
}

func lcsSim(a, b []rune) float64 {
	var sc scratch
	return sc.lcsSim(a, b)
}

func (sc *scratch) lcsSim(a, b []rune) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	return 2 * float64(sc.lcsLen(a, b)) / float64(len(a)+len(b))
}

func lcsLen(a, b []rune) int {
	var sc scratch
	return sc.lcsLen(a, b)
}

// lcsLen is the classic dynamic programme kept to two rows.
func (sc *scratch) lcsLen(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if cap(sc.prev) < len(b)+1 {
		sc.prev, sc.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := sc.prev[:len(b)+1], sc.cur[:len(b)+1]
	clear(prev)
	clear(cur)
	for i := 1; i <= len(a); i++ {
		for k := 1; k <= len(b); k++ {
			switch {
			case a[i-1] == b[k-1]:
				cur[k] = prev[k-1] + 1
			case prev[k] >= cur[k-1]:
				cur[k] = prev[k]
			default:
				cur[k] = cur[k-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// keyScorer scores many name keys against one query without allocating
// per key. The trigram overlap comes from the trigram index, which has
// already counted it.
type keyScorer struct {
	scratch
	q, qCase []rune   // lower-cased and as typed
	qTris    []uint64 // distinct padded trigrams of q, sorted
	qTri     int
	k, kCase []rune
	kTris    []uint64
}

func newKeyScorer(query string) *keyScorer {
	low := []rune(strings.ToLower(query))
	tris := trigramSet(low, nil)
	return &keyScorer{q: low, qCase: []rune(query), qTris: tris, qTri: len(tris)}
}

// scoreKey is score for a key whose trigram overlap is not known yet.
func (ks *keyScorer) scoreKey(lower, key string) float64 {
	ks.k = append(ks.k[:0], []rune(lower)...)
	ks.kTris = trigramSet(ks.k, ks.kTris)
	return ks.score(lower, key, commonSorted(ks.qTris, ks.kTris), len(ks.kTris))
}

// score is FuzzyScore(lower(query), lower) given the shared trigram count,
// blended with a little case-aware Jaro–Winkler against the key as written.
func (ks *keyScorer) score(lower, key string, common, keyTri int) float64 {
	ks.k = append(ks.k[:0], []rune(lower)...)
	ks.kCase = append(ks.kCase[:0], []rune(key)...)
	tri := 2 * float64(common) / float64(ks.qTri+keyTri)
	sc := weightTrigram*tri + weightJaro*ks.jaroWinkler(ks.q, ks.k) + weightLCS*ks.lcsSim(ks.q, ks.k)
	return (1-caseWeight)*sc + caseWeight*ks.jaroWinkler(ks.qCase, ks.kCase)
}
