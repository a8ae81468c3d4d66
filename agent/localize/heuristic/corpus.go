package heuristic

import (
	"path"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index"
)

// corpus is the heuristic's view of the repository: BM25 over every code
// unit, where a unit's text is its name (weighted up), its module path and
// its own source lines. Each file is read and tokenized once, and its
// units' documents are counted from its lines.
type corpus struct {
	ix    *index.Index
	units []*index.Unit
	pos   map[string]int // unit id -> document number
	bm    *bm25

	// BM25 over whole files ranks files only when no unit is a candidate
	// (a repository of chunks), so it is built on first use.
	fileOnce  sync.Once
	fileBM    *bm25
	filePaths []string
}

// nameBoost repeats a unit's name tokens so a unit named like the issue's
// words outranks one that only mentions them.
const nameBoost = 3

func newCorpus(ix *index.Index) *corpus {
	units := ix.Units()
	c := &corpus{ix: ix, units: units, pos: make(map[string]int, len(units))}
	src := newCorpusSources(ix)
	b := newBM25Builder(src.terms)
	for i, u := range units {
		c.pos[u.ID] = i
		src.unitDoc(b, u)
	}
	c.bm = b.done()
	src.terms.forgetWords()
	return c
}

// corpusSources is every file's tokens while a corpus is built.
type corpusSources struct {
	ix    *index.Index
	terms *termTable
	files map[string]*lineTokens // nil for a file without source
	paths map[string][]int32     // a file's path tokens, extension dropped
}

func newCorpusSources(ix *index.Index) *corpusSources {
	return &corpusSources{ix: ix, terms: newTermTable(), files: map[string]*lineTokens{}, paths: map[string][]int32{}}
}

// file is a file's tokens, read and split on first use.
func (cs *corpusSources) file(p string) *lineTokens {
	lt, ok := cs.files[p]
	if !ok {
		if src, err := cs.ix.Source(p); err == nil {
			lt = cs.terms.lines(string(src))
		}
		cs.files[p] = lt
	}
	return lt
}

func (cs *corpusSources) path(p string) []int32 {
	ids, ok := cs.paths[p]
	if !ok {
		ids = cs.terms.text(nil, strings.TrimSuffix(p, path.Ext(p)))
		cs.paths[p] = ids
	}
	return ids
}

// fileDocs is BM25 of whole files, path weighted up.
func (cs *corpusSources) fileDocs() (*bm25, []string) {
	files := cs.ix.Files()
	paths := make([]string, len(files))
	b := newBM25Builder(cs.terms)
	for i, f := range files {
		paths[i] = f.Path
		b.add(cs.path(f.Path), nameBoost)
		if lt := cs.file(f.Path); lt != nil {
			b.add(lt.ids, 1)
		}
		b.endDoc()
	}
	return b.done(), paths
}

// unitDoc adds a unit's document: its name, its path, and its own lines,
// without the bodies of nested units, so a class is not scored by its
// methods' text (they are documents of their own).
func (cs *corpusSources) unitDoc(b *bm25Builder, u *index.Unit) {
	b.add(cs.terms.text(nil, u.QualName), nameBoost)
	b.add(cs.path(u.Path), 1)
	lt := cs.file(u.Path)
	if lt == nil {
		b.add(cs.terms.text(nil, u.Signature), 1)
		b.endDoc()
		return
	}
	var nested [][2]int
	for _, e := range u.Children {
		if e.Rel != index.Contains {
			continue
		}
		if ch, ok := cs.ix.Unit(e.ID); ok && ch.Path == u.Path {
			nested = append(nested, [2]int{ch.Start, ch.End})
		}
	}
	for l := max(u.Start, 1); l <= min(u.End, lt.count()); l++ {
		if !inSpans(l, nested) {
			b.add(lt.line(l), 1)
		}
	}
	b.endDoc()
}

func inSpans(l int, spans [][2]int) bool {
	for _, s := range spans {
		if l >= s[0] && l <= s[1] {
			return true
		}
	}
	return false
}

// scoresFor is every unit's BM25 score against the query, normalised so the
// best unit scores 1.
func (c *corpus) scoresFor(query map[string]float64) map[string]float64 {
	return normalised(c.bm.scores(query), func(d int) string { return c.units[d].ID })
}

// normalised divides document scores by the best one and keys them by name.
func normalised(raw map[int]float64, name func(doc int) string) map[string]float64 {
	best := 0.0
	for _, s := range raw {
		best = max(best, s)
	}
	out := make(map[string]float64, len(raw))
	if best == 0 {
		return out
	}
	for d, s := range raw {
		out[name(d)] = s / best
	}
	return out
}

// top is the k best unit ids for the query.
func (c *corpus) top(query map[string]float64, k int) []string {
	var out []string
	for _, s := range c.bm.top(query, k) {
		out = append(out, c.units[s.doc].ID)
	}
	return out
}

// BM25Units ranks every code unit of ix against the issue text with plain
// BM25 (the same tokens, stemming and unit documents the heuristic
// localizer uses) and returns the k best unit ids, best first. It is the
// baseline the heuristic localizer is measured against.
func BM25Units(ix *index.Index, issue string, k int) []string {
	c := newCorpus(ix)
	return c.top(queryBag(identTokens(issue)), k)
}

// fileScores is BM25 of whole files (path weighted up) against the query,
// normalised so the best file scores 1. It is built on first use.
func (c *corpus) fileScores(query map[string]float64) map[string]float64 {
	c.fileOnce.Do(func() {
		src := newCorpusSources(c.ix)
		c.fileBM, c.filePaths = src.fileDocs()
		src.terms.forgetWords()
	})
	return normalised(c.fileBM.scores(query), func(d int) string { return c.filePaths[d] })
}
