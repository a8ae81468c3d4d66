package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// Bounds on how long a fault test waits for a process. They are far above
// what the tests need, so that a loaded machine does not fail them; a
// process that hangs fails its test when they pass.
const (
	exitLimit  = 120 * time.Second
	printLimit = 60 * time.Second
)

// steadyAckWait is the ack wait of tests that count how often instances
// ran: long enough that a worker starved of CPU on a loaded machine does
// not lose its instance to another.
const steadyAckWait = 10 * time.Second

// faultRig is one fault test's server, instances and output folder.
type faultRig struct {
	url, repos, list, out string
	ins                   []swebench.Instance
}

func newRig(t *testing.T, n int) *faultRig {
	t.Helper()
	r := &faultRig{url: natsServer(t), out: t.TempDir()}
	r.repos, r.ins = lightBatch(t, n)
	r.list = writeInstances(t, r.ins)
	return r
}

func (r *faultRig) coordinator() procSpec {
	return procSpec{Role: "coordinator", URL: r.url, Instances: r.list, Repos: r.repos, Out: r.out, AckWait: 2 * time.Second}
}

func (r *faultRig) worker(t *testing.T, name string) procSpec {
	work := t.TempDir()
	return procSpec{Role: "worker", URL: r.url, Repos: r.repos, Work: work, Name: name, Log: filepath.Join(work, "worker.log")}
}

func (r *faultRig) id(i int) string { return r.ins[i].InstanceID }

// mustFinish waits for a coordinator to end with success.
func mustFinish(t *testing.T, c *proc) {
	t.Helper()
	if err := c.exit(t, exitLimit); err != nil {
		t.Fatalf("%s: %v; its output:\n%s", c.name, err, c.output())
	}
}

// TestQueueDeliveryLimitWithoutCoordinator: an instance used up its
// deliveries (two workers killed on it) while no coordinator ran. The
// restarted coordinator records it as failed, with the reason, and
// finishes instead of waiting for ever.
func TestQueueDeliveryLimitWithoutCoordinator(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	spec := r.coordinator()
	spec.MaxDeliver = 2
	first := startProc(t, "first coordinator", spec)
	first.waitFor(t, "queued", printLimit)
	first.kill(t)
	for i := range 2 {
		w := r.worker(t, fmt.Sprintf("doomed-%d", i+1))
		w.Hang = []string{r.id(0)}
		doomed := startProc(t, w.Name, w)
		doomed.waitFor(t, "started "+r.id(0), printLimit)
		doomed.kill(t)
	}
	survivor := startProc(t, "survivor", r.worker(t, "survivor"))
	mustFinish(t, startProc(t, "restarted coordinator", spec))
	survivor.stop(t)
	if rec := readRecord(t, r.out, r.id(0)); rec.Status != StatusError || !strings.Contains(rec.Message, "handed out 2 times") {
		t.Errorf("the instance that used up its deliveries: %+v", rec)
	}
	checkOutput(t, r.out, r.repos, r.ins, r.id(0))
}

// TestQueueTwoCoordinators: a second coordinator on the same output folder
// refuses at once, saying why; the first finishes the batch alone.
func TestQueueTwoCoordinators(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	gateDir := t.TempDir()
	w := r.worker(t, "w1")
	w.Gated, w.Gate = []string{"*"}, gateDir
	worker := startProc(t, "worker", w)
	first := startProc(t, "first coordinator", r.coordinator())
	first.waitFor(t, "queued", printLimit)
	second := startProc(t, "second coordinator", r.coordinator())
	if err := second.exit(t, exitLimit); err == nil || !strings.Contains(second.output(), "another coordinator") {
		t.Fatalf("the second coordinator: %v; its output:\n%s", err, second.output())
	}
	openGate(t, gateDir)
	mustFinish(t, first)
	worker.stop(t)
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueSaveFailure: results the coordinator cannot save (a full disk)
// stay on the server. A failure that passes is saved on a later try; one
// that lasts ends the coordinator with an error naming it, and the same
// command run again saves it without running the instance again.
func TestQueueSaveFailure(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	worker := startProc(t, "worker", r.worker(t, "w1"))
	spec := r.coordinator()
	spec.AckWait = steadyAckWait
	spec.SaveFaults = map[string]int{r.id(1): 1000, r.id(2): 1}
	first := startProc(t, "first coordinator", spec)
	err := first.exit(t, exitLimit)
	if err == nil || !strings.Contains(first.output(), r.id(1)) || !strings.Contains(first.output(), "kept on the server") {
		t.Fatalf("a coordinator that cannot save: %v; its output:\n%s", err, first.output())
	}
	if rec := readRecord(t, r.out, r.id(2)); rec.Status != "submitted" {
		t.Fatalf("the result saved on a second try: %+v", rec)
	}
	again := r.coordinator()
	again.AckWait = steadyAckWait
	mustFinish(t, startProc(t, "second coordinator", again))
	worker.stop(t)
	for _, in := range r.ins {
		if n := strings.Count(worker.output(), "started "+in.InstanceID+"\n"); n != 1 {
			t.Errorf("%s ran %d times", in.InstanceID, n)
		}
	}
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueWorkerWithoutRepository: a worker that lacks the repository
// leaves its instances to a worker that has it, and says so; none fails.
func TestQueueWorkerWithoutRepository(t *testing.T) {
	t.Parallel()
	r := newRig(t, 6)
	bad := r.worker(t, "bare")
	bad.Repos = t.TempDir()
	bare := startProc(t, "worker without the repository", bad)
	good := startProc(t, "worker with the repository", r.worker(t, "full"))
	bare.waitFor(t, "connected", printLimit)
	good.waitFor(t, "connected", printLimit)
	mustFinish(t, startProc(t, "coordinator", r.coordinator()))
	bare.stop(t)
	good.stop(t)
	if !strings.Contains(bare.output(), "no repository acme/inventory") {
		t.Errorf("the worker without the repository did not say so:\n%s", bare.output())
	}
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueRetryAfterFailure: deleting a failed instance's run folder and
// running the same command again, at once, runs it again.
func TestQueueRetryAfterFailure(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	w := r.worker(t, "w1")
	w.FailOnce = []string{r.id(1)}
	worker := startProc(t, "worker", w)
	mustFinish(t, startProc(t, "first coordinator", r.coordinator()))
	if rec := readRecord(t, r.out, r.id(1)); rec.Status != StatusError {
		t.Fatalf("the first run of the flaky instance: %+v", rec)
	}
	if err := os.RemoveAll(filepath.Join(r.out, RunsDir, DirName(r.id(1)))); err != nil {
		t.Fatal(err)
	}
	mustFinish(t, startProc(t, "second coordinator", r.coordinator()))
	worker.stop(t)
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueOnlyCoordinator: a coordinator with --only (a subset of a batch
// queued earlier) finishes its instances and leaves the rest registered:
// workers finish them while no coordinator runs, and the full command
// collects them.
func TestQueueOnlyCoordinator(t *testing.T) {
	t.Parallel()
	r := newRig(t, 4)
	spec := r.coordinator()
	spec.AckWait = steadyAckWait
	first := startProc(t, "first coordinator", spec)
	first.waitFor(t, "queued", printLimit)
	first.kill(t)
	gateDir := t.TempDir()
	w := r.worker(t, "w1")
	w.Gated, w.Gate = []string{r.id(1), r.id(2), r.id(3)}, gateDir
	worker := startProc(t, "worker", w)
	only := spec
	only.Instances = writeInstances(t, r.ins[:1])
	mustFinish(t, startProc(t, "--only coordinator", only))
	openGate(t, gateDir)
	waitResults(t, r.url, r.out, len(r.ins))
	mustFinish(t, startProc(t, "full coordinator", spec))
	worker.stop(t)
	for _, in := range r.ins {
		if n := strings.Count(worker.output(), "started "+in.InstanceID+"\n"); n != 1 {
			t.Errorf("%s ran %d times", in.InstanceID, n)
		}
	}
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueEmptyStoreRestart: the server comes back with an empty store.
// The coordinator says what happened and what to do; the worker keeps
// serving, and the same command run again finishes the batch.
func TestQueueEmptyStoreRestart(t *testing.T) {
	t.Parallel()
	first := natsServerAt(t, 0, t.TempDir())
	port := first.Addr().(*net.TCPAddr).Port
	r := &faultRig{url: first.ClientURL(), out: t.TempDir()}
	r.repos, r.ins = lightBatch(t, 3)
	r.list = writeInstances(t, r.ins)
	gateDir := t.TempDir()
	w := r.worker(t, "w1")
	w.Gated, w.Gate = []string{r.id(1), r.id(2)}, gateDir
	worker := startProc(t, "worker", w)
	c := startProc(t, "coordinator", r.coordinator())
	waitFile(t, filepath.Join(r.out, RunsDir, DirName(r.id(0)), DoneFile))
	waitFile(t, filepath.Join(gateDir, "started-"+DirName(r.id(1))))
	first.Shutdown()
	first.WaitForShutdown()
	natsServerAt(t, port, t.TempDir())
	err := c.exit(t, exitLimit)
	const named = "the server lost this batch's data; run the same command again to queue what is missing"
	if err == nil || !strings.Contains(c.output(), named) {
		t.Fatalf("the coordinator after the server lost its data: %v; its output:\n%s", err, c.output())
	}
	openGate(t, gateDir)
	mustFinish(t, startProc(t, "coordinator run again", r.coordinator()))
	worker.stop(t)
	checkOutput(t, r.out, r.repos, r.ins)
}

// TestQueueFrozenWorker: a worker frozen past its ack wait (SIGSTOP) loses
// its instance to another; when it resumes and finishes, the result
// already stored stays, on the server as in the output folder.
func TestQueueFrozenWorker(t *testing.T) {
	t.Parallel()
	r := newRig(t, 1)
	gateDir := t.TempDir()
	w := r.worker(t, "frozen")
	w.Gated, w.Gate = []string{"*"}, gateDir
	frozen := startProc(t, "frozen worker", w)
	c := startProc(t, "coordinator", r.coordinator())
	waitFile(t, filepath.Join(gateDir, "started-"+DirName(r.id(0))))
	frozen.signal(t, syscall.SIGSTOP)
	thawed := startProc(t, "other worker", r.worker(t, "other"))
	mustFinish(t, c)
	frozen.signal(t, syscall.SIGCONT)
	openGate(t, gateDir)
	frozen.waitFor(t, "finished "+r.id(0), printLimit)
	frozen.stop(t)
	thawed.stop(t)
	if rec := readRecord(t, r.out, r.id(0)); rec.Worker != "other" {
		t.Errorf("the output folder keeps the result of %q", rec.Worker)
	}
	if got := serverResults(t, r.url, r.out); got[r.id(0)].Worker != "other" {
		t.Errorf("the server keeps the result of %q", got[r.id(0)].Worker)
	}
	checkOutput(t, r.out, r.repos, r.ins)
}

func openGate(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// serverResults reads the records a batch's workers stored on the server.
func serverResults(t *testing.T, url, out string) map[string]Record {
	t.Helper()
	n, err := namesFor(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := testQueue(url, 0, 0).dial(ctx, "test", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	kv, err := l.js.KeyValue(ctx, n.Results)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Record{}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		rec := decodeStored(t, e.Value())
		got[rec.InstanceID] = rec
	}
	return got
}

// decodeStored reads a record as the results bucket holds it.
func decodeStored(t *testing.T, b []byte) Record {
	t.Helper()
	var wrapped struct {
		Record Record `json:"record"`
	}
	if err := json.Unmarshal(b, &wrapped); err == nil && wrapped.Record.InstanceID != "" {
		return wrapped.Record
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// waitResults waits until the server holds n results of the batch.
func waitResults(t *testing.T, url, out string, n int) {
	t.Helper()
	deadline := time.Now().Add(printLimit)
	for {
		got := serverResults(t, url, out)
		if len(got) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d results, not %d, after %s", len(got), n, printLimit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
