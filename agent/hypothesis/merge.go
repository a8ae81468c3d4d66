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

// MergeSolution applies a successful hypothesis's changes onto the original
// state, after approval, leaving a clean, patch-ready workspace.
func (f *Tracker) MergeSolution(ctx context.Context, branch string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, out, ok := f.mergeable(branch)
	if !ok {
		return out, nil
	}
	rep, err := f.approve(ctx, f.mergeRequest(ctx, h))
	if err != nil {
		return tool.Output{}, fmt.Errorf("merge %s: %w", h.Branch, err)
	}
	switch rep.Decision {
	case event.Refuse:
		f.mergeRefused = true
		return advice("merge_solution was refused by the engineer: %s", reason(rep)), nil
	case event.Choose:
		if h, out, ok = f.mergeable(rep.Choice); !ok {
			return out, nil
		}
	}
	aside, err := f.putAside(ctx, "before-merge")
	if err != nil {
		return tool.Output{}, err
	}
	hash, err := f.cfg.Repo.ApplyBranchOntoOriginal(ctx, h.Branch, f.mem.Original, f.excluded()...)
	if errors.Is(err, vcs.ErrNothingToCommit) {
		return advice("merge_solution: %s changes nothing beyond scratch files; there is nothing to merge", h.Branch), nil
	}
	if err != nil {
		return tool.Output{}, fmt.Errorf("merge %s: %w", h.Branch, err)
	}
	return f.finishMerge(ctx, h, hash, aside)
}

func (f *Tracker) finishMerge(ctx context.Context, h *memory.Hypothesis, hash, aside string) (tool.Output, error) {
	sol, err := f.solutionBranch(ctx)
	if err != nil {
		return tool.Output{}, err
	}
	if err := f.cfg.Repo.CreateBranchAt(ctx, sol, hash); err != nil {
		return tool.Output{}, fmt.Errorf("merge %s: name the solution: %w", h.Branch, err)
	}
	if err := f.mem.SetMerged(h.Branch, hash); err != nil {
		return tool.Output{}, err
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	st, _ := f.cfg.Repo.DiffStat(ctx, f.mem.Original, hash)
	f.emitDiff(ctx, f.mem.Original, hash, "final patch ("+h.ID+")")
	text := fmt.Sprintf("Applied the changes of %s (%s %q) onto the original state %s as %s on %s: %s.%s\n"+
		"The workspace is clean and patch-ready. Run the tests once more, then submit.",
		h.Branch, h.ID, h.Content, short(f.mem.Original), short(hash), sol, st.Short(), aside)
	return tool.Output{Text: text, Summary: "merged " + h.ID + " → " + short(hash)}, nil
}

// mergeable finds the hypothesis of a branch and checks it may be merged.
func (f *Tracker) mergeable(branch string) (*memory.Hypothesis, tool.Output, bool) {
	if f.mem.Original == "" {
		return nil, advice("merge_solution: no original state; call init_base first"), false
	}
	var succeeded []string
	for _, h := range f.mem.Hypotheses {
		if h.Status == memory.Succeeded && h.Branch != "" {
			succeeded = append(succeeded, h.Branch)
		}
	}
	if len(succeeded) == 0 {
		return nil, advice("merge_solution: %v yet. Mark the hypothesis whose tests pass [v] with update_hypothesis, then merge its branch.\n\n%s", errNoSuccess, f.mem.HypothesisOverview()), false
	}
	full := f.fullBranch(strings.Fields(branch + " x")[0])
	for _, h := range f.mem.Hypotheses {
		if h.Branch != full {
			continue
		}
		if h.Status != memory.Succeeded {
			return nil, advice("merge_solution: %s on %s is %s, not successful; merge one of: %s", h.ID, full, h.Status.Tag(), strings.Join(succeeded, ", ")), false
		}
		return h, tool.Output{}, true
	}
	return nil, advice("merge_solution: no hypothesis has the branch %s; successful branches: %s", full, strings.Join(succeeded, ", ")), false
}

func (f *Tracker) mergeRequest(ctx context.Context, h *memory.Hypothesis) *event.ApprovalRequest {
	// event.Ask gives the request its run-unique id.
	req := event.NewApproval("", "merge_solution", h.Branch)
	req.Summary = fmt.Sprintf("Apply the changes of %s (%s %q) onto the original state %s as the solution.",
		h.Branch, h.ID, h.Content, short(f.mem.Original))
	req.Diff, _ = f.cfg.Repo.Patch(ctx, f.mem.Original, h.Branch, f.excluded()...)
	stats := map[string]string{}
	for _, oh := range f.mem.Hypotheses {
		if oh.Branch == "" {
			continue
		}
		if st, err := f.cfg.Repo.DiffStat(ctx, f.mem.Original, oh.Branch); err == nil {
			stats[oh.ID] = st.Short()
		}
		if oh != h && oh.Status == memory.Succeeded {
			req.Options = append(req.Options, oh.Branch)
		}
	}
	req.Report = f.mem.CompareReport(stats)
	return req
}

// solutionBranch names the merged state; a second merge gets a new name so
// nothing the first one made is overwritten.
func (f *Tracker) solutionBranch(ctx context.Context) (string, error) {
	for i := 1; i < 100; i++ {
		name := f.BranchPrefix() + "solution"
		if i > 1 {
			name = fmt.Sprintf("%s-%d", name, i)
		}
		exists, err := f.cfg.Repo.BranchExists(ctx, name)
		if err != nil {
			return "", err
		}
		if !exists {
			return name, nil
		}
	}
	return "", fmt.Errorf("merge: too many solution branches under %s", f.BranchPrefix())
}

func (f *Tracker) excluded() []string {
	if f.cfg.Exclude == nil {
		return nil
	}
	return f.cfg.Exclude()
}
