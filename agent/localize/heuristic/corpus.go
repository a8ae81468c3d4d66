package heuristic

import (
	"path"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index"
)

// corpus is the heuristic's view of the repository: BM25 over every code
// unit, where a unit's text is its name (weighted up), its module path and
// its own source lines.
type corpus struct {
	ix    *index.Index
	units []*index.Unit
	pos   map[string]int // unit id -> document number
	bm    *bm25
	lines map[string][]string // while building: a file's lines

	fileOnce  sync.Once
	fileBM    *bm25
	filePaths []string
}

// nameBoost repeats a unit's name tokens so a unit named like the issue's
// words outranks one that only mentions them.
const nameBoost = 3

func newCorpus(ix *index.Index) *corpus {
	units := ix.Units()
	c := &corpus{ix: ix, units: units, pos: make(map[string]int, len(units)), lines: map[string][]string{}}
	docs := make([][]string, len(units))
	memo := map[string][]string{}
	for i, u := range units {
		c.pos[u.ID] = i
		docs[i] = c.unitTokens(u, memo)
	}
	c.bm = newBM25(docs)
	c.lines = nil
	return c
}

func (c *corpus) unitTokens(u *index.Unit, memo map[string][]string) []string {
	var toks []string
	name := appendTokens(nil, u.QualName, memo)
	for range nameBoost {
		toks = append(toks, name...)
	}
	toks = appendTokens(toks, strings.TrimSuffix(u.Path, path.Ext(u.Path)), memo)
	return appendTokens(toks, c.ownText(u), memo)
}

// ownText is the unit's source without the bodies of nested units, so a
// class is not scored by its methods' text (they are documents of their own).
func (c *corpus) ownText(u *index.Unit) string {
	lines, ok := c.lines[u.Path]
	if !ok {
		src, err := c.ix.Source(u.Path)
		if err != nil {
			return u.Signature
		}
		lines = strings.Split(string(src), "\n")
		c.lines[u.Path] = lines
	}
	var nested [][2]int
	for _, e := range u.Children {
		if e.Rel != index.Contains {
			continue
		}
		if ch, ok := c.ix.Unit(e.ID); ok && ch.Path == u.Path {
			nested = append(nested, [2]int{ch.Start, ch.End})
		}
	}
	var b strings.Builder
	for l := max(u.Start, 1); l <= min(u.End, len(lines)); l++ {
		if inSpans(l, nested) {
			continue
		}
		b.WriteString(lines[l-1])
		b.WriteByte('\n')
	}
	return b.String()
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
		files := c.ix.Files()
		docs := make([][]string, len(files))
		memo := map[string][]string{}
		c.filePaths = make([]string, len(files))
		for i, f := range files {
			c.filePaths[i] = f.Path
			p := identTokens(strings.TrimSuffix(f.Path, path.Ext(f.Path)))
			for range nameBoost {
				docs[i] = append(docs[i], p...)
			}
			if src, err := c.ix.Source(f.Path); err == nil {
				docs[i] = appendTokens(docs[i], string(src), memo)
			}
		}
		c.fileBM = newBM25(docs)
	})
	return normalised(c.fileBM.scores(query), func(d int) string { return c.filePaths[d] })
}
