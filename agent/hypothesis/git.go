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

// InitBase records the original code state and commits whatever the agent
// has added since (its reproduction script) as the common working base.
func (f *Tracker) InitBase(ctx context.Context) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mem.Original != "" {
		return tool.Output{Text: "init_base already ran.\n" + f.mem.BaseOverview()}, nil
	}
	head, err := f.cfg.Repo.Head(ctx)
	if err != nil {
		return tool.Output{}, fmt.Errorf("init base: %w", err)
	}
	note, err := f.leaveBranch(ctx, head)
	if err != nil {
		return tool.Output{}, fmt.Errorf("init base: %w", err)
	}
	base, err := f.cfg.Repo.CommitAll(ctx, "swe-adept: common working base")
	if errors.Is(err, vcs.ErrNothingToCommit) {
		base, err = head.Hash, nil
	}
	if err != nil {
		return tool.Output{}, fmt.Errorf("init base: %w", err)
	}
	if err := f.mem.SetBase(head.Hash, base); err != nil {
		return tool.Output{}, fmt.Errorf("init base: %w", err)
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	return tool.Output{Text: "Saved the original code state and the common working base.\n" + f.mem.BaseOverview() + note,
		Summary: fmt.Sprintf("base %s (original %s)", short(base), short(head.Hash))}, nil
}

// leaveBranch detaches HEAD when it is on a branch outside the run's
// namespace (the tools run by hand in an engineer's checkout): the base and
// every checkpoint are then commits of their own, and the engineer's branch
// never moves.
func (f *Tracker) leaveBranch(ctx context.Context, head vcs.Head) (string, error) {
	if head.Branch == "" || strings.HasPrefix(head.Branch, "swe-adept/") {
		return "", nil
	}
	if err := f.cfg.Repo.Detach(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("HEAD was detached from %s so that branch never moves; return to it with: git switch %s\n", head.Branch, head.Branch), nil
}

// StartHypothesis checks out a new branch from the common working base for
// the current hypothesis (or the next one without a branch).
func (f *Tracker) StartHypothesis(ctx context.Context, branch string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mem.Base == "" {
		return advice("start_hypothesis: no common working base yet; call init_base first"), nil
	}
	h := f.mem.NextToStart()
	if h == nil {
		return advice("start_hypothesis: every hypothesis already has a branch; add a new one with update_hypothesis (and make it current with update_todo) first\n\n%s", f.mem.HypothesisOverview()), nil
	}
	full, out, ok := f.newBranch(ctx, "start_hypothesis", branch)
	if !ok {
		return out, nil
	}
	aside, err := f.putAside(ctx, "before-"+branch)
	if err != nil {
		return tool.Output{}, err
	}
	if err := f.cfg.Repo.CreateBranchAt(ctx, full, f.mem.Base); err != nil {
		return f.undoAside(ctx, "before-"+branch, aside != "", advice("start_hypothesis: %v", err))
	}
	if err := f.assign(ctx, h, full); err != nil {
		return tool.Output{}, err
	}
	text := fmt.Sprintf("Created and checked out %s from the common working base %s for %s %q.%s\nPlan its steps with update_todo.",
		full, short(f.mem.Base), h.ID, h.Content, aside)
	return tool.Output{Text: text, Summary: "branch " + full + " for " + h.ID}, nil
}

// CommitTodo checkpoints the working tree for one completed to-do.
func (f *Tracker) CommitTodo(ctx context.Context, todo, message string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.mem.CurrentHypothesis()
	if h == nil || h.Branch == "" {
		return advice("commit_todo: the current hypothesis has no branch; call start_hypothesis first"), nil
	}
	if out, ok := f.onBranch(ctx, h.Branch); !ok {
		return out, nil
	}
	t, err := memory.FindTodo(h, todo)
	if err != nil {
		return advice("commit_todo: %v", err), nil
	}
	head, err := f.cfg.Repo.Head(ctx)
	if err != nil {
		return tool.Output{}, fmt.Errorf("commit todo %q: %w", t.ID, err)
	}
	hash, err := f.cfg.Repo.CommitAll(ctx, message)
	if errors.Is(err, vcs.ErrNothingToCommit) {
		return advice("commit_todo: nothing to commit: the working tree matches %s. Make the to-do's edits first; a step that changed no file needs no checkpoint", short(head.Hash)), nil
	}
	if err != nil {
		return tool.Output{}, fmt.Errorf("commit todo %q: %w", t.ID, err)
	}
	return f.recordCheckpoint(ctx, h, t, head.Hash, hash, message)
}

func (f *Tracker) recordCheckpoint(ctx context.Context, h *memory.Hypothesis, t *memory.Todo, parent, hash, msg string) (tool.Output, error) {
	stat, err := f.cfg.Repo.DiffStat(ctx, parent, hash)
	if err != nil {
		return tool.Output{}, fmt.Errorf("commit todo %q: %w", t.ID, err)
	}
	cp := memory.Checkpoint{Hash: hash, Parent: parent, Message: msg, Stat: stat.Short()}
	if err := f.mem.SetCheckpoint(h.ID, t.ID, cp); err != nil {
		return tool.Output{}, fmt.Errorf("commit todo %q: %w", t.ID, err)
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	f.emit(event.Event{Type: event.Checkpoint, Checkpoint: &event.CheckpointInfo{
		Hypothesis: h.ID, Todo: t.ID, Hash: hash, Parent: parent, Branch: h.Branch, Message: msg, Stat: cp.Stat}})
	f.emitDiff(ctx, parent, hash, fmt.Sprintf("checkpoint %s (%s)", short(hash), msg))
	// The hypothesis as a whole, so the screen can show it against the
	// original state before any comparison is asked for.
	f.emitDiff(ctx, f.mem.Original, h.Branch, fmt.Sprintf("%s vs original (%s)", h.ID, h.Branch))
	text := fmt.Sprintf("Committed %s for %s %q: %s\n\n%s", short(hash), t.ID, t.Content, cp.Stat, f.mem.TodoOverview(h))
	return tool.Output{Text: text, Summary: fmt.Sprintf("checkpoint %s %s/%s", short(hash), h.ID, t.ID)}, nil
}

// newBranch checks a branch name the model chose and maps it into the run's namespace.
func (f *Tracker) newBranch(ctx context.Context, op, name string) (string, tool.Output, bool) {
	if strings.TrimSpace(name) == "" {
		return "", advice("%s: give a branch name, e.g. fix-tokenizer", op), false
	}
	full := f.fullBranch(name)
	if err := vcs.ValidBranchName(full); err != nil {
		return "", advice("%s: %v", op, err), false
	}
	if len(name) > maxBranchName {
		return "", advice("%s: the branch name is %d bytes long; use at most %d", op, len(name), maxBranchName), false
	}
	if clash := f.cfg.Repo.RefClash(ctx, "refs/heads/"+full); clash != "" {
		return "", advice("%s: %s cannot be created next to the existing %s (one would be a folder of the other); choose another name", op, full, clash), false
	}
	exists, err := f.cfg.Repo.BranchExists(ctx, full)
	if err != nil && ctx.Err() == nil {
		return "", advice("%s: %q is not a usable branch name: %v", op, name, err), false
	}
	if exists {
		return "", advice("%s: branch %s already exists; choose another name", op, full), false
	}
	return full, tool.Output{}, true
}

func (f *Tracker) onBranch(ctx context.Context, branch string) (tool.Output, bool) {
	head, err := f.cfg.Repo.Head(ctx)
	if err != nil || head.Branch == branch {
		return tool.Output{}, err == nil
	}
	where := head.Branch
	if where == "" {
		where = "a detached HEAD at " + short(head.Hash)
	}
	return advice("commit_todo: the workspace is on %s, not on the current hypothesis's branch %s; switch hypotheses with update_todo, or use revert_to", where, branch), false
}

// maxBranchName bounds a hypothesis branch's own name: ref names are
// files, and a file name over 255 bytes cannot be made.
const maxBranchName = 200

// undoAside brings back what putAside set aside when the step it prepared
// failed, so a tool that was not carried out leaves the tree as it was.
func (f *Tracker) undoAside(ctx context.Context, name string, wasSet bool, out tool.Output) (tool.Output, error) {
	if !wasSet {
		return out, nil
	}
	saved := f.cfg.RunID + "-" + sanitize(name)
	if err := f.cfg.Repo.Restore(ctx, saved); err != nil {
		return tool.Output{}, fmt.Errorf("%s; and bringing back the changes set aside failed (they are on %s%s): %w", out.Text, vcs.StashRefPrefix, saved, err)
	}
	out.Text += "\nThe uncommitted changes set aside for it are back in the working tree."
	return out, nil
}

// putAside keeps uncommitted changes on a private ref before a checkout, and
// says so in the observation.
func (f *Tracker) putAside(ctx context.Context, name string) (string, error) {
	saved, err := f.cfg.Repo.PutAside(ctx, f.cfg.RunID+"-"+sanitize(name))
	if err != nil {
		return "", fmt.Errorf("put aside uncommitted changes: %w", err)
	}
	if saved == "" {
		return "", nil
	}
	return fmt.Sprintf("\nUncommitted changes were put aside as %s (nothing is lost).", short(saved)), nil
}

// assign puts a hypothesis on its branch (current, and in progress if it
// was pending), then saves and publishes.
func (f *Tracker) assign(ctx context.Context, h *memory.Hypothesis, branch string) error {
	if err := f.mem.Start(h.ID, branch); err != nil {
		return err
	}
	return f.commit(ctx)
}

func (f *Tracker) emitDiff(ctx context.Context, from, to, label string) {
	if f.cfg.Bus == nil {
		return
	}
	patch, err := f.cfg.Repo.Patch(ctx, from, to)
	if err != nil {
		return
	}
	stat, _ := f.cfg.Repo.DiffStat(ctx, from, to)
	f.emit(event.Event{Type: event.Diff, Diff: &event.DiffInfo{From: from, To: to, Label: label, Patch: patch, Stat: stat.Short()}})
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s)
}
