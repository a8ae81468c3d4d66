package localize

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// TestHeuristicEndToEnd drives the offline localizer through the real loop,
// tools and filter stages on the sample repository.
func TestHeuristicEndToEnd(t *testing.T) {
	ix, s := sample(t)
	loc, evs, err := runWith(t, heuristic.New(ix, s), 0)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Status != "submitted" {
		t.Errorf("status %q", loc.Status)
	}
	if len(loc.Functions) == 0 || loc.Functions[0] != "shop/money.py:round_money" {
		t.Errorf("functions %v: round_money should rank first", loc.Functions)
	}
	if len(loc.Files) == 0 || loc.Files[0] != "shop/money.py" {
		t.Errorf("files %v: money.py should rank first", loc.Files)
	}
	// The heuristic follows Cart.total's dependency path to the bottom.
	if n := node(t, loc, "shop/money.py:round_money"); n.Depth == 0 && loc.MaxDepth < 2 {
		t.Errorf("max depth %d, round_money at %+v", loc.MaxDepth, n)
	}
	if loc.ToolCalls[search.FinishSearch.Name] != 1 || loc.ToolCalls[search.FindChildUnit.Name] == 0 {
		t.Errorf("tool calls %v", loc.ToolCalls)
	}
	for _, f := range loc.Functions {
		if strings.HasPrefix(f, "tests/") {
			t.Errorf("a test ranked: %v", loc.Functions)
		}
	}
	var calls, results int
	for _, e := range evs {
		switch e.Type {
		case event.ToolCall:
			calls++
		case event.ToolResult:
			results++
			if e.Tool.Failed {
				t.Errorf("heuristic call failed: %s %s: %s", e.Tool.Name, e.Tool.Arguments, e.Tool.Observation)
			}
		}
	}
	if calls == 0 || calls != results {
		t.Errorf("%d tool calls, %d results", calls, results)
	}
	checkGolden(t, "heuristic", loc)
}

// TestHeuristicRespectsIterationLimit: with a small budget the heuristic
// is cut off by the loop and the filter stages still rank.
func TestHeuristicRespectsIterationLimit(t *testing.T) {
	ix, s := sample(t)
	loc, _, err := runWith(t, heuristic.New(ix, s), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(loc.Status, "exit_iterations") && loc.Status != "submitted" {
		t.Errorf("status %q", loc.Status)
	}
	if loc.Iterations > 2 || len(loc.Functions) == 0 {
		t.Errorf("iterations %d, functions %v", loc.Iterations, loc.Functions)
	}
}

// BenchmarkRunHeuristic is one whole offline localization of the sample
// issue: search, both filter stages, tree and events.
func BenchmarkRunHeuristic(b *testing.B) {
	ix, err := index.Build(context.Background(), sampleRepo, index.Options{NoCache: true})
	if err != nil {
		b.Fatal(err)
	}
	s := search.NewSearcher(ix)
	issue, err := os.ReadFile("../../testdata/localize/issue.md")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), Config{Index: ix, Searcher: s, Model: heuristic.New(ix, s), Issue: string(issue)}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSearcherShared(t *testing.T) {
	ix, s := sample(t)
	if got := searcherFor(Config{Index: ix, Model: heuristic.New(ix, s)}); got != s {
		t.Error("the heuristic's searcher should be reused")
	}
	other := index.New(t.TempDir(), nil, nil, nil)
	if got := searcherFor(Config{Index: other, Model: heuristic.New(ix, s)}); got == s || got.Index() != other {
		t.Error("a searcher over another index must not be reused")
	}
	if got := searcherFor(Config{Index: ix, Model: &fakeModel{}}); got == nil || got.Index() != ix {
		t.Error("without a heuristic a searcher is built")
	}
}

// TestHeuristicEmptyRepository: nothing to find ends cleanly, with the
// fallback said in the status.
func TestHeuristicEmptyRepository(t *testing.T) {
	ix := index.New(t.TempDir(), nil, nil, nil)
	loc, err := Run(context.Background(), Config{Index: ix, Model: heuristic.New(ix, nil), Issue: "`Cart.total` is wrong"})
	if err != nil {
		t.Fatal(err)
	}
	if len(loc.Files) != 0 || len(loc.Functions) != 0 || !strings.Contains(loc.Status, "visit order") {
		t.Errorf("locations %+v", loc)
	}
}

// TestEngineerSteersTheOfflineSearch: "prune ID" keeps a unit out of the
// search and the ranking; "prefer ID" ranks it first.
func TestEngineerSteersTheOfflineSearch(t *testing.T) {
	ix, s := sample(t)
	gate := event.NewGate()
	gate.Note("prune shop/money.py:round_money")
	gate.Note("prefer shop/pricing.py:tax")
	loc, err := Run(context.Background(), Config{Index: ix, Searcher: s, Model: heuristic.New(ix, s), Gate: gate, Issue: sampleIssue(t)})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(loc.Functions, "shop/money.py:round_money") {
		t.Errorf("the pruned unit is ranked: %v", loc.Functions)
	}
	if len(loc.Functions) == 0 || loc.Functions[0] != "shop/pricing.py:tax" {
		t.Errorf("the preferred unit is not first: %v", loc.Functions)
	}
}
