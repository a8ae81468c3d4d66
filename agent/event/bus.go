package event

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Bus numbers events, persists each one (events.jsonl) before it publishes
// it, and fans it out to subscribers. Persist, then publish: a crash never
// shows the engineer what was not saved.
type Bus struct {
	mu      sync.Mutex
	seq     int
	log     io.Writer
	subs    []chan Event
	closed  bool
	now     func() time.Time
	dropped int
	asked   int // questions numbered so far (Ask), a resumed run's earlier ones included
}

// NewBus returns a bus that appends every event as a JSON line to log (nil: no log).
func NewBus(log io.Writer) *Bus { return &Bus{log: log, now: time.Now} }

// Subscribe returns a channel that receives every later event. Its buffer is
// large so agents rarely wait on a slow screen; it is closed by Close.
func (b *Bus) Subscribe() <-chan Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan Event, 4096)
	b.subs = append(b.subs, ch)
	return ch
}

// Emit stamps, persists and publishes e, and returns it as stamped. An
// ephemeral event (a streamed delta) is only stamped with the time and
// published.
func (b *Bus) Emit(e Event) Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return e
	}
	if e.Time.IsZero() {
		e.Time = b.now()
	}
	if !e.Ephemeral() {
		b.seq++
		e.Seq = b.seq
	}
	if b.log != nil && !e.Ephemeral() {
		if line, err := json.Marshal(e); err == nil {
			_, _ = b.log.Write(append(line, '\n'))
		}
	}
	for _, ch := range b.subs {
		b.send(ch, e)
	}
	return e
}

// send hands e to one subscriber. A subscriber whose buffer is full (it
// stopped reading) loses ordinary events rather than stalling the agents;
// events.jsonl still has them. Terminal events (approvals, errors, done)
// are never dropped: they wait for room.
func (b *Bus) send(ch chan Event, e Event) {
	if e.Terminal() {
		ch <- e
		return
	}
	select {
	case ch <- e:
	default:
		b.dropped++
	}
}

// ContinueQuestions makes the bus number its questions after n: those a
// resumed run asked before it stopped (LastQuestion of its events).
func (b *Bus) ContinueQuestions(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = max(b.asked, n)
}

// question is the next run-unique question id of a kind. A nil bus tells
// nobody, so its questions need no number.
func (b *Bus) question(kind string) string {
	if b == nil {
		return kind
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked++
	return fmt.Sprintf("%s-%d", kind, b.asked)
}

// Dropped is how many events full subscribers lost.
func (b *Bus) Dropped() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// Close ends every subscription.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for _, ch := range b.subs {
		close(ch)
	}
}

// ReadAll decodes an events.jsonl stream.
func ReadAll(r io.Reader) ([]Event, error) {
	dec := json.NewDecoder(r)
	var out []Event
	for {
		var e Event
		err := dec.Decode(&e)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("read events: after event %d: %w", len(out), err)
		}
		out = append(out, e)
	}
}
