package tui

import (
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
)

// BenchmarkReplayDemo folds a recorded demo run (215 events) into the
// model and draws the screen after each event, as the program does.
func BenchmarkReplayDemo(b *testing.B) {
	evs := loadEvents(b, "demo.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		m := testModel(160, 48, Options{Replay: true})
		for _, e := range evs {
			m.Update(eventMsg{e})
			_ = m.View()
		}
	}
}

// BenchmarkView draws the final screen of the recorded demo.
func BenchmarkView(b *testing.B) {
	m := testModel(160, 48, Options{Replay: true})
	feed(m, loadEvents(b, "demo.jsonl")...)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkMergeDialogView draws the demo's merge dialog, compare report
// and diff included: the program draws it on every frame while it waits.
func BenchmarkMergeDialogView(b *testing.B) {
	var req *event.ApprovalRequest
	for _, e := range loadEvents(b, "demo.jsonl") {
		if e.Type == event.Approval && e.Approval.Action == "merge_solution" {
			req = e.Approval
		}
	}
	m := testModel(160, 48, Options{})
	feed(m, event.Event{Type: event.Approval, Approval: req})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
