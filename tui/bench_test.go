package tui

import "testing"

// BenchmarkReplayDemo folds a recorded demo run (215 events) into the
// model and draws the screen after each event, as the program does.
func BenchmarkReplayDemo(b *testing.B) {
	evs := loadEventsB(b, "demo.jsonl")
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
	feed(m, loadEventsB(b, "demo.jsonl")...)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
