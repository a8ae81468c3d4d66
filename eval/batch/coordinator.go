package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// RunQueued is Run with the instances worked on by `swe-adept worker`
// processes on any machines that reach the queue. It queues every instance
// not finished yet (locally or on the server), then collects results as
// they arrive: each run folder is unpacked under OUT/runs/ and the batch
// files are rewritten, so the output is the same as a local batch's.
// cfg.Runner is not used; spec travels to the workers instead. Stopped and
// started again, it queues nothing twice and collects what finished while
// it was away. It never waits without saying on cfg.Progress what for,
// and ends (with an error saying what to do) when the server lost the
// batch or results cannot be saved.
func RunQueued(ctx context.Context, cfg Config, q Queue, spec RunnerSpec) (*Summary, error) {
	if cfg.Runner == nil {
		cfg.Runner = spec.Runner() // begin checks for one; the workers make their own
	}
	st, err := begin(cfg, "coordinator")
	if err != nil {
		return nil, err
	}
	defer st.lock.release()
	n, err := namesFor(cfg.OutDir)
	if err != nil {
		return nil, err
	}
	l, err := q.dial(ctx, "swe-adept batch "+n.Batch, st.prog.event)
	if err != nil {
		return nil, err
	}
	defer l.close()
	reg := registration{Names: n, Spec: spec, Timeout: cfg.Timeout, AckWait: q.ackWait(), MaxDeliver: q.maxDeliver()}
	c, err := openCoordinator(ctx, l, st, reg, q.timing())
	if err != nil {
		return nil, err
	}
	runErr := c.collect(ctx)
	c.close()
	sum, err := st.end(ctx)
	if runErr != nil && ctx.Err() == nil {
		return sum, runErr
	}
	return sum, err
}

// coordinator is a batch's side of the queue.
type coordinator struct {
	st       *started
	reg      registration
	link     *link
	js       jetstream.JetStream
	stores   queueStores
	registry jetstream.KeyValue
	workers  jetstream.KeyValue
	lease    *lease
	tune     timing

	want    map[string]swebench.Instance // by token: instances without a saved record yet
	order   []string                     // want's tokens in the instances file's order
	results map[string]resultSeen        // by token: every result on the server, as last seen
	claims  map[string]claim             // by token
	unsaved map[string]*unsaved          // by token: results this coordinator failed to save
	rerun   map[string]string            // by token: instances to queue again, and why
	stuck   map[string]uint64            // by token: the message seen undeliverable at the last reconcile

	queuedOnce bool // the batch was queued by this coordinator

	lastResult, lastStatus time.Time
}

type resultSeen struct {
	id    string
	saved bool
}

type unsaved struct {
	s     stored
	rev   uint64
	err   error
	tries int
}

// saveTries is how many times a coordinator tries to save a result before
// it gives up, once nothing else is left to wait for.
const saveTries = 3

func openCoordinator(ctx context.Context, l *link, st *started, reg registration, t timing) (*coordinator, error) {
	c := &coordinator{st: st, reg: reg, link: l, js: l.js, tune: t, want: map[string]swebench.Instance{},
		results: map[string]resultSeen{}, claims: map[string]claim{}, unsaved: map[string]*unsaved{},
		rerun: map[string]string{}, stuck: map[string]uint64{}, lastResult: time.Now(), lastStatus: time.Now()}
	for _, in := range st.todo {
		tok := token(in.InstanceID)
		c.want[tok] = in
		c.order = append(c.order, tok)
	}
	abs, err := filepath.Abs(st.cfg.OutDir)
	if err != nil {
		return nil, err
	}
	err = l.patient(ctx, "take the batch's lease", func() (err error) {
		c.lease, err = acquireLease(ctx, c.js, reg.Names.Batch, abs, st.lock.prev.Lease, t.lease, st.prog.event)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := l.patient(ctx, "open the batch", func() error { return c.open(ctx) }); err != nil {
		c.lease.release()
		return nil, err
	}
	return c, nil
}

func (c *coordinator) open(ctx context.Context) error {
	if err := c.st.lock.setLease(c.lease.me.ID); err != nil {
		return err
	}
	var err error
	if c.stores, err = create(ctx, c.js, c.reg); err != nil {
		return err
	}
	if c.workers, err = bucket(ctx, c.js, workersBucket, c.tune.presence()); err != nil {
		return err
	}
	if c.registry, err = bucket(ctx, c.js, registryBucket, 0); err != nil {
		return err
	}
	if err := putJSON(ctx, c.registry, c.reg.Names.Batch, c.reg); err != nil {
		return fmt.Errorf("register batch %s: %w", c.reg.Names.Batch, err)
	}
	return nil
}

// close gives the lease up, so a coordinator started next need not wait
// for it to lapse; with the server out of reach, it lapses by itself.
func (c *coordinator) close() {
	if c.link.connected() {
		c.lease.release()
	}
}

// collect watches the results and the claims (their current contents
// first, so results that arrived while no coordinator ran are collected
// too), reconciles with the server once both are read and periodically
// after, and books each result, until every instance is saved, the
// server lost the batch, or ctx ends.
func (c *coordinator) collect(ctx context.Context) error {
	results, err := c.watch(ctx, "results", c.stores.results)
	if err != nil {
		return err
	}
	defer results.Stop()
	claims, err := c.watch(ctx, "claims", c.stores.claims)
	if err != nil {
		return err
	}
	defer claims.Stop()
	reconcile := time.NewTicker(c.tune.reconcile)
	defer reconcile.Stop()
	renew := time.NewTicker(c.tune.lease / 3)
	defer renew.Stop()
	loaded := 0 // initial contents read, of the two watches
	for {
		if loaded == 2 && c.finished() {
			return c.finish(ctx)
		}
		var err error
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-results.Updates():
			switch {
			case !ok:
				err = c.lost(ctx, errors.New("the results watch ended"))
			case e == nil:
				loaded++
				err = c.loadedOne(ctx, loaded)
			default:
				c.onResult(ctx, e)
			}
		case e, ok := <-claims.Updates():
			switch {
			case !ok:
				err = c.lost(ctx, errors.New("the claims watch ended"))
			case e == nil:
				loaded++
				err = c.loadedOne(ctx, loaded)
			default:
				c.onClaim(e, loaded == 2)
			}
		case <-reconcile.C:
			if loaded == 2 {
				err = c.reconcile(ctx)
			}
		case <-renew.C:
			err = c.lease.renew(ctx)
		}
		if err != nil {
			return err
		}
	}
}

func (c *coordinator) watch(ctx context.Context, what string, kv jetstream.KeyValue) (jetstream.KeyWatcher, error) {
	var w jetstream.KeyWatcher
	err := c.link.patient(ctx, "watch "+what, func() (err error) {
		w, err = kv.WatchAll(ctx)
		return err
	})
	if err != nil {
		return nil, c.lost(ctx, fmt.Errorf("watch %s: %w", what, err))
	}
	return w, nil
}

func (c *coordinator) loadedOne(ctx context.Context, loaded int) error {
	if loaded < 2 {
		return nil
	}
	return c.reconcile(ctx)
}

// lost names the server's loss of the batch when that is why err
// happened.
func (c *coordinator) lost(ctx context.Context, err error) error {
	if _, serr := c.js.Stream(ctx, c.reg.Names.Stream); gone(serr) || gone(err) {
		return errDataLost
	}
	return err
}

// onResult takes note of a result and saves it when this coordinator
// wants it.
func (c *coordinator) onResult(ctx context.Context, e jetstream.KeyValueEntry) {
	tok := e.Key()
	if e.Operation() != jetstream.KeyValuePut {
		delete(c.results, tok)
		return
	}
	s, ok := decodeResult(tok, e.Value())
	in, wanted := c.want[tok]
	if !ok {
		if wanted {
			c.rerun[tok] = "its result on the server is unreadable"
		}
		return
	}
	c.results[tok] = resultSeen{id: s.Record.InstanceID, saved: s.Saved}
	if !wanted || s.Record.InstanceID != in.InstanceID {
		return
	}
	if s.Saved {
		c.rerun[tok] = "its run folder was deleted"
		return
	}
	c.save(ctx, tok, in, s, e.Revision())
}

// decodeResult reads a result as stored, or as an earlier version of the
// worker stored it (the record alone, its run folder under the token).
func decodeResult(tok string, b []byte) (stored, bool) {
	var s stored
	if err := json.Unmarshal(b, &s); err == nil && s.Record.InstanceID != "" {
		return s, true
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err == nil && rec.InstanceID != "" {
		return stored{Record: rec, Archive: tok}, true
	}
	return stored{}, false
}

func (c *coordinator) onClaim(e jetstream.KeyValueEntry, live bool) {
	tok := e.Key()
	var cl claim
	if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &cl) != nil {
		delete(c.claims, tok)
		return
	}
	c.claims[tok] = cl
	in, ok := c.want[tok]
	if !ok {
		return
	}
	if !live {
		return // a claim from before this coordinator started: its worker may be long gone
	}
	if cl.Worker == "" {
		c.st.prog.abandoned(in.InstanceID)
		return
	}
	c.st.prog.started(in.InstanceID)
	if cl.Attempt > 1 {
		c.st.prog.event(fmt.Sprintf("%s: attempt %d of %d, on %s (after %s)", in.InstanceID, cl.Attempt, c.reg.MaxDeliver, cl.Worker, nonEmpty(cl.Previous, "another worker")))
	}
}

// save books one result: its run folder is fetched and unpacked into
// place first, so runs/<id> is complete whenever the record says done. A
// result that cannot be saved stays on the server and is tried again.
func (c *coordinator) save(ctx context.Context, tok string, in swebench.Instance, s stored, rev uint64) {
	rec, err := c.saveLocal(ctx, s)
	if err != nil {
		u := c.unsaved[tok]
		if u == nil {
			u = &unsaved{}
			c.unsaved[tok] = u
			c.st.prog.event(fmt.Sprintf("cannot save %s: %v; its result is kept on the server, and saving it is tried again", in.InstanceID, err))
		}
		u.s, u.rev, u.err = s, rev, err
		u.tries++
		slog.Error("save result", "instance", in.InstanceID, "tries", u.tries, "err", err)
		return
	}
	delete(c.unsaved, tok)
	delete(c.want, tok)
	c.lastResult = time.Now()
	c.st.finish(rec)
	s.Saved = true
	b, err := json.Marshal(s)
	if err == nil {
		_, err = c.stores.results.Update(ctx, tok, b, rev)
	}
	if err != nil {
		slog.Warn("mark a result saved", "instance", in.InstanceID, "err", err)
	}
}

// saveFault, when set, fails saving an instance's result as a full disk
// would; fault tests set it.
var saveFault = func(id string) error { return nil }

// saveLocal writes a result's run folder under runs/. A run folder the
// server no longer has (or cannot be unpacked) leaves the record alone,
// saying so; a server that does not answer leaves the result for later.
func (c *coordinator) saveLocal(ctx context.Context, s stored) (Record, error) {
	rec := s.Record
	if err := saveFault(rec.InstanceID); err != nil {
		return rec, err
	}
	if s.Archive == "" {
		return rec, c.saveRecordOnly(rec) // a failure recorded without running: there is no run folder
	}
	obj, err := c.stores.runs.Get(ctx, s.Archive)
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return rec, fmt.Errorf("fetch run folder: %w", err)
	}
	why := err
	if err == nil {
		why = c.unpackRunFolder(obj, rec.InstanceID)
		obj.Close()
		if why == nil {
			return rec, nil
		}
	}
	slog.Error("fetch run folder; keeping the record alone", "instance", rec.InstanceID, "err", why)
	rec.Message = strings.TrimSpace(rec.Message + "\n(run folder not fetched: " + why.Error() + ")")
	return rec, c.saveRecordOnly(rec)
}

func (c *coordinator) unpackRunFolder(obj jetstream.ObjectResult, id string) error {
	name := DirName(id)
	runs := filepath.Join(c.st.cfg.OutDir, RunsDir)
	stage := filepath.Join(runs, "."+name+".partial")
	if err := os.RemoveAll(stage); err != nil {
		return err
	}
	if err := unpackFolder(obj, stage); err != nil {
		return err
	}
	final := filepath.Join(runs, name)
	if err := os.RemoveAll(final); err != nil {
		return err
	}
	return atomicfile.Rename(stage, final)
}

// saveRecordOnly writes a run folder that holds only done.json.
func (c *coordinator) saveRecordOnly(rec Record) error {
	name := DirName(rec.InstanceID)
	runs := filepath.Join(c.st.cfg.OutDir, RunsDir)
	stage := filepath.Join(runs, "."+name+".partial")
	if err := fresh(stage, ""); err != nil {
		return err
	}
	return saveFolder(rec, stage, filepath.Join(runs, name))
}
