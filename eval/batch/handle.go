package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// delivery is one instance handed to this worker.
type delivery struct {
	r   registration
	s   queueStores
	msg jetstream.Msg
	in  swebench.Instance
	tok string
	// round is the coordinator's round the message belongs to.
	round int
}

// handBackDelay keeps an instance this worker cannot run away from it
// for a while, so a worker that can takes it.
const handBackDelay = 2 * time.Second

// handle runs one delivered instance to a stored result, or hands it
// back. It reports whether it handed the instance back without running
// it (another worker may).
func (w *worker) handle(ctx context.Context, r registration, s queueStores, msg jetstream.Msg) bool {
	j, ok := decodeJob(msg.Data())
	if !ok {
		slog.Error("unreadable instance on the queue; dropping it", "subject", msg.Subject())
		_ = msg.TermWithReason("unreadable instance")
		return false
	}
	d := delivery{r: r, s: s, msg: msg, in: j.Instance, tok: token(j.Instance.InstanceID), round: j.Round}
	if _, err := s.results.Get(ctx, d.tok); err == nil {
		_ = msg.Ack() // a redelivery of an instance whose result is stored
		return false
	}
	if _, ok := w.me.lacks(d.in.Repo); ok {
		return w.handBack(ctx, d)
	}
	if _, err := os.Stat(swebench.RepoDir(w.cfg.ReposDir, d.in.Repo)); err != nil {
		why := fmt.Sprintf("no repository %s in %s", d.in.Repo, w.cfg.ReposDir)
		if w.me.lack(d.in.Repo, why) {
			w.say(fmt.Sprintf("%s: %s; leaving the instances of %s to other workers", d.in.InstanceID, why, d.in.Repo))
			w.me.put(ctx)
		}
		return w.handBack(ctx, d)
	}
	return w.attempt(ctx, d)
}

// attempt counts this worker in on the instance and runs it, unless
// workers before it used up the instance's attempts.
func (w *worker) attempt(ctx context.Context, d delivery) bool {
	cl, rev, err := w.claim(ctx, d)
	switch {
	case errors.Is(err, errSpent):
		now := w.cfg.Now().UTC()
		w.finish(ctx, d, Record{InstanceID: d.in.InstanceID, Status: StatusError, Started: now, Ended: now, Worker: w.cfg.Name,
			Message: fmt.Sprintf("handed out %d times, and each worker stopped without a result (killed, or cut off from the queue); the last was %s",
				d.r.MaxDeliver, nonEmpty(cl.Previous, "unknown"))}, "")
		return false
	case err != nil:
		w.say(fmt.Sprintf("%s: cannot count this attempt on the server (%v); handing it back", d.in.InstanceID, err))
		_ = d.msg.NakWithDelay(time.Second)
		return false
	case cl.Attempt > 1:
		w.say(fmt.Sprintf("%s: attempt %d of %d (after %s)", d.in.InstanceID, cl.Attempt, d.r.MaxDeliver, nonEmpty(cl.Previous, "another worker")))
	}
	w.me.started(d.r.Names.Batch, d.in.InstanceID)
	w.me.put(ctx)
	stop := w.heartbeat(ctx, d.msg, d.r.AckWait)
	rec, crash, ok := w.run(ctx, d.r, d.in)
	stop()
	w.me.ended(d.r.Names.Batch, d.in.InstanceID)
	// What is in hand is seen through even when this worker is stopping:
	// a finished result stored, an instance handed back or recorded.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTime)
	defer cancel()
	switch {
	case !ok:
		w.release(d, cl, rev)
		_ = d.msg.Nak() // this worker is stopping: give it to another at once
		return false
	case rec.Status == StatusSetup:
		w.release(d, cl, rev)
		w.setupFailed(d.in, rec.Message)
		return w.handBack(ctx, d)
	}
	w.setupWorked()
	if crash != nil && cl.Attempt < d.r.MaxDeliver {
		w.say(fmt.Sprintf("retry later %s: %v", d.in.InstanceID, crash))
		_ = d.msg.NakWithDelay(d.r.AckWait / 4)
		return false
	}
	if crash != nil {
		rec.Message = fmt.Sprintf("failed on each of %d deliveries; the last: %s", d.r.MaxDeliver, rec.Message)
	}
	if !w.finish(ctx, d, rec, filepath.Join(w.cfg.WorkDir, d.r.Names.Batch, RunsDir, DirName(rec.InstanceID))) {
		w.release(d, cl, rev)
	}
	return false
}

// handBack leaves an instance this worker cannot set up to another
// worker; when no connected worker can, it records the instance as
// failed, saying why. Who is connected is read twice, a beat apart, so
// a worker whose presence was late to renew is not taken for gone.
func (w *worker) handBack(ctx context.Context, d delivery) bool {
	reason := w.nobodyCan(ctx, d.in.Repo)
	if reason != "" {
		_ = d.msg.InProgress()
		sleep(ctx, w.tune.beat)
		reason = w.nobodyCan(ctx, d.in.Repo)
	}
	if reason == "" {
		_ = d.msg.NakWithDelay(handBackDelay)
		return true
	}
	w.say(fmt.Sprintf("%s: %s; recording it as failed", d.in.InstanceID, reason))
	now := w.cfg.Now().UTC()
	w.finish(ctx, d, Record{InstanceID: d.in.InstanceID, Status: StatusSetup, Message: reason,
		Started: now, Ended: now, Worker: w.cfg.Name}, "")
	return false
}

// nobodyCan says why no connected worker can set up an instance of repo,
// or "" when one may (or who is connected cannot be read).
func (w *worker) nobodyCan(ctx context.Context, repo string) string {
	all, err := livePresence(ctx, w.me.kv)
	if err != nil {
		slog.Warn("read workers", "err", err)
		return ""
	}
	return nobodyCan(all, w.me.snapshot(), repo)
}

// storeTime bounds storing a result once its instance is finished.
const storeTime = 10 * time.Minute

// errSpent: the instance's attempts in this round are used up.
var errSpent = errors.New("no attempts left")

// claim counts this worker in as the next attempt at the instance.
func (w *worker) claim(ctx context.Context, d delivery) (claim, uint64, error) {
	for range 5 {
		var prev claim
		rev, err := getJSON(ctx, d.s.claims, d.tok, &prev)
		if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return prev, 0, err
		}
		if prev.Round != d.round {
			prev = claim{Round: d.round, Previous: prev.Worker}
		}
		last := nonEmpty(prev.Worker, prev.Previous)
		if prev.Attempt >= d.r.MaxDeliver {
			return claim{Previous: last}, rev, errSpent
		}
		next := claim{Round: d.round, Attempt: prev.Attempt + 1, Worker: w.cfg.Name, WorkerID: w.id, Previous: last, Since: w.cfg.Now().UTC()}
		b, err := json.Marshal(next)
		if err != nil {
			return next, 0, err
		}
		if rev == 0 {
			rev, err = d.s.claims.Create(ctx, d.tok, b)
		} else {
			rev, err = d.s.claims.Update(ctx, d.tok, b, rev)
		}
		if err == nil {
			return next, rev, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return next, 0, err
		}
	}
	return claim{}, 0, errors.New("other workers kept changing the instance's claim")
}

// release counts this worker out of an attempt that was not the
// instance's fault (the worker stopped, or could not set it up), unless
// another worker has claimed the instance since.
func (w *worker) release(d delivery, cl claim, rev uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	back := claim{Round: cl.Round, Attempt: cl.Attempt - 1, Previous: cl.Previous, Since: w.cfg.Now().UTC()}
	b, err := json.Marshal(back)
	if err == nil {
		_, err = d.s.claims.Update(ctx, d.tok, b, rev)
	}
	if err != nil {
		slog.Warn("give back a claim", "instance", d.in.InstanceID, "err", err)
	}
}

// finish stores a result and acknowledges the instance. A result already
// stored by another worker (this one was presumed dead, and was not) is
// kept, and this one dropped. It reports whether the instance is done.
func (w *worker) finish(ctx context.Context, d delivery, rec Record, dir string) bool {
	winner, err := w.store(ctx, d, rec, dir)
	switch {
	case errors.Is(err, errTaken):
		w.say(fmt.Sprintf("finished %s: %s, but %s stored a result first; keeping that one", rec.InstanceID, rec.Status, winner))
		_ = d.msg.Ack()
		return true
	case gone(err):
		w.say(fmt.Sprintf("cannot store the result of %s: the server lost batch %s's data", rec.InstanceID, d.r.Names.Batch))
		return false
	case err != nil:
		w.say(fmt.Sprintf("cannot store the result of %s (%v); handing it back", rec.InstanceID, err))
		_ = d.msg.Nak()
		return false
	}
	if err := d.msg.DoubleAck(ctx); err != nil {
		slog.Warn("acknowledge a stored result", "instance", rec.InstanceID, "err", err)
	}
	w.say(fmt.Sprintf("finished %s: %s", rec.InstanceID, rec.Status))
	return true
}

// errTaken: another worker's result for the instance is stored.
var errTaken = errors.New("a result is stored already")

// store uploads the run folder in dir (when there is one), then creates
// the record, which names the upload: a record in the bucket always has
// its folder beside it, and only the first record stored is kept.
func (w *worker) store(ctx context.Context, d delivery, rec Record, dir string) (winner string, err error) {
	archive := ""
	if dir != "" {
		defer os.RemoveAll(dir)
		if archive, err = w.upload(ctx, d, rec, dir); err != nil {
			return "", err
		}
	}
	b, err := json.Marshal(stored{Record: rec, Archive: archive, Round: d.round})
	if err != nil {
		return "", err
	}
	_, err = d.s.results.Create(ctx, d.tok, b)
	if errors.Is(err, jetstream.ErrKeyExists) {
		if archive != "" {
			_ = d.s.runs.Delete(ctx, archive)
		}
		var first stored
		_, _ = getJSON(ctx, d.s.results, d.tok, &first)
		return nonEmpty(first.Record.Worker, "another worker"), errTaken
	}
	if err != nil {
		return "", fmt.Errorf("store record: %w", err)
	}
	return "", nil
}

func (w *worker) upload(ctx context.Context, d delivery, rec Record, dir string) (string, error) {
	if err := atomicfile.WriteJSON(filepath.Join(dir, DoneFile), rec); err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	var buf bytes.Buffer
	if err := packFolder(dir, &buf); err != nil {
		return "", err
	}
	name := d.tok + "." + w.id + "." + newID()
	if _, err := d.s.runs.Put(ctx, jetstream.ObjectMeta{Name: name, Description: rec.InstanceID}, &buf); err != nil {
		return "", fmt.Errorf("upload run folder: %w", err)
	}
	return name, nil
}

// heartbeat keeps the instance in progress every third of the
// acknowledgement wait until stopped.
func (w *worker) heartbeat(ctx context.Context, msg jetstream.Msg, ackWait time.Duration) (stop func()) {
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(ackWait/3, 50*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
				if err := msg.InProgress(); err != nil {
					slog.Warn("heartbeat", "err", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// run works on one instance as a local batch does, in this worker's own
// output folder. crash is set when the runner crashed: another delivery
// may succeed. ok is false when ctx ended first.
func (w *worker) run(ctx context.Context, r registration, in swebench.Instance) (rec Record, crash error, ok bool) {
	w.say(fmt.Sprintf("started %s", in.InstanceID))
	guard := &recovering{inner: w.cfg.NewRunner(r.Spec)}
	cfg := Config{ReposDir: w.cfg.ReposDir, OutDir: filepath.Join(w.cfg.WorkDir, r.Names.Batch), Timeout: r.Timeout,
		Runner: guard, LocalizeOnly: r.Spec.LocalizeOnly, Now: w.cfg.Now}
	rec, ok = runOne(ctx, cfg, in)
	rec.Worker = w.cfg.Name
	return rec, guard.panicked, ok
}

// setupFailed takes note that an instance of a repository could not be
// set up here: its instances go to other workers from now on. When
// repositories this worker has fail one after another, the fault is the
// worker's own (a bad mirror folder, a full disk): it stops.
func (w *worker) setupFailed(in swebench.Instance, why string) {
	if w.me.lack(in.Repo, firstLine(why)) {
		w.say(fmt.Sprintf("%s: cannot set up an instance of %s here (%s); leaving its instances to other workers", in.InstanceID, in.Repo, firstLine(why)))
	}
	w.setupMu.Lock()
	defer w.setupMu.Unlock()
	if !slices.Contains(w.failing, in.Repo) {
		w.failing = append(w.failing, in.Repo)
	}
	if len(w.failing) >= giveUpAfter {
		err := fmt.Errorf("setting up instances failed for %d repositories in a row (%s), though each is in %s: this worker takes no more instances; check that folder and the work folder %s",
			len(w.failing), strings.Join(w.failing, ", "), w.cfg.ReposDir, w.cfg.WorkDir)
		w.say(err.Error())
		w.giveUp(err)
	}
}

// giveUpAfter is how many repositories must fail to set up in a row for
// a worker to stop taking instances.
const giveUpAfter = 3

func (w *worker) setupWorked() {
	w.setupMu.Lock()
	w.failing = nil
	w.setupMu.Unlock()
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
