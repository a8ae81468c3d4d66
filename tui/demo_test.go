package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/demo"
)

// TestDemoRun plays the whole demo (real index, search, git and tests;
// scripted model choices) through the model with approvals on auto, and
// reads the final screen as the engineer would.
func TestDemoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "shop")
	if err := demo.Setup(ctx, dir); err != nil {
		t.Fatal(err)
	}
	loc, res, err := demo.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(ctx, run.Options{Repo: dir, Issue: demo.Issue(), Approve: "auto",
		LocalizeModel: llm.NewScripted(loc), ResolveModel: llm.NewScripted(res)})
	if err != nil {
		t.Fatal(err)
	}
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
