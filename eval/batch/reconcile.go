package batch

import (
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
)

// reconcile compares what this coordinator waits for with the server's
// state, and acts so that every wanted instance is queued, running, or
// has a result: it tries again to save what it could not, queues what
// was never queued, was lost, or was deleted to run again, and says what
// it waits for when nothing arrives for a while. The first that reaches
// the server queues the batch.
func (c *coordinator) reconcile(ctx context.Context) error {
	if err := c.link.tooLong(); err != nil {
		return err
	}
	for tok, u := range c.unsaved {
		c.save(ctx, tok, c.want[tok], u.s, u.rev)
	}
	queued, err := c.queued(ctx)
	if err != nil {
		if gone(err) {
			return errDataLost
		}
		slog.Warn("read the queue", "err", err)
		return nil // the server does not answer: the link says so, and the next reconcile tries again
	}
	if err := c.queueMissing(ctx, queued, !c.queuedOnce); err != nil {
		return err
	}
	c.queuedOnce = true
	if err := c.unstick(ctx, queued); err != nil {
		return err
	}
	c.status(ctx, queued)
	return nil
}

// queued reads the tokens of the instances on the batch's stream:
// waiting, or delivered and not yet acknowledged.
func (c *coordinator) queued(ctx context.Context) (map[string]bool, error) {
	stream, err := c.js.Stream(ctx, c.reg.Names.Stream)
	if err != nil {
		return nil, err
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(c.reg.Names.Subject+".>"))
	if err != nil {
		return nil, err
	}
	prefix := c.reg.Names.Subject + "."
	set := map[string]bool{}
	for subject := range info.State.Subjects {
		set[strings.TrimPrefix(subject, prefix)] = true
	}
	return set, nil
}

// queueMissing queues the wanted instances that are not on the stream
// and have no result: at first those not finished yet, later those lost
// (a message acknowledged without a result, or dropped as a duplicate),
// and at any time those to run again.
func (c *coordinator) queueMissing(ctx context.Context, queued map[string]bool, first bool) error {
	n, waiting := 0, 0
	for _, tok := range c.order {
		in, ok := c.want[tok]
		if !ok {
			continue
		}
		why, again := c.rerun[tok]
		_, hasResult := c.results[tok]
		switch {
		case again:
			delete(c.rerun, tok)
			if err := c.dropResult(ctx, tok); err != nil {
				return err
			}
			c.st.prog.event(fmt.Sprintf("%s: %s; queuing it again", in.InstanceID, why))
		case queued[tok]:
			waiting++
			continue
		case hasResult || c.unsaved[tok] != nil:
			continue
		case !first:
			if _, err := c.stores.results.Get(ctx, tok); err == nil || !errors.Is(err, jetstream.ErrKeyNotFound) {
				continue // stored since the stream was read, or the server did not answer
			}
			c.st.prog.event(fmt.Sprintf("%s is neither queued nor finished on the server; queuing it again", in.InstanceID))
		}
		added, err := c.publish(ctx, tok, in)
		if err != nil {
			return err
		}
		if added {
			n++
		} else {
			waiting++
		}
	}
	if first {
		c.st.prog.event(fmt.Sprintf("queued %d instances on %s (%d were already waiting there)", n, redactURL(c.link.q.URL), waiting))
	}
	return nil
}

// dropResult removes a result (and its run folder archive) that is to be
// replaced by a new run of its instance.
func (c *coordinator) dropResult(ctx context.Context, tok string) error {
	var s stored
	if _, err := getJSON(ctx, c.stores.results, tok, &s); err == nil && s.Archive != "" {
		if err := c.stores.runs.Delete(ctx, s.Archive); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			slog.Warn("delete an old run folder archive", "archive", s.Archive, "err", err)
		}
	}
	if err := c.stores.results.Delete(ctx, tok); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		if gone(err) {
			return errDataLost
		}
		return fmt.Errorf("delete the old result of %s: %w", c.want[tok].InstanceID, err)
	}
	delete(c.results, tok)
	return nil
}

// publish queues an instance in a round after every one seen, under a
// message id that holds the round: the server's duplicate window cannot
// swallow it. added is false when the stream already holds the instance.
func (c *coordinator) publish(ctx context.Context, tok string, in swebench.Instance) (added bool, err error) {
	round := c.claims[tok].Round + 1
	for range 10 {
		data, err := json.Marshal(job{Instance: in, Round: round})
		if err != nil {
			return false, fmt.Errorf("queue %s: %w", in.InstanceID, err)
		}
		id := fmt.Sprintf("%s/%s/%d", c.reg.Names.Batch, tok, round)
		ack, err := c.js.Publish(ctx, c.reg.Names.Subject+"."+tok, data, jetstream.WithMsgID(id))
		switch {
		case alreadyQueued(err):
			return false, nil
		case gone(err):
			return false, errDataLost
		case err != nil:
			return false, fmt.Errorf("queue %s: %w", in.InstanceID, err)
		case ack.Duplicate:
			round++ // this round was queued before, and taken since
			continue
		}
		return true, nil
	}
	return false, fmt.Errorf("queue %s: the server took it for a duplicate ten times", in.InstanceID)
}

// unstick frees instances the consumer will never deliver again (queued
// by an older version, whose consumer gave up after a delivery limit):
// seen so at two reconciles in a row, each is queued again in a new round.
func (c *coordinator) unstick(ctx context.Context, queued map[string]bool) error {
	info, err := c.stores.consumer.Info(ctx)
	if err != nil || info.NumPending > 0 || info.NumAckPending > 0 || len(queued) == 0 {
		clear(c.stuck)
		return nil
	}
	stream, err := c.js.Stream(ctx, c.reg.Names.Stream)
	if err != nil {
		return nil
	}
	for tok := range queued {
		msg, err := stream.GetLastMsgForSubject(ctx, c.reg.Names.Subject+"."+tok)
		if err != nil {
			continue
		}
		if c.stuck[tok] != msg.Sequence {
			c.stuck[tok] = msg.Sequence
			continue
		}
		delete(c.stuck, tok)
		in, ok := c.want[tok]
		if !ok {
			var j job
			j, ok = decodeJob(msg.Data)
			in = j.Instance
		}
		if !ok || stream.DeleteMsg(ctx, msg.Sequence) != nil {
			continue
		}
		c.st.prog.event(fmt.Sprintf("%s could no longer be delivered; queuing it again", in.InstanceID))
		if _, err := c.publish(ctx, tok, in); err != nil {
			return err
		}
	}
	return nil
}

// decodeJob reads a message of a batch's stream, as this version queues
// it or as an earlier one did (the instance alone, in round 0).
func decodeJob(data []byte) (job, bool) {
	var j job
	if err := json.Unmarshal(data, &j); err == nil && j.Instance.InstanceID != "" {
		return j, true
	}
	var in swebench.Instance
	if err := json.Unmarshal(data, &in); err == nil && in.InstanceID != "" {
		return job{Instance: in}, true
	}
	return job{}, false
}

// finished reports that nothing is left to wait for: every instance is
// saved, or its result failed to save every time it was tried.
func (c *coordinator) finished() bool {
	for tok := range c.want {
		if u := c.unsaved[tok]; u == nil || u.tries < saveTries {
			return false
		}
	}
	return true
}

// finish ends a batch whose instances all have results: with an error
// naming those it could not save (they stay on the server), else by
// taking the batch off the server's list when nothing of it is left
// there for workers or for another coordinator.
func (c *coordinator) finish(ctx context.Context) error {
	if len(c.want) > 0 {
		var ids []string
		var last error
		for tok, u := range c.unsaved {
			ids = append(ids, c.want[tok].InstanceID)
			last = u.err
		}
		slices.Sort(ids)
		return fmt.Errorf("could not save the results of %s in %s (%v); they are kept on the server: fix that and run the same command again",
			strings.Join(ids, ", "), c.st.cfg.OutDir, last)
	}
	queued, err := c.queued(ctx)
	if err != nil {
		slog.Warn("read the queue; the batch stays registered", "err", err)
		return nil
	}
	if left := len(queued) + c.unsavedElsewhere(); left > 0 {
		c.st.prog.event(fmt.Sprintf("%d instances of this batch outside this run (as with --only) are queued or not saved yet: "+
			"the batch stays on the server's list, so workers finish them and a later run collects them", left))
		return nil
	}
	if err := c.registry.Delete(ctx, c.reg.Names.Batch); err != nil {
		slog.Warn("unregister batch", "batch", c.reg.Names.Batch, "err", err)
	}
	return nil
}

// unsavedElsewhere counts results on the server that no output folder
// has yet: those of instances this run did not want.
func (c *coordinator) unsavedElsewhere() int {
	n := 0
	for _, r := range c.results {
		if r.saved {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.st.cfg.OutDir, RunsDir, DirName(r.id), DoneFile)); err != nil {
			n++
		}
	}
	return n
}

// status says on the progress output what the batch waits for, once no
// result has come for a while, and again each such while.
func (c *coordinator) status(ctx context.Context, queued map[string]bool) {
	now := time.Now()
	if now.Sub(c.lastResult) < c.tune.quiet || now.Sub(c.lastStatus) < c.tune.quiet {
		return
	}
	c.lastStatus = now
	workers, err := livePresence(ctx, c.workers)
	if err != nil {
		slog.Warn("read workers", "err", err)
	}
	c.st.prog.event(waitingLine(c.reg.Names.Batch, c.want, c.order, queued, workers, len(c.unsaved)))
}

// waitingLine says what a coordinator waits for: the instances running
// (on which workers), queued, and stalled (queued, with no connected
// worker able to run them), and the results it could not save.
func waitingLine(batch string, want map[string]swebench.Instance, order []string, queued map[string]bool, workers []presence, unsaved int) string {
	running := map[string]bool{}
	var on []string
	for _, w := range workers {
		var ids []string
		for _, id := range w.Running[batch] {
			if _, ok := want[token(id)]; ok {
				ids = append(ids, id)
				running[id] = true
			}
		}
		if len(ids) > 0 {
			on = append(on, w.Name+": "+strings.Join(ids, ", "))
		}
	}
	waiting, stalled := 0, map[string]int{}
	for _, tok := range order {
		in, ok := want[tok]
		if !ok || !queued[tok] || running[in.InstanceID] {
			continue
		}
		if slices.ContainsFunc(workers, func(p presence) bool { return p.capable(in.Repo) }) {
			waiting++
		} else {
			stalled[in.Repo]++
		}
	}
	line := fmt.Sprintf("waiting for %d instances: %d running", len(want), len(running))
	if len(on) > 0 {
		line += " (" + strings.Join(on, "; ") + ")"
	}
	line += fmt.Sprintf(", %d queued", waiting)
	if len(stalled) > 0 {
		line += ", " + stalledText(stalled, len(workers))
	}
	if unsaved > 0 {
		line += fmt.Sprintf(", %d not saved yet", unsaved)
	}
	if len(workers) == 0 {
		return line + "; no worker is connected to the queue"
	}
	if len(workers) == 1 {
		return line + "; 1 worker connected"
	}
	return line + fmt.Sprintf("; %d workers connected", len(workers))
}

func stalledText(stalled map[string]int, workers int) string {
	var parts []string
	n := 0
	for _, repo := range sortedKeys(stalled) {
		n += stalled[repo]
		parts = append(parts, fmt.Sprintf("%s: %d", repo, stalled[repo]))
	}
	why := "no connected worker has their repository"
	if workers == 0 {
		why = "no worker is connected"
	}
	return fmt.Sprintf("%d stalled (%s: %s)", n, why, strings.Join(parts, ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
