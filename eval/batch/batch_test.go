package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

var shopIssue = mustRead(filepath.Join("..", "..", "testdata", "localize", "issue.md"))

func mustRead(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mirrors makes REPOS/shop/shop, a bare mirror of the sample shop, and
// returns the repos folder and the base commit.
func mirrors(t *testing.T) (string, string) {
	t.Helper()
	repos := t.TempDir()
	return repos, mirror(t, filepath.Join("..", "..", "testdata", "localize", "shop"), repos, "shop/shop")
}

// mirror commits a copy of src and clones it bare to REPOS/OWNER/NAME,
// returning the commit.
func mirror(t *testing.T, src, repos, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	testtree.Copy(t, src, dir)
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	commit := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	dst := swebench.RepoDir(repos, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repos, "clone", "-q", "--bare", dir, dst)
	return commit
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// instancesFile writes an instances JSONL with two good shop instances,
// one whose repository is missing, one whose commit is, and a malformed
// line, and reads it back as the command does.
func instancesFile(t *testing.T, commit string) ([]swebench.Instance, []swebench.LineError) {
	t.Helper()
	mk := func(id, repo, commit string) string {
		b, _ := json.Marshal(map[string]any{"instance_id": id, "repo": repo, "base_commit": commit,
			"problem_statement": shopIssue, "gold_functions": []string{"shop/money.py:round_money"},
			"gold_files": []string{"shop/money.py"}})
		return string(b)
	}
	lines := []string{
		mk("shop__shop-1", "shop/shop", commit),
		`{"instance_id": "broken", "repo": `,
		mk("shop__shop-2", "shop/shop", commit),
		mk("gone__gone-1", "gone/gone", commit),
		mk("shop__shop-3", "shop/shop", strings.Repeat("0", 40)),
	}
	p := filepath.Join(t.TempDir(), "instances.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, bad, err := swebench.ReadInstancesFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Line != 2 || len(ins) != 4 {
		t.Fatalf("read %d instances, bad lines %v", len(ins), bad)
	}
	return ins, bad
}

var locScript = filepath.Join("..", "..", "testdata", "localize", "script.json")

// counting wraps a runner: it counts calls per instance, and can act
// before a call (to stop the batch at a chosen point).
type counting struct {
	inner  Runner
	mu     sync.Mutex
	calls  map[string]int
	before func(n int, ctx context.Context) error
	n      int
}

func (c *counting) Run(ctx context.Context, job Job) (Result, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[job.Task.InstanceID]++
	c.n++
	n := c.n
	c.mu.Unlock()
	if c.before != nil {
		if err := c.before(n, ctx); err != nil {
			return Result{}, err
		}
	}
	return c.inner.Run(ctx, job)
}

func TestLocalizeOnlyBatch(t *testing.T) {
	repos, commit := mirrors(t)
	ins, bad := instancesFile(t, commit)
	out := t.TempDir()
	var prog bytes.Buffer
	run := &counting{inner: LocalizeRunner{Script: locScript}}
	sum, err := Run(context.Background(), Config{Instances: ins, BadLines: bad, ReposDir: repos, OutDir: out,
		Workers: 2, Runner: run, LocalizeOnly: true, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finished != 4 || sum.ByStatus["submitted"] != 2 || sum.ByStatus[StatusSetup] != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if run.calls["gone__gone-1"] != 0 || run.calls["shop__shop-3"] != 0 {
		t.Fatalf("the runner ran instances that failed setup: %v", run.calls)
	}
	if sum.Acc == nil || sum.Acc.Instances != 4 || sum.Acc.Failed != 2 || sum.Acc.FileAcc1 != 0.5 || sum.Acc.FuncAcc5 != 0.5 {
		t.Fatalf("acc %+v", sum.Acc)
	}
	if len(sum.Malformed) != 1 || sum.Malformed[0].Line != 2 {
		t.Fatalf("malformed %+v", sum.Malformed)
	}
	outs := readLines(t, filepath.Join(out, LocOutputs))
	if len(outs) != 4 {
		t.Fatalf("%d LocAgent lines", len(outs))
	}
	var first swebench.LocAgentOutput
	if err := json.Unmarshal([]byte(outs[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.InstanceID != "shop__shop-1" || len(first.FoundEntities) == 0 || first.FoundEntities[0] != "shop/money.py:round_money" {
		t.Fatalf("first output %+v", first)
	}
	for _, f := range []string{runfolder.EventsFile, runfolder.LocationsFile, DoneFile, runfolder.InstanceFile} {
		if _, err := os.Stat(filepath.Join(out, RunsDir, "shop__shop-1", f)); err != nil {
			t.Fatalf("run folder lacks %s: %v", f, err)
		}
	}
	inst, _ := os.ReadFile(filepath.Join(out, RunsDir, "shop__shop-1", runfolder.InstanceFile))
	if bytes.Contains(inst, []byte("gold")) || bytes.Contains(inst, []byte("round_money")) {
		t.Fatalf("the run folder shows the gold: %s", inst)
	}
	setup, err := loadRecord(filepath.Join(out, RunsDir, "gone__gone-1"))
	if err != nil || setup.Status != StatusSetup || !strings.Contains(setup.Message, "not found") {
		t.Fatalf("missing repo record %+v, %v", setup, err)
	}
	if n := strings.Count(prog.String(), "\n"); n != 4 || !strings.Contains(prog.String(), "[4/4]") {
		t.Fatalf("progress off a terminal is one line per instance:\n%s", prog.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(out, WorkDir)); len(entries) != 0 {
		t.Fatalf("checkouts left behind: %d", len(entries))
	}
}

// TestBatchKilledAndResumed stops a batch once the first instance has
// finished, then runs it again: the finished one is skipped, the rest done.
func TestBatchKilledAndResumed(t *testing.T) {
	repos, commit := mirrors(t)
	ins, _ := instancesFile(t, commit)
	ins = ins[:2] // the two good ones
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := &counting{inner: LocalizeRunner{Script: locScript}, before: func(n int, rctx context.Context) error {
		if n == 2 { // the first instance is saved before the worker takes the next
			cancel()
			<-rctx.Done()
			return rctx.Err()
		}
		return nil
	}}
	sum, err := Run(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out, Workers: 1, Runner: first, LocalizeOnly: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped batch: err %v", err)
	}
	if sum.Finished != 1 || len(sum.Pending) != 1 || sum.Pending[0] != "shop__shop-2" {
		t.Fatalf("after the stop: %+v", sum)
	}
	if _, err := os.Stat(filepath.Join(out, RunsDir, "shop__shop-2")); !os.IsNotExist(err) {
		t.Fatalf("the unfinished instance left a run folder: %v", err)
	}
	if got := readLines(t, filepath.Join(out, LocOutputs)); len(got) != 1 {
		t.Fatalf("after the stop loc_outputs has %d lines", len(got))
	}

	again := &counting{inner: LocalizeRunner{Script: locScript}}
	var prog bytes.Buffer
	sum, err = Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: out, Workers: 2, Runner: again,
		LocalizeOnly: true, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	if again.calls["shop__shop-1"] != 0 || again.calls["shop__shop-2"] != 1 {
		t.Fatalf("resume ran %v", again.calls)
	}
	if sum.Finished != 2 || sum.Resumed != 1 || len(sum.Pending) != 0 || sum.ByStatus["submitted"] != 2 {
		t.Fatalf("after resuming: %+v", sum)
	}
	if !strings.Contains(prog.String(), "resuming: 1 of 2") {
		t.Fatalf("progress: %s", prog.String())
	}
	if got := readLines(t, filepath.Join(out, LocOutputs)); len(got) != 2 {
		t.Fatalf("loc_outputs has %d lines", len(got))
	}
}

func readLines(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestDirName(t *testing.T) {
	tests := map[string]string{
		"django__django-11099": "django__django-11099",
		"a/b":                  "a__b",
		"..":                   "_..",
		".hidden":              "_.hidden",
		"":                     "_",
	}
	for in, want := range tests {
		if got := DirName(in); got != want {
			t.Errorf("DirName(%q) = %q, want %q", in, got, want)
		}
	}
}
