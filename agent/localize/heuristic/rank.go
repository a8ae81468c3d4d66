package heuristic

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
)

// Weights of the final ranking. BM25 against the issue carries most of it;
// being named by the issue, appearing in its traceback, and being reached
// along a followed path add to it.
const (
	wName         = 1.0 / 3 // times the naming entry point's weight
	wFrame        = 0.8     // divided by the frame number (innermost 1)
	wRaises       = 0.6     // holds the text of the error the issue quotes
	wFileText     = 0.3     // whole-file BM25, for the file ranking
	wOpened       = 0.15    // units the search opened rather than only listed
	wDepth        = 0.05    // per level below an entry point
	codeNameScale = 0.5     // a name used in a reproduction script, not written in prose
	classScale    = 0.8     // classes rank below the methods that do the work
	testScale     = 0.3     // tests rank below the code under test
	maxRanked     = 10
)

// candidate is a unit or file with its final score and why.
type candidate struct {
	id     string
	score  float64
	reason string
}

// nameBonus is the strength of the strongest entry point naming the unit:
// its name, qualified name, or a dotted path ending in it.
func (st *hstate) nameBonus(u *index.Unit) float64 {
	best := 0.0
	for _, e := range st.entries {
		if e.Kind == EntryFile {
			continue
		}
		t := e.Text
		if t == u.Name || t == u.QualName || strings.HasSuffix(t, "."+u.QualName) {
			w := e.Weight * wName
			if e.Kind == EntryCode {
				w *= codeNameScale
			}
			best = max(best, w)
		}
	}
	return best
}

// frameBonus rewards a unit the issue points into: a traceback frame
// names it (most for the frame that raised), or a file-and-line mention
// falls inside it.
func (st *hstate) frameBonus(u *index.Unit) float64 {
	best := 0.0
	for _, e := range st.entries {
		if e.Line == 0 || e.File == "" || !samePath(e.File, u.Path) {
			continue
		}
		named := e.Kind == EntryTraceback && e.Text == u.Name
		inside := e.Kind == EntryFile && e.Line >= u.Start && e.Line <= u.End
		if named || inside {
			best = max(best, wFrame/float64(max(e.Frame, 1)))
		}
	}
	return best
}

// samePath matches a path as the issue wrote it (absolute, installed,
// or relative to some folder) with a repository path.
func samePath(written, p string) bool {
	written = strings.ReplaceAll(written, `\`, "/")
	return written == p || strings.HasSuffix(written, "/"+p) || strings.HasSuffix(p, "/"+written) ||
		strings.HasSuffix(written, frameSuffix(p))
}

// fileBonus is the strength of a file entry point naming the path.
func (st *hstate) fileBonus(p string) float64 {
	best := 0.0
	for _, e := range st.entries {
		if e.Kind == EntryFile && (p == e.Text || strings.HasSuffix(p, "/"+e.Text) || strings.HasSuffix(e.Text, "/"+p)) {
			best = max(best, e.Weight*wName)
		}
	}
	return best
}

// candidates are every unit the search showed, scored. Units of files the
// search found count too: their skeletons listed them.
func (st *hstate) candidates() []candidate {
	ids := append(append([]string(nil), st.preferred...), st.order...)
	for _, id := range st.order {
		if su := st.seen[id]; su.file {
			if f, ok := st.h.ix.File(id); ok {
				ids = append(ids, f.Units...)
			}
		} else if su.opened {
			ids = append(ids, st.children(id)...)
		}
	}
	var out []candidate
	done := map[string]bool{}
	for _, id := range ids {
		if done[id] || st.pruned[id] {
			continue
		}
		done[id] = true
		u, ok := st.h.ix.Unit(id)
		if !ok || u.Kind == index.KindChunk {
			continue
		}
		out = append(out, st.score(u))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return st.preferFirst(out)
}

// preferFirst moves the units the engineer asked for to the top, in the
// order they asked.
func (st *hstate) preferFirst(cands []candidate) []candidate {
	if len(st.preferred) == 0 {
		return cands
	}
	var first, rest []candidate
	for _, id := range st.preferred {
		for _, c := range cands {
			if c.id == id {
				first = append(first, c)
			}
		}
	}
	for _, c := range cands {
		if !slices.Contains(st.preferred, c.id) {
			rest = append(rest, c)
		}
	}
	return append(first, rest...)
}

func (st *hstate) score(u *index.Unit) candidate {
	rel, name, frame := st.rel[u.ID], st.nameBonus(u), st.frameBonus(u)
	s := rel + name + frame
	var why []string
	why = append(why, fmt.Sprintf("matches the issue text (%.2f)", rel))
	if name > 0 {
		why = append(why, "named in the issue")
	}
	if frame > 0 {
		why = append(why, "in the traceback")
	}
	if su, ok := st.seen[u.ID]; ok && su.raises {
		s += wRaises
		why = append(why, "holds the error message")
	}
	if su, ok := st.seen[u.ID]; ok && su.opened {
		s += wOpened + wDepth*float64(su.depth)
		if su.depth > 0 {
			why = append(why, fmt.Sprintf("reached at depth %d", su.depth))
		}
	}
	if u.Kind == index.KindClass {
		s *= classScale
	}
	if isTestFile(u.Path) {
		s *= testScale
	}
	return candidate{id: u.ID, score: s, reason: strings.Join(why, ", ")}
}

// files ranks files by their best unit, plus a little for further good
// units and for being named by the issue.
func (st *hstate) files(cands []candidate) []candidate {
	best := map[string]float64{}
	rest := map[string]float64{}
	var order []string
	for _, c := range cands {
		p, _ := splitUnitID(c.id)
		if _, ok := best[p]; !ok {
			best[p] = c.score
			order = append(order, p)
			continue
		}
		rest[p] += c.score
	}
	for _, id := range st.order {
		if st.seen[id].file {
			if _, ok := best[id]; !ok {
				order = append(order, id)
			}
		}
	}
	out := make([]candidate, 0, len(order))
	fileRel := st.h.corpus.fileScores(st.query)
	for _, p := range order {
		s := best[p] + 0.1*min(rest[p], 2) + st.fileBonus(p) + wFileText*fileRel[p]
		if isTestFile(p) {
			s *= testScale
		}
		out = append(out, candidate{id: p, score: s})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// shortlistTurn answers stage 1 with the best units and files seen.
func (st *hstate) shortlistTurn() llm.Message {
	cands := st.candidates()
	var locs, reasons []string
	for _, c := range cands {
		if len(locs) >= maxRanked {
			break
		}
		locs = append(locs, c.id)
		reasons = append(reasons, c.reason)
	}
	if len(locs) == 0 {
		for _, f := range st.files(cands) {
			locs = append(locs, f.id)
			reasons = append(reasons, "file found by the search")
		}
	}
	return llm.Message{Role: llm.Assistant, Content: fmt.Sprintf("Shortlisting the %d locations that score best against the issue.", len(locs)),
		ToolCalls: []llm.ToolCall{st.call(hShortlist, map[string][]string{"locations": locs, "reasons": reasons})}}
}

// rankTurn answers stage 2 with the final files and functions.
func (st *hstate) rankTurn() llm.Message {
	cands := st.candidates()
	funcs := []string{}
	for _, c := range cands {
		if len(funcs) >= maxRanked {
			break
		}
		funcs = append(funcs, c.id)
	}
	files := []string{}
	for _, f := range st.files(cands) {
		if len(files) >= maxRanked {
			break
		}
		files = append(files, f.id)
	}
	return llm.Message{Role: llm.Assistant, Content: "Final ranking: best-scoring files and functions first.",
		ToolCalls: []llm.ToolCall{st.call(hRank, map[string][]string{"files": files, "functions": funcs})}}
}
