package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
)

// streaming is the resolution agent's first call, half-written: its
// reasoning, then the start of its words.
func streaming() []event.Event {
	at := time.Date(2026, 11, 22, 5, 0, 40, 0, time.UTC)
	evs := []event.Event{{Type: event.ModelCall, Agent: "resolve", Time: at}}
	for i, r := range []string{"The ranking puts ", "pricing.py first; ", "read it before anything else."} {
		evs = append(evs, event.Event{Type: event.Delta, Agent: "resolve", Time: at.Add(time.Duration(i) * 100 * time.Millisecond),
			Delta: &event.DeltaInfo{Reasoning: r}})
	}
	for _, w := range []string{"I will read ", "apply_discount in ", "inventory/pricing.py, then write a ", "reproduction script that builds a cart with a 10% disc"} {
		evs = append(evs, event.Event{Type: event.Delta, Agent: "resolve", Time: at.Add(time.Second), Text: w})
	}
	return evs
}

// TestThoughtStreams draws the activity pane while the resolution agent's
// thought is half-written: its end is shown as it grows.
func TestThoughtStreams(t *testing.T) {
	before := upTo(loadEvents(t, "run.jsonl"), isPhase("resolve"))
	evs := streaming()
	moments := map[string][]event.Event{"reasoning": evs[:4], "writing": evs}
	for name, mo := range moments {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", name, sz.w, sz.h), func(t *testing.T) {
				m := testModel(sz.w, sz.h, Options{Replay: true})
				feed(m, before...)
				feed(m, mo...)
				m.focus = paneActivity
				checkGolden(t, m.View())
			})
		}
	}
}

// TestLiveThoughtLifecycle: the live line grows with each delta, starts
// over on a restart, and gives way to the reply; the end of the run
// clears a thought that never got one.
func TestLiveThoughtLifecycle(t *testing.T) {
	m := testModel(120, 40, Options{})
	d := func(text string) event.Event { return event.Event{Type: event.Delta, Agent: "resolve", Text: text} }
	live := func() string {
		for _, l := range m.act.log {
			if l.style == "live" {
				return l.text
			}
		}
		return ""
	}
	feed(m, event.Event{Type: event.ModelCall, Agent: "resolve"}, d("A broken "))
	feed(m, event.Event{Type: event.Delta, Agent: "resolve", Delta: &event.DeltaInfo{Restart: true}}, d("Read "), d("the file."))
	if got := live(); got != "“Read the file."+liveCursor {
		t.Errorf("live line %q after a restart", got)
	}
	if !strings.Contains(m.act.busyText("resolve"), "writing") {
		t.Errorf("busy text %q while words stream", m.act.busyText("resolve"))
	}
	feed(m, event.Event{Type: event.ModelReply, Agent: "resolve", Text: "Read the file."})
	if got := live(); got != "" {
		t.Errorf("live line %q after the reply", got)
	}
	if last := m.act.log[len(m.act.log)-1]; last.text != "“Read the file.”" {
		t.Errorf("last line %q, want the reply", last.text)
	}
	feed(m, event.Event{Type: event.ModelCall, Agent: "resolve"}, d("Half"), event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "cancelled"}})
	if got := live(); got != "" {
		t.Errorf("live line %q after the run ended", got)
	}
}
