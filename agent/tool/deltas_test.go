package tool

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// streamer is a model that streams its one answer word by word, a word
// every 10ms of a fake clock, after a false start it takes back.
type streamer struct {
	clock *time.Time
	words []string
}

func (s *streamer) Name() string { return "streamer" }

func (s *streamer) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	req.OnDelta(llm.Delta{Content: "A false "})
	req.OnDelta(llm.Delta{Restart: true})
	for i, w := range s.words {
		*s.clock = s.clock.Add(10 * time.Millisecond)
		d := llm.Delta{Content: w}
		if i < 3 {
			d = llm.Delta{Reasoning: w}
		}
		req.OnDelta(d)
	}
	return llm.Response{Message: llm.Message{Role: llm.Assistant, Content: strings.Join(s.words[3:], ""),
		ToolCalls: []llm.ToolCall{{ID: "c", Name: "done", Arguments: "{}"}}}}, nil
}

// TestDeltasArePaced: a fast stream reaches the bus as about ten delta
// events a second, all of its words by the time the reply comes, and a
// restart is passed on.
func TestDeltasArePaced(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var words []string
	for i := 0; i < 200; i++ { // two seconds of words
		words = append(words, "w"+strings.Repeat("o", i%5)+" ")
	}
	bus := event.NewBus(nil)
	ch := bus.Subscribe()
	loop := NewLoop(Config{Agent: "resolve", Model: &streamer{clock: &clock, words: words}, Tools: testTools(), Bus: bus,
		Now: func() time.Time { return clock }}, llm.Message{Role: llm.User, Content: "go"})
	if _, err := loop.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	bus.Close()
	var deltas, restarts int
	var text, reasoning strings.Builder
	replied := false
	for e := range ch {
		switch e.Type {
		case event.Delta:
			if replied {
				t.Error("a delta after the reply")
			}
			if e.Delta != nil && e.Delta.Restart {
				restarts++
				text.Reset()
				reasoning.Reset()
				continue
			}
			deltas++
			text.WriteString(e.Text)
			if e.Delta != nil {
				reasoning.WriteString(e.Delta.Reasoning)
			}
		case event.ModelReply:
			replied = true
		}
	}
	if deltas < 18 || deltas > 24 {
		t.Errorf("%d delta events for two seconds of words, want about 20", deltas)
	}
	if restarts != 1 {
		t.Errorf("%d restarts passed on, want 1", restarts)
	}
	if want := strings.Join(words[3:], ""); text.String() != want || reasoning.String() != strings.Join(words[:3], "") {
		t.Errorf("the deltas add up to %q / %q", reasoning.String(), text.String())
	}
}
