package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// TestActivityShowsRetriesAndContext: a model call waiting on a retry says
// so with its status, and the meter line shows how full the context is.
func TestActivityShowsRetriesAndContext(t *testing.T) {
	m := testModel(120, 40, Options{})
	m.Update(press("4")) // the Activity pane
	feed(m,
		event.Event{Type: event.ModelReply, Agent: "resolve", Usage: &event.UsageInfo{PromptTokens: 41000, CompletionTokens: 200,
			Calls: 3, Cost: 0.12, Priced: true, Context: 41200, Window: 400000}},
		event.Event{Type: event.ModelCall, Agent: "resolve"},
		event.Event{Type: event.Retry, Agent: "resolve", Text: "retrying in 20s (429): rate limited",
			Retry: &event.RetryInfo{Attempt: 1, Status: 429, WaitSeconds: 20, Until: time.Now().Add(20 * time.Second)}})
	view := ansi.Strip(m.View())
	for _, want := range []string{"ctx 41.2k/400.0k", "retrying in 20s (429)", "retrying in 20s (429): rate limited"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	feed(m, event.Event{Type: event.ModelReply, Agent: "resolve", Usage: &event.UsageInfo{Calls: 4, Priced: true, Context: 900}})
	view = ansi.Strip(m.View())
	if strings.Contains(view, "retrying in 2") && strings.Contains(view, "(429) ") {
		t.Errorf("the retry outlived the reply:\n%s", view)
	}
	if !strings.Contains(view, "ctx 900") || strings.Contains(view, "ctx 900/") {
		t.Errorf("an unknown window shows the count alone:\n%s", view)
	}
}

func TestSlowCallShowsItsTime(t *testing.T) {
	a := newActivityPane()
	a.startCall("resolve")
	a.since["resolve"] = time.Now().Add(-42 * time.Second)
	if got := a.busyText("resolve"); got != "thinking · 42s" {
		t.Errorf("busy text %q", got)
	}
}

// TestKeyBurstsAreNotLost: keys arriving together as one message each
// count: "34" ends on the Activity pane.
func TestKeyBurstsAreNotLost(t *testing.T) {
	m := testModel(120, 40, Options{})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("34")})
	if view := ansi.Strip(m.View()); !strings.Contains(view, "▶ Activity") {
		t.Errorf("a burst of two pane keys did not end on the second:\n%s", view)
	}
}

// TestHelpFitsSmallScreens: "?" shows every steering key whole, from
// 80×24 up.
func TestHelpFitsSmallScreens(t *testing.T) {
	evs := loadEvents(t, "demo.jsonl")
	live := upTo(evs, func(e event.Event) bool { return e.Type == event.ToolCall })
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}} {
		m := testModel(size[0], size[1], Options{Gate: event.NewGate()})
		feed(m, live...)
		m.Update(press("?"))
		view := ansi.Strip(m.View())
		for _, want := range []string{"p ", "pause", "s ", "step one tool call", "n ", "note to the agent", "f ", "follow the run", "enter", "approve", "refuse, say what to do instead", "approve, don't ask again", "edit the command", "quit"} {
			if !strings.Contains(view, want) {
				t.Errorf("%dx%d: the help lacks %q:\n%s", size[0], size[1], want, view)
			}
		}
		if strings.Contains(view, "…") {
			t.Errorf("%dx%d: the help is cut off:\n%s", size[0], size[1], view)
		}
	}
}

// TestSideBySideFromAboutAHundredColumns: at 100x30 and 120x40 the search
// tree and the hypotheses are on screen together; at 80x24, tabs.
func TestSideBySideFromAboutAHundredColumns(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		grid bool
	}{{80, 24, false}, {100, 30, true}, {120, 40, true}, {160, 48, true}} {
		m := testModel(tc.w, tc.h, Options{})
		view := ansi.Strip(m.View())
		both := strings.Contains(view, "Search tree") && strings.Contains(view, "╭ Hypotheses")
		if both != tc.grid {
			t.Errorf("%dx%d: tree and hypotheses together = %v, want %v:\n%s", tc.w, tc.h, both, tc.grid, view)
		}
	}
}

// TestEnterShowsAnActivityLineInFull: the entry at the bottom of the
// activity pane, however long, is shown whole in the diff pane.
func TestEnterShowsAnActivityLineInFull(t *testing.T) {
	m := testModel(120, 40, Options{})
	long := strings.Repeat("the cent is lost below Cart.total; ", 12) + "END"
	feed(m, event.Event{Type: event.ModelReply, Agent: "resolve", Text: long, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	m.Update(press("4"))
	m.Update(press("enter"))
	if !strings.Contains(m.diff.shown.markdown, "END") || !strings.HasPrefix(m.diff.shown.title, "activity") {
		t.Errorf("shown %q: %q", m.diff.shown.title, m.diff.shown.markdown)
	}
}

// TestIssueBox: ctrl+d starts with what was typed, not with nothing; esc
// leaves.
func TestIssueBox(t *testing.T) {
	m := newIssueInput("issue")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlD})
	if m.done {
		t.Fatal("an empty issue started the run")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Cart.total loses a cent")})
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlD})
	if !m.done || !strings.Contains(m.area.Value(), "loses a cent") {
		t.Fatalf("done %v, value %q", m.done, m.area.Value())
	}
	if !strings.Contains(ansi.Strip(m.View()), "ctrl+d starts") {
		t.Error("the box does not say how to start")
	}
	e := newIssueInput("issue")
	e.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if !e.cancel {
		t.Error("esc did not leave")
	}
}

// TestSteerTheSearchFromTheTree: x and t on a search-tree node, each
// pressed twice (the first names the unit), send the localizer a prune or
// a rank-first note for that unit.
func TestSteerTheSearchFromTheTree(t *testing.T) {
	evs := loadEvents(t, "demo.jsonl")
	gate := event.NewGate()
	m := testModel(120, 40, Options{Gate: gate})
	feed(m, upTo(evs, func(e event.Event) bool { return e.Type == event.Shortlist })...)
	m.Update(press("1"))
	n := m.tree.selected()
	if n == nil {
		t.Fatal("no node selected")
	}
	m.Update(press("x"))
	m.Update(press("x"))
	m.Update(press("t"))
	m.Update(press("t"))
	notes := gate.Notes()
	if len(notes) != 2 || notes[0] != "prune "+n.ID || notes[1] != "prefer "+n.ID {
		t.Errorf("notes %v for %s", notes, n.ID)
	}
}
