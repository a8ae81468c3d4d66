package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-adept/swe-adept/vcs"
)

// editsFile keeps changes the engineer made in an in-place checkout while
// the run worked there.
const editsFile = "edits-during-run.patch"

// liveEdits watches an in-place checkout between the agent's tool calls:
// whatever changes while no call runs was not the agent's doing (its
// commands' background processes die with them), so it is the engineer's,
// and must never be folded into the run's branches.
type liveEdits struct {
	repo       *vcs.Repo
	dir        string // the run folder
	tree, head string
}

func newLiveEdits(ctx context.Context, repo *vcs.Repo, runDir string) *liveEdits {
	g := &liveEdits{repo: repo, dir: runDir}
	g.mark(ctx)
	return g
}

// mark records the state after one of the agent's calls.
func (g *liveEdits) mark(ctx context.Context) {
	if tree, err := g.repo.WorkTree(ctx); err == nil {
		g.tree = tree
	}
	if h, err := g.repo.Head(ctx); err == nil {
		g.head = h.Hash
	}
}

// check stops the run when the checkout changed since the last call,
// keeping the engineer's changes as a patch in the run folder.
func (g *liveEdits) check(ctx context.Context) error {
	tree, err := g.repo.WorkTree(ctx)
	if err != nil || g.tree == "" {
		return nil
	}
	h, err := g.repo.Head(ctx)
	if err != nil {
		return nil
	}
	if h.Hash != g.head {
		return fmt.Errorf("a commit was made in your checkout while the agent was not running a command (HEAD moved to %.12s): "+
			"the run stops so it never folds your work into its branches; the commit stays reachable from the reflog", h.Hash)
	}
	if tree == g.tree {
		return nil
	}
	patch, err := g.repo.TreePatch(ctx, g.tree, tree)
	if err != nil {
		return fmt.Errorf("files changed in your checkout while the agent was not running a command; the run stops (their diff could not be kept: %v)", err)
	}
	path := filepath.Join(g.dir, editsFile)
	if err := os.WriteFile(path, []byte(patch), 0o644); err != nil {
		return fmt.Errorf("files changed in your checkout while the agent was not running a command; the run stops (their diff could not be saved: %v)", err)
	}
	return fmt.Errorf("files changed in your checkout while the agent was not running a command: the run stops so it never folds your edits "+
		"into its branches; they are saved in %s: after the run, bring them back with `git apply %s`", path, path)
}

// checkFunc is the resolution loop's guard; nil without a watch.
func (g *liveEdits) checkFunc() func(context.Context) error {
	if g == nil {
		return nil
	}
	return g.check
}

// markAfter marks the state after a call; a nil watch does nothing.
func (g *liveEdits) markAfter(ctx context.Context) {
	if g != nil {
		g.mark(ctx)
	}
}
