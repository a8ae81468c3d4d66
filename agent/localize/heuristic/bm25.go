package heuristic

import (
	"math"
	"sort"
	"strings"
)

// bm25 is Okapi BM25 over a fixed set of documents. Terms are dense ids
// from a termTable, so a corpus of tens of thousands of code units is
// counted in arrays rather than in a map per document.
type bm25 struct {
	k1, b float64
	lens  []float64
	avg   float64
	terms *termTable
	post  [][]posting // by term id
}

type posting struct {
	doc int32
	tf  float32
}

type scored struct {
	doc   int
	score float64
}

// newBM25 is BM25 over documents given as token lists.
func newBM25(docs [][]string) *bm25 {
	tt := newTermTable()
	b := newBM25Builder(tt)
	for _, d := range docs {
		for _, t := range d {
			b.addOne(tt.token(t))
		}
		b.endDoc()
	}
	return b.done()
}

// bm25Builder counts one document at a time, in document order, so every
// posting list comes out sorted by document.
type bm25Builder struct {
	m     *bm25
	count []float32 // by term id: occurrences in the current document
	seen  []int32   // the current document's distinct terms, in first-seen order
	total float64
}

func newBM25Builder(tt *termTable) *bm25Builder {
	return &bm25Builder{m: &bm25{k1: 1.2, b: 0.75, terms: tt}}
}

func (b *bm25Builder) addOne(t int32) {
	if int(t) >= len(b.count) {
		b.count = append(b.count, make([]float32, int(t)+1-len(b.count))...)
	}
	if b.count[t] == 0 {
		b.seen = append(b.seen, t)
	}
	b.count[t]++
}

// add counts the terms n times.
func (b *bm25Builder) add(ts []int32, n int) {
	for range n {
		for _, t := range ts {
			b.addOne(t)
		}
	}
}

// endDoc closes the current document.
func (b *bm25Builder) endDoc() {
	m := b.m
	doc, n := int32(len(m.lens)), 0
	for _, t := range b.seen {
		if int(t) >= len(m.post) {
			m.post = append(m.post, make([][]posting, int(t)+1-len(m.post))...)
		}
		c := b.count[t]
		m.post[t] = append(m.post[t], posting{doc: doc, tf: c})
		n += int(c)
		b.count[t] = 0
	}
	b.seen = b.seen[:0]
	m.lens = append(m.lens, float64(n))
	b.total += float64(n)
}

func (b *bm25Builder) done() *bm25 {
	m := b.m
	if len(m.lens) > 0 {
		m.avg = b.total / float64(len(m.lens))
	}
	if m.avg == 0 {
		m.avg = 1
	}
	b.count, b.seen = nil, nil
	return m
}

// postings is a term's posting list; nil for a term no document holds.
func (m *bm25) postings(term string) []posting {
	t, ok := m.terms.ids[term]
	if !ok || int(t) >= len(m.post) {
		return nil
	}
	return m.post[t]
}

// idf is the Robertson–Spärck Jones weight, floored at a small positive
// value so a term in most documents still counts a little.
func (m *bm25) idf(term string) float64 {
	return m.idfOf(len(m.postings(term)))
}

func (m *bm25) idfOf(df int) float64 {
	if df == 0 {
		return 0
	}
	n, d := float64(len(m.lens)), float64(df)
	return math.Max(math.Log((n-d+0.5)/(d+0.5)+1), 0.01)
}

// scores gives every document with a query term its score. The query is a
// bag of terms with weights (how often the issue says them, or more for
// terms of strong entry points).
func (m *bm25) scores(query map[string]float64) map[int]float64 {
	out := map[int]float64{}
	for t, qw := range query {
		post := m.postings(t)
		idf := m.idfOf(len(post))
		if idf == 0 {
			continue
		}
		for _, p := range post {
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
