package localize

import (
	"context"
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/index/search"
)

// Budgets of the filter stages.
const (
	stageIterations = 4     // one answer plus repairs
	maxShortlist    = 10    // locations kept from stage 1
	maxRanked       = 10    // files and functions kept from stage 2
	fullCodeBudget  = 48000 // bytes of full code shown in stage 2
	maxUnitLines    = 200   // lines of one unit shown in stage 2
)

// ShortlistArgs are the stage-1 tool's parameters.
type ShortlistArgs struct {
	Locations []string `json:"locations" description:"Unit ids (path:Qualified.name) or file paths, most likely to need editing first, at most 10."`
	Reasons   []string `json:"reasons,omitempty" description:"One short reason per location, in the same order."`
}

// RankArgs are the stage-2 tool's parameters.
type RankArgs struct {
	Files     []string `json:"files" description:"Files to edit, best first."`
	Functions []string `json:"functions" description:"Functions, methods or classes to edit as ids path:Qualified.name, best first."`
}

// filter runs the two stages after the search. A stage that does not
// answer falls back: no shortlist ranks the visited units by visit order;
// no ranking keeps the shortlist's order.
func (a *agent) filter(ctx context.Context, loc *Locations) error {
	short, reasons, st, err := a.shortlist(ctx)
	if err != nil || st != tool.Submitted {
		a.fallback(loc, fmt.Sprintf("shortlist %s: ranked the visited units by visit order", stageStatus(st, err)))
		return err
	}
	loc.Shortlist, loc.Reasons = short, reasons
	a.emit(event.Event{Type: event.Shortlist, Ranking: a.asRanking(short, reasons)})
	files, funcs, st, err := a.rank(ctx, short)
	if err != nil || st != tool.Submitted {
		r := a.asRanking(short, nil)
		loc.Files, loc.Functions = r.Files, r.Functions
		loc.Status += fmt.Sprintf("; rank %s: kept the shortlist order", stageStatus(st, err))
		return err
	}
	loc.Files, loc.Functions = files, funcs
	return nil
}

func stageStatus(st tool.Status, err error) string {
	if err != nil {
		return "failed (" + err.Error() + ")"
	}
	return "ended " + string(st)
}

func (a *agent) shortlist(ctx context.Context) (ids, reasons []string, st tool.Status, err error) {
	reg := tool.NewRegistry(tool.New(ToolShortlist,
		"Stage 1: shortlist the locations most likely to need editing, from the previews you saw.",
		func(_ context.Context, p ShortlistArgs) (tool.Output, error) {
			keep, why, bad := a.checkLocations(p.Locations, p.Reasons)
			if len(keep) == 0 {
				return tool.Output{Failed: true, Text: "None of these is a unit id or file of this repository: " +
					strings.Join(bad, ", ") + ". Use ids exactly as the tools showed them (path:Qualified.name) or file paths."}, nil
			}
			ids, reasons = keep, why
			text := fmt.Sprintf("Shortlisted %d locations.", len(keep))
			if len(bad) > 0 {
				text += " Dropped unknown ids: " + strings.Join(bad, ", ") + "."
			}
			return tool.Output{Text: text, Stop: true}, nil
		}))
	res, err := a.stage(ctx, reg, shortlistMessage(a.seen()))
	return ids, reasons, res.Status, err
}

func (a *agent) rank(ctx context.Context, short []string) (files, funcs []string, st tool.Status, err error) {
	reg := tool.NewRegistry(tool.New(ToolRankLocations,
		"Stage 2: the final ranking of files and functions to edit, best first.",
		func(_ context.Context, p RankArgs) (tool.Output, error) {
			fs, us, bad := a.checkRanking(p.Files, p.Functions)
			if len(fs) == 0 && len(us) == 0 {
				return tool.Output{Failed: true, Text: "Nothing in this ranking is a file or unit id of this repository: " +
					strings.Join(bad, ", ") + ". Use paths and ids exactly as shown."}, nil
			}
			files, funcs = fs, us
			text := fmt.Sprintf("Ranked %d files and %d functions.", len(fs), len(us))
			if len(bad) > 0 {
				text += " Dropped unknown: " + strings.Join(bad, ", ") + "."
			}
			return tool.Output{Text: text, Stop: true}, nil
		}))
	res, err := a.stage(ctx, reg, rankMessage(a.fullCode(short)))
	return files, funcs, res.Status, err
}

// stage continues the conversation with a user turn and a new tool set.
func (a *agent) stage(ctx context.Context, reg *tool.Registry, prompt string) (tool.Result, error) {
	msgs := append(append([]llm.Message(nil), a.msgs...), llm.Message{Role: llm.User, Content: prompt})
	loop := tool.NewLoop(a.loopConfig(reg, stageIterations, ""), msgs...)
	res, err := loop.Run(ctx)
	a.msgs = loop.Messages
	return res, err
}

// checkLocations keeps the known unit ids and files, without repeats.
func (a *agent) checkLocations(locs, reasons []string) (keep, why, bad []string) {
	seen := map[string]bool{}
	for i, l := range locs {
		id, ok := a.resolve(l)
		if !ok {
			bad = append(bad, l)
			continue
		}
		if seen[id] || len(keep) >= maxShortlist {
			continue
		}
		seen[id] = true
		keep = append(keep, id)
		r := ""
		if i < len(reasons) {
			r = reasons[i]
		}
		why = append(why, r)
	}
	return keep, why, bad
}

// checkRanking keeps known files and units; files of ranked functions the
// model left out of files are appended, so the file list is never poorer
// than the function list.
func (a *agent) checkRanking(files, funcs []string) (fs, us, bad []string) {
	seenF, seenU := map[string]bool{}, map[string]bool{}
	addFile := func(p string) {
		if !seenF[p] && len(fs) < maxRanked {
			seenF[p] = true
			fs = append(fs, p)
		}
	}
	for _, f := range files {
		id, ok := a.resolve(f)
		if !ok {
			bad = append(bad, f)
			continue
		}
		addFile(a.fileOf(id))
	}
	for _, f := range funcs {
		id, ok := a.resolve(f)
		if !ok || a.isFile(id) {
			bad = append(bad, f)
			continue
		}
		if !seenU[id] && len(us) < maxRanked {
			seenU[id] = true
			us = append(us, id)
		}
	}
	for _, id := range us {
		addFile(a.fileOf(id))
	}
	return fs, us, bad
}

// resolve accepts a unit id or file path as written, or with "./" or
// stray spaces and backticks.
func (a *agent) resolve(s string) (string, bool) {
	s = strings.Trim(strings.TrimSpace(s), "`'\"")
	s = strings.TrimPrefix(s, "./")
	if _, ok := a.cfg.Index.Unit(s); ok {
		return s, true
	}
	if _, ok := a.cfg.Index.File(s); ok {
		return s, true
	}
	return "", false
}

func (a *agent) isFile(id string) bool { _, ok := a.cfg.Index.File(id); return ok }

func (a *agent) fileOf(id string) string {
	if u, ok := a.cfg.Index.Unit(id); ok {
		return u.Path
	}
	return id
}

// asRanking splits locations into files and unit ids, in order.
func (a *agent) asRanking(locs, reasons []string) *event.Ranking {
	r := &event.Ranking{Files: []string{}, Functions: []string{}, Reasons: reasons}
	seen := map[string]bool{}
	for _, id := range locs {
		if !a.isFile(id) {
			r.Functions = append(r.Functions, id)
		}
		if f := a.fileOf(id); !seen[f] {
			seen[f] = true
			r.Files = append(r.Files, f)
		}
	}
	return r
}

// fallback ranks every unit and file the search saw, in the order it saw
// them, preferring units the agent opened over hits it only listed.
func (a *agent) fallback(loc *Locations, note string) {
	var opened, listed []string
	for _, n := range a.tree.nodes {
		if n.Parent != "" || n.Kind == string(search.KindFile) {
			opened = append(opened, n.ID)
		} else {
			listed = append(listed, n.ID)
		}
	}
	r := a.asRanking(append(opened, listed...), nil)
	loc.Files, loc.Functions = capList(r.Files), capList(r.Functions)
	loc.Status += "; " + note
}

func capList(xs []string) []string {
	if len(xs) > maxRanked {
		return xs[:maxRanked]
	}
	return xs
}

// seen lists the tree's nodes for the stage-1 reminder.
func (a *agent) seen() []string {
	out := make([]string, 0, len(a.tree.nodes))
	for _, n := range a.tree.nodes {
		out = append(out, fmt.Sprintf("%s (%s)", n.ID, n.Kind))
	}
	return out
}

// fullCode is the deferred full-code load: each shortlisted unit's source
// (files: their skeleton), within the stage-2 budget.
func (a *agent) fullCode(ids []string) string {
	var b strings.Builder
	for _, id := range ids {
		var body string
		if a.isFile(id) {
			body = a.cfg.Searcher.Skeleton(id)
		} else {
			code, err := a.cfg.Searcher.FullCode(id)
			if err != nil {
				body = err.Error()
			} else {
				body = capLines(code, maxUnitLines)
			}
		}
		block := fmt.Sprintf("### %s\n```\n%s\n```\n\n", id, strings.TrimRight(body, "\n"))
		if b.Len()+len(block) > a.fullCodeBudget() {
			fmt.Fprintf(&b, "### %s\n(not shown: the full-code budget is spent)\n\n", id)
			continue
		}
		b.WriteString(block)
	}
	return b.String()
}

// fullCodeBudget is the bytes of full code stage 2 shows: fullCodeBudget,
// or a quarter of a smaller model's window (at four bytes a token), so the
// code leaves room for the conversation it joins.
func (a *agent) fullCodeBudget() int {
	if w := llm.WindowOf(a.cfg.Model); w > 0 {
		return min(fullCodeBudget, max(w, 4000))
	}
	return fullCodeBudget
}

func capLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("... %d more lines\n", len(lines)-n)
}
