package memory

import (
	"strings"
	"testing"
)

func findFixture(t *testing.T) *Memory {
	t.Helper()
	m := newTestMemory(t, "- [-] Fix the tokenizer loop on empty input\n- [ ] Rewrite the lexer as a state machine\n- [ ] Guard the caller")
	if err := m.SetBranch("h2", "swe-adept/run1/lexer"); err != nil {
		t.Fatal(err)
	}
	mustTodos(t, m, "h1", "- [ ] Add a failing test for empty input\n- [ ] Fix the loop bound\n- [ ] Fix the loop exit")
	mustCheckpoint(t, m, "h1", "t1", "3f2a1c4deadbeef")
	return m
}

func TestFindHypothesis(t *testing.T) {
	tests := []struct {
		ref, want, wantErr string
	}{
		{"h2", "h2", ""},
		{"H3", "h3", ""},
		{"swe-adept/run1/lexer", "h2", ""},
		{"lexer", "h2", ""},
		{"fix the  tokenizer loop on EMPTY input", "h1", ""},
		{"2. [ ] Rewrite the lexer as a state machine  (h2, branch swe-adept/run1/lexer)", "h2", ""},
		{"[-] Guard the caller", "h3", ""},
		{"Rewrite the lexer (h2)", "h2", ""},
		{"Rewrite the lex", "h2", ""},
		{"lexer as state machine rewrite", "h2", ""},
		{"", "", "reference is empty"},
		{"h9", "", `unknown hypothesis "h9"; known hypotheses: h1 [-] "Fix the tokenizer loop on empty input", h2 [ ] "Rewrite the lexer as a state machine" (branch swe-adept/run1/lexer), h3`},
		{"something unrelated", "", "unknown hypothesis"},
	}
	m := findFixture(t)
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			h, err := m.FindHypothesis(tt.ref)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.ID != tt.want {
				t.Errorf("found %s, want %s", h.ID, tt.want)
			}
		})
	}
}

func TestFindTodo(t *testing.T) {
	tests := []struct {
		ref, want, wantErr string
	}{
		{"t2", "t2", ""},
		{"3f2a1c4", "t1", ""},
		{"3F2A", "t1", ""},
		{"add a failing test for empty input", "t1", ""},
		{"1. [v] Add a failing test for empty input  (t1, checkpoint 3f2a1c4: commit t1)", "t1", ""},
		{"failing test for empty input", "t1", ""},
		{"Fix the loop", "", `to-do of h1 "Fix the loop" is ambiguous`},
		{"Fix loop", "", `"Fix loop" is ambiguous: it matches "Fix the loop bound" and "Fix the loop exit" equally`},
		{"fix loop bound", "t2", ""},
		{"zzz", "", `unknown to-do of h1 "zzz"`},
		{"nothing like it", "", `its to-dos: t1 [v] "Add a failing test for empty input" (checkpoint 3f2a1c4), t2 [ ]`},
	}
	h := findFixture(t).Hypothesis("h1")
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			td, err := FindTodo(h, tt.ref)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if td.ID != tt.want {
				t.Errorf("found %s, want %s", td.ID, tt.want)
			}
		})
	}
}

func TestSetters(t *testing.T) {
	m := findFixture(t)
	if err := m.SetBranch("h1", "swe-adept/run1/lexer"); err == nil || !strings.Contains(err.Error(), "already belongs to h2") {
		t.Errorf("shared branch error = %v", err)
	}
	if err := m.SetBranch("h7", "b"); err == nil || !strings.Contains(err.Error(), `unknown hypothesis "h7"`) {
		t.Errorf("unknown hypothesis error = %v", err)
	}
	if err := m.SetCheckpoint("h1", "t9", Checkpoint{Hash: "abc"}); err == nil || !strings.Contains(err.Error(), `unknown to-do "t9" in h1`) {
		t.Errorf("unknown to-do error = %v", err)
	}
	if err := m.SetCheckpoint("h1", "t2", Checkpoint{}); err == nil {
		t.Error("want an error for an empty hash")
	}
	if err := m.SetBase("", "x"); err == nil {
		t.Error("want an error for an empty original hash")
	}
	if err := m.SetCurrent("state machine lexer rewrite"); err != nil || m.Current != "h2" {
		t.Errorf("SetCurrent: %v, current %q", err, m.Current)
	}
	if err := m.SetMerged("", ""); err == nil {
		t.Error("want an error for an empty merged branch")
	}
}

func TestSetCheckpointStatus(t *testing.T) {
	m := findFixture(t)
	mustTodos(t, m, "h1", "- [v] Add a failing test for empty input\n- [!] Fix the loop bound\n- [-] Fix the loop exit")
	mustCheckpoint(t, m, "h1", "t2", "bbbbbbb")
	mustCheckpoint(t, m, "h1", "t3", "ccccccc")
	h := m.Hypothesis("h1")
	if h.Todo("t2").Status != Failed || h.Todo("t3").Status != Succeeded {
		t.Errorf("statuses = %s %s, want failed kept and in progress made successful", h.Todo("t2").Status, h.Todo("t3").Status)
	}
	if h.Todo("t3").Parent != "pccccccc" || h.Todo("t3").Message != "commit t3" {
		t.Errorf("checkpoint fields not stored: %+v", h.Todo("t3"))
	}
}

func TestInsights(t *testing.T) {
	m := New("r")
	if _, err := m.LogInsight("x"); err == nil || !strings.Contains(err.Error(), "no current hypothesis") {
		t.Errorf("error = %v, want no current hypothesis", err)
	}
	m = findFixture(t)
	in, err := m.LogInsight("  the loop exits early \n  on empty input  \n")
	if err != nil {
		t.Fatal(err)
	}
	if in.Text != "the loop exits early\n  on empty input" || !in.Time.Equal(fixedNow) {
		t.Errorf("insight = %+v", in)
	}
	if got := m.Hypothesis("h1").Insights; len(got) != 1 {
		t.Errorf("insights of h1 = %v", got)
	}
	if _, err := m.LogInsight(" \n "); err == nil {
		t.Error("want an error for an empty insight")
	}
}

func TestAddHypothesisAndTodo(t *testing.T) {
	m := findFixture(t)
	// Drop h2 (it has a branch), so new ones must land before it.
	if _, err := m.UpdateHypotheses("- [-] Fix the tokenizer loop on empty input"); err != nil {
		t.Fatal(err)
	}
	h, err := m.AddHypothesis("Revert to t1 and bound the loop", InProgress)
	if err != nil {
		t.Fatal(err)
	}
	if got := hypState(m); strings.Join(got, "|") != "h1 [-] Fix the tokenizer loop on empty input|h4 [-] Revert to t1 and bound the loop|h2 [ ] Rewrite the lexer as a state machine (dropped)" {
		t.Errorf("hypotheses = %q", got)
	}
	td, err := m.AddTodo(h.ID, "bound the loop", Pending)
	if err != nil || td.ID != "t1" {
		t.Errorf("AddTodo = %+v, %v", td, err)
	}
	if _, err := m.AddHypothesis(" ", Pending); err == nil {
		t.Error("want an error for empty content")
	}
	if _, err := m.AddTodo("h1", "x", Status("?")); err == nil {
		t.Error("want an error for an invalid status")
	}
}

func TestClone(t *testing.T) {
	m := findFixture(t)
	if _, err := m.LogInsight("one"); err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	c.Hypotheses[0].Todos[0].Hash = "changed"
	c.Hypotheses[0].Insights[0].Text = "changed"
	c.Hypotheses[0].Content = "changed"
	c.Hypotheses = c.Hypotheses[:1]
	h := m.Hypothesis("h1")
	if h.Todos[0].Hash != "3f2a1c4deadbeef" || h.Insights[0].Text != "one" || h.Content == "changed" || len(m.Hypotheses) != 3 {
		t.Error("clone shares state with the original")
	}
}
