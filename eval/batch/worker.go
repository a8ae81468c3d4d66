package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WorkerConfig is one `swe-adept worker` process.
type WorkerConfig struct {
	Queue    Queue
	ReposDir string // DIR/OWNER/NAME: clones or bare mirrors, as for a local batch
	WorkDir  string // where instances are checked out and run; "": a folder under the system's temporary one
	Workers  int    // instances at once; 0: 1
	Name     string // shown in records and logs; "": host name and process id
	// NewRunner makes the runner for a batch from its spec; nil: spec.Runner.
	// The model key comes from this process's environment, never the queue.
	NewRunner func(RunnerSpec) Runner
	Progress  io.Writer // a line per instance started and finished, and per fault; nil: none
	Now       func() time.Time
}

// Work pulls instances from every batch registered on the queue and runs
// each exactly as a local batch does, until ctx ends. A result is stored
// (run folder archive, then record) before its instance is acknowledged,
// and the instance is kept in progress with heartbeats while it runs, so
// a slow instance is never handed to a second worker and a dead worker's
// instance goes to another. A repository this worker cannot set up is
// left to other workers; Work gives up (with an error) when setting up
// fails for repository after repository, or the server stays unreachable
// for longer than cfg.Queue.Wait.
func Work(ctx context.Context, cfg WorkerConfig) error {
	cfg = cfg.withDefaults()
	if _, err := os.Stat(cfg.ReposDir); err != nil {
		return fmt.Errorf("repositories folder: %w", err)
	}
	w := &worker{cfg: cfg, id: safeName(cfg.Name) + "-" + newID(), slots: make(chan struct{}, cfg.Workers), tune: cfg.Queue.timing()}
	l, err := cfg.Queue.dial(ctx, "swe-adept worker "+cfg.Name, w.say)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while waiting for the server
		}
		return err
	}
	defer l.close()
	w.link, w.js = l, l.js
	var kv jetstream.KeyValue
	err = l.patient(ctx, "open the workers bucket", func() (err error) {
		kv, err = bucket(ctx, w.js, workersBucket, w.tune.presence())
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	w.me = newPresence(kv, cfg.Name, w.id)
	wctx, stop := context.WithCancelCause(ctx)
	w.giveUp = stop
	if err := w.me.announce(wctx); err != nil {
		stop(nil)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	w.say(fmt.Sprintf("connected to the queue at %s as %s; serving every batch registered there", redactURL(cfg.Queue.URL), cfg.Name))
	beating := make(chan struct{})
	go func() { defer close(beating); w.beat(wctx) }()
	err = w.follow(wctx)
	w.wg.Wait()
	stop(nil)
	<-beating
	if l.connected() {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		w.me.leave(lctx)
		cancel()
	}
	if cause := context.Cause(wctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (cfg WorkerConfig) withDefaults() WorkerConfig {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(os.TempDir(), "swe-adept-worker-"+safeName(cfg.Name))
	}
	if cfg.NewRunner == nil {
		cfg.NewRunner = RunnerSpec.Runner
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

type worker struct {
	cfg    WorkerConfig
	id     string // unique among workers, where names may not be
	link   *link
	js     jetstream.JetStream
	me     *myPresence
	tune   timing
	slots  chan struct{} // one per instance that may run at once, across batches
	wg     sync.WaitGroup
	outMu  sync.Mutex
	giveUp context.CancelCauseFunc

	setupMu sync.Mutex
	failing []string // repositories present here whose set-up failed, in a row
}

// beat renews this worker's presence, and gives up when the server has
// been unreachable for too long.
func (w *worker) beat(ctx context.Context) {
	t := time.NewTicker(w.tune.beat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.link.tooLong(); err != nil {
				w.giveUp(err)
				return
			}
			if w.link.connected() {
				w.me.put(ctx)
			}
		}
	}
}

// follow serves each registered batch while it stays registered. When the
// registry itself goes (a server that lost its data), it is made again
// and followed on: batches registered anew are served.
func (w *worker) follow(ctx context.Context) error {
	serving := map[string]context.CancelFunc{}
	defer func() {
		for _, stop := range serving {
			stop()
		}
	}()
	for ctx.Err() == nil {
		reg, err := bucket(ctx, w.js, registryBucket, 0)
		if err == nil {
			err = w.watchRegistry(ctx, reg, serving)
		}
		if ctx.Err() != nil {
			return nil
		}
		w.say(fmt.Sprintf("the server's list of batches is gone (%v); following it again", err))
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return nil
}

// watchRegistry follows one watch of the registry until it ends. Batches
// missing from its initial contents are no longer served.
func (w *worker) watchRegistry(ctx context.Context, reg jetstream.KeyValue, serving map[string]context.CancelFunc) error {
	watch, err := reg.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch batches: %w", err)
	}
	defer watch.Stop()
	listed := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-watch.Updates():
			if !ok {
				return errors.New("the watch of the batch list ended")
			}
			if e == nil {
				for b, stop := range serving {
					if !listed[b] {
						stop()
						delete(serving, b)
					}
				}
				continue
			}
			listed[e.Key()] = true
			w.onRegistry(ctx, e, serving)
		}
	}
}

func (w *worker) onRegistry(ctx context.Context, e jetstream.KeyValueEntry, serving map[string]context.CancelFunc) {
	stop, ok := serving[e.Key()]
	if e.Operation() != jetstream.KeyValuePut {
		if ok {
			stop()
			delete(serving, e.Key())
		}
		return
	}
	if ok {
		return // a restarted coordinator registers its batch again: keep serving it
	}
	var r registration
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		slog.Error("unreadable batch registration", "batch", e.Key(), "err", err)
		return
	}
	bctx, stop := context.WithCancel(ctx)
	serving[e.Key()] = stop
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.serve(ctx, bctx, r)
	}()
}

// serve pulls one batch's instances while a slot is free and the batch is
// registered (bctx). An instance runs under the worker's own ctx: a batch
// taken off the registry lets its instances in flight finish. A batch
// whose stream is gone (the server lost it) is waited for: its coordinator,
// run again, makes it anew.
func (w *worker) serve(ctx, bctx context.Context, r registration) {
	slog.Info("serving batch", "batch", r.Names.Batch)
	var s queueStores
	var err error
	idle := 0     // deliveries in a row that this worker handed back
	lost := false // the batch's stream is gone, and this worker said so
	for bctx.Err() == nil {
		if s.consumer == nil {
			if s, err = open(bctx, w.js, r.Names); err != nil {
				lost = w.missing(bctx, r, err, lost)
				s = queueStores{}
				continue
			}
			lost = false
		}
		if !w.take(bctx) {
			return
		}
		msg, err := s.consumer.Next(jetstream.FetchMaxWait(2 * time.Second))
		if err != nil {
			<-w.slots
			if gone(err) {
				s = queueStores{}
			} else if !quietFetch(err) && bctx.Err() == nil {
				slog.Warn("fetch an instance", "batch", r.Names.Batch, "err", err)
				sleep(bctx, time.Second)
			}
			continue
		}
		handed := make(chan bool, 1)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer func() { <-w.slots }()
			handed <- w.handle(ctx, r, s, msg)
		}()
		idle = w.pace(bctx, handed, idle)
	}
}

// pace slows a worker down after deliveries it hands back (instances of
// repositories it lacks), so it does not spin through the queue while
// others work.
func (w *worker) pace(ctx context.Context, handed <-chan bool, idle int) int {
	var back bool
	select {
	case back = <-handed:
	case <-time.After(50 * time.Millisecond):
		return 0 // running an instance
	}
	if !back {
		return 0
	}
	idle++
	sleep(ctx, min(time.Duration(idle)*100*time.Millisecond, 2*time.Second))
	return idle
}

// quietFetch is a fetch that found nothing in its time: no instance
// waiting, or a server too busy to answer in time.
func quietFetch(err error) bool {
	return errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

func (w *worker) take(ctx context.Context) bool {
	select {
	case w.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// missing reports (once) a batch that is registered but whose stream or
// buckets are not on the server, then waits a little before looking
// again. It returns whether the loss was reported.
func (w *worker) missing(ctx context.Context, r registration, err error, said bool) bool {
	if !gone(err) {
		slog.Warn("open batch", "batch", r.Names.Batch, "err", err)
		sleep(ctx, time.Second)
		return said
	}
	if !said {
		w.say(fmt.Sprintf("the server lost batch %s's data; waiting for its coordinator to queue it again", r.Names.Batch))
	}
	sleep(ctx, 5*time.Second)
	return true
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (w *worker) say(msg string) {
	slog.Info("worker: " + msg)
	if w.cfg.Progress == nil {
		return
	}
	w.outMu.Lock()
	defer w.outMu.Unlock()
	fmt.Fprintf(w.cfg.Progress, "%s  %s\n", w.cfg.Now().Format("15:04:05"), visible(msg))
}
