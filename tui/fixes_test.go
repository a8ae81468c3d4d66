package tui

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// demoRequest is a request of the recorded demo run, compare report and all.
func demoRequest(t *testing.T, action string) *event.ApprovalRequest {
	t.Helper()
	for _, e := range loadEvents(t, "demo.jsonl") {
		if e.Type == event.Approval && e.Approval.Action == action {
			return e.Approval
		}
	}
	t.Fatalf("demo.jsonl has no %s request", action)
	return nil
}

// TestCompareReportIsPlainText shows the merge dialog's compare report as
// the plain text it is: one line per line, indentation and numbers kept.
func TestCompareReportIsPlainText(t *testing.T) {
	req := demoRequest(t, "merge_solution")
	for _, w := range []int{80, 160} {
		m := testModel(w, 48, Options{})
		feed(m, event.Event{Type: event.Approval, Agent: "resolve", Approval: req})
		view := boxContent(m.View())
		for _, want := range []string{
			"\nbranch: swe-adept/20261122-0504-82b7/round-half-up\n",
			"\nto-dos:\n",
			"\n  1. [v] Add a regression test",
			"\n  2. [v] Round half up in round_cents",
			"\ninsights:\n  1. [05:04:57] With round_cents",
			"\n## h2 [v] round_cents truncates",
		} {
			if !strings.Contains(view, want) {
				t.Errorf("%d wide: report lacks %q:\n%s", w, want, view)
			}
		}
	}
}

// boxContent is a view's lines inside the rightmost box's border (the
// dialog's, beside the panes or alone), without the dialog's one-cell
// margin, so indentation can be checked.
func boxContent(view string) string {
	var lines []string
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if i := strings.LastIndex(l, "││"); i >= 0 {
			l = strings.TrimPrefix(l[i+len("││"):], " ")
		} else if i := strings.Index(l, "│"); i >= 0 {
			l = strings.TrimPrefix(l[i+len("│"):], " ")
		}
		lines = append(lines, strings.TrimRight(strings.TrimRight(strings.TrimRight(l, " "), "│"), " "))
	}
	return strings.Join(lines, "\n")
}

func TestPreformattedWraps(t *testing.T) {
	st := DefaultStyles()
	cases := []struct {
		name string
		src  string
		w    int
		want []string
	}{
		{"fits", "a: b\n  1. c", 20, []string{"a: b", "  1. c"}},
		{"hangs under the item", "  1. one two three four", 14, []string{"  1. one two", "     three", "     four"}},
		{"keeps inner spaces when it fits", "x  (t1)", 20, []string{"x  (t1)"}},
		{"breaks a long word", "abcdefghijklmnop", 10, []string{"abcdefghij", "klmnop"}},
		{"blank lines kept", "a\n\nb", 10, []string{"a", "", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := preformatted(st, c.src, c.w)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestHelpOverDialog: "?" in a dialog shows the keys, any key goes back to
// the dialog, which is still waiting for its answer.
func TestHelpOverDialog(t *testing.T) {
	m := testModel(80, 24, Options{})
	req := event.NewApproval("ap", "revert_to", "h1/t1")
	feed(m, event.Event{Type: event.Approval, Agent: "resolve", Approval: req})
	if !strings.Contains(m.statusBar(), "? keys") {
		t.Fatalf("status bar does not offer the keys: %q", m.statusBar())
	}
	m.Update(press("?"))
	if v := m.View(); !strings.Contains(v, "Any key closes this help") {
		t.Fatalf("? in the dialog did not show the keys:\n%s", v)
	}
	m.Update(press("a")) // closes the help; must not answer
	noAnswer(t, req)
	if m.dialog == nil || !strings.Contains(m.View(), "Revert to checkpoint") {
		t.Fatal("the dialog is gone after closing the help")
	}
	m.Update(press("a"))
	if answerOf(t, req).Decision != event.Approve {
		t.Fatal("the dialog does not answer after the help")
	}
}

// TestNotesNeedALiveRun: where no agent will read a note, n says so and
// the keys shown leave n out.
func TestNotesNeedALiveRun(t *testing.T) {
	done := event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "submitted"}}
	cases := []struct {
		name   string
		replay bool
		msgs   []tea.Msg
		live   bool
		pause  bool // a replay's player waits on the gate: p still works
	}{
		{"live", false, nil, true, true},
		{"replay", true, nil, false, true},
		{"done", false, []tea.Msg{eventMsg{done}}, false, false},
		{"events closed", false, []tea.Msg{eventsClosed{}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := event.NewGate()
			m := testModel(160, 48, Options{Gate: g, Replay: c.replay})
			for _, msg := range c.msgs {
				m.Update(msg)
			}
			if got := strings.Contains(m.statusBar(), "n note"); got != c.live {
				t.Errorf("status bar offers n: %v, want %v: %q", got, c.live, m.statusBar())
			}
			if got := strings.Contains(m.statusBar(), "p pause"); got != c.pause {
				t.Errorf("status bar offers p: %v, want %v: %q", got, c.pause, m.statusBar())
			}
			m.Update(press("?"))
			if got := strings.Contains(m.View(), "note to the agent"); got != c.live {
				t.Errorf("full help lists n: %v, want %v", got, c.live)
			}
			m.Update(press("esc"))
			m.Update(press("n"))
			if !c.live {
				if m.noting || !strings.Contains(m.statusBar(), "notes go to a live run") {
					t.Fatalf("n opened the note input (%v) or gave no reason: %q", m.noting, m.statusBar())
				}
				m.Update(press("tab"))
				if strings.Contains(m.statusBar(), "notes go to a live run") {
					t.Error("the message outlived the next key")
				}
				return
			}
			typeText(m, "look at money.py")
			m.Update(press("enter"))
			if notes := g.Notes(); len(notes) != 1 || !strings.Contains(m.View(), "note: look at money.py") {
				t.Fatalf("live note not sent and logged: %q", notes)
			}
		})
	}
}

// TestNoteEndsWithTheRun: a note typed while the run ends is not logged
// as sent.
func TestNoteEndsWithTheRun(t *testing.T) {
	g := event.NewGate()
	m := testModel(160, 48, Options{Gate: g})
	m.Update(press("n"))
	typeText(m, "too late")
	feed(m, event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "submitted"}})
	m.Update(press("enter"))
	if notes := g.Notes(); len(notes) != 0 || strings.Contains(m.View(), "note: too late") {
		t.Fatalf("a note after the end was sent: %q", notes)
	}
	if !strings.Contains(m.statusBar(), "notes go to a live run") {
		t.Fatalf("no reason given: %q", m.statusBar())
	}
}

// TestScriptedNote: the demo's warning shows in each dialog, and only
// where it is set.
func TestScriptedNote(t *testing.T) {
	const note = "demo: the model is scripted — refusing or choosing another option takes it off its script"
	for _, set := range []bool{true, false} {
		for _, sz := range sizes {
			opts := Options{}
			if set {
				opts.ScriptedNote = note
			}
			m := testModel(sz.w, sz.h, opts)
			feed(m, event.Event{Type: event.Approval, Agent: "resolve", Approval: event.NewApproval("ap", "revert_to", "h1/t1")})
			view := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
			if got := strings.Contains(view, "demo: the model is scripted"); got != set {
				t.Errorf("%dx%d: note shown %v, want %v", sz.w, sz.h, got, set)
			}
		}
	}
}
