package batch

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// said collects what a process would print.
type said struct {
	mu    sync.Mutex
	lines []string
	grew  chan struct{}
}

func newSaid() *said { return &said{grew: make(chan struct{}, 100)} }

func (s *said) say(line string) {
	s.mu.Lock()
	s.lines = append(s.lines, line)
	s.mu.Unlock()
	s.grew <- struct{}{}
}

func (s *said) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

func (s *said) waitFor(t *testing.T, sub string) {
	t.Helper()
	for !strings.Contains(s.text(), sub) {
		select {
		case <-s.grew:
		case <-time.After(printLimit):
			t.Fatalf("never said %q; said:\n%s", sub, s.text())
		}
	}
}

func TestLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := dialTest(t, natsServer(t))
	const ttl = 3 * time.Second
	first, err := acquireLease(ctx, l.js, "b", "/out", "", ttl, logTo(t))
	if err != nil {
		t.Fatal(err)
	}
	renewing, stop := context.WithCancel(ctx)
	renewed := make(chan error, 1)
	go func() {
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-renewing.Done():
				renewed <- nil
				return
			case <-tick.C:
				if err := first.renew(ctx); err != nil {
					renewed <- err
					return
				}
			}
		}
	}()
	out := newSaid()
	_, err = acquireLease(ctx, l.js, "b", "/out", "", ttl, out.say)
	if err == nil || !strings.Contains(err.Error(), "is running this batch") || !strings.Contains(out.text(), "waiting up to") {
		t.Fatalf("a second coordinator while the first renews: %v; said %q", err, out.text())
	}
	stop()
	if err := <-renewed; err != nil {
		t.Fatal(err)
	}

	// The last holder of the output folder's lock is gone: take over at once.
	heir, err := acquireLease(ctx, l.js, "b", "/out", first.me.ID, ttl, func(s string) { t.Errorf("the heir waited: %s", s) })
	if err != nil {
		t.Fatal(err)
	}
	if err := first.renew(ctx); !errors.Is(err, errLeaseLost) {
		t.Fatalf("the first coordinator renews a lease taken over: %v", err)
	}

	// A holder that stops renewing (died elsewhere) is waited for, then replaced.
	out = newSaid()
	if _, err := acquireLease(ctx, l.js, "b", "/out", "", ttl, out.say); err != nil || !strings.Contains(out.text(), "waiting up to") {
		t.Fatalf("after the lease lapsed: %v; said %q", err, out.text())
	}
	heir.release() // no longer its lease: a no-op
}

func logTo(t *testing.T) func(string) { return func(s string) { t.Log(s) } }

func dialTest(t *testing.T, url string) *link {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := testQueue(url, 0, 0).dial(ctx, "test", logTo(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.close)
	return l
}

// TestDialWaits: a process started before its server waits for it, saying
// so, and gives up after the queue's Wait; refused credentials fail at once.
func TestDialWaits(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	url := "nats://127.0.0.1:" + strconv.Itoa(port)

	q := testQueue(url, 0, 0)
	q.Wait = 500 * time.Millisecond
	if _, err := q.dial(context.Background(), "test", logTo(t)); err == nil || !strings.Contains(err.Error(), "unreachable for") {
		t.Fatalf("no server: %v", err)
	}

	out := newSaid()
	q.Wait = time.Minute
	dialed := make(chan error, 1)
	go func() {
		l, err := q.dial(context.Background(), "test", out.say)
		if err == nil {
			l.close()
		}
		dialed <- err
	}()
	out.waitFor(t, "unreachable")
	natsServerAt(t, port, t.TempDir())
	if err := <-dialed; err != nil || !strings.Contains(out.text(), "connected to the queue") {
		t.Fatalf("after the server started: %v; said %q", err, out.text())
	}

	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true, Authorization: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(s.Shutdown)
	wrong := testQueue(s.ClientURL(), 0, 0)
	wrong.Token = "guess"
	start := time.Now()
	if _, err := wrong.dial(context.Background(), "test", logTo(t)); err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("a wrong token: %v after %s", err, time.Since(start))
	}
	right := testQueue(s.ClientURL(), 0, 0)
	right.Token = "s3cret"
	l, err := right.dial(context.Background(), "test", logTo(t))
	if err != nil {
		t.Fatal(err)
	}
	l.close()
}
