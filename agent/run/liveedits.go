package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
	"github.com/swe-adept/swe-adept/internal/shellquote"
	"github.com/swe-adept/swe-adept/vcs"
)

// editsFile keeps changes the engineer made in an in-place checkout while
// the run worked there.
const editsFile = "edits-during-run.patch"

// liveEdits keeps the engineer's edits out of an in-place run. It compares
// the working tree (as `git add -A` sees it) before and after every tool
// call, and again before the next one, and decides who made each change:
//
//   - between calls nothing of the run's runs (a command's processes die
//     with it), so every change is the engineer's;
//   - during a call, a change the call could not have made is the
//     engineer's: the file viewer and the planning tools change nothing,
//     the editor changes the one file it names, the hypothesis tools
//     change only what git checks out between the commits they move HEAD
//     across (and commit_todo nothing at all);
//   - during a shell command, which may change any file, the writer is
//     asked of the kernel (writers_linux.go): what was written from
//     outside the command's sandbox is the engineer's. Where the kernel
//     does not tell (no CAP_SYS_ADMIN, or an unconfined shell), changes
//     made while a command runs are taken as the command's, and the run
//     says so once at its start.
//
// When the engineer changed something the run stops: their changes are
// saved as a patch against the state the run started from, they stay out
// of the run's patch, and the give-back leaves nothing of them lost.
type liveEdits struct {
	repo       *vcs.Repo
	dir        string // the run folder
	original   string // the state the run started from
	tree, head string // the working tree and HEAD after the agent's last call
	ws         *resolve.Workspace
	confined   bool // shell commands run in a mount namespace of their own
	// ignored are the files ignored when the run started: if the agent
	// un-ignores one it shows up in the tree, but nobody changed it, and
	// the give-back restores it byte for byte anyway.
	ignored map[string]bool
	// stopped is the run's own state (a commit) when it stopped for the
	// engineer's edits: its patch is taken from there.
	stopped string
}

func newLiveEdits(ctx context.Context, ws *workspace, runDir string, confined bool) *liveEdits {
	g := &liveEdits{repo: ws.Repo, dir: runDir, original: ws.Original, confined: confined, ignored: map[string]bool{}}
	g.ws, _ = resolve.NewWorkspace(ws.Repo.Dir())
	if ws.recorded != nil {
		if _, ignored, err := ws.recorded(ctx); err == nil {
			for _, p := range ignored {
				g.ignored[p] = true
			}
		}
	}
	g.tree, g.head = g.state(ctx)
	return g
}

// attribution says, for the run's first lines, whether edits made while a
// command runs can be told from the command's own.
func (g *liveEdits) attribution() string {
	if !g.confined {
		return "your edits to the checkout between the agent's commands stop the run and are kept; while a shell command runs they cannot be told " +
			"from the command's own here (the shell is not confined): do not edit the checkout while a command runs"
	}
	w, err := newWriterWatch(g.repo.Dir())
	if err != nil {
		return "your edits to the checkout between the agent's commands stop the run and are kept; while a shell command runs they cannot be told " +
			"from the command's own here (" + err.Error() + "; it needs CAP_SYS_ADMIN): do not edit the checkout while a command runs"
	}
	w.finish(nil)
	return ""
}

// state is the working tree's tree and HEAD, "" for what cannot be read.
func (g *liveEdits) state(ctx context.Context) (tree, head string) {
	tree, _ = g.repo.WorkTree(ctx)
	if h, err := g.repo.Head(ctx); err == nil {
		head = h.Hash
	}
	return tree, head
}

// check stops the run when the checkout changed since the last call.
func (g *liveEdits) check(ctx context.Context) error {
	tree, head := g.state(ctx)
	if tree == "" || g.tree == "" || g.stopped != "" {
		return nil
	}
	if head != g.head {
		return fmt.Errorf("a commit was made in your checkout while the agent was not running a command (HEAD moved to %.12s): "+
			"the run stops so it never folds your work into its branches; the commit stays reachable from the reflog", head)
	}
	if tree == g.tree {
		return nil
	}
	changed, err := g.changes(ctx, g.tree, tree)
	if err != nil {
		return fmt.Errorf("files changed in your checkout while the agent was not running a command; the run stops (%v)", err)
	}
	if len(changed) == 0 {
		g.tree = tree
		return nil
	}
	return g.keep(ctx, keys(changed), tree, "while the agent was not running a command")
}

// watch is called as a tool call starts; what it returns, as it ends.
func (g *liveEdits) watch(ctx context.Context, call llm.ToolCall) func(context.Context) error {
	beforeTree, beforeHead := g.tree, g.head
	var ww *writerWatch
	if call.Name == "bash" && g.confined {
		ww, _ = newWriterWatch(g.repo.Dir())
	}
	return func(ctx context.Context) error {
		tree, head := g.state(ctx)
		if tree == "" || beforeTree == "" || g.stopped != "" {
			if ww != nil {
				ww.finish(nil)
			}
			return nil
		}
		if tree == beforeTree && head == beforeHead {
			if ww != nil {
				ww.finish(nil)
			}
			return nil
		}
		changed, err := g.changes(ctx, beforeTree, tree)
		if err != nil {
			return fmt.Errorf("compare the checkout before and after %s: %w", call.Name, err)
		}
		foreign := g.notTheCalls(ctx, call, ww, changed, beforeHead, head)
		if len(foreign) > 0 {
			return g.keep(ctx, foreign, tree, "while the agent's "+call.Name+" call ran")
		}
		g.tree, g.head = tree, head
		return nil
	}
}

// changes compares two states of the working tree, leaving out the files
// that were ignored when the run started.
func (g *liveEdits) changes(ctx context.Context, from, to string) (vcs.Changed, error) {
	changed, err := g.repo.ChangedEntries(ctx, from, to)
	for p := range changed {
		if g.ignored[p] {
			delete(changed, p)
		}
	}
	return changed, err
}

// notTheCalls lists the changed paths the call could not have changed.
func (g *liveEdits) notTheCalls(ctx context.Context, call llm.ToolCall, ww *writerWatch, changed vcs.Changed, beforeHead, head string) []string {
	paths := keys(changed)
	switch call.Name {
	case "bash":
		if ww == nil {
			return nil // nobody can tell: taken as the command's (said at the start)
		}
		foreign, complete := ww.finish(paths)
		if !complete {
			return paths
		}
		return foreign
	case "str_replace_editor":
		target := g.editorTarget(call)
		var out []string
		for _, p := range paths {
			if p != target {
				out = append(out, p)
			}
		}
		return out
	}
	return g.notCheckedOut(ctx, changed, beforeHead, head)
}

// editorTarget is the file an editor call may change ("" for view).
func (g *liveEdits) editorTarget(call llm.ToolCall) string {
	var a struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	if json.Unmarshal([]byte(call.Arguments), &a) != nil || a.Command == "view" || g.ws == nil {
		return ""
	}
	_, rel, err := g.ws.Resolve(a.Path)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// notCheckedOut: of the changes made during a call that moved HEAD (or
// not), those that are not git checking out the new HEAD over the old.
func (g *liveEdits) notCheckedOut(ctx context.Context, changed vcs.Changed, beforeHead, head string) []string {
	moved := vcs.Changed{}
	if beforeHead != head && beforeHead != "" && head != "" {
		moved, _ = g.repo.ChangedEntries(ctx, beforeHead, head)
	}
	var out []string
	for _, p := range keys(changed) {
		m, ok := moved[p]
		if !ok || m[0] != changed[p][0] || m[1] != changed[p][1] {
			out = append(out, p)
		}
	}
	return out
}

// keep stops the run for the engineer's changes to paths: they are saved
// as a patch on the state the run started from, and the run's own state
// without them is kept for its patch.
func (g *liveEdits) keep(ctx context.Context, paths []string, now, when string) error {
	sort.Strings(paths)
	stopMsg := fmt.Sprintf("you changed %s in your checkout %s: the run stops so it never folds your edits into its work", listPaths(paths), when)
	own, err := g.repo.TreeWithout(ctx, g.tree, now, paths)
	if err == nil {
		g.stopped, err = g.repo.CommitOfTree(ctx, own, g.head, "swe-adept: the run's state when your edits stopped it")
	}
	if err != nil {
		return fmt.Errorf("%s (its own state could not be kept apart: %v)", stopMsg, err)
	}
	patch, err := g.repo.PathsPatch(ctx, g.original, now, paths)
	if err != nil {
		return fmt.Errorf("%s (your changes could not be saved as a patch: %v; they are in the run's leftover state, see swe-adept gc)", stopMsg, err)
	}
	path := filepath.Join(g.dir, editsFile)
	if err := atomicfile.Write(path, []byte(patch)); err != nil {
		return fmt.Errorf("%s (your changes could not be saved: %v; they are in the run's leftover state, see swe-adept gc)", stopMsg, err)
	}
	return fmt.Errorf("%s; they are saved in %s, and once your checkout is back they apply with: git -C %s apply %s",
		stopMsg, path, shellquote.Quote(g.repo.Dir()), shellquote.Quote(path))
}

// ownState is the run's state to take its patch from when the engineer's
// edits stopped it; "" when they did not.
func (g *liveEdits) ownState() string {
	if g == nil {
		return ""
	}
	return g.stopped
}

// checkFunc is the resolution loop's guard; nil without a watch.
func (g *liveEdits) checkFunc() func(context.Context) error {
	if g == nil {
		return nil
	}
	return g.check
}

// watchFunc is the resolution loop's watch around each call; nil without one.
func (g *liveEdits) watchFunc() func(context.Context, llm.ToolCall) func(context.Context) error {
	if g == nil {
		return nil
	}
	return g.watch
}

func keys(m vcs.Changed) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func listPaths(paths []string) string {
	q := make([]string, 0, len(paths))
	for i, p := range paths {
		if i == 5 {
			q = append(q, fmt.Sprintf("and %d more", len(paths)-5))
			break
		}
		q = append(q, fmt.Sprintf("%q", p))
	}
	return strings.Join(q, ", ")
}
