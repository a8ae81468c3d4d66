package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// RunQueued is Run with the instances worked on by `swe-adept worker`
// processes on any machines that reach the queue. It queues every instance
// not finished yet (locally or on the server), then collects results as
// they arrive: each run folder is unpacked under OUT/runs/ and the batch
// files are rewritten, so the output is the same as a local batch's.
// cfg.Runner is not used; spec travels to the workers instead. Stopped and
// started again, it queues nothing twice and collects what finished while
// it was away.
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
	nc, js, err := q.connect("swe-adept batch " + n.Batch)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	reg := registration{Names: n, Spec: spec, Timeout: cfg.Timeout, AckWait: q.ackWait(), MaxDeliver: q.maxDeliver()}
	c, err := openCoordinator(ctx, nc, js, st, reg)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := c.collect(ctx); err != nil && ctx.Err() == nil {
		return nil, err
	}
	if ctx.Err() == nil {
		c.unregister()
	}
	return st.end(ctx)
}

// coordinator is a batch's side of the queue.
type coordinator struct {
	st       *started
	reg      registration
	js       jetstream.JetStream
	stores   queueStores
	registry jetstream.KeyValue
	lost     chan uint64 // stream sequences of instances handed out MaxDeliver times
	sub      *nats.Subscription
	want     map[string]swebench.Instance // by token: instances without a record yet
}

func openCoordinator(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, st *started, reg registration) (*coordinator, error) {
	stores, err := create(ctx, js, reg)
	if err != nil {
		return nil, err
	}
	c := &coordinator{st: st, reg: reg, js: js, stores: stores, lost: make(chan uint64, 64), want: map[string]swebench.Instance{}}
	for _, in := range st.todo {
		c.want[token(in.InstanceID)] = in
	}
	// JetStream tells of a message that reached its delivery limit only as
	// an advisory: subscribe before queuing so none is missed.
	subject := fmt.Sprintf("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.%s.%s", reg.Names.Stream, consumerName)
	c.sub, err = nc.Subscribe(subject, c.onMaxDeliveries)
	if err != nil {
		return nil, fmt.Errorf("subscribe to delivery advisories: %w", err)
	}
	if c.registry, err = registry(ctx, js); err != nil {
		return nil, err
	}
	if err := putJSON(ctx, c.registry, reg.Names.Batch, reg); err != nil {
		return nil, fmt.Errorf("register batch %s: %w", reg.Names.Batch, err)
	}
	return c, nil
}

func (c *coordinator) close() { _ = c.sub.Unsubscribe() }

// unregister takes a finished batch off the registry, so workers stop
// asking it for work. Its buckets stay: a later run of the same command
// finds every result there.
func (c *coordinator) unregister() {
	if err := c.registry.Delete(context.Background(), c.reg.Names.Batch); err != nil {
		slog.Warn("unregister batch", "batch", c.reg.Names.Batch, "err", err)
	}
}

func (c *coordinator) onMaxDeliveries(m *nats.Msg) {
	var adv struct {
		StreamSeq uint64 `json:"stream_seq"`
	}
	if err := json.Unmarshal(m.Data, &adv); err != nil || adv.StreamSeq == 0 {
		slog.Warn("unreadable delivery advisory", "err", err)
		return
	}
	select {
	case c.lost <- adv.StreamSeq:
	default:
		slog.Warn("delivery advisory dropped", "seq", adv.StreamSeq)
	}
}

// collect watches the results bucket (its current contents first, so
// results that arrived while no coordinator ran are collected too), queues
// the instances that have none, and books each result until every
// instance has one or ctx ends.
func (c *coordinator) collect(ctx context.Context) error {
	if len(c.want) == 0 {
		return nil
	}
	results, err := c.stores.results.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch results: %w", err)
	}
	defer results.Stop()
	running, err := c.stores.running.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch running instances: %w", err)
	}
	defer running.Stop()
	queued, runningC := false, running.Updates()
	for len(c.want) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-results.Updates():
			if !ok {
				return errors.New("the results watch ended")
			}
			if e == nil && !queued {
				// The bucket's current contents are in: queue the rest.
				queued = true
				if err := c.queue(ctx); err != nil {
					return err
				}
				continue
			}
			c.take(ctx, e)
		case e, ok := <-runningC:
			if !ok {
				runningC = nil // progress only: the results still arrive
				continue
			}
			c.started(e)
		case seq := <-c.lost:
			c.failLost(ctx, seq)
		}
	}
	return nil
}

// queue publishes each wanted instance that has no result yet. An instance
// still waiting from an earlier invocation is refused by the stream and
// left as it is.
func (c *coordinator) queue(ctx context.Context) error {
	n := 0
	for tok, in := range c.want {
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("queue %s: %w", in.InstanceID, err)
		}
		_, err = c.js.Publish(ctx, c.reg.Names.Subject+"."+tok, data, jetstream.WithMsgID(c.reg.Names.Batch+"/"+tok))
		switch {
		case alreadyQueued(err):
		case err != nil:
			return fmt.Errorf("queue %s: %w", in.InstanceID, err)
		default:
			n++
		}
	}
	slog.Info("batch queued", "batch", c.reg.Names.Batch, "new", n, "waiting", len(c.want))
	return nil
}

func (c *coordinator) started(e jetstream.KeyValueEntry) {
	if e == nil || e.Operation() != jetstream.KeyValuePut {
		return
	}
	if in, ok := c.want[e.Key()]; ok {
		c.st.prog.started(in.InstanceID)
	}
}

// take books one result: its run folder is fetched and unpacked into
// place first, so runs/<id> is complete whenever the record says done.
func (c *coordinator) take(ctx context.Context, e jetstream.KeyValueEntry) {
	if e == nil || e.Operation() != jetstream.KeyValuePut {
		return
	}
	in, ok := c.want[e.Key()]
	if !ok {
		return
	}
	var rec Record
	if err := json.Unmarshal(e.Value(), &rec); err != nil || rec.InstanceID != in.InstanceID {
		slog.Error("unreadable result; waiting for another", "instance", in.InstanceID, "err", err)
		return
	}
	if err := c.fetchRunFolder(ctx, e.Key(), in.InstanceID); err != nil {
		slog.Error("fetch run folder; keeping the record alone", "instance", in.InstanceID, "err", err)
		rec.Message = strings.TrimSpace(rec.Message + "\n(run folder not fetched: " + err.Error() + ")")
		if err := c.saveRecordOnly(rec); err != nil {
			slog.Error("save result", "instance", in.InstanceID, "err", err)
			return
		}
	}
	delete(c.want, e.Key())
	c.st.finish(rec)
}

func (c *coordinator) fetchRunFolder(ctx context.Context, key, id string) error {
	obj, err := c.stores.runs.Get(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
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
	return os.Rename(stage, final)
}

// saveRecordOnly writes a run folder that holds only done.json.
func (c *coordinator) saveRecordOnly(rec Record) error {
	name := DirName(rec.InstanceID)
	runs := filepath.Join(c.st.cfg.OutDir, RunsDir)
	stage := filepath.Join(runs, "."+name+".partial")
	if err := fresh(stage, ""); err != nil {
		return err
	}
	if !save(Config{KeepWork: true}, rec, stage, filepath.Join(runs, name), "") {
		return errors.New("see the log")
	}
	return nil
}

// failLost records an instance whose workers all stopped without a result
// (killed, or lost their connection) as failed, and frees its place in
// the stream.
func (c *coordinator) failLost(ctx context.Context, seq uint64) {
	stream, err := c.js.Stream(ctx, c.reg.Names.Stream)
	if err != nil {
		slog.Error("read lost instance", "seq", seq, "err", err)
		return
	}
	msg, err := stream.GetMsg(ctx, seq)
	if err != nil {
		slog.Error("read lost instance", "seq", seq, "err", err)
		return
	}
	tok := strings.TrimPrefix(msg.Subject, c.reg.Names.Subject+".")
	in, ok := c.want[tok]
	if !ok {
		return
	}
	now := c.st.cfg.Now().UTC()
	rec := Record{InstanceID: in.InstanceID, Status: StatusError, Started: now, Ended: now,
		Message: "handed out " + strconv.Itoa(c.reg.MaxDeliver) + " times, and each worker stopped without a result (killed, or cut off from the queue)"}
	if err := c.saveRecordOnly(rec); err != nil {
		slog.Error("save lost instance", "instance", in.InstanceID, "err", err)
		return
	}
	if err := stream.DeleteMsg(ctx, seq); err != nil {
		slog.Warn("remove lost instance from the queue", "instance", in.InstanceID, "err", err)
	}
	delete(c.want, tok)
	c.st.finish(rec)
}
