package heuristic

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// Search budgets of the heuristic.
const (
	maxEntryCalls  = 8    // entry-point searches in the first turn
	maxBM25Roots   = 3    // pattern-search roots from BM25 when names are few
	maxFileHits    = 3    // a file name matching more files is too vague
	maxDefHits     = 4    // likewise a definition name
	maxDepth       = 4    // deepest child followed
	maxBranch      = 2    // children tried below one unit before backtracking
	maxRootsTried  = 8    // roots explored depth-first
	childThreshold = 0.25 // a child scoring less is not worth opening
)

// hstate is the heuristic's memory of one localization.
type hstate struct {
	h       *Heuristic
	issue   string
	entries []EntryPoint
	query   map[string]float64 // the issue's token bag, see issueQuery
	rel     map[string]float64 // unit id -> BM25 against the issue, best = 1
	budget  int
	turns   int
	callN   int

	seen    map[string]*seenUnit // units and files the tools showed
	order   []string             // ids in the order seen
	roots   []string             // entry-point hits, best first once ranked
	stack   []string             // current DFS path
	tried   map[string]int       // children opened below a node
	rooted  map[string]bool      // roots explored
	walked  map[string]bool      // units pushed on the DFS path at some point
	done    bool                 // finish_search sent
	pri     *priors              // which files are library code, and what the issue is about
	lex     []string             // plain BM25's best units, see lexical
	callees map[string]bool      // units called by units the issue names, see calleeIDs
	hist    *histEvidence        // what the repository's history says; nil without one

	// The engineer's steering, from their notes: units not to follow or
	// rank, and units to rank first.
	pruned    map[string]bool
	preferred []string
	notesRead int
}

// seenUnit is what the heuristic knows of a unit or file it was shown.
type seenUnit struct {
	id      string
	file    bool
	entry   float64 // strength of the entry point whose search found it
	via     string  // that entry point, or the parent it was opened from
	depth   int
	opened  bool    // shown as a search hit or opened as a child (not only listed)
	raises  bool    // holds the text of an error message the issue quotes
	command float64 // implements a command the issue runs: that entry point's strength
}

func newHState(ctx context.Context, h *Heuristic, issue string, budget int) *hstate {
	entries := ExtractEntryPoints(issue)
	entries = dropForeignCommands(h.s, entries)
	entries, local := dropLocal(h.s, entries)
	query := issueQuery(issue, entries)
	for _, name := range local {
		delete(query, strings.ToLower(name))
	}
	pri := newPriors(h.ix, h.layout())
	pri.learnAbout(entries, issue[:titleEnd(issue)])
	st := &hstate{
		h: h, issue: issue, entries: entries, budget: budget, query: query, rel: h.corpus.scoresFor(query), pri: pri,
		seen: map[string]*seenUnit{}, tried: map[string]int{}, rooted: map[string]bool{}, walked: map[string]bool{},
	}
	if !h.p.usesHistory() {
		return st
	}
	if m := h.historyModel(ctx); m != nil {
		st.hist = m.evidence(query, pri.library)
	}
	return st
}

// dropLocal leaves out the names the issue's own code defines and the
// repository does not: searching a reproduction script's class finds
// nothing, or worse, something else of the same name.
func dropLocal(s *search.Searcher, entries []EntryPoint) (kept []EntryPoint, local []string) {
	for _, e := range entries {
		if e.Local {
			r := s.FindCodeDef(search.FindCodeDefArgs{DefinitionName: e.Text})
			if r.Mode != search.ModeExact || len(r.Hits) == 0 {
				local = append(local, e.Text)
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept, local
}

// dropForeignCommands leaves out the words and output of shell lines that
// run another program than the repository's own: "$ make html" and what
// it prints say nothing of where the fix lives.
func dropForeignCommands(s *search.Searcher, entries []EntryPoint) []EntryPoint {
	own := map[string]bool{} // each program looked up once: a log has many lines
	isOwn := func(p string) bool {
		v, ok := own[p]
		if !ok {
			v = ownProgram(s, p)
			own[p] = v
		}
		return v
	}
	var kept []EntryPoint
	for _, e := range entries {
		if (e.Kind == EntryCommand || e.Kind == EntryOutput) && !slices.ContainsFunc(e.Programs, isOwn) {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// ownProgram reports whether the repository holds the program a shell
// line runs: a top-level Python package or module of its name (in the
// repository's root or its src folder), a Go command (cmd/<name>), or a
// Node package's executable (bin/<name>.js). A module deeper down that
// shares the name ("python.py" in a test runner) is not the program.
func ownProgram(s *search.Searcher, prog string) bool {
	if prog == interpreter {
		return true
	}
	if strings.ContainsAny(prog, "/\\") || strings.HasPrefix(prog, ".") {
		return false
	}
	var files []string
	if mod := strings.ReplaceAll(prog, "-", "_"); reIdent.MatchString(mod) {
		files = append(files, mod+"/__init__.py", mod+".py")
	}
	files = append(files, "cmd/"+prog+"/main.go")
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts"} {
		files = append(files, "bin/"+prog+ext)
	}
	for _, f := range files {
		r := s.FindFile(search.FindFileArgs{FileName: f})
		for _, hit := range r.Hits {
			if hit.Path == f || hit.Path == "src/"+f {
				return true
			}
		}
	}
	return false
}

// issueQuery is the issue's token bag, with the names of strong entry
// points counted again so the code the issue names outweighs its prose.
func issueQuery(issue string, entries []EntryPoint) map[string]float64 {
	q := issueBag(issue)
	for _, e := range entries {
		if e.Weight < kindWeight[EntryCode] {
			continue
		}
		for _, t := range identTokens(e.Text) {
			q[t] += 0.5
		}
	}
	return q
}

// searchTurn is the next step of the search phase.
func (st *hstate) searchTurn() llm.Message {
	st.turns++
	if st.turns == 1 {
		if m, ok := st.entryTurn(); ok {
			return m
		}
	}
	if st.turns < st.budget {
		if m, ok := st.dfsStep(); ok {
			return m
		}
	}
	st.done = true
	return llm.Message{Role: llm.Assistant, Content: "Enough context gathered; finishing the search.",
		ToolCalls: []llm.ToolCall{st.call(search.FinishSearch.Name, search.FinishSearchArgs{})}}
}

// entryTurn searches the issue's entry points at once, keeping only the
// searches that find something specific, then BM25's best units as
// pattern-search roots.
func (st *hstate) entryTurn() (llm.Message, bool) {
	var calls []llm.ToolCall
	var names []string
	for _, e := range st.entries {
		if len(calls) >= maxEntryCalls {
			break
		}
		if c, ok := st.entrySearch(e); ok {
			calls = append(calls, c)
			names = append(names, "`"+e.Text+"`")
		}
		if e.Kind == EntryCommand {
			if c, ok := st.handlerSearch(e); ok {
				calls = append(calls, c)
			}
		}
		if e.Kind == EntryFile && e.Line > 0 && e.Frame == 0 {
			if c, ok := st.lineSearch(e); ok {
				calls = append(calls, c)
			}
		}
	}
	extra := 0
	for _, id := range st.h.corpus.top(st.query, 10) {
		if extra >= maxBM25Roots {
			break
		}
		if _, ok := st.seen[id]; ok || isTestFile(id) || strings.Contains(id, ":<chunk") {
			continue
		}
		r := st.h.s.FindCodeDef(search.FindCodeDefArgs{DefinitionName: id})
		if len(r.Hits) == 0 {
			continue
		}
		st.addHits(r, 0, "bm25")
		calls = append(calls, st.call(search.FindCodeDef.Name, search.FindCodeDefArgs{DefinitionName: id}))
		extra++
	}
	if len(calls) == 0 {
		return llm.Message{}, false
	}
	st.rankRoots()
	text := fmt.Sprintf("Entry points from the issue: %s. Searching them, plus %d units whose text best matches the issue.",
		shortList(names, 8), extra)
	switch {
	case extra == 0:
		text = fmt.Sprintf("Entry points from the issue: %s. Searching them.", shortList(names, 8))
	case len(names) == 0:
		text = fmt.Sprintf("The issue names no code exactly; searching the %d units whose text best matches it.", extra)
	}
	return llm.Message{Role: llm.Assistant, Content: text, ToolCalls: calls}, true
}

// entrySearch chooses the search for one entry point and runs it ahead,
// so only searches that find something are sent.
func (st *hstate) entrySearch(e EntryPoint) (llm.ToolCall, bool) {
	s := st.h.s
	kind := e.Kind
	if kind == EntryTestName && looksLikeFile(e.Text) {
		kind = EntryFile
	}
	switch kind {
	case EntryFile:
		a := search.FindFileArgs{FileName: e.Text}
		r := s.FindFile(a)
		if len(r.Hits) == 0 || len(r.Hits) > maxFileHits || !pathsEnd(r, e.Text) {
			_, q, ok := st.resolveFile(e.Text)
			if !ok {
				return llm.ToolCall{}, false
			}
			a.FileName = q
			r = s.FindFile(a)
		}
		if !st.novel(r) {
			return llm.ToolCall{}, false
		}
		st.addHits(r, e.Weight, e.Text)
		return st.call(search.FindFile.Name, a), true
	case EntryDotted:
		if c, ok := st.defSearch(search.FindCodeDefArgs{DefinitionName: e.Text}, e); ok {
			return c, true
		}
		if c, ok := st.moduleSearch(e); ok {
			return c, true
		}
		last := e.Text[strings.LastIndex(e.Text, ".")+1:]
		return st.defSearch(search.FindCodeDefArgs{DefinitionName: last}, e)
	}
	if e.Kind == EntryMessage {
		return st.messageSearch(e)
	}
	if e.Kind == EntryCommand {
		return st.commandSearch(e)
	}
	if e.Kind == EntryOutput {
		if len(e.Cells) > 0 {
			return st.headerSearch(e)
		}
		return st.messageSearch(e)
	}
	a := search.FindCodeDefArgs{DefinitionName: e.Text}
	if e.Kind == EntryTraceback {
		if f, _, ok := st.resolveFile(e.File); ok {
			a.FilePath = f
		}
	}
	if c, ok := st.defSearch(a, e); ok {
		return c, true
	}
	if e.Kind != EntryTraceback && e.Kind != EntryTestName {
		ca := search.FindCodeContentArgs{Content: e.Text}
		if r := s.FindCodeContent(ca); len(r.Hits) > 0 && len(r.Hits) <= maxDefHits && st.novel(r) {
			st.addHits(r, e.Weight*0.6, e.Text)
			return st.call(search.FindCodeContent.Name, ca), true
		}
	}
	return llm.ToolCall{}, false
}

func (st *hstate) defSearch(a search.FindCodeDefArgs, e EntryPoint) (llm.ToolCall, bool) {
	r := st.h.s.FindCodeDef(a)
	if r.Mode != search.ModeExact || len(r.Hits) == 0 || len(r.Hits) > maxDefHits || !st.novel(r) {
		return llm.ToolCall{}, false
	}
	st.addHits(r, e.Weight, e.Text)
	return st.call(search.FindCodeDef.Name, a), true
}

// moduleSearch maps a dotted module path to its file: the longest
// prefix of at least two names that is a module (a.b.c → a/b/c.py or
// a/b/c/__init__.py, anywhere below the root), then what follows it as a
// definition in that file.
func (st *hstate) moduleSearch(e EntryPoint) (llm.ToolCall, bool) {
	parts := strings.Split(e.Text, ".")
	for i := len(parts); i >= 2; i-- {
		mod := strings.Join(parts[:i], "/")
		for _, name := range []string{mod + ".py", mod + "/__init__.py"} {
			a := search.FindFileArgs{FileName: name}
			r := st.h.s.FindFile(a)
			if len(r.Hits) != 1 || !pathsEnd(r, name) {
				continue
			}
			if i < len(parts) {
				da := search.FindCodeDefArgs{DefinitionName: strings.Join(parts[i:], "."), FilePath: r.Hits[0].Path}
				if c, ok := st.defSearch(da, e); ok {
					return c, true
				}
			}
			if !st.novel(r) {
				return llm.ToolCall{}, false
			}
			st.addHits(r, e.Weight, e.Text)
			return st.call(search.FindFile.Name, a), true
		}
	}
	return llm.ToolCall{}, false
}

// messageSearch finds the code holding an error message's text.
func (st *hstate) messageSearch(e EntryPoint) (llm.ToolCall, bool) {
	a := search.FindCodeContentArgs{Content: e.Text}
	r := st.h.s.FindCodeContent(a)
	if len(r.Hits) == 0 || len(r.Hits) > maxDefHits {
		return llm.ToolCall{}, false
	}
	return st.quotedHits(r, e, search.FindCodeContent.Name, a)
}

// quotedHits records the units holding text the issue quotes (a message,
// a printed line): as roots when the search shows something new, and as
// holding the text even when another search showed them first. The
// search is sent only when it shows something new.
func (st *hstate) quotedHits(r search.Result, e EntryPoint, tool string, args any) (llm.ToolCall, bool) {
	novel := st.novel(r)
	if novel {
		st.addHits(r, e.Weight, e.Text)
	}
	for _, hit := range r.Hits {
		if su, ok := st.seen[hit.UnitID]; ok && !isTestFile(hit.Path) {
			su.raises = true
		}
	}
	if !novel {
		return llm.ToolCall{}, false
	}
	return st.call(tool, args), true
}

// commandSearch finds the code that implements a subcommand of the
// repository's own program: the library units holding its name as a
// string literal (where a command-line parser registers it), else a
// definition of its name.
func (st *hstate) commandSearch(e EntryPoint) (llm.ToolCall, bool) {
	for _, q := range quotedForms(e.Text) {
		a := search.FindCodeContentArgs{Content: q}
		r := st.h.s.FindCodeContent(a)
		var lib []search.Hit
		for _, hit := range r.Hits {
			if hit.UnitID != "" && st.pri.library(hit.Path) {
				lib = append(lib, hit)
			}
		}
		if len(lib) == 0 || len(lib) > maxDefHits {
			continue
		}
		r.Hits = lib
		if !st.novel(r) {
			return llm.ToolCall{}, false
		}
		st.addHits(r, e.Weight, e.Text)
		for _, hit := range lib {
			st.seen[hit.UnitID].command = max(st.seen[hit.UnitID].command, e.Weight)
		}
		return st.call(search.FindCodeContent.Name, a), true
	}
	a := search.FindCodeDefArgs{DefinitionName: strings.ReplaceAll(e.Text, "-", "_")}
	return st.defSearch(a, e)
}

// handlerSearch opens the functions that handle a subcommand when the
// code registering it hands it on: "show" registered in main and run by
// show_command beside it. They are named after the command and live in
// the file that registers it.
func (st *hstate) handlerSearch(e EntryPoint) (llm.ToolCall, bool) {
	words := identTokens(e.Text)
	var ids []string
	for _, id := range st.order {
		su := st.seen[id]
		if su.file || su.command == 0 {
			continue
		}
		p, _ := splitUnitID(id)
		f, ok := st.h.ix.File(p)
		if !ok {
			continue
		}
		for _, uid := range f.Units {
			u, ok := st.h.ix.Unit(uid)
			if ok && uid != id && u.Kind != index.KindChunk && u.Kind != index.KindClass && namedAfter(u.Name, words) && !slices.Contains(ids, uid) {
				ids = append(ids, uid)
			}
		}
	}
	if len(ids) != 1 {
		return llm.ToolCall{}, false // none, or no telling which
	}
	a := search.FindCodeDefArgs{DefinitionName: ids[0]}
	r := st.h.s.FindCodeDef(a)
	if len(r.Hits) == 0 || !st.novel(r) {
		return llm.ToolCall{}, false
	}
	st.addHits(r, e.Weight, e.Text)
	st.seen[ids[0]].command = e.Weight
	return st.call(search.FindCodeDef.Name, a), true
}

// namedAfter reports whether a name holds every word of a command.
func namedAfter(name string, words []string) bool {
	toks := identTokens(name)
	for _, w := range words {
		if !slices.Contains(toks, w) {
			return false
		}
	}
	return len(words) > 0
}

// headerSearch finds the library code that prints a table header: the
// units holding the rarest column name as a string literal, kept when
// they hold the others too (all but one, for a header the issue wishes
// for rather than shows).
func (st *hstate) headerSearch(e EntryPoint) (llm.ToolCall, bool) {
	var (
		a     search.FindCodeContentArgs
		r     search.Result
		total = -1
	)
	for _, cell := range e.Cells {
		for _, q := range quotedForms(cell) {
			qa := search.FindCodeContentArgs{Content: q}
			qr := st.h.s.FindCodeContent(qa)
			if n := len(qr.Hits) + qr.More; n > 0 && (total < 0 || n < total) {
				a, r, total = qa, qr, n
			}
		}
	}
	need := max(len(e.Cells)-1, 3)
	var kept []search.Hit
	for _, hit := range r.Hits {
		if hit.UnitID != "" && st.pri.library(hit.Path) && st.cellsIn(hit.UnitID, e.Cells) >= need {
			kept = append(kept, hit)
		}
	}
	r.Hits = kept
	if len(kept) == 0 || len(kept) > maxDefHits {
		return llm.ToolCall{}, false
	}
	return st.quotedHits(r, e, search.FindCodeContent.Name, a)
}

// cellsIn counts the cells a unit holds as string literals.
func (st *hstate) cellsIn(id string, cells []string) int {
	u, ok := st.h.ix.Unit(id)
	if !ok {
		return 0
	}
	n := 0
	for _, cell := range cells {
		for _, q := range quotedForms(cell) {
			a := search.FindCodeContentArgs{Content: q, FilePath: u.Path, StartLine: u.Start, EndLine: u.End}
			if len(st.h.s.FindCodeContent(a).Hits) > 0 {
				n++
				break
			}
		}
	}
	return n
}

func quotedForms(s string) []string { return []string{`"` + s + `"`, `'` + s + `'`} }

// lineSearch opens the unit at a file and line the issue points to.
func (st *hstate) lineSearch(e EntryPoint) (llm.ToolCall, bool) {
	path, _, ok := st.resolveFile(e.File)
	if !ok {
		return llm.ToolCall{}, false
	}
	id := st.unitAt(path, e.Line)
	if id == "" {
		return llm.ToolCall{}, false
	}
	a := search.FindCodeDefArgs{DefinitionName: id}
	res := st.h.s.FindCodeDef(a)
	if len(res.Hits) == 0 || !st.novel(res) {
		return llm.ToolCall{}, false
	}
	st.addHits(res, e.Weight, e.Text)
	return st.call(search.FindCodeDef.Name, a), true
}

// unitAt is the innermost function, method or class holding a line.
func (st *hstate) unitAt(path string, line int) string {
	f, ok := st.h.ix.File(path)
	if !ok {
		return ""
	}
	best, span := "", 0
	for _, id := range f.Units {
		u, ok := st.h.ix.Unit(id)
		if !ok || u.Kind == index.KindChunk || line < u.Start || line > u.End {
			continue
		}
		if best == "" || u.End-u.Start < span {
			best, span = id, u.End-u.Start
		}
	}
	return best
}

// resolveFile finds the one indexed file a path written in the issue
// means: the path as written, else its trailing segments, longest first
// (an absolute path from the reporter's machine ends in a repository
// path). It returns the path, the find_file query that finds it, and
// whether exactly one file matched.
func (st *hstate) resolveFile(p string) (path, query string, ok bool) {
	segs := strings.Split(strings.Trim(strings.ReplaceAll(p, `\`, "/"), "/"), "/")
	for i := 0; i < len(segs); i++ {
		q := strings.Join(segs[i:], "/")
		r := st.h.s.FindFile(search.FindFileArgs{FileName: q})
		if !pathsEnd(r, q) {
			continue
		}
		switch len(r.Hits) {
		case 0:
			continue
		case 1:
			return r.Hits[0].Path, q, true
		}
		return "", "", false // shorter suffixes are only more ambiguous
	}
	return "", "", false
}

func frameSuffix(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	segs := strings.Split(p, "/")
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	return strings.Join(segs, "/")
}

// pathsEnd reports whether every hit's path ends with the name searched,
// so a fuzzy suggestion is not taken for the file the issue names.
func pathsEnd(r search.Result, name string) bool {
	name = strings.TrimPrefix(name, "./")
	for _, hit := range r.Hits {
		if hit.Path != name && !strings.HasSuffix(hit.Path, "/"+name) {
			return false
		}
	}
	return true
}

// novel reports whether a search shows anything not seen yet; a search
// that only repeats what earlier ones found is not worth a call.
func (st *hstate) novel(r search.Result) bool {
	for _, hit := range r.Hits {
		id := hit.UnitID
		if id == "" {
			id = hit.Path
		}
		if _, ok := st.seen[id]; !ok {
			return true
		}
	}
	return false
}

// addHits records a search's hits as roots.
func (st *hstate) addHits(r search.Result, strength float64, via string) {
	for _, hit := range r.Hits {
		id, file := hit.UnitID, false
		if id == "" {
			id, file = hit.Path, true
		}
		su := st.note(id, file)
		su.opened = true
		if strength > su.entry {
			su.entry, su.via = strength, via
		}
		if !slices.Contains(st.roots, id) {
			st.roots = append(st.roots, id)
		}
	}
}

// note returns what is known of a unit or file, entering it if new.
func (st *hstate) note(id string, file bool) *seenUnit {
	su, ok := st.seen[id]
	if !ok {
		su = &seenUnit{id: id, file: file}
		st.seen[id] = su
		st.order = append(st.order, id)
	}
	return su
}

// rankRoots orders the roots by how promising they are to explore.
func (st *hstate) rankRoots() {
	score := func(id string) float64 {
		su := st.seen[id]
		s := st.rel[id] + su.entry/3
		if su.file {
			s = su.entry/3 + st.bestChildScore(id)
		}
		if isTestFile(id) {
			s *= 0.3
		}
		return s
	}
	sort.SliceStable(st.roots, func(i, j int) bool { return score(st.roots[i]) > score(st.roots[j]) })
}

// dfsStep opens the best unopened child below the current path, going
// deeper while children stay relevant, backtracking when they do not, and
// moving to the next root when a path is exhausted.
func (st *hstate) dfsStep() (llm.Message, bool) {
	for {
		if len(st.stack) == 0 && !st.pushRoot() {
			return llm.Message{}, false
		}
		top := st.stack[len(st.stack)-1]
		if st.pruned[top] {
			st.stack = st.stack[:len(st.stack)-1]
			continue
		}
		child, score := st.bestChild(top)
		if child == "" || st.tried[top] >= maxBranch || len(st.stack) > maxDepth {
			st.stack = st.stack[:len(st.stack)-1]
			continue
		}
		st.tried[top]++
		su := st.note(child, false)
		su.opened, su.via, su.depth = true, top, st.seen[top].depth+1
		st.walked[child] = true
		st.stack = append(st.stack, child)
		path, name := splitUnitID(child)
		text := fmt.Sprintf("Following %s from %s: it matches the issue best among its children (score %.2f).", child, top, score)
		return llm.Message{Role: llm.Assistant, Content: text, ToolCalls: []llm.ToolCall{
			st.call(search.FindChildUnit.Name, search.FindChildUnitArgs{DefinitionName: name, FilePath: path}),
		}}, true
	}
}

func (st *hstate) pushRoot() bool {
	tried := 0
	for _, id := range st.roots {
		if st.rooted[id] {
			tried++
			continue
		}
		if tried >= maxRootsTried {
			return false
		}
		st.rooted[id] = true
		if st.walked[id] || st.pruned[id] {
			continue
		}
		st.walked[id] = true
		st.stack = append(st.stack, id)
		return true
	}
	return false
}

// children of a unit or a file, as unit ids, without repeats.
func (st *hstate) children(id string) []string {
	if su, ok := st.seen[id]; ok && su.file {
		if f, ok := st.h.ix.File(id); ok {
			return f.Units
		}
		return nil
	}
	u, ok := st.h.ix.Unit(id)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range u.Children {
		if !slices.Contains(out, e.ID) {
			out = append(out, e.ID)
		}
	}
	return out
}

// bestChild is the unopened, non-test child that best matches the issue.
func (st *hstate) bestChild(id string) (string, float64) {
	best, bestScore := "", childThreshold
	for _, c := range st.children(id) {
		if st.walked[c] || st.pruned[c] {
			continue
		}
		if isTestFile(c) {
			continue
		}
		if s := st.childScore(c); s > bestScore {
			best, bestScore = c, s
		}
	}
	return best, bestScore
}

func (st *hstate) bestChildScore(id string) float64 {
	_, s := st.bestChild(id)
	return s
}

// childScore is how well a unit matches the issue: its BM25 score plus the
// strength of any entry point that names it.
func (st *hstate) childScore(id string) float64 {
	u, ok := st.h.ix.Unit(id)
	if !ok || u.Kind == index.KindChunk {
		return 0
	}
	return st.rel[id] + st.nameBonus(u)
}

func splitUnitID(id string) (string, string) {
	i := strings.LastIndex(id, ":")
	if i < 0 {
		return "", id
	}
	return id[:i], id[i+1:]
}

func isTestFile(id string) bool {
	p, _ := splitUnitID(id)
	if p == "" {
		p = id
	}
	return search.IsTestPath(p)
}

// notePrefix starts the user turn that carries an engineer's note (see
// the tool loop); steerWords are the notes the offline localizer obeys.
const notePrefix = "Note from the engineer watching this run: "

var steerWords = map[string]bool{"prune": true, "prefer": true}

// readNotes applies the engineer's steering notes it has not seen yet:
// "prune ID" stops the search from following ID and leaves it out of the
// ranking; "prefer ID" ranks ID first.
func (st *hstate) readNotes(msgs []llm.Message) {
	n := 0
	for _, m := range msgs {
		text, ok := strings.CutPrefix(m.Content, notePrefix)
		if m.Role != llm.User || !ok {
			continue
		}
		n++
		if n <= st.notesRead {
			continue
		}
		verb, id, _ := strings.Cut(strings.TrimSpace(text), " ")
		id = strings.TrimSpace(id)
		if !steerWords[verb] || id == "" {
			continue
		}
		if verb == "prune" {
			if st.pruned == nil {
				st.pruned = map[string]bool{}
			}
			st.pruned[id] = true
		} else if !slices.Contains(st.preferred, id) {
			st.preferred = append([]string{id}, st.preferred...)
		}
	}
	st.notesRead = max(st.notesRead, n)
}
