package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// sentinel is what the test channel holds: a read that takes it shows
// the command it ran was a read of the run's events.
var sentinel = event.Event{Type: event.Message, Text: "sentinel"}

// reads runs a command as the program would (batches opened, each command
// run once) and counts the reads of ch among them. ch holds spare events
// so that an extra read returns instead of blocking and is counted. Only
// call it where the commands return at once: the event handlers batch a
// read, a spinner tick and quit, none of which waits.
func reads(cmd tea.Cmd, ch chan event.Event) int {
	for len(ch) < cap(ch) {
		ch <- sentinel
	}
	n := 0
	for _, msg := range runCmd(cmd) {
		if e, ok := msg.(eventMsg); ok && e.e == sentinel {
			n++
		}
	}
	return n
}

func readsModel(opts Options) (*Model, chan event.Event) {
	ch := make(chan event.Event, 3)
	opts.Events, opts.Gate, opts.Cancel = ch, event.NewGate(), func() {}
	return testModel(80, 24, opts), ch
}

// everyEvent is one event of each type, most with no payload: a run that
// sends something odd must not stop the screen either.
func everyEvent() []event.Event {
	req := event.NewApproval("ap-1", "revert_to", "h1/t1")
	done := *req
	done.Reply = &event.Reply{Decision: event.Approve}
	return []event.Event{
		{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}}, {Type: event.RunStarted},
		{Type: event.PhaseChanged, Phase: "index"}, {Type: event.IndexProgress}, {Type: event.IndexProgress, Progress: &event.Progress{Done: 1, Total: 2}},
		{Type: event.ModelCall, Agent: "localize"}, {Type: event.ModelReply, Agent: "localize", Text: "hm"},
		{Type: event.ToolCall, Agent: "localize"}, {Type: event.ToolCall, Agent: "localize", Tool: &event.ToolStep{Name: "bash", CallID: "c1"}},
		{Type: event.ToolResult, Agent: "localize"}, {Type: event.ToolResult, Agent: "localize", Tool: &event.ToolStep{Name: "bash", CallID: "c1", Failed: true}},
		{Type: event.SearchNode}, {Type: event.Shortlist}, {Type: event.Ranked}, {Type: event.Plan},
		{Type: event.Checkpoint}, {Type: event.Diff}, {Type: event.Approval},
		{Type: event.Approval, Agent: "resolve", Approval: req}, // a dialog opens
		{Type: event.Message, Text: "note"}, {Type: event.Usage}, {Type: event.Error, Text: "boom"},
		{Type: event.ApprovalDone}, {Type: event.ApprovalDone, Approval: &done}, // ... and closes
		{Type: "no_such_type"}, {},
		{Type: event.Done}, {Type: event.Done, Done: &event.DoneInfo{Status: "submitted"}},
		{Type: event.Message, Text: "after the end"},
	}
}

// TestEveryEventKeepsWaiting: each event, in every state the screen can be
// in, asks for exactly one next event; nothing else asks for one. One read
// in flight at a time: none and the screen stops following the run, two
// and events may arrive out of order.
func TestEveryEventKeepsWaiting(t *testing.T) {
	states := []struct {
		name  string
		setup func(m *Model)
	}{
		{"plain", func(*Model) {}},
		{"dialog open", func(m *Model) {
			feed(m, event.Event{Type: event.Approval, Approval: event.NewApproval("held", "merge_solution", "b")})
		}},
		{"dialog refusing", func(m *Model) {
			feed(m, event.Event{Type: event.Approval, Approval: event.NewApproval("held", "bash", "ls")})
			m.Update(press("r"))
		}},
		{"help shown", func(m *Model) { m.Update(press("?")) }},
		{"paused", func(m *Model) { m.Update(press("p")) }},
		{"stepping", func(m *Model) { m.Update(press("s")) }},
		{"typing a note", func(m *Model) { m.Update(press("n")) }},
		{"quitting", func(m *Model) { m.Update(press("q")) }},
	}
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			m, ch := readsModel(Options{})
			s.setup(m)
			for _, e := range everyEvent() {
				_, cmd := m.Update(eventMsg{e})
				if n := reads(cmd, ch); n != 1 {
					t.Fatalf("event %q (payload-less: %v) asks for %d next events, want 1", e.Type, e == event.Event{Type: e.Type}, n)
				}
			}
		})
	}
}

// TestOnlyEventsAskForEvents: keys, sizes and the end of the stream start
// no second read beside the one in flight. (Keys that start a timer, the
// cursor's blink or the quit grace, are left out: reads would wait on it.)
func TestOnlyEventsAskForEvents(t *testing.T) {
	m, ch := readsModel(Options{})
	if n := reads(m.Init(), ch); n != 1 {
		t.Fatalf("Init starts %d reads, want 1", n)
	}
	msgs := []tea.Msg{teaSize(160, 48), press("tab"), press("p"), press("p"), press("s"), press("?"), press("x"), press("F"), press("f")}
	m.Update(eventMsg{event.Event{Type: event.Approval, Approval: event.NewApproval("a", "merge_solution", "b")}})
	msgs = append(msgs, press("?"), press("x"), press("c"), press("esc"), press("a"), eventsClosed{})
	for _, msg := range msgs {
		if _, cmd := m.Update(msg); reads(cmd, ch) != 0 {
			t.Fatalf("%T %v started a second read", msg, msg)
		}
	}
}
