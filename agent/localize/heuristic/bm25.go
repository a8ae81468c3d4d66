package heuristic

import (
	"math"
	"sort"
	"strings"
)

// bm25 is Okapi BM25 over a fixed set of token lists. It is small on
// purpose: the heuristic localizer scores a few thousand code units against
// one issue, so postings in maps are enough.
type bm25 struct {
	k1, b float64
	lens  []float64
	avg   float64
	post  map[string][]posting
}

type posting struct {
	doc int32
	tf  float32
}

type scored struct {
	doc   int
	score float64
}

func newBM25(docs [][]string) *bm25 {
	m := &bm25{k1: 1.2, b: 0.75, lens: make([]float64, len(docs)), post: map[string][]posting{}}
	total := 0.0
	for i, d := range docs {
		m.lens[i] = float64(len(d))
		total += m.lens[i]
		tf := map[string]float32{}
		for _, t := range d {
			tf[t]++
		}
		for t, n := range tf {
			m.post[t] = append(m.post[t], posting{doc: int32(i), tf: n})
		}
	}
	if len(docs) > 0 {
		m.avg = total / float64(len(docs))
	}
	if m.avg == 0 {
		m.avg = 1
	}
	return m
}

// idf is the Robertson–Spärck Jones weight, floored at a small positive
// value so a term in most documents still counts a little.
func (m *bm25) idf(term string) float64 {
	n := float64(len(m.lens))
	df := float64(len(m.post[term]))
	if df == 0 {
		return 0
	}
	return math.Max(math.Log((n-df+0.5)/(df+0.5)+1), 0.01)
}

// scores gives every document with a query term its score. The query is a
// bag of terms with weights (how often the issue says them, or more for
// terms of strong entry points).
func (m *bm25) scores(query map[string]float64) map[int]float64 {
	out := map[int]float64{}
	for t, qw := range query {
		idf := m.idf(t)
		if idf == 0 {
			continue
		}
		for _, p := range m.post[t] {
			tf := float64(p.tf)
			norm := m.k1 * (1 - m.b + m.b*m.lens[p.doc]/m.avg)
			out[int(p.doc)] += qw * idf * tf * (m.k1 + 1) / (tf + norm)
		}
	}
	return out
}

// top is the k best documents, best first, ties by document order.
func (m *bm25) top(query map[string]float64, k int) []scored {
	all := m.scores(query)
	out := make([]scored, 0, len(all))
	for d, s := range all {
		out = append(out, scored{d, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].doc < out[j].doc
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

// queryBag counts tokens, dampened so a word repeated ten times in a log
// does not drown the rest: weight 1 + log(count).
func queryBag(tokens []string) map[string]float64 {
	n := map[string]int{}
	for _, t := range tokens {
		n[t]++
	}
	out := make(map[string]float64, len(n))
	for t, c := range n {
		out[t] = 1 + math.Log(float64(c))
	}
	return out
}

// codeWeight is how much a token of a code block (a reproduction script, a
// log) counts against one of the prose, which says what is wrong.
const codeWeight = 0.5

// issueBag is the issue's query: prose tokens in full, code-block tokens
// at codeWeight, numbers left out (they match line numbers and constants).
func issueBag(issue string) map[string]float64 {
	var prose, code []string
	last := 0
	for _, m := range reFence.FindAllStringIndex(issue, -1) {
		prose = append(prose, identTokens(issue[last:m[0]])...)
		code = append(code, identTokens(issue[m[0]:m[1]])...)
		last = m[1]
	}
	prose = append(prose, identTokens(issue[last:])...)
	q := queryBag(dropNumbers(prose))
	for t, w := range queryBag(dropNumbers(code)) {
		q[t] += codeWeight * w
	}
	return q
}

func dropNumbers(toks []string) []string {
	out := toks[:0:0]
	for _, t := range toks {
		if strings.TrimLeft(t, "0123456789") != "" {
			out = append(out, t)
		}
	}
	return out
}
