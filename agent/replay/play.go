package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
)

// DefaultMaxWait caps one pause between events: a run that waited minutes
// for a slow model replays in seconds.
const DefaultMaxWait = 2 * time.Second

// Options set the pace of a replay.
type Options struct {
	// Speed scales the recorded pace: 1 as recorded, 2 twice as fast,
	// 0 (or less) as fast as possible.
	Speed float64
	// MaxWait caps each recorded pause before it is scaled; 0 means
	// DefaultMaxWait.
	MaxWait time.Duration
	// Gate pauses and steps the replay as it does a live run: it is passed
	// before each tool call, so "step" lets one call through. Nil: never paused.
	Gate *event.Gate
	// Sleep waits d or until ctx ends; nil uses a timer. Tests pass a fake.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Delay is the pause before an event recorded at next when the previous one
// was recorded at prev: the recorded gap, capped at maxWait, divided by speed.
// Out-of-order or missing times give no pause.
func Delay(prev, next time.Time, speed float64, maxWait time.Duration) time.Duration {
	if speed <= 0 || prev.IsZero() || next.IsZero() {
		return 0
	}
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	d := min(max(next.Sub(prev), 0), maxWait)
	return time.Duration(float64(d) / speed)
}

// Play sends evs to emit one by one at the pace opts ask for. It stops at
// the first error emit returns, or when ctx ends.
func Play(ctx context.Context, evs []event.Event, opts Options, emit func(event.Event) error) error {
	sleep := opts.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var prev time.Time
	for _, e := range evs {
		if d := Delay(prev, e.Time, opts.Speed, opts.MaxWait); d > 0 {
			if err := sleep(ctx, d); err != nil {
				return err
			}
		}
		if !e.Time.IsZero() {
			prev = e.Time
		}
		if e.Type == event.ToolCall {
			if err := opts.Gate.Pass(ctx); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// Stream plays evs onto a channel that is closed when the replay ends or
// ctx does, the way a live run's event channel is. The returned function
// waits for the player to finish and reports why it stopped.
func Stream(ctx context.Context, evs []event.Event, opts Options) (<-chan event.Event, func() error) {
	ch := make(chan event.Event)
	errc := make(chan error, 1)
	go func() {
		defer close(ch)
		errc <- Play(ctx, evs, opts, func(e event.Event) error {
			select {
			case ch <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return ch, func() error { return <-errc }
}

// WriteJSONL plays evs as JSON lines on w, one event a line, as headless
// runs print them.
func WriteJSONL(ctx context.Context, w io.Writer, evs []event.Event, opts Options) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return Play(ctx, evs, opts, func(e event.Event) error {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("write event %d: %w", e.Seq, err)
		}
		return nil
	})
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
