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
	subs    []*subscriber
	closed  bool
	now     func() time.Time
	dropped int
	asked   int // questions numbered so far (Ask), a resumed run's earlier ones included
}

// NewBus returns a bus that appends every event as a JSON line to log (nil: no log).
func NewBus(log io.Writer) *Bus { return &Bus{log: log, now: time.Now} }

// subscriber is one Subscribe channel and the terminal events waiting for
// room in it. While any wait, one goroutine (deliver) hands them over
// outside b.mu, and it, not Close, closes the channel.
type subscriber struct {
	ch         chan Event
	waiting    []Event
	delivering bool
}

// Subscribe returns a channel that receives every later event. Its buffer is
// large so agents rarely wait on a slow screen; it is closed by Close.
func (b *Bus) Subscribe() <-chan Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &subscriber{ch: make(chan Event, 4096)}
	b.subs = append(b.subs, s)
	return s.ch
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
	for _, s := range b.subs {
		b.send(s, e)
	}
	return e
}

// send hands e to one subscriber; callers hold b.mu. A subscriber whose
// buffer is full (it stopped reading) loses ordinary events rather than
// stalling the agents; events.jsonl still has them. Terminal events
// (approvals, errors, done) are never dropped: they wait for room in a
// goroutine of their own, never under b.mu, where a send would stall every
// agent and screen on one stuck reader. An ordinary event behind a waiting
// one is lost too, so a subscriber sees its events in order.
func (b *Bus) send(s *subscriber, e Event) {
	if len(s.waiting) == 0 {
		select {
		case s.ch <- e:
			return
		default:
		}
	}
	if !e.Terminal() {
		b.dropped++
		return
	}
	s.waiting = append(s.waiting, e)
	if !s.delivering {
		s.delivering = true
		go b.deliver(s)
	}
}

// deliver hands s its waiting terminal events in order, each as room
// appears, and closes its channel if the bus closed meanwhile.
func (b *Bus) deliver(s *subscriber) {
	for {
		b.mu.Lock()
		if len(s.waiting) == 0 {
			s.delivering = false
			if b.closed {
				close(s.ch)
			}
			b.mu.Unlock()
			return
		}
		e := s.waiting[0]
		s.waiting = s.waiting[1:]
		b.mu.Unlock()
		s.ch <- e
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

// Close ends every subscription. A subscriber still waiting for terminal
// events gets them first: its channel closes after the last one.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for _, s := range b.subs {
		if !s.delivering {
			close(s.ch)
		}
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
