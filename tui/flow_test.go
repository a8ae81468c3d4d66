package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/swe-adept/swe-adept/agent/event"
)

// TestFlow runs the program end to end: events stream in, an approval
// stops for the engineer, who approves it; the run ends; q quits.
func TestFlow(t *testing.T) {
	all := loadEvents(t, "run.jsonl")
	ch := make(chan event.Event, len(all))
	gate := event.NewGate()
	cancelled := make(chan struct{})
	m := New(Options{
		Events: ch, Gate: gate, Cancel: func() { close(cancelled) }, Title: "flow", NoColor: true,
		Now: func() time.Time { return all[0].Time },
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))

	var req *event.ApprovalRequest
	for _, e := range all {
		if e.Type == event.ApprovalDone {
			continue // the engineer answers below
		}
		if e.Type == event.Approval && e.Approval.Action == "merge_solution" {
			req = event.NewApproval(e.Approval.ID, e.Approval.Action, e.Approval.Target)
			req.Report, req.Diff, req.Options = e.Approval.Report, e.Approval.Diff, e.Approval.Options
			e.Approval = req
			ch <- e
			break
		}
		if e.Type != event.Approval {
			ch <- e
		}
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("Merge H2 as the solution?"))
	}, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
	if rep := answerOf(t, req); rep.Decision != event.Approve {
		t.Fatalf("reply %+v", rep)
	}
	for _, e := range all[len(all)-4:] {
		ch <- e
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("done: submitted"))
	}, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	select {
	case <-cancelled:
	default:
		t.Fatal("quitting did not cancel the run")
	}
	fm := tm.FinalModel(t).(*Model)
	if fm.hyps.plan.Merged == "" || fm.run.done == nil {
		t.Fatal("final model missed the merge or the end of the run")
	}
}
