package tool

import (
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// deltaEvery is the least time between two delta events: about ten a
// second, enough for the words to flow on the screen, few enough for a
// headless log to stay readable.
const deltaEvery = 100 * time.Millisecond

// deltaPump gathers a streaming answer's words and passes them on as
// delta events at most every deltaEvery. Everything it gathers is sent by
// the time the reply is in (flush), so the deltas of a call add up to the
// words of its answer.
type deltaPump struct {
	emit            func(event.Event)
	now             func() time.Time
	last            time.Time
	text, reasoning strings.Builder
}

func (p *deltaPump) add(d llm.Delta) {
	if d.Restart {
		p.text.Reset()
		p.reasoning.Reset()
		p.emit(event.Event{Type: event.Delta, Delta: &event.DeltaInfo{Restart: true}})
		return
	}
	p.text.WriteString(d.Content)
	p.reasoning.WriteString(d.Reasoning)
	if p.now().Sub(p.last) >= deltaEvery {
		p.flush()
	}
}

// flush sends what is gathered.
func (p *deltaPump) flush() {
	if p.text.Len() == 0 && p.reasoning.Len() == 0 {
		return
	}
	e := event.Event{Type: event.Delta, Text: p.text.String()}
	if p.reasoning.Len() > 0 {
		e.Delta = &event.DeltaInfo{Reasoning: p.reasoning.String()}
	}
	p.text.Reset()
	p.reasoning.Reset()
	p.last = p.now()
	p.emit(e)
}
