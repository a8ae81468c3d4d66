package hypothesis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

// RevertTo checks out a to-do's checkpoint on a new branch, after the
// engineer (or the policy) approves, and continues there.
func (f *Tracker) RevertTo(ctx context.Context, srcHyp, srcTodo, branch string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, t, out, ok := f.checkpointOf(srcHyp, srcTodo)
	if !ok {
		return out, nil
	}
	full, out, ok := f.newBranch(ctx, "revert_to", branch)
	if !ok {
		return out, nil
	}
	rep, err := f.approve(ctx, f.revertRequest(ctx, h, t, full))
	if err != nil {
		return tool.Output{}, fmt.Errorf("revert to %s/%s: %w", h.ID, t.ID, err)
	}
	switch rep.Decision {
	case event.Refuse:
		return advice("revert_to was refused by the engineer: %s\nContinue on %s without reverting, or choose another step.", reason(rep), f.currentBranch()), nil
	case event.Choose:
		if h, t, out, ok = f.checkpointOf(choiceParts(rep.Choice)); !ok {
			return out, nil
		}
	}
	aside, err := f.putAside(ctx, "before-"+branch)
	if err != nil {
		return tool.Output{}, err
	}
	if err := f.cfg.Repo.CreateBranchAt(ctx, full, t.Hash); err != nil {
		return f.undoAside(ctx, "before-"+branch, aside != "", advice("revert_to: %v", err))
	}
	target, err := f.continuation(h, t, full)
	if err != nil {
		return tool.Output{}, fmt.Errorf("revert to %s/%s: %w", h.ID, t.ID, err)
	}
	if err := f.assign(ctx, target, full); err != nil {
		return tool.Output{}, err
	}
	text := fmt.Sprintf("Reverted to checkpoint %s (%s) of %s, step %s %q, on the new branch %s.%s\n%s continues from there.\n\n%s",
		short(t.Hash), t.Message, h.ID, t.ID, t.Content, full, aside, target.ID, f.mem.TodoOverview(target))
	return tool.Output{Text: text, Summary: fmt.Sprintf("revert to %s/%s → %s", h.ID, t.ID, full)}, nil
}

func (f *Tracker) checkpointOf(hypRef, todoRef string) (*memory.Hypothesis, *memory.Todo, tool.Output, bool) {
	h, err := f.mem.FindHypothesis(hypRef)
	if err != nil {
		return nil, nil, advice("revert_to: %v", err), false
	}
	t, err := memory.FindTodo(h, todoRef)
	if err != nil {
		return nil, nil, advice("revert_to: %v", err), false
	}
	if !t.HasCheckpoint() {
		return nil, nil, advice("revert_to: %s %q of %s has no checkpoint; revert to a committed step:\n%s", t.ID, t.Content, h.ID, f.mem.TodoOverview(h)), false
	}
	return h, t, tool.Output{}, true
}

func (f *Tracker) revertRequest(ctx context.Context, h *memory.Hypothesis, t *memory.Todo, full string) *event.ApprovalRequest {
	// event.Ask gives the request its run-unique id.
	req := event.NewApproval("", "revert_to", h.ID+"/"+t.ID)
	tip := h.Branch
	if tip == "" {
		tip = t.Hash
	}
	req.Summary = fmt.Sprintf("Check out checkpoint %s (%s) of %s %q, step %s %q, on the new branch %s. "+
		"The later commits stay on %s; uncommitted changes are put aside, not lost.",
		short(t.Hash), t.Message, h.ID, h.Content, t.ID, t.Content, full, tip)
	if snap, err := f.cfg.Repo.Snapshot(ctx); err == nil {
		req.Diff, _ = f.cfg.Repo.Patch(ctx, t.Hash, snap)
	}
	for _, oh := range f.mem.Hypotheses {
		for _, ot := range oh.Todos {
			if ot.HasCheckpoint() && ot != t {
				req.Options = append(req.Options, fmt.Sprintf("%s/%s %s %s", oh.ID, ot.ID, short(ot.Hash), ot.Message))
			}
		}
	}
	return req
}

// continuation is the hypothesis that carries on from a reverted checkpoint:
// the current one if it has no branch yet, else the next open one; failing
// both, a new one forked from the source. The steps up to the checkpoint are
// copied with their hashes, so the new branch's history reads as a plan.
func (f *Tracker) continuation(src *memory.Hypothesis, upTo *memory.Todo, branch string) (*memory.Hypothesis, error) {
	target := f.mem.NextToStart()
	if target == nil {
		return f.mem.Fork(src.ID, upTo.ID, "", branch)
	}
	if len(target.Todos) > 0 {
		return target, nil
	}
	for _, t := range src.ActiveTodos() {
		nt, err := f.mem.AddTodo(target.ID, t.Content, t.Status)
		if err != nil {
			return nil, err
		}
		if t.HasCheckpoint() {
			cp := memory.Checkpoint{Hash: t.Hash, Parent: t.Parent, Message: t.Message, Stat: t.Stat}
			if err := f.mem.SetCheckpoint(target.ID, nt.ID, cp); err != nil {
				return nil, err
			}
		}
		if t == upTo {
			break
		}
	}
	return target, nil
}

// CompareHypotheses reports every hypothesis with its diff against the original state.
func (f *Tracker) CompareHypotheses(ctx context.Context) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mem.Original == "" {
		return advice("compare_hypotheses: no original state yet; call init_base first"), nil
	}
	stats := map[string]string{}
	for _, h := range f.mem.Hypotheses {
		if h.Branch == "" {
			continue
		}
		st, err := f.cfg.Repo.DiffStat(ctx, f.mem.Original, h.Branch)
		if err != nil {
			stats[h.ID] = "not available: " + err.Error()
			continue
		}
		stats[h.ID] = statLines(st)
		f.emitDiff(ctx, f.mem.Original, h.Branch, fmt.Sprintf("%s vs original (%s)", h.ID, h.Branch))
	}
	return tool.Output{Text: f.mem.CompareReport(stats), Summary: fmt.Sprintf("compared %d %s", len(stats), map[bool]string{true: "hypothesis", false: "hypotheses"}[len(stats) == 1])}, nil
}

func statLines(st vcs.DiffStat) string {
	lines := []string{st.Short()}
	for _, fs := range st.Files {
		if fs.Binary {
			lines = append(lines, fmt.Sprintf("%s (binary)", fs.Path))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s +%d -%d", fs.Path, fs.Insertions, fs.Deletions))
	}
	return strings.Join(lines, "\n")
}

func reason(r event.Reply) string {
	if strings.TrimSpace(r.Reason) == "" {
		return "(no reason given)"
	}
	return r.Reason
}

func (f *Tracker) currentBranch() string {
	if h := f.mem.CurrentHypothesis(); h != nil && h.Branch != "" {
		return h.Branch
	}
	return "the current branch"
}

// choiceParts reads an engineer's choice "h1/t2 ..." as hypothesis and to-do.
func choiceParts(choice string) (string, string) {
	first, _, _ := strings.Cut(strings.TrimSpace(choice), " ")
	h, t, _ := strings.Cut(first, "/")
	return h, t
}

var errNoSuccess = errors.New("no hypothesis is marked successful")
