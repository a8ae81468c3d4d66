package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
)

// EditLocationsAction is the Approval action asking the engineer to keep or
// edit the ranked locations before resolution starts (ask mode only). Its
// Options are the locations, functions first; reply Approve to keep them,
// or Choose with Choice = the edited list, one per line.
const EditLocationsAction = "edit_locations"

// maxRefusals is how many rankings the engineer may refuse before the run
// stops and asks for locations given by hand.
const maxRefusals = 3

// settleLocations localizes and, in ask mode, puts the ranking to the
// engineer. A refused ranking goes back to the localizer with the reason;
// resolution never starts on one.
func (r *Run) settleLocations(ctx context.Context, st *state) error {
	for refusals := len(r.refusedLocs) + 1; ; refusals++ {
		if err := r.locate(ctx, st); err != nil {
			return err
		}
		reason, err := r.editLocations(ctx, st)
		if err != nil || reason == "" {
			return err
		}
		if r.opts.Locations != nil || refusals >= maxRefusals {
			return fmt.Errorf("the ranked locations were refused (%s); start again with --locations FILE naming where to work", reason)
		}
		r.refusedLocs = append(r.refusedLocs, refusedRanking{reason: reason, locs: append(append([]string{}, st.locs.Functions...), st.locs.Files...)})
		r.emit(event.Event{Type: event.Message, Agent: event.Runtime, Text: "locations refused: " + reason + "; localizing again with the reason"})
		st.locs = nil
	}
}

// refusedRanking is a ranking the engineer refused, and why.
type refusedRanking struct {
	reason string
	locs   []string
}

// locationNotes tells the localizer what the engineer refused and why.
func (r *Run) locationNotes() string {
	var b strings.Builder
	for _, rr := range r.refusedLocs {
		fmt.Fprintf(&b, "\n\nNote from the engineer: they refused an earlier ranking (%s) because: %s", strings.Join(rr.locs, ", "), rr.reason)
	}
	return b.String()
}

// editLocations puts the ranking to the engineer. It returns the reason
// when they refuse it.
func (r *Run) editLocations(ctx context.Context, st *state) (refused string, err error) {
	if r.mode != resolve.ModeAsk || r.opts.LocalizeOnly || (r.meta != nil && !r.reasking(st)) {
		return "", nil // nothing resolves from the ranking here, or it was settled before a resume
	}
	req := event.NewApproval("", EditLocationsAction, "ranked locations")
	req.Summary = "The resolution agent will start from these locations, best first. Keep them, or edit the list (one per line: path:Qualified.name for a function, a path for a file)."
	if r.meta != nil {
		req.Summary = "The run stopped before you approved a ranking, so resolution has not started. " + req.Summary
	}
	if n := len(r.refusedLocs); n > 0 {
		req.Summary = fmt.Sprintf("The localizer searched again after you refused its ranking (%q). %s", r.refusedLocs[n-1].reason, req.Summary)
	}
	req.SetCheck(func(loc string) error { return vetLocation(st.ws.Dir, st.ix, loc) })
	req.Options = append(append([]string{}, st.locs.Functions...), st.locs.Files...)
	rep, err := event.Ask(ctx, r.bus, event.Runtime, r.approver(), req)
	if err != nil {
		return "", fmt.Errorf("edit locations: %w", err)
	}
	switch rep.Decision {
	case event.Refuse:
		return nonEmpty(strings.TrimSpace(rep.Reason), "no reason given"), nil
	case event.Choose:
	default:
		return "", nil
	}
	files, funcs := ParseLocations(rep.Choice)
	files, funcs = r.checkLocations(st.ws.Dir, files, funcs)
	edited := *st.locs
	edited.Files, edited.Functions = files, funcs
	st.locs, st.locsEdited = &edited, true
	r.emit(event.Event{Type: event.Ranked, Agent: event.Localizer, Ranking: &event.Ranking{Files: files, Functions: funcs}})
	return "", st.locs.Save(filepath.Join(r.Dir, runfolder.LocationsFile))
}

// checkLocations keeps locations an engineer gave that name something in the
// workspace: a path that leaves it is dropped, one that does not exist is
// kept (it may be a file the fix creates) but said aloud.
func (r *Run) checkLocations(workdir string, files, funcs []string) ([]string, []string) {
	keep := func(loc string) bool {
		path, _, _ := strings.Cut(loc, ":")
		clean := filepath.Clean(filepath.FromSlash(path))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			r.emit(event.Event{Type: event.Message, Agent: event.Runtime, Text: fmt.Sprintf("location %q leaves the repository: dropped", loc)})
			return false
		}
		if _, err := os.Stat(filepath.Join(workdir, clean)); err != nil {
			r.emit(event.Event{Type: event.Message, Agent: event.Runtime, Text: fmt.Sprintf("location %q: no such file in the repository; kept as given", loc)})
		}
		return true
	}
	var kf, kfn []string
	for _, f := range files {
		if keep(f) {
			kf = append(kf, f)
		}
	}
	for _, f := range funcs {
		if keep(f) {
			kfn = append(kfn, f)
		}
	}
	return kf, kfn
}

// vetLocation is what a location the engineer adds in the dialog must be:
// inside the repository, naming a file that exists, and, when the index is
// at hand, a unit of that file. The error says which and why.
func vetLocation(workdir string, ix *index.Index, loc string) error {
	loc = strings.TrimSpace(listMarker.ReplaceAllString(loc, ""))
	path, name, isUnit := strings.Cut(loc, ":")
	clean := filepath.Clean(filepath.FromSlash(path))
	switch {
	case path == "":
		return fmt.Errorf("give a path, or path:Qualified.name")
	case filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
		return fmt.Errorf("%s is outside the repository", path)
	}
	if _, err := os.Stat(filepath.Join(workdir, clean)); err != nil {
		return fmt.Errorf("no file %s in the repository", path)
	}
	if !isUnit || ix == nil {
		return nil
	}
	f, ok := ix.File(filepath.ToSlash(clean))
	if !ok {
		return nil // a file the index does not read: a path is all it can name
	}
	if _, ok := ix.Unit(filepath.ToSlash(clean) + ":" + name); ok {
		return nil
	}
	return fmt.Errorf("%s has no function or class %s%s", path, name, unitHint(f.Units, name))
}

// unitHint names a few of a file's units whose last name part starts as
// name's does, to help with a typo.
func unitHint(units []string, name string) string {
	last := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	stem := last[:min(len(last), 4)]
	var near []string
	for _, u := range units {
		_, q, _ := strings.Cut(u, ":")
		ql := strings.ToLower(q[strings.LastIndexByte(q, '.')+1:])
		if stem != "" && strings.HasPrefix(ql, stem) && len(near) < 3 {
			near = append(near, q)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

var listMarker = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)

// ParseLocations reads an engineer's list: one location per line, a
// function as path:Qualified.name, a file as its path. Files of listed
// functions are added after the listed files.
func ParseLocations(text string) (files, functions []string) {
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(listMarker.ReplaceAllString(line, ""))
		if line == "" {
			continue
		}
		if strings.Contains(line, ":") {
			add(&functions, line)
		} else {
			add(&files, line)
		}
	}
	for _, f := range functions {
		p, _, _ := strings.Cut(f, ":")
		add(&files, p)
	}
	return files, functions
}

// LoadLocations reads locations from a locations.json or from a plain list
// (one per line), for --locations.
func LoadLocations(path string) (*localize.Locations, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locations: %w", err)
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		return localize.LoadLocations(path)
	}
	files, funcs := ParseLocations(string(data))
	if len(files) == 0 {
		return nil, fmt.Errorf("locations %s: no locations listed", path)
	}
	return &localize.Locations{Files: files, Functions: funcs, Status: "given"}, nil
}

// localizeMessages rebuilds the localization agent's conversation from its
// events: each model reply with its tool calls, then the tool results.
func localizeMessages(eventsPath string) []llm.Message {
	f, err := os.Open(eventsPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	evs, _ := runfolder.ReadEvents(f, eventsPath) // the same tolerant reader as replay
	var out []llm.Message
	turn := -1 // the assistant message the next tool calls belong to
	for _, e := range evs {
		if e.Agent != event.Localizer {
			continue
		}
		switch {
		case e.Type == event.ModelReply:
			out = append(out, llm.Message{Role: llm.Assistant, Content: e.Text})
			turn = len(out) - 1
		case e.Type == event.ToolCall && e.Tool != nil && turn >= 0:
			out[turn].ToolCalls = append(out[turn].ToolCalls, llm.ToolCall{ID: e.Tool.CallID, Name: e.Tool.Name, Arguments: e.Tool.Arguments})
		case e.Type == event.ToolResult && e.Tool != nil:
			out = append(out, llm.Message{Role: llm.ToolRole, ToolCallID: e.Tool.CallID, Name: e.Tool.Name, Content: e.Tool.Observation})
		}
	}
	return out
}

// sumUsage adds one localization's usage to an earlier one's.
func sumUsage(a, b event.UsageInfo) event.UsageInfo {
	return event.UsageInfo{PromptTokens: a.PromptTokens + b.PromptTokens, CompletionTokens: a.CompletionTokens + b.CompletionTokens,
		CachedTokens: a.CachedTokens + b.CachedTokens, Calls: a.Calls + b.Calls, Cost: a.Cost + b.Cost,
		Priced: (a.Priced || a.Calls == 0) && (b.Priced || b.Calls == 0), Context: b.Context, Window: b.Window}
}
