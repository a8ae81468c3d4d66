package tui

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/demo"
)

// startDemo sets up the demo repository and starts its scripted run with
// approvals as approve says.
func startDemo(t *testing.T, approve string) *run.Run {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "shop")
	if err := demo.Setup(ctx, dir); err != nil {
		t.Fatal(err)
	}
	loc, res, err := demo.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(ctx, run.Options{Repo: dir, Issue: demo.Issue(), Approve: approve,
		LocalizeModel: llm.NewScripted(loc), ResolveModel: llm.NewScripted(res)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDemoRun plays the whole demo (real index, search, git and tests;
// scripted model choices) through the model with approvals on auto, and
// reads the final screen as the engineer would.
func TestDemoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	r := startDemo(t, "auto")
	m := testModel(160, 48, Options{Gate: r.Gate(), Cancel: r.Cancel})
	for e := range r.Events() {
		m.Update(eventMsg{e})
	}
	m.Update(eventsClosed{})
	sum, err := r.Wait()
	if err != nil || sum.Status != "submitted" {
		t.Fatalf("demo run ended %s: %v", sum.Status, err)
	}
	m.Update(press("2"))
	view := m.View()
	for _, want := range []string{
		"[v] h2",          // the successful hypothesis
		"merged",          // ... merged as the solution
		"[!] h1",          // the surface fix that failed
		"✗ dead end",      // the DFS backtracked
		"★1",              // the final ranking
		"done: submitted", // the run's status
		"shop/money.py:round_cents",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("final screen lacks %q:\n%s", want, view)
		}
	}
	if _, ok := demo.Python(); ok && !strings.Contains(view, "python3 -m unittest → OK") {
		t.Errorf("final screen does not show the tests passing:\n%s", view)
	}
}

// TestDemoProgram runs the demo in a real program with approvals on ask,
// answering each dialog with "a" as an engineer would, until the run ends.
func TestDemoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	r := startDemo(t, "ask")
	defer r.Cancel()
	m := New(Options{Events: r.Events(), Gate: r.Gate(), Cancel: r.Cancel, NoColor: true, Title: "demo"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
			}
		}
	}()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("done: submitted"))
	}, teatest.WithDuration(60*time.Second))
	close(stop)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	fm := tm.FinalModel(t).(*Model)
	if fm.hyps.plan.Merged == "" || fm.answers != 3 {
		t.Fatalf("merged %q after %d answered approvals, want 3 (locations, revert, merge)", fm.hyps.plan.Merged, fm.answers)
	}
	if sum, err := r.Wait(); err != nil || sum.Status != "submitted" {
		t.Fatalf("run ended %s: %v", sum.Status, err)
	}
}

// TestDemoProgramRefuseTheRanking runs the demo in a real program: the
// engineer refuses the ranked locations with a reason, sees the second
// ranking's dialog, approves it and everything after, and the run ends
// submitted.
func TestDemoProgramRefuseTheRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	r := startDemo(t, "ask")
	defer func() { r.Cancel(); _, _ = r.Wait() }() // the run folder is removed after the run ends
	m := New(Options{Events: r.Events(), Gate: r.Gate(), Cancel: r.Cancel, NoColor: true, Title: "demo"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	long := teatest.WithDuration(3 * time.Minute)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Resolve the issue at these locations?")) }, long)
	tm.Type("r")
	tm.Type("look below Cart.total again")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("localizer searched again")) }, long)
	stop := make(chan struct{})
	go func() { // approve the second ranking and every later question
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
			}
		}
	}()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("done: submitted")) }, long)
	close(stop)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if fm := tm.FinalModel(t).(*Model); fm.answers != 4 {
		t.Errorf("%d questions answered, want 4 (two rankings, the revert, the merge)", fm.answers)
	}
}
