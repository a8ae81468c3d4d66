package memory

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDepth(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []int
	}{
		{"flat", "- a\n- b", []int{0, 0}},
		{"two-space nesting", "- a\n  - b\n  - c\n- d", []int{0, 1, 1, 0}},
		{"tab nesting", "1. a\n\t1. b", []int{0, 1}},
		{"deeper counts as one", "- a\n  - b\n    - c", []int{0, 1, 1}},
		{"one space is not nesting", "- a\n - b", []int{0, 0}},
		{"indented first item sets the base", "  - a\n- b\n    - c", []int{0, 0, 1}},
		{"first item is never nested", "    - a\n- b", []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ParseStatusList(tt.md)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, it := range items {
				got = append(got, it.Depth)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("depths = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUpdateHypothesesNestedTodos(t *testing.T) {
	m := newTestMemory(t, "- [ ] Fix the tokenizer\n- [ ] Rewrite the lexer")
	mustTodos(t, m, "h2", "- [ ] keep me")
	ch, err := m.UpdateHypotheses("1. [-] Fix the tokenizer\n   - [ ] add a test\n   - [ ] bound the loop\n2. [ ] Rewrite the lexer")
	if err != nil {
		t.Fatal(err)
	}
	if got := hypState(m); !reflect.DeepEqual(got, []string{"h1 [-] Fix the tokenizer", "h2 [ ] Rewrite the lexer"}) {
		t.Errorf("hypotheses = %q", got)
	}
	if got := todoState(m.Hypothesis("h1")); !reflect.DeepEqual(got, []string{"t1 [ ] add a test", "t2 [ ] bound the loop"}) {
		t.Errorf("to-dos of h1 = %q", got)
	}
	if got := todoState(m.Hypothesis("h2")); !reflect.DeepEqual(got, []string{"t1 [ ] keep me"}) {
		t.Errorf("to-dos of h2 = %q, want them untouched", got)
	}
	if ch.String() != "status changed h1; to-dos of h1: added t1, t2" {
		t.Errorf("changes = %q", ch)
	}
}

func TestFork(t *testing.T) {
	m := newTestMemory(t, "- [-] Fix the tokenizer\n- [ ] Rewrite the lexer")
	if err := m.SetBranch("h1", "swe-adept/run1/h1"); err != nil {
		t.Fatal(err)
	}
	mustTodos(t, m, "h1", "- [ ] add a test\n- [ ] bound the loop\n- [ ] clamp the index\n- [ ] run tests")
	for i, id := range []string{"t1", "t2", "t3"} {
		parent := "base"
		if i > 0 {
			parent = "c" + string(rune('0'+i-1))
		}
		cp := Checkpoint{Hash: "c" + string(rune('0'+i)), Parent: parent, Message: "commit " + id}
		if err := m.SetCheckpoint("h1", id, cp); err != nil {
			t.Fatal(err)
		}
	}
	// The model reorders its list; history still follows the commits.
	mustTodos(t, m, "h1", "- [v] bound the loop\n- [v] add a test\n- [!] clamp the index\n- [ ] run tests")

	h, err := m.Fork("h1", "t2", "", "swe-adept/run1/h1-retry")
	if err != nil {
		t.Fatal(err)
	}
	if got := hypState(m); !reflect.DeepEqual(got, []string{
		"h1 [-] Fix the tokenizer", "h3 [-] Fix the tokenizer (continued from h1 t2)", "h2 [ ] Rewrite the lexer",
	}) {
		t.Errorf("hypotheses = %q", got)
	}
	if got := todoState(h); !reflect.DeepEqual(got, []string{"t1 [v] add a test @c0", "t2 [v] bound the loop @c1"}) {
		t.Errorf("forked to-dos = %q", got)
	}
	if m.Current != h.ID || h.Branch != "swe-adept/run1/h1-retry" {
		t.Errorf("current %q, branch %q", m.Current, h.Branch)
	}
	if err := m.Validate(); err != nil {
		t.Error(err)
	}

	errs := []struct {
		hyp, todo, branch, want string
	}{
		{"h9", "t1", "b", `unknown hypothesis "h9"`},
		{"h1", "t9", "b", `unknown to-do "t9" in h1`},
		{"h1", "t4", "b", `no checkpoint to start from; commit it first (commit_todo) or pick one of: t2 "bound the loop" (c1), t1 "add a test" (c0)`},
		{"h1", "t1", "swe-adept/run1/h1", "already belongs to h1"},
		{"h1", "t1", "", "empty branch name"},
	}
	for _, e := range errs {
		if _, err := m.Fork(e.hyp, e.todo, "x", e.branch); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("Fork(%s, %s, %q) error = %v, want %q", e.hyp, e.todo, e.branch, err, e.want)
		}
	}
}

func TestForkWithoutParents(t *testing.T) {
	m := newTestMemory(t, "- [-] a")
	mustTodos(t, m, "h1", "- [ ] one\n- [ ] two\n- [ ] three")
	if err := m.SetCheckpoint("h1", "t2", Checkpoint{Hash: "abc"}); err != nil {
		t.Fatal(err)
	}
	h, err := m.Fork("h1", "t2", "another way", "b2")
	if err != nil {
		t.Fatal(err)
	}
	if got := todoState(h); !reflect.DeepEqual(got, []string{"t1 [ ] one", "t2 [v] two @abc"}) {
		t.Errorf("forked to-dos = %q", got)
	}
}

func TestStart(t *testing.T) {
	m := newTestMemory(t, "1. [v] done already\n2. [ ] most confident open\n3. [ ] second")
	if h := m.NextToStart(); h == nil || h.ID != "h2" {
		t.Fatalf("NextToStart = %+v, want h2", h)
	}
	if err := m.Start("h2", "swe-adept/run1/h2"); err != nil {
		t.Fatal(err)
	}
	h2 := m.Hypothesis("h2")
	if m.Current != "h2" || h2.Status != InProgress || h2.Branch != "swe-adept/run1/h2" {
		t.Errorf("after Start: current %q, status %s, branch %q", m.Current, h2.Status, h2.Branch)
	}
	if err := m.Start("h2", "swe-adept/run1/h2"); err != nil {
		t.Errorf("starting again on the same branch: %v", err)
	}
	if err := m.Start("h2", "other"); err == nil || !strings.Contains(err.Error(), "already lives on branch") {
		t.Errorf("restart on another branch: %v", err)
	}
	if err := m.Start("h3", "swe-adept/run1/h2"); err == nil || !strings.Contains(err.Error(), "already belongs to h2") {
		t.Errorf("start on a taken branch: %v", err)
	}
	if h := m.NextToStart(); h == nil || h.ID != "h3" {
		t.Errorf("NextToStart = %+v, want h3", h)
	}
	if err := m.SetCurrent("h3"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start("h3", "b3"); err != nil {
		t.Fatal(err)
	}
	if h := m.NextToStart(); h != nil {
		t.Errorf("NextToStart = %s, want none left", h.ID)
	}
}
