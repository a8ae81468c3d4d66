package memory

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 11, 22, 4, 30, 0, 0, time.UTC)

func newTestMemory(t *testing.T, hyps string) *Memory {
	t.Helper()
	m := New("run1")
	m.Now = func() time.Time { return fixedNow }
	if _, err := m.UpdateHypotheses(hyps); err != nil {
		t.Fatal(err)
	}
	return m
}

// todoState is what identity stability must preserve: id, text, status and checkpoint.
func todoState(h *Hypothesis) []string {
	var out []string
	for _, t := range h.Todos {
		s := t.ID + " " + t.Status.Tag() + " " + t.Content
		if t.Hash != "" {
			s += " @" + t.Hash
		}
		if t.Dropped {
			s += " (dropped)"
		}
		out = append(out, s)
	}
	return out
}

func TestUpdateTodosIdentity(t *testing.T) {
	start := "- [v] Add a failing test for empty input\n- [-] Fix the tokenizer loop\n- [ ] Run the full test suite"
	tests := []struct {
		name    string
		md      string
		want    []string
		changes string
	}{
		{"same list", start, []string{
			"t1 [v] Add a failing test for empty input @aaa1111", "t2 [-] Fix the tokenizer loop", "t3 [ ] Run the full test suite",
		}, "no changes"},
		{"status and spacing only", "* [V]  add a failing test for  empty input\n* [x] Fix the tokenizer loop\n* [ ] Run the full test suite", []string{
			"t1 [v] add a failing test for empty input @aaa1111", "t2 [v] Fix the tokenizer loop", "t3 [ ] Run the full test suite",
		}, "edited t1; status changed t2"},
		{"similar text keeps checkpoint", "- [v] Add a failing test for the empty input case\n- [-] Fix the tokenizer loop\n- [ ] Run the full test suite", []string{
			"t1 [v] Add a failing test for the empty input case @aaa1111", "t2 [-] Fix the tokenizer loop", "t3 [ ] Run the full test suite",
		}, "edited t1"},
		{"rewritten in place keeps checkpoint", "- [v] Reproduce the crash in a regression test\n- [-] Fix the tokenizer loop\n- [ ] Run the full test suite", []string{
			"t1 [v] Reproduce the crash in a regression test @aaa1111", "t2 [-] Fix the tokenizer loop", "t3 [ ] Run the full test suite",
		}, "edited t1"},
		{"reorder keeps ids", "- [ ] Run the full test suite\n- [-] Fix the tokenizer loop\n- [v] Add a failing test for empty input", []string{
			"t3 [ ] Run the full test suite", "t2 [-] Fix the tokenizer loop", "t1 [v] Add a failing test for empty input @aaa1111",
		}, "reordered"},
		{"insert in the middle", "- [v] Add a failing test for empty input\n- [ ] Handle a trailing backslash\n- [-] Fix the tokenizer loop\n- [ ] Run the full test suite", []string{
			"t1 [v] Add a failing test for empty input @aaa1111", "t4 [ ] Handle a trailing backslash", "t2 [-] Fix the tokenizer loop", "t3 [ ] Run the full test suite",
		}, "added t4"},
		{"drop committed and uncommitted", "- [-] Fix the tokenizer loop", []string{
			"t2 [-] Fix the tokenizer loop", "t1 [v] Add a failing test for empty input @aaa1111 (dropped)",
		}, "kept dropped t1; removed t3"},
		{"replace everything", "- [ ] Try a different approach entirely", []string{
			"t4 [ ] Try a different approach entirely", "t1 [v] Add a failing test for empty input @aaa1111 (dropped)",
		}, "added t4; kept dropped t1; removed t2, t3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestMemory(t, "- [-] Fix the tokenizer")
			if _, err := m.UpdateTodos("h1", start); err != nil {
				t.Fatal(err)
			}
			if err := m.SetCheckpoint("h1", "t1", Checkpoint{Hash: "aaa1111", Parent: "base000", Message: "Add test"}); err != nil {
				t.Fatal(err)
			}
			ch, err := m.UpdateTodos("h1", tt.md)
			if err != nil {
				t.Fatal(err)
			}
			if got := todoState(m.Hypothesis("h1")); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("to-dos =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if ch.String() != tt.changes {
				t.Errorf("changes = %q, want %q", ch, tt.changes)
			}
			if err := m.Validate(); err != nil {
				t.Errorf("memory invalid after update: %v", err)
			}
		})
	}
}

func TestUpdateTodosRenderedListKeepsIdentity(t *testing.T) {
	m := newTestMemory(t, "- [-] Fix the tokenizer")
	mustTodos(t, m, "h1", "- [ ] write test\n- [ ] fix loop")
	mustCheckpoint(t, m, "h1", "t1", "abcdef0123")
	h := m.Hypothesis("h1")
	// The model copies the rendered list, rewrites the first step entirely and swaps the order.
	lines := strings.Split(strings.TrimSpace(RenderTodos(h)), "\n")
	edited := strings.Replace(lines[0], "write test", "completely different words", 1)
	if _, err := m.UpdateTodos("h1", lines[1]+"\n"+edited); err != nil {
		t.Fatal(err)
	}
	want := []string{"t2 [ ] fix loop", "t1 [v] completely different words @abcdef0123"}
	if got := todoState(h); !reflect.DeepEqual(got, want) {
		t.Errorf("to-dos = %q, want %q", got, want)
	}
}

func TestDroppedTodoRevives(t *testing.T) {
	m := newTestMemory(t, "- [-] Fix the tokenizer")
	mustTodos(t, m, "h1", "- [ ] write test\n- [ ] fix loop")
	mustCheckpoint(t, m, "h1", "t1", "abcdef0123")
	mustTodos(t, m, "h1", "- [ ] fix loop")
	ch, err := m.UpdateTodos("h1", "- [v] write test\n- [-] fix loop\n- [ ] new step")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t1 [v] write test @abcdef0123", "t2 [-] fix loop", "t3 [ ] new step"}
	if got := todoState(m.Hypothesis("h1")); !reflect.DeepEqual(got, want) {
		t.Errorf("to-dos = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(ch.Revived, []string{"t1"}) {
		t.Errorf("revived = %v, want [t1]", ch.Revived)
	}
}

func TestUpdateHypothesesIdentity(t *testing.T) {
	m := newTestMemory(t, "1. [-] Fix the tokenizer loop\n2. [ ] Rewrite the lexer\n3. [ ] Patch the caller")
	if err := m.SetBranch("h1", "swe-adept/run1/h1"); err != nil {
		t.Fatal(err)
	}
	if m.Current != "h1" {
		t.Fatalf("current = %q, want h1 (the first in progress)", m.Current)
	}
	ch, err := m.UpdateHypotheses("1. [ ] Guard the caller against empty input\n2. [!] Fix the tokenizer loop\n3. [-] Rewrite the whole lexer")
	if err != nil {
		t.Fatal(err)
	}
	got := hypState(m)
	want := []string{"h4 [ ] Guard the caller against empty input", "h1 [!] Fix the tokenizer loop", "h2 [-] Rewrite the whole lexer"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hypotheses = %q, want %q", got, want)
	}
	if ch.String() != "added h4; edited h2; status changed h1, h2; removed h3" {
		t.Errorf("changes = %q", ch)
	}
	if m.Hypothesis("h1").Branch != "swe-adept/run1/h1" {
		t.Error("branch lost")
	}
	// h1 has a branch, so leaving it out keeps it; current moves only when the current one goes.
	if _, err := m.UpdateHypotheses("- [-] Rewrite the whole lexer"); err != nil {
		t.Fatal(err)
	}
	want = []string{"h2 [-] Rewrite the whole lexer", "h1 [!] Fix the tokenizer loop (dropped)"}
	if got := hypState(m); !reflect.DeepEqual(got, want) {
		t.Errorf("hypotheses = %q, want %q", got, want)
	}
	if m.Current != "h1" {
		t.Errorf("current = %q, want h1 kept", m.Current)
	}
	if len(m.Active()) != 1 {
		t.Errorf("active = %d, want 1", len(m.Active()))
	}
}

func TestRemovedCurrentMovesToInProgress(t *testing.T) {
	m := newTestMemory(t, "- [-] a\n- [ ] b")
	if _, err := m.UpdateHypotheses("- [-] b"); err != nil {
		t.Fatal(err)
	}
	if m.Current != "h2" {
		t.Errorf("current = %q, want h2", m.Current)
	}
	// Ids are never reused, even after removal.
	if _, err := m.UpdateHypotheses("- [-] b\n- [ ] c"); err != nil {
		t.Fatal(err)
	}
	if got := hypState(m); !reflect.DeepEqual(got, []string{"h2 [-] b", "h3 [ ] c"}) {
		t.Errorf("hypotheses = %q", got)
	}
}

func hypState(m *Memory) []string {
	var out []string
	for _, h := range m.Hypotheses {
		s := h.ID + " " + h.Status.Tag() + " " + h.Content
		if h.Dropped {
			s += " (dropped)"
		}
		out = append(out, s)
	}
	return out
}

func TestFailedUpdateLeavesMemoryUnchanged(t *testing.T) {
	m := newTestMemory(t, "- [-] a")
	mustTodos(t, m, "h1", "- [ ] step")
	before, _ := json.Marshal(m)
	if _, err := m.UpdateHypotheses("# nothing"); err == nil {
		t.Error("want an error for a list with no items")
	}
	if _, err := m.UpdateTodos("h9", "- [ ] x"); err == nil || !strings.Contains(err.Error(), `h1 [-] "a"`) {
		t.Errorf("unknown hypothesis error = %v, want it to list h1", err)
	}
	if _, err := m.UpdateTodos("h1", ""); err == nil || !strings.Contains(err.Error(), "update to-dos of h1") {
		t.Errorf("empty list error = %v", err)
	}
	after, _ := json.Marshal(m)
	if string(before) != string(after) {
		t.Errorf("memory changed by failed updates:\n%s\n%s", before, after)
	}
}

func TestUpdateTodosMakesCurrent(t *testing.T) {
	m := newTestMemory(t, "- [ ] Fix the tokenizer loop\n- [ ] Rewrite the lexer")
	rev := m.Revision
	if _, err := m.UpdateTodos("rewrite the lex", "- [ ] x"); err != nil {
		t.Fatal(err)
	}
	if m.Current != "h2" {
		t.Errorf("current = %q, want h2", m.Current)
	}
	if m.Revision <= rev {
		t.Error("revision did not advance")
	}
	rev = m.Revision
	if ch, err := m.UpdateTodos("h2", "- [ ] x"); err != nil || !ch.Empty() || m.Revision != rev {
		t.Errorf("no-op update: changes %v, err %v, revision %d -> %d", ch, err, rev, m.Revision)
	}
}

func mustTodos(t *testing.T, m *Memory, h, md string) {
	t.Helper()
	if _, err := m.UpdateTodos(h, md); err != nil {
		t.Fatal(err)
	}
}

func mustCheckpoint(t *testing.T, m *Memory, h, todo, hash string) {
	t.Helper()
	if err := m.SetCheckpoint(h, todo, Checkpoint{Hash: hash, Parent: "p" + hash, Message: "commit " + todo}); err != nil {
		t.Fatal(err)
	}
}
