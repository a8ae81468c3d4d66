package run

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
	"github.com/swe-adept/swe-adept/internal/testtree"
	"github.com/swe-adept/swe-adept/memory"
)

// TestScriptedRun plays the sample's transcripts against the real tools:
// localize, a wrong hypothesis whose tests fail, a revert to a useful
// checkpoint on a new branch, the fix, compare, merge, submit.
func TestScriptedRun(t *testing.T) {
	needPython(t)
	repo, readme := sampleRepo(t)
	if ok, _ := unittest(t, repo); ok {
		t.Fatal("the sample's tests pass before the fix: the test could not fail")
	}
	statusBefore := git(t, repo, "status", "--porcelain")
	r, err := Start(context.Background(), Options{
		Repo: repo, Issue: readIssue(t), LocalizeModel: script(t, "localize.json"), ResolveModel: script(t, "resolve.json"),
		Approve: "auto", MaxIterations: 40,
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(r)
	sum, err := r.Wait()
	events := <-evs
	if err != nil {
		t.Fatalf("run failed: %v (%s)", err, sum.Message)
	}
	if sum.Status != "submitted" {
		t.Fatalf("status %s: %s", sum.Status, sum.Message)
	}
	checkPatch(t, sum)
	checkCheckout(t, repo, readme, statusBefore)
	checkFolder(t, r.Dir)
	checkEvents(t, events)
}

func checkPatch(t *testing.T, sum runfolder.Summary) {
	t.Helper()
	patch := string(must(os.ReadFile(sum.Patch)))
	if strings.Contains(patch, "reproduce.py") || strings.Contains(patch, "cart.py") {
		t.Errorf("the patch holds scratch work or the reverted step:\n%s", patch)
	}
	if len(sum.Dropped) != 1 || sum.Dropped[0] != "reproduce.py" {
		t.Errorf("dropped %v, want [reproduce.py]", sum.Dropped)
	}
	fresh := t.TempDir()
	testtree.Copy(t, filepath.Join(sampleDir, "inventory"), fresh)
	cmd := exec.Command("git", "apply", "-")
	cmd.Dir, cmd.Stdin = fresh, strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the patch does not apply to a fresh copy: %v\n%s", err, out)
	}
	if ok, out := unittest(t, fresh); !ok {
		t.Errorf("the sample's tests fail with the patch:\n%s\n%s", out, patch)
	}
}

// checkCheckout: the engineer's branch, dirty edit and untracked file are as
// they were, byte for byte.
func checkCheckout(t *testing.T, repo string, readme []byte, statusBefore string) {
	t.Helper()
	if got := must(os.ReadFile(filepath.Join(repo, "README.md"))); !bytes.Equal(got, readme) {
		t.Errorf("the engineer's uncommitted README edit changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "notes.txt")); err != nil {
		t.Errorf("the engineer's untracked file is gone: %v", err)
	}
	if st := git(t, repo, "status", "--porcelain"); st != statusBefore {
		t.Errorf("git status changed:\n%s\nwas\n%s", st, statusBefore)
	}
	if b := strings.TrimSpace(git(t, repo, "branch", "--show-current")); b != "main" {
		t.Errorf("the checkout is on %q, want main", b)
	}
	if ok, _ := unittest(t, repo); ok {
		t.Error("the checkout was fixed without --apply")
	}
}

func checkFolder(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{runfolder.EventsFile, runfolder.LocationsFile, runfolder.MemoryFile, runfolder.PatchFile, runfolder.TranscriptFile, runfolder.SummaryFile, runfolder.MetaFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run folder lacks %s", f)
		}
	}
	mem, err := memory.Load(filepath.Join(dir, runfolder.MemoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, h := range mem.Active() {
		tags = append(tags, string(h.Status))
	}
	if strings.Join(tags, " ") != "! v" || mem.Merged == "" {
		t.Errorf("hypotheses %v merged %q, want a failed and a successful one, merged", tags, mem.Merged)
	}
	var tr runfolder.Transcript
	if err := runfolder.ReadJSON(filepath.Join(dir, runfolder.TranscriptFile), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Localize) < 6 || len(tr.Resolve) < 20 {
		t.Errorf("transcript has %d localization and %d resolution messages", len(tr.Localize), len(tr.Resolve))
	}
	f := must(os.ReadFile(filepath.Join(dir, runfolder.EventsFile)))
	evs, err := event.ReadAll(bytes.NewReader(f))
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != event.Done {
		t.Errorf("events.jsonl: %d events, err %v", len(evs), err)
	}
}

func checkEvents(t *testing.T, evs []event.Event) {
	t.Helper()
	if len(evs) == 0 || evs[0].Type != event.RunStarted || evs[len(evs)-1].Type != event.Done {
		t.Fatalf("events do not start with run_started and end with done: first %+v", evs[0])
	}
	want := map[event.Type]int{event.IndexProgress: 1, event.Ranked: 1, event.Checkpoint: 3, event.Plan: 5, event.Diff: 1, event.Approval: 2}
	for typ, n := range want {
		if got := countType(evs, typ); got < n {
			t.Errorf("%d %s events, want at least %d", got, typ, n)
		}
	}
	var phases []string
	for _, e := range evs {
		if e.Type == event.PhaseChanged {
			phases = append(phases, e.Phase)
		}
	}
	if got := strings.Join(phases, " "); got != "index localize filter resolve done" {
		t.Errorf("phases %q", got)
	}
}

func TestStartBadInput(t *testing.T) {
	repo, _ := sampleRepo(t)
	s, _ := llm.ParseScript([]byte(`{"turns":[{"content":"hi"}]}`))
	m := llm.NewScripted(s)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"not a repository", Options{Repo: t.TempDir(), Issue: "x", Model: m}, "not a git repository"},
		{"empty issue", Options{Repo: repo, Issue: "  \n", Model: m}, "issue is empty"},
		{"no model", Options{Repo: repo, Issue: "x"}, "OPENAI_API_KEY"},
		{"no localization model", Options{Repo: repo, Issue: "x", ResolveModel: m}, "--localize-model heuristic"},
		{"bad approval mode", Options{Repo: repo, Issue: "x", Model: m, Approve: "sometimes"}, "want ask, auto or deny"},
		{"unknown run to resume", Options{Repo: repo, Resume: "nope", Model: m}, "no run nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start: %v, want an error with %q", err, tt.want)
			}
		})
	}
	if st := git(t, repo, "status", "--porcelain"); !strings.Contains(st, "README.md") {
		t.Errorf("the engineer's work changed: %q", st)
	}
}

// TestRunNoTool: a model that never calls a tool ends the run cleanly.
func TestRunNoTool(t *testing.T) {
	repo, readme := sampleRepo(t)
	s, _ := llm.ParseScript([]byte(`{"turns":[{"content":"I think"},{"content":"the fix"},{"content":"is easy"},{"content":"really"}]}`))
	locs, _ := LoadLocations(filepath.Join(sampleDir, "locations.txt"))
	r, err := Start(context.Background(), Options{Repo: repo, Issue: "x", ResolveModel: llm.NewScripted(s), Locations: locs})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil || sum.Status != "exit_no_tool" || !strings.Contains(sum.Message, "tool calls") {
		t.Errorf("summary %+v, err %v", sum, err)
	}
	if !bytes.Equal(must(os.ReadFile(filepath.Join(repo, "README.md"))), readme) {
		t.Error("the engineer's edit changed")
	}
}

// TestRunCancelAndResume cancels a run while it waits for an approval in
// ask mode, then resumes it to the end.
func TestRunCancelAndResume(t *testing.T) {
	needPython(t)
	repo, _ := sampleRepo(t)
	locs, err := LoadLocations(filepath.Join(sampleDir, "locations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	resolveScript := script(t, "resolve.json")
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), ResolveModel: resolveScript, Locations: locs, Approve: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for e := range r.Events() {
		if e.Type != event.Approval {
			continue
		}
		asked = append(asked, e.Approval.Action)
		switch e.Approval.Action {
		case EditLocationsAction:
			e.Approval.Answer(event.Reply{Decision: event.Choose, Choice: "inventory/pricing.py:apply_discount\ninventory/pricing.py"})
		case "revert_to":
			r.Cancel() // the engineer quits while asked
		default:
			e.Approval.Answer(event.Reply{Decision: event.Approve})
		}
	}
	sum, err := r.Wait()
	if err != nil || sum.Status != "cancelled" {
		t.Fatalf("first part: status %s err %v", sum.Status, err)
	}
	if len(asked) < 2 || asked[0] != EditLocationsAction {
		t.Errorf("approvals asked: %v", asked)
	}
	saved, _ := LoadLocations(filepath.Join(r.Dir, runfolder.LocationsFile))
	if len(saved.Functions) != 1 {
		t.Errorf("the edited locations were not saved: %+v", saved)
	}
	// The run asks for the interrupted revert again, and the agent goes on
	// from its answer to the end.
	r2, err := Start(context.Background(), Options{Repo: repo, Resume: r.ID, ResolveModel: script(t, "resume.json"), Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	reasked := ""
	for e := range r2.Events() {
		if e.Type == event.Approval && reasked == "" {
			reasked = e.Approval.Action
		}
	}
	if reasked != "revert_to" {
		t.Errorf("the resumed run asked %q first, want the interrupted revert_to", reasked)
	}
	sum, err = r2.Wait()
	if err != nil || sum.Status != "submitted" || !sum.Resumed {
		t.Fatalf("resumed: %+v err %v", sum, err)
	}
	if !strings.Contains(string(must(os.ReadFile(sum.Patch))), "percent / 100") {
		t.Error("the resumed run's patch lacks the fix")
	}
	evs, err := event.ReadAll(bytes.NewReader(must(os.ReadFile(filepath.Join(r.Dir, runfolder.EventsFile)))))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 {
			t.Fatalf("events.jsonl numbering breaks at line %d: %d after %d", i+1, evs[i].Seq, evs[i-1].Seq)
		}
	}
	if _, err := Start(context.Background(), Options{Repo: repo, Resume: r.ID, ResolveModel: resolveScript}); err == nil || !strings.Contains(err.Error(), "nothing to resume") {
		t.Errorf("resuming a submitted run: %v", err)
	}
}

// TestRunModes: in place, with --apply, and stopped by the iteration limit.
func TestRunModes(t *testing.T) {
	needPython(t)
	tests := []struct {
		name     string
		opts     Options
		status   string
		patchHas string
		fixed    bool // the checkout's own tests pass afterwards
		applied  bool
	}{
		{"in place", Options{InPlace: true}, "submitted", "percent / 100", false, false},
		{"in place with apply", Options{InPlace: true, Apply: true}, "submitted", "percent / 100", true, true},
		{"worktree with apply", Options{Apply: true}, "submitted", "percent / 100", true, true},
		{"iteration limit keeps the work so far", Options{MaxIterations: 9, Apply: true}, "exit_iterations", "ValueError", false, false},
		{"token limit over both agents", Options{MaxTokens: 30000}, "exit_context", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each run has a checkout of its own
			repo, readme := sampleRepo(t)
			opts := tt.opts
			opts.Repo, opts.Issue, opts.Approve = repo, readIssue(t), "auto"
			opts.LocalizeModel, opts.ResolveModel = script(t, "localize.json"), script(t, "resolve.json")
			r, err := Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := r.Wait()
			if err != nil || sum.Status != tt.status {
				t.Fatalf("status %s err %v: %s", sum.Status, err, sum.Message)
			}
			if patch := string(must(os.ReadFile(filepath.Join(r.Dir, runfolder.PatchFile)))); !strings.Contains(patch, tt.patchHas) || strings.Contains(patch, "reproduce.py") {
				t.Errorf("patch:\n%s", patch)
			}
			if ok, out := unittest(t, repo); ok != tt.fixed {
				t.Errorf("checkout tests pass=%v, want %v\n%s", ok, tt.fixed, out)
			}
			if sum.Applied != tt.applied {
				t.Errorf("applied %v, want %v (%s)", sum.Applied, tt.applied, sum.Message)
			}
			if got := must(os.ReadFile(filepath.Join(repo, "README.md"))); !bytes.Equal(got, readme) {
				t.Errorf("README changed:\n%s", got)
			}
			if b := strings.TrimSpace(git(t, repo, "branch", "--show-current")); b != "main" {
				t.Errorf("checkout on %q, want main", b)
			}
		})
	}
}

// TestRunTestsCannotRun: tests that crash on import or hang reach the model
// as observations, and the run still ends cleanly with nothing to patch.
func TestRunTestsCannotRun(t *testing.T) {
	needPython(t)
	repo, readme := sampleRepo(t)
	if err := os.WriteFile(filepath.Join(repo, "tests", "__init__.py"), []byte("import missing_dependency\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := llm.ParseScript([]byte(`{"turns": [
	 {"tool_calls": [{"name": "bash", "arguments": {"command": "python3 -m unittest tests.test_pricing"}}]},
	 {"expect": "missing_dependency", "tool_calls": [{"name": "bash", "arguments": {"command": "python3 -c 'import time; time.sleep(60)'", "timeout": 1}}]},
	 {"expect": "timed out", "tool_calls": [{"name": "submit", "arguments": {"summary": "the tests cannot run here"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	locs, _ := LoadLocations(filepath.Join(sampleDir, "locations.txt"))
	r, err := Start(context.Background(), Options{Repo: repo, Issue: "x", ResolveModel: llm.NewScripted(s), Locations: locs,
		Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil || sum.Status != "submitted_empty" || sum.Patch != "" || sum.Stat != "no changes" {
		t.Fatalf("summary %+v err %v", sum, err)
	}
	if !bytes.Equal(must(os.ReadFile(filepath.Join(repo, "README.md"))), readme) {
		t.Error("the engineer's edit changed")
	}
}

// TestRunHeuristicLocalizer: the offline localizer, picked once the index
// exists, finds the issue's function for the scripted resolution.
func TestRunHeuristicLocalizer(t *testing.T) {
	needPython(t)
	repo, _ := sampleRepo(t)
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), ResolveModel: script(t, "resolve.json"), Approve: "auto",
		Localizer: func(ix *index.Index) (llm.Model, string, error) {
			return heuristic.New(ix, search.NewSearcher(ix)), "", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil || sum.Status != "submitted" {
		t.Fatalf("status %s err %v: %s", sum.Status, err, sum.Message)
	}
	if !slices.Contains(sum.Files, "inventory/pricing.py") {
		t.Errorf("the heuristic localizer ranked %v, without inventory/pricing.py", sum.Files)
	}
}
