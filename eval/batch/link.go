package batch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// link is a connection to the queue that keeps reconnecting: a server
// restart or a dropped network pauses a batch instead of ending it. It
// tells its process's user when the connection drops and comes back, and
// knows how long it has been down.
type link struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	q   Queue
	say func(string)

	mu        sync.Mutex
	downSince time.Time // zero while connected
	closing   bool
}

// dial connects, waiting for a server that cannot be reached yet (up to
// q.Wait) but failing at once on refused credentials.
func (q Queue) dial(ctx context.Context, name string, say func(string)) (*link, error) {
	l := &link{q: q, say: say}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(l.onDisconnect), nats.ReconnectHandler(l.onReconnect), nats.ErrorHandler(onAsyncError)}
	if q.Creds != "" {
		opts = append(opts, nats.UserCredentials(q.Creds))
	}
	if q.Token != "" {
		opts = append(opts, nats.Token(q.Token))
	}
	if q.User != "" {
		opts = append(opts, nats.UserInfo(q.User, q.Password))
	}
	var waiting time.Time
	for {
		nc, err := nats.Connect(q.URL, opts...)
		if err == nil {
			if !waiting.IsZero() {
				say(fmt.Sprintf("connected to the queue at %s after %s", redactURL(q.URL), time.Since(waiting).Round(time.Second)))
			}
			l.nc = nc
			break
		}
		if !unreachable(err) {
			return nil, fmt.Errorf("connect to the queue at %s: %w", redactURL(q.URL), err)
		}
		if waiting.IsZero() {
			waiting = time.Now()
			say(fmt.Sprintf("the queue at %s is unreachable (%v); waiting for it%s", redactURL(q.URL), err, q.waitLimit()))
		}
		if q.Wait > 0 && time.Since(waiting) > q.Wait {
			return nil, fmt.Errorf("the queue at %s was unreachable for %s: %w", redactURL(q.URL), q.Wait, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	js, err := jetstream.New(l.nc)
	if err != nil {
		l.nc.Close()
		return nil, fmt.Errorf("JetStream at %s: %w", redactURL(q.URL), err)
	}
	l.js = js
	return l, nil
}

func (q Queue) waitLimit() string {
	if q.Wait <= 0 {
		return ""
	}
	return fmt.Sprintf(" up to %s", q.Wait)
}

// unreachable tells a server that cannot be reached (which may come back)
// from one that answered and refused (which will not change its mind).
func unreachable(err error) bool {
	var ne net.Error
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) || errors.As(err, &ne)
}

func (l *link) close() {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.nc.Close()
}

func (l *link) onDisconnect(_ *nats.Conn, err error) {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return
	}
	if l.downSince.IsZero() {
		l.downSince = time.Now()
	}
	l.mu.Unlock()
	msg := "lost the connection to the queue at " + redactURL(l.q.URL)
	if err != nil {
		msg += " (" + err.Error() + ")"
	}
	l.say(msg + "; reconnecting" + l.q.waitLimit())
}

func (l *link) onReconnect(nc *nats.Conn) {
	l.mu.Lock()
	down := time.Since(l.downSince)
	l.downSince = time.Time{}
	l.mu.Unlock()
	l.say(fmt.Sprintf("reconnected to the queue at %s after %s", redactURL(nc.ConnectedUrlRedacted()), down.Round(time.Second)))
}

// patient runs f until it succeeds or fails otherwise than by a server
// too slow to answer (a loaded or restarting server), saying once that it
// waits; it gives up after the queue's Wait.
func (l *link) patient(ctx context.Context, what string, f func() error) error {
	var since time.Time
	for {
		err := f()
		if err == nil || ctx.Err() != nil || !slow(err) {
			return err
		}
		if since.IsZero() {
			since = time.Now()
			l.say(fmt.Sprintf("the queue at %s is slow to answer (%s: %v); trying again%s", redactURL(l.q.URL), what, err, l.q.waitLimit()))
		}
		if l.q.Wait > 0 && time.Since(since) > l.q.Wait {
			return fmt.Errorf("%s: the queue did not answer for %s: %w", what, l.q.Wait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// slow reports a request the server did not answer in time.
func slow(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders)
}

// onAsyncError logs what the client would print on stderr by itself: the
// faults users need to see are said by the link and its callers.
func onAsyncError(_ *nats.Conn, sub *nats.Subscription, err error) {
	subject := ""
	if sub != nil {
		subject = sub.Subject
	}
	slog.Warn("queue client", "subject", subject, "err", err)
}

func (l *link) connected() bool { return l.nc.IsConnected() }

// tooLong reports a connection down for longer than the queue's Wait.
func (l *link) tooLong() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q.Wait <= 0 || l.downSince.IsZero() || time.Since(l.downSince) <= l.q.Wait {
		return nil
	}
	return fmt.Errorf("the queue at %s has been unreachable for more than %s", redactURL(l.q.URL), l.q.Wait)
}

// redactURL hides credentials in a server URL (a password, a token or a
// user name) so errors and logs can name the server.
func redactURL(raw string) string {
	var out []string
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			out = append(out, "(unreadable URL)")
			continue
		}
		if u.User == nil {
			out = append(out, u.String())
			continue
		}
		u.User = nil
		// url.User would escape the mask as %2A%2A%2A.
		out = append(out, strings.Replace(u.String(), "://", "://***@", 1))
	}
	return strings.Join(out, ",")
}

// HasSecret reports a server URL that holds a password or a token, which
// anyone on the machine can read from the process list.
func HasSecret(raw string) bool {
	for _, one := range strings.Split(raw, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			return true
		}
	}
	return false
}
