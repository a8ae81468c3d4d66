package tui

import (
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
)

// TestUnconfinedBanner: a run whose commands are not confined says so in
// the status bar for its whole length, at any width the bar has room.
func TestUnconfinedBanner(t *testing.T) {
	for _, tc := range []struct {
		why  string
		want bool
	}{{"the shell cannot be confined on this system: no user namespaces", true}, {"", false}} {
		m := testModel(100, 24, Options{Title: "swe-adept"})
		feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r1", Unconfined: tc.why}},
			event.Event{Type: event.PhaseChanged, Phase: "resolve"},
			event.Event{Type: event.Message, Text: "a note"},
			event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "submitted"}})
		if got := strings.Contains(m.statusBar(), "COMMANDS NOT CONFINED"); got != tc.want {
			t.Errorf("unconfined %q: the banner shows %v, want %v: %q", tc.why, got, tc.want, m.statusBar())
		}
	}
}
