package vcs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// agentWork does what a resolution run does in its workspace: a hypothesis
// branch, checkpoints, a merge onto the original state, and junk left behind.
func agentWork(t *testing.T, ws *Workspace) string {
	t.Helper()
	ctx := context.Background()
	r := ws.Repo
	if _, err := r.CommitAll(ctx, "init_base"); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("CommitAll at the start = %v, want ErrNothingToCommit", err)
	}
	if err := r.CreateBranchAt(ctx, ws.BranchName("h1"), ws.Original); err != nil {
		t.Fatal(err)
	}
	write(t, ws.Dir, "app.py", "def main():\n    return 3\n")
	write(t, ws.Dir, "repro.py", "assert True\n")
	if _, err := r.CommitAll(ctx, "fix"); err != nil {
		t.Fatal(err)
	}
	sol, err := r.ApplyBranchOntoOriginal(ctx, ws.BranchName("h1"), ws.Original, "repro.py")
	if err != nil {
		t.Fatal(err)
	}
	patch, err := r.Patch(ctx, ws.Original, sol)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws.Dir, "leftover.py", "junk\n")
	write(t, ws.Dir, "lib/util.py", "half-done edit\n")
	return patch
}

func TestWorkspaceWorktreeLeavesCheckoutAlone(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)

	ws, err := OpenWorkspace(ctx, dir, "r1", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Dir == dir || !strings.HasPrefix(ws.Dir, filepath.Join(dir, ".git", "swe-adept", "worktrees")) {
		t.Fatalf("worktree at %s, want under .git/swe-adept/worktrees", ws.Dir)
	}
	// The run starts from the engineer's state, uncommitted work included,
	// but sees none of their ignored files.
	for _, f := range []string{"app.py", "lib/util.py", "lib/staged_new.py", "notes/todo.txt", "data.bin", "exec.sh"} {
		if read(t, ws.Dir, f) != read(t, dir, f) {
			t.Errorf("worktree %s differs from the checkout", f)
		}
	}
	for _, f := range []string{"debug.log", "old.txt", "gone.txt"} {
		if _, err := os.Stat(filepath.Join(ws.Dir, f)); !os.IsNotExist(err) {
			t.Errorf("worktree has %s", f)
		}
	}
	patch := agentWork(t, ws)
	diffState(t, before, stateOf(t, dir))
	if err := ws.Close(ctx); err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))
	if err := ApplyToCheckout(ctx, dir, patch); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "app.py"); got != "def main():\n    return 3\n" {
		t.Errorf("applied app.py = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "repro.py")); !os.IsNotExist(err) {
		t.Error("excluded repro.py reached the checkout")
	}
	if got := read(t, dir, "notes/todo.txt"); got != "untracked\n" {
		t.Errorf("engineer's untracked file = %q", got)
	}
}

func TestWorkspaceInPlaceRestores(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dirty  bool
		cancel bool
		detach bool
	}{
		{"dirty", true, false, false},
		{"dirty cancelled", true, true, false},
		{"clean", false, false, false},
		{"detached cancelled", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dir := newRepo(t)
			if tc.detach {
				gitT(t, dir, "checkout", "-q", "--detach")
			}
			if tc.dirty {
				makeDirty(t, dir)
			}
			before := stateOf(t, dir)
			ws, err := OpenWorkspace(ctx, dir, "r2", Mode{InPlace: true})
			if err != nil {
				t.Fatal(err)
			}
			if ws.Dir != openT(t, dir).Dir() {
				t.Fatalf("in-place dir %s, want %s", ws.Dir, dir)
			}
			if tc.dirty == (ws.Original == before.Head) {
				t.Errorf("Original %s vs HEAD %s (dirty=%v)", ws.Original, before.Head, tc.dirty)
			}
			agentWork(t, ws)
			if tc.cancel {
				cancel()
			}
			if err := ws.Close(ctx); err != nil {
				t.Fatal(err)
			}
			diffState(t, before, stateOf(t, dir))
			if err := ws.Close(ctx); err != nil {
				t.Errorf("second Close: %v", err)
			}
			runs, err := ListRuns(context.Background(), dir)
			if err != nil || len(runs) != 1 || !runs[0].Finished || runs[0].Pending != "" {
				t.Fatalf("ListRuns = %+v, %v", runs, err)
			}
		})
	}
}

func TestListRunsAndGCRemoveOnlyOurs(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	// The engineer's own things, some with confusable names.
	gitT(t, dir, "branch", "feature")
	gitT(t, dir, "branch", "swe-adept-notes")
	gitT(t, dir, "worktree", "add", "-q", "--detach", filepath.Join(t.TempDir(), "mine"))
	write(t, dir, "wip.txt", "engineer's\n")
	gitT(t, dir, "stash", "push", "-q", "-u", "-m", "engineer stash")

	done, err := OpenWorkspace(ctx, dir, "done", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	agentWork(t, done)
	if saved, err := done.Repo.PutAside(ctx, "done-before-x"); err != nil || saved == "" {
		t.Fatalf("PutAside = %q, %v", saved, err)
	}
	gitT(t, dir, "update-ref", StashRefPrefix+"unattributed-x", "HEAD")
	if err := done.Close(ctx); err != nil {
		t.Fatal(err)
	}
	active, err := OpenWorkspace(ctx, dir, "active", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorkspace(ctx, dir, "active", Mode{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("reopening a run: err = %v", err)
	}

	runs, err := ListRuns(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "active" || runs[1].ID != "done" || runs[0].Finished || !runs[1].Finished {
		t.Fatalf("ListRuns = %+v", runs)
	}
	if runs[1].Worktree == "" || len(runs[1].Branches) != 1 || runs[1].Branches[0] != "swe-adept/done/h1" {
		t.Errorf("done run = %+v", runs[1])
	}

	refsBefore := gitT(t, dir, "for-each-ref", "--format=%(refname)")
	removed, err := GC(ctx, dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) == 0 {
		t.Fatal("GC removed nothing")
	}
	for _, rm := range removed {
		if !strings.Contains(rm, "swe-adept") || !strings.Contains(rm, "done") {
			t.Errorf("GC removed %s, not ours", rm)
		}
	}
	refsAfter := gitT(t, dir, "for-each-ref", "--format=%(refname)")
	for _, ref := range strings.Fields(refsBefore) {
		ours := strings.Contains(ref, "/done/") || strings.Contains(ref, "/done-")
		if gone := !strings.Contains(refsAfter, ref+"\n"); gone != ours {
			t.Errorf("ref %s: removed=%v, ours=%v", ref, gone, ours)
		}
	}
	if _, err := os.Stat(done.Dir); !os.IsNotExist(err) {
		t.Errorf("finished worktree still at %s", done.Dir)
	}
	if _, err := os.Stat(active.Dir); err != nil {
		t.Errorf("active run's worktree removed: %v", err)
	}
	wt := gitT(t, dir, "worktree", "list")
	if !strings.Contains(wt, "mine") || !strings.Contains(wt, "active") {
		t.Errorf("worktree list after GC:\n%s", wt)
	}
	if got := gitT(t, dir, "stash", "list"); !strings.Contains(got, "engineer stash") {
		t.Errorf("engineer's stash list = %q", got)
	}

	if _, err := GC(ctx, dir, "active", false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gitT(t, dir, "for-each-ref"), "unattributed-x") {
		t.Error("GC removed a ref no run owns")
	}
	if runs, err := ListRuns(ctx, dir); err != nil || len(runs) != 0 {
		t.Errorf("ListRuns after GC of all = %+v, %v", runs, err)
	}
	if _, err := GC(ctx, dir, "nope", false); err == nil {
		t.Error("GC of an unknown run succeeded")
	}
}

func TestApplyToCheckoutRefusesCleanly(t *testing.T) {
	ctx := context.Background()
	dir, original, branch := hypothesisRepo(t)
	r := openT(t, dir)
	patch, err := r.Patch(ctx, original, branch)
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "checkout", "-q", "main")
	write(t, dir, "app.py", "the engineer rewrote this meanwhile\n")
	before := stateOf(t, dir)
	err = ApplyToCheckout(ctx, dir, patch)
	if !errors.Is(err, ErrPatchDoesNotApply) || !strings.Contains(err.Error(), "app.py") {
		t.Fatalf("err = %v, want ErrPatchDoesNotApply naming app.py", err)
	}
	diffState(t, before, stateOf(t, dir))
	if err := ApplyToCheckout(ctx, dir, " \n"); err == nil {
		t.Error("empty patch applied")
	}
}

func TestOpenWorkspaceErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := OpenWorkspace(ctx, t.TempDir(), "r1", Mode{}); !errors.Is(err, ErrNotRepository) {
		t.Errorf("not a repo: %v", err)
	}
	dir := newRepo(t)
	for _, id := range []string{"", "../x", "a/b", "-x", "x.lock", strings.Repeat("x", 65)} {
		if _, err := OpenWorkspace(ctx, dir, id, Mode{}); err == nil || !strings.Contains(err.Error(), "invalid run id") {
			t.Errorf("run id %q: err = %v", id, err)
		}
	}
	empty := t.TempDir()
	gitT(t, empty, "init", "-q")
	if _, err := OpenWorkspace(ctx, empty, "r1", Mode{InPlace: true}); err == nil || !strings.Contains(err.Error(), "no commits") {
		t.Errorf("in place on an empty repo: %v", err)
	}
}

func TestGCWorktreeDeletedByHand(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	mine := filepath.Join(t.TempDir(), "gone-too")
	gitT(t, dir, "worktree", "add", "-q", "--detach", mine)
	if err := os.RemoveAll(mine); err != nil { // the engineer's stale entry: not ours to prune
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(ctx, dir, "r9", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ws.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := GC(ctx, dir, "", false); err != nil {
		t.Fatal(err)
	}
	list := gitT(t, dir, "worktree", "list", "--porcelain")
	if strings.Contains(list, "r9") || !strings.Contains(list, "gone-too") {
		t.Errorf("worktree list after GC:\n%s", list)
	}
}

func TestReopenWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	ws, err := OpenWorkspace(ctx, dir, "r5", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Repo.CreateBranchAt(ctx, ws.BranchName("h1"), ws.Original); err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := ReopenWorkspace(ctx, dir, "r5")
	if err != nil {
		t.Fatal(err)
	}
	if again.Dir != ws.Dir || again.Original != ws.Original {
		t.Errorf("reopened %s at %s, want %s at %s", again.Dir, again.Original, ws.Dir, ws.Original)
	}
	if h, err := again.Repo.Head(ctx); err != nil || h.Branch != "swe-adept/r5/h1" {
		t.Errorf("reopened head = %+v, %v", h, err)
	}
	if removed, err := GC(ctx, dir, "", false); err != nil || len(removed) != 0 {
		t.Errorf("GC of finished runs removed %v (%v) from a reopened run", removed, err)
	}
	if err := again.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ReopenWorkspace(ctx, dir, "nope"); err == nil {
		t.Error("reopened a run that never existed")
	}
}

func TestInPlaceOpenCancelledMidwayPutsCheckoutBack(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	testHookAfterDetach = cancel
	defer func() { testHookAfterDetach = nil }()
	if _, err := OpenWorkspace(ctx, dir, "r7", Mode{InPlace: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenWorkspace = %v, want context.Canceled", err)
	}
	diffState(t, before, stateOf(t, dir))
	runs, err := ListRuns(context.Background(), dir)
	if err != nil || len(runs) != 1 || !runs[0].Finished || runs[0].Pending != "" {
		t.Errorf("ListRuns = %+v, %v; want one finished run with nothing pending", runs, err)
	}
}

// A run's worktree keeps git's untracked cache; the engineer's index is not
// given one.
func TestUntrackedCacheOnlyInRunWorktree(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	ws, err := OpenWorkspace(ctx, dir, "r8", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Repo.IsDirty(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := openT(t, dir).IsDirty(ctx); err != nil {
		t.Fatal(err)
	}
	hasUNTR := func(index string) bool {
		b, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(b), "UNTR")
	}
	if !hasUNTR(filepath.Join(ws.Repo.gitDir, "index")) {
		t.Error("run worktree index has no untracked cache")
	}
	if hasUNTR(filepath.Join(dir, ".git", "index")) {
		t.Error("the engineer's index was given an untracked cache")
	}
}

// Raw git in the agent's shell could commit on the engineer's branch during
// an in-place run; Close puts the branch back and keeps those commits.
func TestInPlaceClosePutsMovedBranchBack(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	ws, err := OpenWorkspace(ctx, dir, "r3", Mode{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "checkout", "-q", "main")
	write(t, dir, "app.py", "committed on main by the run\n")
	gitT(t, dir, "commit", "-q", "-am", "oops")
	moved := strings.TrimSpace(gitT(t, dir, "rev-parse", "main"))
	if err := ws.Close(ctx); err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))
	kept := strings.TrimSpace(gitT(t, dir, "rev-parse", "refs/swe-adept/runs/r3/moved/main"))
	if kept != moved {
		t.Errorf("moved commits kept at %s, want %s", kept, moved)
	}
}

// The engineer may themselves work in a linked worktree; both modes treat it
// like any checkout.
func TestEngineerInLinkedWorktree(t *testing.T) {
	ctx := context.Background()
	main := newRepo(t)
	dir := filepath.Join(t.TempDir(), "feature-wt")
	gitT(t, main, "worktree", "add", "-q", "-b", "feature", dir)
	makeDirty(t, dir)
	before, mainBefore := stateOf(t, dir), stateOf(t, main)
	for _, mode := range []Mode{{}, {InPlace: true}} {
		id := map[bool]string{false: "lw", true: "lwi"}[mode.InPlace]
		ws, err := OpenWorkspace(ctx, dir, id, mode)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(t, ws.Dir, "notes/todo.txt"); got != "untracked\n" {
			t.Errorf("%s: run does not start from the engineer's state: %q", id, got)
		}
		agentWork(t, ws)
		if err := ws.Close(ctx); err != nil {
			t.Fatal(err)
		}
		diffState(t, before, stateOf(t, dir))
		diffState(t, mainBefore, stateOf(t, main))
	}
}

// A crashed in-place run (no Close) leaves the engineer's changes on a ref;
// ListRuns points at it and GC keeps it, saying how to restore it.
func TestGCKeepsUnrestoredEngineerChanges(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	if _, err := OpenWorkspace(ctx, dir, "crashed", Mode{InPlace: true}); err != nil {
		t.Fatal(err)
	}
	crash(t, dir, "crashed")
	runs, err := ListRuns(ctx, dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("ListRuns = %+v, %v", runs, err)
	}
	pending := StashRefPrefix + "crashed/checkout"
	if runs[0].Pending != pending || runs[0].Finished {
		t.Errorf("run = %+v, want pending %s", runs[0], pending)
	}
	_, err = GC(ctx, dir, "crashed", false)
	if err == nil || !strings.Contains(err.Error(), "swe-adept restore --repo") || !strings.Contains(err.Error(), "stash apply --index "+pending) {
		t.Fatalf("GC = %v, want it to keep %s and say how to restore", err, pending)
	}
	if out := gitT(t, dir, "for-each-ref", "refs/swe-adept/"); !strings.Contains(out, pending) || !strings.Contains(out, "crashed/record") {
		t.Fatalf("GC deleted refs of a run whose checkout never came back:\n%s", out)
	}
	// The git-alone recovery the message gives works when pasted, from
	// another folder.
	for _, cmd := range pasted(err.Error(), "  git ") {
		sh := exec.Command("sh", "-c", cmd)
		sh.Dir = t.TempDir()
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	after := stateOf(t, dir)
	if after.Staged != before.Staged || after.Unstaged != before.Unstaged || after.Files["notes/todo.txt"] != before.Files["notes/todo.txt"] {
		t.Error("the printed commands did not bring the changes back")
	}
}

// pasted picks the command lines of a message that start with prefix,
// as an engineer would copy them.
func pasted(msg, prefix string) []string {
	var cmds []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, prefix) {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	return cmds
}

// crash makes the lock of run look left by a dead process, as after kill -9.
func crash(t *testing.T, dir, run string) {
	t.Helper()
	co, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	dead := Owner{Run: run, PID: 1 << 22, Start: "1", Boot: bootID()}
	data, _ := json.Marshal(dead)
	if err := os.WriteFile(lockPath(co), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
