package heuristic

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
)

// maxRanked is how many files and functions the ranking names; lexPool
// how many of plain BM25's best units join the candidates, so the ranking
// is never empty and never blind to the words.
const (
	maxRanked = 10
	lexPool   = 30
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
		if e.Kind == EntryFile || looksLikeFile(e.Text) {
			continue
		}
		t := e.Text
		if t == u.Name || t == u.QualName || strings.HasSuffix(t, "."+u.QualName) {
			best = max(best, e.Weight*st.h.p.Name)
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
			best = max(best, st.h.p.Frame/float64(max(e.Frame, 1)))
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
		if (e.Kind == EntryFile || looksLikeFile(e.Text)) && (p == e.Text || strings.HasSuffix(p, "/"+e.Text) || strings.HasSuffix(e.Text, "/"+p)) {
			best = max(best, e.Weight*st.h.p.Name)
		}
	}
	return best
}

// candidates are every unit the search showed, scored, fused with plain
// BM25's best units. Units of files the search found count too: their
// skeletons listed them; so do the callees of units the issue names.
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
	ids = append(ids, st.calleeIDs()...)
	lex := st.lexical()
	ids = append(ids, lex...)
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
	// The units similar past changes touched lift the candidates the
	// search found, but bring in none of their own: on their own they
	// crowd out the search's functions.
	var past []string
	if st.hist != nil {
		past = st.hist.units[:min(len(st.hist.units), lexPool)]
	}
	out = fuseRanks(out, []fusedRank{{st.h.p.Lexical, lex, nil}, {st.h.p.History, past, st.pastWhy()}})
	return st.preferFirst(out)
}

// lexical is plain BM25's best units of library code, best first.
func (st *hstate) lexical() []string {
	if st.lex != nil {
		return st.lex
	}
	type scored struct {
		id string
		s  float64
	}
	var all, aside []scored
	for _, id := range st.h.corpus.top(st.query, 3*lexPool) {
		u, ok := st.h.ix.Unit(id)
		if !ok || u.Kind == index.KindChunk {
			continue
		}
		// Tests and docs join only when nothing else matches: their text
		// matches an issue best and their code is rarely what to fix.
		if k := st.pri.scale(u.Path, st.h.p); k < 1 {
			aside = append(aside, scored{id, st.rel[id] * k})
			continue
		}
		all = append(all, scored{id, st.rel[id]})
	}
	if len(all) == 0 {
		all = aside
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s > all[j].s })
	st.lex = []string{}
	for _, sc := range all[:min(len(all), lexPool)] {
		st.lex = append(st.lex, sc.id)
	}
	return st.lex
}

// fusedRank is a ranking fused into the candidates' scores, and what it
// is worth.
type fusedRank struct {
	weight float64
	ids    []string
	why    map[string]string // the reason a top place gives, by id
}

// fuseRanks adds each ranking's reciprocal rank to the candidates'
// scores: the search's evidence decides where it is strong, and the other
// rankings (the words, the repository's history) break its ties
// and fill its gaps. A weight is what a ranking's first place is worth, as
// a share of the best candidate's score; the candidates come sorted.
func fuseRanks(cands []candidate, ranks []fusedRank) []candidate {
	if len(cands) == 0 {
		return cands
	}
	top := cands[0].score
	fused := false
	for _, r := range ranks {
		if r.weight == 0 || len(r.ids) == 0 {
			continue
		}
		fused = true
		at := make(map[string]int, len(r.ids))
		for i, id := range r.ids {
			at[id] = i + 1
		}
		for i := range cands {
			if k, ok := at[cands[i].id]; ok {
				cands[i].score += top * r.weight * rrf(k)
				if why := r.why[cands[i].id]; why != "" && k <= 3 {
					cands[i].reason += ", " + why
				}
			}
		}
	}
	if fused {
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	}
	return cands
}

// rrf is the reciprocal rank of 1-based rank k, 1 for the first.
func rrf(k int) float64 { return float64(rrfK+1) / float64(rrfK+k) }

// calleeIDs are the units that the units the issue names call: a named
// function often delegates the faulty work.
func (st *hstate) calleeIDs() []string {
	if st.callees != nil {
		return keysOf(st.callees)
	}
	st.callees = map[string]bool{}
	for _, id := range st.order {
		u, ok := st.h.ix.Unit(id)
		if !ok || (st.nameBonus(u) == 0 && st.frameBonus(u) == 0) {
			continue
		}
		for _, e := range u.Children {
			if e.Rel == index.Invokes && e.ID != id {
				st.callees[e.ID] = true
			}
		}
	}
	return keysOf(st.callees)
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
	w := st.h.p
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
	su, seen := st.seen[u.ID]
	if seen && su.command > 0 {
		s += w.Name * su.command
		why = append(why, "implements a command the issue runs")
	}
	if seen && su.raises {
		s += w.Raises
		why = append(why, "holds the message the issue quotes")
	}
	if seen && su.opened {
		s += w.Opened + w.Depth*float64(su.depth)
		if su.depth > 0 {
			why = append(why, fmt.Sprintf("reached at depth %d", su.depth))
		}
	}
	if st.callees[u.ID] {
		s += w.Callee
		why = append(why, "called by a unit the issue names")
	}
	if u.Kind == index.KindClass {
		s *= w.Class
	}
	if k := st.pri.scale(u.Path, w); k != 1 {
		s *= k
	}
	return candidate{id: u.ID, score: s, reason: strings.Join(why, ", ")}
}

// files ranks files by their best unit, plus a little for further good
// units, for being named by the issue, for matching it as a whole and
// for a file name the issue uses as a word.
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
	if len(order) == 0 {
		order = st.fallbackFiles(st.h.corpus.fileScores(st.query))
	}
	w := st.h.p
	order = append(order, st.pastFiles()...)
	out := make([]candidate, 0, len(order))
	done := map[string]bool{}
	for _, p := range order {
		if done[p] {
			continue
		}
		done[p] = true
		s := best[p] + 0.1*min(rest[p], 2) + st.fileBonus(p) + w.PathWord*st.pathWord(p)
		out = append(out, candidate{id: p, score: s * st.pri.scale(p, w)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return st.fuseHistory(out)
}

// pastWhy names the past change that lifted a unit, for its reason.
func (st *hstate) pastWhy() map[string]string {
	if st.hist == nil {
		return nil
	}
	return st.hist.why
}

// pastFiles are the files the history ranks, so a file no search reached
// can still be ranked on its past.
func (st *hstate) pastFiles() []string {
	if st.hist == nil {
		return nil
	}
	var out []string
	w := st.h.p
	if w.History > 0 {
		out = append(out, st.hist.files[:min(len(st.hist.files), maxRanked)]...)
	}
	if w.Recent > 0 {
		out = append(out, st.hist.recent[:min(len(st.hist.recent), maxRanked)]...)
	}
	return out
}

// fuseHistory fuses the history's file rankings into the files' scores:
// the files that similar past changes touched, the files changed most
// lately, and the files that change together with the best few. Each is
// scaled by where the file sits, as the files' own scores are.
func (st *hstate) fuseHistory(files []candidate) []candidate {
	if st.hist == nil || len(files) == 0 {
		return files
	}
	w := st.h.p
	ranks := []fusedRank{{w.History, st.hist.files, nil}, {w.Recent, st.hist.recent, nil}}
	if w.CoChange > 0 {
		var strong []string
		for _, f := range files[:min(len(files), 3)] {
			strong = append(strong, f.id)
		}
		ranks = append(ranks, fusedRank{w.CoChange, st.hist.model.coChanged(strong), nil})
	}
	top := files[0].score
	at := make(map[string]int, len(files))
	for i, f := range files {
		at[f.id] = i
	}
	for _, r := range ranks {
		if r.weight == 0 {
			continue
		}
		for k, id := range r.ids {
			if i, ok := at[id]; ok {
				files[i].score += top * r.weight * rrf(k+1) * st.pri.scale(id, w)
			}
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].score > files[j].score })
	return files
}

// fallbackFiles are the files to rank when no unit is a candidate (a
// repository of chunks only): those matching the issue, else all of them.
func (st *hstate) fallbackFiles(fileRel map[string]float64) []string {
	var out []string
	for _, f := range st.h.ix.Files() {
		if fileRel[f.Path] > 0 || len(fileRel) == 0 {
			out = append(out, f.Path)
		}
	}
	return out
}

// pathWord is the share of a file name's words that the issue uses: an
// issue about CSV output is about csv.py rather than the generic writer.
func (st *hstate) pathWord(p string) float64 {
	stem := strings.TrimSuffix(path.Base(p), path.Ext(p))
	toks := identTokens(stem)
	if len(toks) == 0 || stem == "__init__" {
		return 0
	}
	hit := 0
	for _, t := range toks {
		if st.query[t] > 0 {
			hit++
		}
	}
	return float64(hit) / float64(len(toks))
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
