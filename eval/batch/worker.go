package batch

import (
	"bytes"
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

	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
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
	Progress  io.Writer // a line per instance started and finished; nil: none
	Now       func() time.Time
}

// Work pulls instances from every batch registered on the queue and runs
// each exactly as a local batch does, until ctx ends. A result is stored
// (run folder archive, then record) before its instance is acknowledged,
// and the instance is kept in progress with heartbeats while it runs, so
// a slow instance is never handed to a second worker and a dead worker's
// instance goes to another.
func Work(ctx context.Context, cfg WorkerConfig) error {
	cfg = cfg.withDefaults()
	if _, err := os.Stat(cfg.ReposDir); err != nil {
		return fmt.Errorf("repositories folder: %w", err)
	}
	nc, js, err := cfg.Queue.connect("swe-adept worker " + cfg.Name)
	if err != nil {
		return err
	}
	defer nc.Close()
	reg, err := registry(ctx, js)
	if err != nil {
		return err
	}
	w := &worker{cfg: cfg, js: js, slots: make(chan struct{}, cfg.Workers)}
	err = w.follow(ctx, reg)
	w.wg.Wait()
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
	cfg   WorkerConfig
	js    jetstream.JetStream
	slots chan struct{} // one per instance that may run at once, across batches
	wg    sync.WaitGroup
	outMu sync.Mutex
}

// follow serves each registered batch while it stays registered.
func (w *worker) follow(ctx context.Context, reg jetstream.KeyValue) error {
	watch, err := reg.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch batches: %w", err)
	}
	defer watch.Stop()
	serving := map[string]context.CancelFunc{}
	defer func() {
		for _, stop := range serving {
			stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-watch.Updates():
			if !ok {
				return errors.New("the batch registry watch ended")
			}
			if e != nil {
				w.onRegistry(ctx, e, serving)
			}
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
// taken off the registry lets its instances in flight finish.
func (w *worker) serve(ctx, bctx context.Context, r registration) {
	s, err := open(bctx, w.js, r.Names)
	if err != nil {
		slog.Error("open batch", "batch", r.Names.Batch, "err", err)
		return
	}
	slog.Info("serving batch", "batch", r.Names.Batch)
	for {
		select {
		case w.slots <- struct{}{}:
		case <-bctx.Done():
			return
		}
		msg, err := s.consumer.Next(jetstream.FetchMaxWait(2 * time.Second))
		if err != nil {
			<-w.slots
			if bctx.Err() != nil {
				return
			}
			if !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
				slog.Warn("fetch an instance", "batch", r.Names.Batch, "err", err)
				time.Sleep(time.Second)
			}
			continue
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer func() { <-w.slots }()
			w.handle(ctx, r, s, msg)
		}()
	}
}

// handle runs one delivered instance to a stored result, or hands it back.
func (w *worker) handle(ctx context.Context, r registration, s queueStores, msg jetstream.Msg) {
	var in swebench.Instance
	if err := json.Unmarshal(msg.Data(), &in); err != nil || in.InstanceID == "" {
		slog.Error("unreadable instance on the queue; dropping it", "subject", msg.Subject(), "err", err)
		_ = msg.TermWithReason("unreadable instance")
		return
	}
	tok := token(in.InstanceID)
	if _, err := s.results.Get(ctx, tok); err == nil {
		_ = msg.Ack() // a redelivery of an instance whose result is stored
		return
	}
	stop := w.heartbeat(ctx, s, msg, tok, r.AckWait)
	rec, retry, ok := w.run(ctx, r, in)
	stop()
	if !ok {
		_ = msg.Nak() // this worker is stopping: give it to another at once
		return
	}
	if retry != nil && !lastDelivery(msg, r.MaxDeliver) {
		w.say("retry later %s: %v", in.InstanceID, retry)
		_ = msg.NakWithDelay(r.AckWait / 4)
		return
	}
	if retry != nil {
		rec.Message = fmt.Sprintf("failed on each of %d deliveries; the last: %s", r.MaxDeliver, rec.Message)
	}
	if err := w.store(ctx, r, s, tok, rec); err != nil {
		slog.Error("store result; the instance will be handed out again", "instance", in.InstanceID, "err", err)
		_ = msg.Nak()
		return
	}
	if err := msg.DoubleAck(ctx); err != nil {
		slog.Warn("acknowledge a stored result", "instance", in.InstanceID, "err", err)
	}
	_ = s.running.Delete(ctx, tok)
	w.say("finished %s: %s", in.InstanceID, rec.Status)
}

func lastDelivery(msg jetstream.Msg, maxDeliver int) bool {
	meta, err := msg.Metadata()
	return err != nil || int(meta.NumDelivered) >= maxDeliver
}

// heartbeat marks the instance in progress (and as this worker's) every
// third of the acknowledgement wait until stopped.
func (w *worker) heartbeat(ctx context.Context, s queueStores, msg jetstream.Msg, tok string, ackWait time.Duration) (stop func()) {
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	beat := func() {
		if err := msg.InProgress(); err != nil {
			slog.Warn("heartbeat", "err", err)
		}
		_, _ = s.running.Put(hctx, tok, []byte(w.cfg.Name))
	}
	beat()
	go func() {
		defer close(done)
		t := time.NewTicker(max(ackWait/3, 50*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// run works on one instance as a local batch does, in this worker's own
// output folder. retry is set when the failure may be this machine's
// (the repository or commit missing here, a crash in the runner) and
// another delivery may succeed; ok is false when ctx ended first.
func (w *worker) run(ctx context.Context, r registration, in swebench.Instance) (rec Record, retry error, ok bool) {
	w.say("started %s", in.InstanceID)
	guard := &recovering{inner: w.cfg.NewRunner(r.Spec)}
	cfg := Config{ReposDir: w.cfg.ReposDir, OutDir: filepath.Join(w.cfg.WorkDir, r.Names.Batch), Timeout: r.Timeout,
		Runner: guard, LocalizeOnly: r.Spec.LocalizeOnly, Now: w.cfg.Now}
	rec, ok = runOne(ctx, cfg, in)
	rec.Worker = w.cfg.Name
	switch {
	case !ok:
	case guard.panicked != nil:
		retry = guard.panicked
	case rec.Status == StatusSetup:
		retry = errors.New(rec.Message)
	}
	return rec, retry, ok
}

// store uploads the run folder, then the record: a record in the bucket
// always has its folder beside it.
func (w *worker) store(ctx context.Context, r registration, s queueStores, tok string, rec Record) error {
	dir := filepath.Join(w.cfg.WorkDir, r.Names.Batch, RunsDir, DirName(rec.InstanceID))
	defer os.RemoveAll(dir)
	if err := atomicRecord(dir, rec); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := packFolder(dir, &buf); err != nil {
		return err
	}
	if _, err := s.runs.Put(ctx, jetstream.ObjectMeta{Name: tok, Description: rec.InstanceID}, &buf); err != nil {
		return fmt.Errorf("upload run folder: %w", err)
	}
	if err := putJSON(ctx, s.results, tok, rec); err != nil {
		return fmt.Errorf("store record: %w", err)
	}
	return nil
}

func (w *worker) say(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	slog.Info("worker: " + msg)
	if w.cfg.Progress == nil {
		return
	}
	w.outMu.Lock()
	defer w.outMu.Unlock()
	fmt.Fprintf(w.cfg.Progress, "%s  %s\n", w.cfg.Now().Format("15:04:05"), msg)
}

// recovering turns a runner's panic into an error this worker can report,
// instead of taking down every instance the process is running.
type recovering struct {
	inner    Runner
	panicked error
}

func (g *recovering) Run(ctx context.Context, job Job) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			g.panicked = fmt.Errorf("runner crashed: %v", p)
			res, err = Result{Status: StatusError}, g.panicked
		}
	}()
	return g.inner.Run(ctx, job)
}

// atomicRecord rewrites a saved run folder's done.json with what the
// worker added to the record.
func atomicRecord(dir string, rec Record) error {
	if err := atomicfile.WriteJSON(filepath.Join(dir, DoneFile), rec); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}
