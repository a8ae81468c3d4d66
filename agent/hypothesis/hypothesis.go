// Package hypothesis is the resolution agent's hypothesis_plan and hypothesis_git
// tool families: the only place that knows both the working memory and git.
// The model names hypotheses and to-dos; these tools keep the hashes.
package hypothesis

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

// Config wires the tools to one run's workspace.
type Config struct {
	Repo     *vcs.Repo     // the workspace the agent edits
	Store    *memory.Store // where working memory is saved after every change
	Memory   *memory.Memory
	RunID    string
	Approver event.Approver // asked before revert_to and merge_solution; nil approves
	Bus      *event.Bus     // nil: no events
	// Exclude lists paths left out of the merged solution (scratch files).
	Exclude func() []string
}

// Tracker holds the state the nine tools share. Calls are serialised: the
// working tree is one.
type Tracker struct {
	cfg Config
	mu  sync.Mutex
	mem *memory.Memory
	// mergeRefused: the engineer refused a merge_solution.
	mergeRefused bool
}

// MergeRefused reports whether the engineer refused a merge.
func (f *Tracker) MergeRefused() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mergeRefused
}

// Branched reports whether any hypothesis got a branch: the run worked
// with hypotheses, so its solution is what it merges.
func (f *Tracker) Branched() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.mem.Hypotheses {
		if h.Branch != "" {
			return true
		}
	}
	return false
}

// New returns a tracker over cfg. A nil Memory starts a new one.
func New(cfg Config) *Tracker {
	mem := cfg.Memory
	if mem == nil {
		mem = memory.New(cfg.RunID)
	}
	return &Tracker{cfg: cfg, mem: mem}
}

// Memo is the working memory in a few lines, for a conversation trimmed
// to fit the model's context window: the hypotheses, and the current one's
// to-dos, so the agent does not lose its plan with the old turns.
func (f *Tracker) Memo() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	hyps := f.mem.RenderHypotheses()
	if strings.TrimSpace(hyps) == "" {
		return ""
	}
	memo := "Your hypotheses so far:\n" + hyps
	if h := f.mem.CurrentHypothesis(); h != nil {
		memo += "\nTo-dos of the current hypothesis " + h.ID + ":\n" + memory.RenderTodos(h)
	}
	return memo
}

// Memory is the working memory (read it under no lock only when the agent is idle).
func (f *Tracker) Memory() *memory.Memory { return f.mem }

// BranchPrefix is the namespace of a run's hypothesis branches.
func (f *Tracker) BranchPrefix() string { return "swe-adept/" + f.cfg.RunID + "/" }

// fullBranch maps what the model calls a branch to its name in git.
func (f *Tracker) fullBranch(name string) string {
	name = strings.TrimSpace(name)
	name = strings.TrimPrefix(name, "refs/heads/")
	if strings.HasPrefix(name, f.BranchPrefix()) {
		return name
	}
	return f.BranchPrefix() + name
}

// commit saves memory, then tells the engineer: persist, then publish.
func (f *Tracker) commit(ctx context.Context) error {
	if f.cfg.Store != nil {
		if err := f.cfg.Store.Save(f.mem); err != nil {
			return fmt.Errorf("save working memory: %w", err)
		}
	}
	f.emit(event.Event{Type: event.Plan, Plan: Snapshot(f.mem)})
	return ctx.Err()
}

func (f *Tracker) emit(e event.Event) {
	if f.cfg.Bus != nil {
		e.Agent = event.Resolver
		f.cfg.Bus.Emit(e)
	}
}

func (f *Tracker) approve(ctx context.Context, req *event.ApprovalRequest) (event.Reply, error) {
	if f.cfg.Approver == nil {
		return event.Reply{Decision: event.Approve}, nil
	}
	return event.Ask(ctx, f.cfg.Bus, event.Resolver, f.cfg.Approver, req)
}

// Snapshot converts working memory to what the engineer's screen shows.
func Snapshot(m *memory.Memory) *event.PlanSnapshot {
	s := &event.PlanSnapshot{Current: m.Current, Original: m.Original, Base: m.Base, Merged: m.Merged}
	for _, h := range m.Hypotheses {
		eh := event.Hypothesis{ID: h.ID, Content: h.Content, Status: string(h.Status), Branch: h.Branch}
		for _, t := range h.Todos {
			eh.Todos = append(eh.Todos, event.Todo{ID: t.ID, Content: t.Content, Status: string(t.Status),
				Commit: t.Hash, Message: t.Message, Stat: t.Stat})
		}
		for _, in := range h.Insights {
			eh.Insights = append(eh.Insights, in.Text)
		}
		s.Hypotheses = append(s.Hypotheses, eh)
	}
	return s
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
