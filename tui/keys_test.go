package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// answerOf returns the reply a request received, failing if none came. The
// reply is already waiting when this is called, so Wait returns at once;
// the time-out only keeps a broken model from hanging the test.
func answerOf(t *testing.T, req *event.ApprovalRequest) event.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep, err := req.Wait(ctx)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return rep
}

// noAnswer checks that no (further) reply is waiting.
func noAnswer(t *testing.T, req *event.ApprovalRequest) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if rep, err := req.Wait(ctx); err == nil {
		t.Fatalf("unexpected second answer %+v", rep)
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func TestApprovalKeys(t *testing.T) {
	cases := []struct {
		name   string
		action string
		opts   []string
		keys   []string
		text   string // typed after keys, then enter
		want   event.Reply
	}{
		{"approve", "revert_to", []string{"base"}, []string{"a"}, "", event.Reply{Decision: event.Approve}},
		{"choose second", "merge_solution", []string{"H1", "H3"}, []string{"c", "j", "enter"}, "", event.Reply{Decision: event.Choose, Choice: "H3"}},
		{"choose back then approve", "merge_solution", []string{"H1"}, []string{"c", "esc", "a"}, "", event.Reply{Decision: event.Approve}},
		{"refuse with reason", "revert_to", nil, []string{"r"}, "keep T1", event.Reply{Decision: event.Refuse, Reason: "keep T1"}},
		{"refuse typed a", "bash", nil, []string{"r"}, "a bad idea", event.Reply{Decision: event.Refuse, Reason: "a bad idea"}},
		{"refuse empty", "bash", nil, []string{"r", "enter"}, "", event.Reply{Decision: event.Refuse, Reason: "refused by the engineer"}},
		{"edit unchanged", "edit_locations", []string{"a.py:f", "b.py:g"}, []string{"enter"}, "", event.Reply{Decision: event.Approve}},
		{"edit drop", "edit_locations", []string{"a.py:f", "b.py:g", "c.py"}, []string{"d", "enter"}, "", event.Reply{Decision: event.Choose, Choice: "b.py:g\nc.py"}},
		{"edit reorder", "edit_locations", []string{"a.py:f", "b.py:g"}, []string{"j", "K", "enter"}, "", event.Reply{Decision: event.Choose, Choice: "b.py:g\na.py:f"}},
		{"edit add", "edit_locations", []string{"a.py:f"}, []string{"+"}, "z.py:h", event.Reply{Decision: event.Choose, Choice: "a.py:f\nz.py:h"}},
		// "a" sends the list as edited, as enter does: it never drops edits.
		{"edit unchanged a", "edit_locations", []string{"a.py:f", "b.py:g"}, []string{"a"}, "", event.Reply{Decision: event.Approve}},
		{"edit drop a", "edit_locations", []string{"a.py:f", "b.py:g", "c.py"}, []string{"d", "a"}, "", event.Reply{Decision: event.Choose, Choice: "b.py:g\nc.py"}},
		{"edit reorder a", "edit_locations", []string{"a.py:f", "b.py:g"}, []string{"j", "K", "a"}, "", event.Reply{Decision: event.Choose, Choice: "b.py:g\na.py:f"}},
		{"edit move down a", "edit_locations", []string{"a.py:f", "b.py:g"}, []string{"J", "a"}, "", event.Reply{Decision: event.Choose, Choice: "b.py:g\na.py:f"}},
		{"edit add a", "edit_locations", []string{"a.py:f"}, []string{"+", "z.py:h", "enter", "a"}, "", event.Reply{Decision: event.Choose, Choice: "a.py:f\nz.py:h"}},
		// The command dialog: approve and stop asking about a prefix the
		// engineer sees and may edit; run another command instead.
		{"command: don't ask again", "bash", []string{"always: md5sum"}, []string{"A", "enter"}, "", event.Reply{Decision: event.Choose, Choice: "always: md5sum"}},
		{"command: don't ask again, prefix edited", "bash", []string{"always: md5sum"}, []string{"A"}, " shop", event.Reply{Decision: event.Choose, Choice: "always: md5sum shop"}},
		{"command: edit", "bash", []string{"always: md5sum"}, []string{"e"}, " -v", event.Reply{Decision: event.Choose, Choice: "target -v"}},
		{"command: c is not the prefix", "bash", []string{"always: md5sum"}, []string{"c", "a"}, "", event.Reply{Decision: event.Approve}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testModel(80, 24, Options{})
			req := event.NewApproval("ap", c.action, "target")
			req.Options = c.opts
			feed(m, event.Event{Type: event.Approval, Agent: "resolve", Approval: req})
			if m.dialog == nil {
				t.Fatal("no dialog for the approval")
			}
			for _, k := range c.keys {
				m.Update(press(k))
			}
			if c.text != "" {
				typeText(m, c.text)
				m.Update(press("enter"))
				if c.action == "edit_locations" {
					m.Update(press("enter"))
				}
			}
			if got := answerOf(t, req); got != c.want {
				t.Fatalf("reply %+v, want %+v", got, c.want)
			}
			if m.dialog != nil {
				t.Fatal("dialog still open after the answer")
			}
			m.Update(press("a")) // a second press must not answer again
			noAnswer(t, req)
		})
	}
}

func TestApprovalQueueAndDone(t *testing.T) {
	m := testModel(80, 24, Options{})
	r1 := event.NewApproval("1", "revert_to", "H1/T1")
	r2 := event.NewApproval("2", "bash", "ls")
	feed(m, event.Event{Type: event.Approval, Approval: r1}, event.Event{Type: event.Approval, Approval: r2})
	if m.dialog == nil || m.dialog.raw != r1 {
		t.Fatal("first request not shown first")
	}
	// Answered elsewhere (policy, cancel): the dialog closes, the next opens.
	done := *r1
	done.Reply = &event.Reply{Decision: event.Approve}
	feed(m, event.Event{Type: event.ApprovalDone, Approval: &done})
	if m.dialog == nil || m.dialog.raw != r2 {
		t.Fatal("second request not shown after the first was answered")
	}
	m.Update(press("a"))
	if answerOf(t, r2).Decision != event.Approve || m.dialog != nil {
		t.Fatal("second request not answered")
	}
	noAnswer(t, r1) // the UI never answered the one answered elsewhere
}

func TestReplayShowsNoDialog(t *testing.T) {
	m := testModel(80, 24, Options{Replay: true})
	feed(m, loadEvents(t, "run.jsonl")...)
	if m.dialog != nil {
		t.Fatal("a replayed approval opened a dialog")
	}
}

func TestFocusKeys(t *testing.T) {
	m := testModel(160, 48, Options{})
	steps := []struct {
		key  string
		want pane
	}{{"tab", paneHyps}, {"tab", paneDiff}, {"tab", paneActivity}, {"tab", paneTree}, {"shift+tab", paneActivity}, {"2", paneHyps}, {"1", paneTree}}
	for _, s := range steps {
		m.Update(press(s.key))
		if m.focus != s.want {
			t.Fatalf("after %s focus is %d, want %d", s.key, m.focus, s.want)
		}
	}
}

func TestGateKeys(t *testing.T) {
	g := event.NewGate()
	m := testModel(80, 24, Options{Gate: g})
	m.Update(press("p"))
	if !g.Paused() {
		t.Fatal("p did not pause")
	}
	m.Update(press("p"))
	if g.Paused() {
		t.Fatal("p did not resume")
	}
	m.Update(press("s"))
	if !g.Paused() || !strings.Contains(m.View(), "stepping") {
		t.Fatal("s did not enter stepping")
	}
	m.Update(press("n"))
	typeText(m, "look at money.py")
	m.Update(press("enter"))
	if notes := g.Notes(); len(notes) != 1 || notes[0] != "look at money.py" {
		t.Fatalf("notes %q", notes)
	}
	m.Update(press("n"))
	typeText(m, "never mind")
	m.Update(press("esc"))
	if notes := g.Notes(); len(notes) != 0 {
		t.Fatalf("esc still sent %q", notes)
	}
}

func TestNavigation(t *testing.T) {
	m := testModel(160, 48, Options{Replay: true})
	feed(m, loadEvents(t, "run.jsonl")...)
	m.Update(press("g"))
	if n := m.tree.selected(); n == nil || n.ID != "shop/cart.py:Cart.total" {
		t.Fatalf("top of tree is %v", n)
	}
	m.Update(press("enter"))
	if len(m.tree.rows()) != 1 || !strings.Contains(m.diff.shown.title, "Cart.total") {
		t.Fatalf("enter did not fold the root and show it: %d rows, %q", len(m.tree.rows()), m.diff.shown.title)
	}
	m.Update(press("2"))
	m.Update(press("j")) // H2's T1
	m.Update(press("enter"))
	if !strings.Contains(m.diff.shown.title, "d4e5f60") || !strings.Contains(m.diff.shown.patch, "ROUND_HALF_UP") ||
		!strings.Contains(m.diff.shown.markdown, "H2/T1") {
		t.Fatalf("enter on a to-do shows %q, %q", m.diff.shown.title, m.diff.shown.markdown)
	}
	m.Update(press("G"))
	m.Update(press("enter")) // H1: opens it, shows its detail
	if m.hyps.open != "H1" || !strings.Contains(m.diff.shown.markdown, "round the sum") {
		t.Fatalf("enter on H1 opened %q", m.hyps.open)
	}
	m.Update(press("F"))
	if !strings.Contains(m.diff.shown.markdown, "Fixed") || m.diff.shown.patch == "" {
		t.Fatal("F did not show the final report and patch")
	}
}

// runCmd runs a command and the batches it returns, collecting messages.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func hasQuit(msgs []tea.Msg) bool {
	for _, m := range msgs {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func TestQuitWaitsForDone(t *testing.T) {
	cancelled := 0
	m := testModel(80, 24, Options{Cancel: func() { cancelled++ }})
	feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}})
	_, cmd := m.Update(press("q"))
	if cancelled != 1 || !m.quitting {
		t.Fatalf("q: cancelled %d times, quitting %v", cancelled, m.quitting)
	}
	if cmd == nil {
		t.Fatal("q returned no grace timer")
	}
	_, cmd = m.Update(eventMsg{event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "cancelled"}}})
	if !hasQuit(runCmd(cmd)) {
		t.Fatal("Done after q did not quit")
	}
	if cancelled != 1 {
		t.Fatal("cancel called again")
	}
}

func TestQuitAfterDoneIsImmediate(t *testing.T) {
	m := testModel(80, 24, Options{Cancel: func() {}})
	feed(m, event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "submitted"}})
	_, cmd := m.Update(press("q"))
	if !hasQuit(runCmd(cmd)) {
		t.Fatal("q after the run ended did not quit at once")
	}
}

func TestDiffScrollsSideways(t *testing.T) {
	m := testModel(80, 24, Options{Replay: true})
	long := "+" + strings.Repeat("x", 80) + "END"
	feed(m, event.Event{Type: event.Diff, Diff: &event.DiffInfo{Label: "wide", Patch: "@@ -1 +1 @@\n" + long}})
	m.Update(press("3"))
	if strings.Contains(m.View(), "END") {
		t.Fatal("the long line fits already; the test needs a longer one")
	}
	for i := 0; i < 3; i++ {
		m.Update(press("l"))
	}
	if !strings.Contains(m.View(), "END") {
		t.Fatalf("l did not scroll right:\n%s", m.View())
	}
	for i := 0; i < 3; i++ {
		m.Update(press("h"))
	}
	if strings.Contains(m.View(), "END") {
		t.Fatal("h did not scroll back")
	}
}
