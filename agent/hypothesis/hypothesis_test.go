package hypothesis

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

var gitEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setup makes a repository with one commit and a tracker over it.
func setup(t *testing.T, approver event.Approver) (*Tracker, string, *memory.Store) {
	t.Helper()
	for _, kv := range gitEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	gitOut(t, dir, "init", "-q")
	write(t, dir, "calc.py", "def add(a, b):\n    return a - b\n")
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "commit", "-qm", "initial")
	repo, err := vcs.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	store := memory.NewStore(filepath.Join(t.TempDir(), "memory.json"))
	f := New(Config{Repo: repo, Store: store, RunID: "r1", Approver: approver,
		Exclude: func() []string { return []string{"repro.py"} }})
	return f, dir, store
}

func expectOK(t *testing.T, want string) func(tool.Output, error) tool.Output {
	return func(out tool.Output, err error) tool.Output {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if out.Failed {
			t.Fatalf("unexpected advice: %s", out.Text)
		}
		if !strings.Contains(out.Text, want) {
			t.Fatalf("observation does not contain %q:\n%s", want, out.Text)
		}
		return out
	}
}

func TestFullWalk(t *testing.T) {
	ctx := context.Background()
	f, dir, store := setup(t, event.Policy(event.Approve))
	original := gitOut(t, dir, "rev-parse", "HEAD")

	write(t, dir, "repro.py", "from calc import add\nassert add(2, 2) == 4\n")
	expectOK(t, "common working base")(f.InitBase(ctx))
	base := gitOut(t, dir, "rev-parse", "HEAD")
	if base == original || f.mem.Original != original || f.mem.Base != base {
		t.Fatalf("original %s base %s, memory %+v", original, base, f.mem)
	}
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "1. [-] add subtracts: fix the operator\n2. [ ] callers pass swapped args"))
	expectOK(t, "swe-adept/r1/fix-op")(f.StartHypothesis(ctx, "fix-op"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] add a docstring\n- [ ] change the operator\n- [ ] add a test"))

	write(t, dir, "calc.py", "def add(a, b):\n    \"\"\"Sum.\"\"\"\n    return a - b\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "add a docstring", "document add"))
	write(t, dir, "calc.py", "def add(a, b):\n    \"\"\"Sum.\"\"\"\n    return a * b\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "t2", "wrong operator"))
	write(t, dir, "test_calc.py", "x = 1\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "add a test", "add test"))
	expectOK(t, "tests fail")(f.LogInsight(ctx, "tests fail: * is not +"))
	expectOK(t, "h2")(f.UpdateHypothesis(ctx, "1. [!] add subtracts: fix the operator\n2. [-] fix the operator properly from the docstring step"))

	// Revert to the middle of h1's history: the docstring step.
	t1 := f.mem.Hypothesis("h1").Todo("t1")
	expectOK(t, "swe-adept/r1/fix-op-2")(f.RevertTo(ctx, "h1", "t1", "fix-op-2"))
	if head := gitOut(t, dir, "rev-parse", "HEAD"); head != t1.Hash {
		t.Fatalf("HEAD %s after revert, want the checkpoint %s", head, t1.Hash)
	}
	if b := gitOut(t, dir, "branch", "--show-current"); b != "swe-adept/r1/fix-op-2" {
		t.Fatalf("on branch %q", b)
	}
	h2 := f.mem.Hypothesis("h2")
	if h2.Branch != "swe-adept/r1/fix-op-2" || len(h2.Todos) != 1 || h2.Todos[0].Hash != t1.Hash {
		t.Fatalf("h2 after revert = %+v (todos %+v)", h2, h2.Todos)
	}
	expectOK(t, "use +")(f.UpdateTodo(ctx, "h2", "- [v] add a docstring\n- [-] use +"))
	write(t, dir, "calc.py", "def add(a, b):\n    \"\"\"Sum.\"\"\"\n    return a + b\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "use +", "fix operator"))
	expectOK(t, "[v]")(f.UpdateHypothesis(ctx, "1. [!] add subtracts: fix the operator\n2. [v] fix the operator properly from the docstring step"))

	cmp := expectOK(t, "swe-adept/r1/fix-op-2")(f.CompareHypotheses(ctx))
	if !strings.Contains(cmp.Text, "calc.py +2 -1") {
		t.Errorf("compare report lacks the numstat:\n%s", cmp.Text)
	}
	expectOK(t, "patch-ready")(f.MergeSolution(ctx, "fix-op-2"))

	// Checked against git: the solution is the original plus h2's change, without the scratch file.
	diff := gitOut(t, dir, "diff", "--stat", original, "HEAD")
	if !strings.Contains(diff, "calc.py") || strings.Contains(diff, "repro.py") {
		t.Errorf("final diff against the original:\n%s", diff)
	}
	if got := gitOut(t, dir, "show", "HEAD:calc.py"); !strings.Contains(got, "a + b") {
		t.Errorf("solution calc.py = %q", got)
	}
	if parent := gitOut(t, dir, "rev-parse", "HEAD^"); parent != original {
		t.Errorf("solution's parent %s, want the original %s", parent, original)
	}
	branches := gitOut(t, dir, "branch", "--list", "swe-adept/r1/*")
	for _, b := range []string{"fix-op", "fix-op-2", "solution"} {
		if !strings.Contains(branches, "swe-adept/r1/"+b+"\n") && !strings.HasSuffix(branches, "swe-adept/r1/"+b) {
			t.Errorf("branch %s missing in:\n%s", b, branches)
		}
	}
	// Memory on disk matches: a crash now loses nothing.
	saved, err := store.Load()
	if err != nil || saved.Merged != "swe-adept/r1/fix-op-2" || saved.Hypothesis("h1").Todo("t3").Hash == "" {
		t.Errorf("saved memory = %+v, %v", saved, err)
	}
}

func TestMisuse(t *testing.T) {
	ctx := context.Background()
	f, dir, _ := setup(t, nil)
	tests := []struct {
		name string
		call func() (tool.Output, error)
		want string
	}{
		{"start before base", func() (tool.Output, error) { return f.StartHypothesis(ctx, "x") }, "call init_base first"},
		{"commit without a branch", func() (tool.Output, error) { return f.CommitTodo(ctx, "t1", "m") }, "start_hypothesis first"},
		{"merge before base", func() (tool.Output, error) { return f.MergeSolution(ctx, "x") }, "init_base first"},
		{"compare before base", func() (tool.Output, error) { return f.CompareHypotheses(ctx) }, "init_base first"},
		{"branch escaping the namespace", func() (tool.Output, error) { return f.StartHypothesis(ctx, "../../../heads/work") }, "init_base first"},
		{"bad hypothesis markdown", func() (tool.Output, error) { return f.UpdateHypothesis(ctx, "") }, "markdown list"},
		{"unknown hypothesis", func() (tool.Output, error) { return f.UpdateTodo(ctx, "h9", "- [ ] a") }, "h9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectAdvice(t, tt.want)(tt.call()) })
	}

	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] edit\n- [ ] test"))
	later := []struct {
		name string
		call func() (tool.Output, error)
		want string
	}{
		{"branch taken", func() (tool.Output, error) { return f.RevertTo(ctx, "h1", "t1", "one") }, "has no checkpoint"},
		{"nothing to commit", func() (tool.Output, error) { return f.CommitTodo(ctx, "t1", "m") }, "nothing to commit"},
		{"branch name git refuses", func() (tool.Output, error) { return f.RevertTo(ctx, "h1", "t1", "a..b") }, "has no checkpoint"},
		{"unknown to-do", func() (tool.Output, error) { return f.CommitTodo(ctx, "fly to the moon", "m") }, "t1"},
		{"every hypothesis has a branch", func() (tool.Output, error) { return f.StartHypothesis(ctx, "two") }, "already has a branch"},
		{"merge before success", func() (tool.Output, error) { return f.MergeSolution(ctx, "one") }, "no hypothesis is marked successful"},
	}
	for _, tt := range later {
		t.Run(tt.name, func(t *testing.T) { expectAdvice(t, tt.want)(tt.call()) })
	}
	write(t, dir, "calc.py", "changed\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "edit", "edit"))
	expectAdvice(t, "already exists")(f.RevertTo(ctx, "h1", "t1", "one"))
	expectAdvice(t, "invalid branch name")(f.RevertTo(ctx, "h1", "t1", "a..b"))
	expectAdvice(t, "invalid branch name")(f.RevertTo(ctx, "h1", "t1", "../../../heads/work"))
}

func TestInitBaseLeavesTheEngineersBranch(t *testing.T) {
	ctx := context.Background()
	f, dir, _ := setup(t, nil)
	before := gitOut(t, dir, "rev-parse", "HEAD")
	branch := gitOut(t, dir, "branch", "--show-current")
	write(t, dir, "repro.py", "print('bug')\n")
	expectOK(t, "git switch "+branch)(f.InitBase(ctx))
	if now := gitOut(t, dir, "rev-parse", branch); now != before {
		t.Errorf("init_base moved %s from %s to %s", branch, before, now)
	}
	if cur := gitOut(t, dir, "branch", "--show-current"); cur != "" {
		t.Errorf("HEAD should be detached, is on %q", cur)
	}
}

func expectAdvice(t *testing.T, want string) func(tool.Output, error) {
	return func(out tool.Output, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("error %v; misuse must come back as an observation", err)
		}
		if !out.Failed || !strings.Contains(out.Text, want) {
			t.Fatalf("observation (failed=%v) does not contain %q:\n%s", out.Failed, want, out.Text)
		}
	}
}

// answers replies from a list, recording what it was asked.
type answers struct {
	replies []event.Reply
	asked   []*event.ApprovalRequest
}

func (a *answers) Approve(_ context.Context, req *event.ApprovalRequest) (event.Reply, error) {
	a.asked = append(a.asked, req)
	r := a.replies[0]
	a.replies = a.replies[1:]
	return r, nil
}

func TestApprovalRefuseAndChoose(t *testing.T) {
	ctx := context.Background()
	ans := &answers{replies: []event.Reply{
		{Decision: event.Refuse, Reason: "the docstring step is fine, keep going"},
		{Decision: event.Choose, Choice: "h1/t2 abc wrong"},
	}}
	f, dir, _ := setup(t, ans)
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one\n- [ ] two"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] a\n- [ ] b"))
	write(t, dir, "calc.py", "a\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "a", "a"))
	write(t, dir, "calc.py", "b\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "b", "b"))
	write(t, dir, "dirty.txt", "uncommitted work\n")

	expectAdvice(t, "keep going")(f.RevertTo(ctx, "h1", "t1", "two"))
	if _, err := os.Stat(filepath.Join(dir, "dirty.txt")); err != nil {
		t.Fatal("a refused revert must leave the working tree alone")
	}
	expectOK(t, "checkpoint")(f.RevertTo(ctx, "h1", "t1", "two"))
	t2 := f.mem.Hypothesis("h1").Todo("t2")
	if head := gitOut(t, dir, "rev-parse", "HEAD"); head != t2.Hash {
		t.Errorf("the engineer chose h1/t2 (%s), HEAD is %s", t2.Hash, head)
	}
	if len(ans.asked) != 2 || !strings.Contains(ans.asked[0].Diff, "uncommitted work") {
		t.Errorf("the request must show what the revert drops; asked %d, diff %q", len(ans.asked), ans.asked[0].Diff)
	}
	if refs := gitOut(t, dir, "for-each-ref", "refs/swe-adept/stash/"); refs == "" {
		t.Error("uncommitted changes were not put aside on a private ref")
	}
}

func TestResumeAfterCrash(t *testing.T) {
	ctx := context.Background()
	f, dir, store := setup(t, nil)
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] a"))
	write(t, dir, "calc.py", "a\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "a", "a"))

	// The process dies here; a new one loads memory from disk and goes on.
	mem, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := vcs.Open(ctx, dir)
	g := New(Config{Repo: repo, Store: store, RunID: "r1", Memory: mem})
	if got := g.mem.Hypothesis("h1").Todo("t1").Hash; got != gitOut(t, dir, "rev-parse", "swe-adept/r1/one") {
		t.Fatalf("memory's checkpoint %s does not match the branch", got)
	}
	expectOK(t, "t2")(g.UpdateTodo(ctx, "h1", "- [v] a\n- [-] b"))
	write(t, dir, "calc.py", "b\n")
	expectOK(t, "Committed")(g.CommitTodo(ctx, "b", "b"))

	// Every hypothesis has a branch: the revert forks a new one from the checkpoint.
	expectOK(t, "continues")(g.RevertTo(ctx, "h1", "t1", "retry"))
	h := g.mem.CurrentHypothesis()
	if h.ID == "h1" || h.Branch != "swe-adept/r1/retry" || len(h.Todos) != 1 || h.Todos[0].Hash != g.mem.Hypothesis("h1").Todo("t1").Hash {
		t.Errorf("forked hypothesis = %+v", h)
	}
}

func TestCancelWhileWaitingForApproval(t *testing.T) {
	asked := make(chan struct{})
	f, dir, _ := setup(t, uiApprover{asked})
	ctx, cancel := context.WithCancel(context.Background())
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one\n- [ ] two"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] a"))
	write(t, dir, "calc.py", "a\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "a", "a"))
	head := gitOut(t, dir, "rev-parse", "HEAD")
	errc := make(chan error)
	go func() { _, err := f.RevertTo(ctx, "h1", "t1", "two"); errc <- err }()
	<-asked
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled approval must end the call with an error")
	}
	if now := gitOut(t, dir, "rev-parse", "HEAD"); now != head {
		t.Error("a cancelled revert moved HEAD")
	}
}

// uiApprover waits for an answer that never comes, like a screen nobody looks at.
type uiApprover struct{ asked chan struct{} }

func (u uiApprover) Approve(ctx context.Context, req *event.ApprovalRequest) (event.Reply, error) {
	close(u.asked)
	return req.Wait(ctx)
}

func TestCheckpointPublishesBothDiffs(t *testing.T) {
	ctx := context.Background()
	f, dir, _ := setup(t, nil)
	bus := event.NewBus(nil)
	ch := bus.Subscribe()
	f.cfg.Bus = bus
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] a"))
	write(t, dir, "calc.py", "a\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "a", "a"))
	bus.Close()
	var toCheckpoint, toBranch bool
	for e := range ch {
		if e.Type != event.Diff {
			continue
		}
		toCheckpoint = toCheckpoint || (e.Diff.From == f.mem.Hypothesis("h1").Todo("t1").Parent && strings.Contains(e.Diff.Patch, "+a"))
		toBranch = toBranch || (e.Diff.From == f.mem.Original && e.Diff.To == "swe-adept/r1/one" && strings.Contains(e.Diff.Patch, "+a"))
	}
	if !toCheckpoint || !toBranch {
		t.Errorf("diff events: checkpoint vs parent %v, hypothesis vs original %v; want both", toCheckpoint, toBranch)
	}
}

// TestChooseAnotherKeepsEachCheckpoint: when the engineer picks another
// checkpoint than the agent asked for, the continuation's to-dos carry
// their own checkpoints, up to the chosen one and no further.
func TestChooseAnotherKeepsEachCheckpoint(t *testing.T) {
	ctx := context.Background()
	f, dir, _ := setup(t, &answers{replies: []event.Reply{{Decision: event.Choose, Choice: "h1/t1 abc a"}}})
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one\n- [ ] two"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	expectOK(t, "t1")(f.UpdateTodo(ctx, "h1", "- [-] a\n- [ ] b\n- [ ] c"))
	write(t, dir, "calc.py", "a\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "a", "a"))
	write(t, dir, "calc.py", "b\n")
	expectOK(t, "Committed")(f.CommitTodo(ctx, "b", "b"))
	expectOK(t, "step t1")(f.RevertTo(ctx, "h1", "t2", "two"))
	h1, h2 := f.mem.Hypothesis("h1"), f.mem.Hypothesis("h2")
	if len(h2.Todos) != 1 || h2.Todos[0].Content != "a" || h2.Todos[0].Hash != h1.Todo("t1").Hash {
		t.Fatalf("h2's to-dos after choosing h1/t1: %+v", h2.Todos)
	}
	if h1.Todo("t1").Hash == h1.Todo("t2").Hash || h1.Todo("t2").Hash == "" {
		t.Errorf("h1's checkpoints changed: t1 %s t2 %s", h1.Todo("t1").Hash, h1.Todo("t2").Hash)
	}
}

// TestFailedBranchLeavesTheTreeAlone: a start_hypothesis whose branch
// cannot be made (a name clashing with an existing ref, one too long) is
// refused before anything is set aside; the uncommitted work stays.
func TestFailedBranchLeavesTheTreeAlone(t *testing.T) {
	ctx := context.Background()
	f, dir, _ := setup(t, nil)
	expectOK(t, "Original")(f.InitBase(ctx))
	expectOK(t, "h1")(f.UpdateHypothesis(ctx, "- [-] one\n- [ ] two"))
	expectOK(t, "one")(f.StartHypothesis(ctx, "one"))
	write(t, dir, "work.txt", "uncommitted\n")
	for _, name := range []string{"one/deeper", strings.Repeat("x", 260)} {
		out, err := f.StartHypothesis(ctx, name)
		if err != nil || !out.Failed {
			t.Fatalf("start_hypothesis %.20q: %v %+v", name, err, out)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "work.txt")); err != nil || string(b) != "uncommitted\n" {
			t.Fatalf("start_hypothesis %.20q, not carried out, took the uncommitted work: %v", name, err)
		}
	}
}
