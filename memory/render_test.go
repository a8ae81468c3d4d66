package memory

import (
	"reflect"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/internal/golden"
)

// richMemory is a run in the middle of its work: three hypotheses, one failed with a branch
// and checkpoints, one in progress, one dropped that keeps its branch.
func richMemory(t *testing.T) *Memory {
	t.Helper()
	m := newTestMemory(t, "1. [-] Fix the tokenizer loop on empty input\n2. [ ] Rewrite the lexer as a state machine\n3. [ ] Patch every caller")
	step := 0
	m.Now = func() time.Time { step++; return fixedNow.Add(time.Duration(step) * time.Minute) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.SetBase("0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"))
	must(m.SetBranch("h1", "swe-adept/run1/h1"))
	mustTodos(t, m, "h1", "- [ ] Add a failing test for empty input\n- [ ] Bound the loop by the input length\n- [ ] Run the tokenizer tests")
	must(m.SetCheckpoint("h1", "t1", Checkpoint{Hash: "3f2a1c4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Parent: "89abcdef", Message: "Add failing test for empty input\n\nMore detail.", Stat: "1 file changed, 12 insertions(+)"}))
	must(m.SetCheckpoint("h1", "t2", Checkpoint{Hash: "5b6c7d8bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", Parent: "3f2a1c4a", Message: "Bound the loop (first try)", Stat: "1 file changed, 2 insertions(+), 1 deletion(-)"}))
	mustTodos(t, m, "h1", "- [v] Add a failing test for empty input\n- [!] Run the tokenizer tests")
	_, err := m.LogInsight("Bounding the loop hides the bug: the caller passes a nil slice.\nThe test still fails on nil.")
	must(err)
	_, err = m.UpdateHypotheses("1. [-] Patch every caller to pass empty\n2. [!] Fix the tokenizer loop on empty input\n3. [ ] Rewrite the lexer as a state machine")
	must(err)
	must(m.SetBranch("h3", "swe-adept/run1/h3"))
	mustTodos(t, m, "h3", "1. [v] Find the callers\n2. [-] Patch the parser caller")
	must(m.SetCheckpoint("h3", "t1", Checkpoint{Hash: "9e8d7c6ccccccccccccccccccccccccccccccccc", Message: "List the callers in a test"}))
	_, err = m.LogInsight("Only two callers exist.")
	must(err)
	must(m.SetBranch("h2", "swe-adept/run1/h2"))
	_, err = m.UpdateHypotheses("1. [v] Patch every caller to pass empty\n2. [!] Fix the tokenizer loop on empty input")
	must(err)
	must(m.SetMerged("swe-adept/run1/h3", "abc"))
	return m
}

func TestOverviewsGolden(t *testing.T) {
	rich := richMemory(t)
	empty := New("run1")
	fresh := newTestMemory(t, "- [ ] only idea")
	cases := []struct {
		name string
		got  string
	}{
		{"hypotheses_empty", empty.HypothesisOverview()},
		{"hypotheses", rich.HypothesisOverview()},
		{"todos_none", fresh.TodoOverview(fresh.Hypothesis("h1"))},
		{"todos_h1", rich.TodoOverview(rich.Hypothesis("h1"))},
		{"todos_h3", rich.TodoOverview(rich.Hypothesis("h3"))},
		{"insights_none", fresh.InsightsOverview(fresh.Hypothesis("h1"))},
		{"insights_h1", rich.InsightsOverview(rich.Hypothesis("h1"))},
		{"base_none", empty.BaseOverview()},
		{"base", rich.BaseOverview()},
		{"compare_empty", empty.CompareReport(nil)},
		{"compare", rich.CompareReport(map[string]string{
			"h1": "1 file changed, 14 insertions(+), 1 deletion(-)\n14\t1\ttokenizer/loop.go",
			"h3": "1 file changed, 3 insertions(+)",
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden.Check(t, "TestOverviewsGolden/"+c.name, c.got)
		})
	}
}

// TestRenderedListsRoundTrip: what the model reads, sent back unchanged, changes nothing.
func TestRenderedListsRoundTrip(t *testing.T) {
	m := richMemory(t)
	before := m.Clone()
	ch, err := m.UpdateHypotheses(m.HypothesisOverview())
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Empty() {
		t.Errorf("hypotheses sent back changed: %s", ch)
	}
	for _, h := range m.Hypotheses {
		if len(h.Todos) == 0 {
			continue
		}
		ch, err := m.UpdateTodos(h.ID, m.TodoOverview(h))
		if err != nil {
			t.Fatal(err)
		}
		if !ch.Empty() {
			t.Errorf("to-dos of %s sent back changed: %s", h.ID, ch)
		}
	}
	if got, want := hypState(m), hypState(before); !reflect.DeepEqual(got, want) {
		t.Errorf("hypotheses = %q, want %q", got, want)
	}
	for i, h := range before.Hypotheses {
		if got, want := todoState(m.Hypotheses[i]), todoState(h); !reflect.DeepEqual(got, want) {
			t.Errorf("to-dos of %s = %q, want %q", h.ID, got, want)
		}
	}
}
