package batch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// workers runs n in-process workers until the test ends, each counting
// the instances its runner was given.
type workerPool struct {
	mu    sync.Mutex
	calls map[string]int // instance → runner calls, over every worker
	by    map[string]string
	wrap  func(id string, r Runner) Runner
	light bool // run lightRunner rather than the batch's own
}

func (p *workerPool) start(t *testing.T, ctx context.Context, url, repos string, names ...string) {
	t.Helper()
	for _, name := range names {
		cfg := WorkerConfig{Queue: testQueue(url, 0, 0), ReposDir: repos, WorkDir: filepath.Join(t.TempDir(), name), Name: name,
			Workers: 1, NewRunner: p.runner(name)}
		done := make(chan error, 1)
		go func() { done <- Work(ctx, cfg) }()
		t.Cleanup(func() {
			if err := <-done; err != nil {
				t.Errorf("worker %s: %v", name, err)
			}
		})
	}
}

func (p *workerPool) runner(name string) func(RunnerSpec) Runner {
	return func(s RunnerSpec) Runner {
		var r Runner = s.Runner()
		if p.light {
			r = lightRunner()
		}
		return runnerFunc(func(ctx context.Context, job Job) (Result, error) {
			p.mu.Lock()
			if p.calls == nil {
				p.calls, p.by = map[string]int{}, map[string]string{}
			}
			p.calls[job.Task.InstanceID]++
			p.by[job.Task.InstanceID] = name
			wrap := p.wrap
			p.mu.Unlock()
			if wrap != nil {
				return wrap(job.Task.InstanceID, r).Run(ctx, job)
			}
			return r.Run(ctx, job)
		})
	}
}

// sampleInstances is the run sample under n ids and one instance whose
// repository no worker has.
func sampleInstances(t *testing.T, n int) (string, []swebench.Instance) {
	repos, ins := inventoryBatch(t)
	base := ins[0]
	ins = ins[:0]
	for i := range n {
		in := base
		in.InstanceID = fmt.Sprintf("acme__inventory-%d", i+1)
		ins = append(ins, in)
	}
	missing := base
	missing.InstanceID, missing.Repo = "gone__gone-1", "gone/gone"
	return repos, append(ins, missing)
}

// TestQueueMatchesLocalBatch runs scripted whole runs through a real
// JetStream server with two workers, and compares the output with a
// local batch of the same instances. (Two: each run's commands have a
// time limit, which a loaded machine would reach with more at once.)
func TestQueueMatchesLocalBatch(t *testing.T) {
	// Not parallel: whole scripted runs need the CPU the fault tests would take.
	url := natsServer(t)
	repos, ins := sampleInstances(t, 4)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pool := &workerPool{}
	pool.start(t, ctx, url, repos, "w1", "w2")

	out := t.TempDir()
	spec := RunnerSpec{Agent: agentRunner()}
	sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out}, testQueue(url, 2*time.Second, 0), spec)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finished != 5 || sum.ByStatus["submitted"] != 4 || sum.ByStatus[StatusSetup] != 1 {
		for _, in := range ins {
			if rec := readRecord(t, out, in.InstanceID); rec.Status != "submitted" {
				t.Logf("%s: %s: %s", in.InstanceID, rec.Status, rec.Message)
			}
		}
		t.Fatalf("queued batch: %+v", sum)
	}
	pool.mu.Lock()
	for _, in := range ins[:4] {
		if pool.calls[in.InstanceID] != 1 {
			t.Errorf("%s ran %d times", in.InstanceID, pool.calls[in.InstanceID])
		}
	}
	used := map[string]bool{}
	for _, w := range pool.by {
		used[w] = true
	}
	pool.mu.Unlock()
	if len(used) < 2 {
		t.Errorf("the instances ran on %d worker(s)", len(used))
	}
	gone := readRecord(t, out, "gone__gone-1")
	if gone.Status != StatusSetup || !strings.Contains(gone.Message, "no connected worker can set it up") {
		t.Errorf("the instance no worker can set up: %+v", gone)
	}
	checkRunFolder(t, filepath.Join(out, RunsDir, "acme__inventory-2"))

	local := t.TempDir()
	if _, err := Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: local, Workers: 2, Runner: spec.Runner()}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{PredsJSONL, PredsJSON} {
		if q, l := readFile(t, filepath.Join(out, f)), readFile(t, filepath.Join(local, f)); q != l {
			t.Errorf("%s differs from a local batch's:\n%s\n---\n%s", f, q, l)
		}
	}
}

// TestQueueWorkerKilled kills a worker process mid-instance: the instance
// is handed to another worker once the killed one stops its heartbeats.
func TestQueueWorkerKilled(t *testing.T) {
	t.Parallel()
	url := natsServer(t)
	repos, ins := lightBatch(t, 1)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out := t.TempDir()
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out},
			testQueue(url, time.Second, 0), RunnerSpec{Agent: agentRunner()})
		done <- result{sum, err}
	}()

	doomed := startProc(t, "doomed worker", procSpec{Role: "worker", URL: url, Repos: repos, Work: t.TempDir(), Name: "doomed", Hang: []string{"*"}})
	doomed.waitFor(t, "started "+ins[0].InstanceID, printLimit)
	doomed.kill(t)

	pool := &workerPool{light: true}
	pool.start(t, ctx, url, repos, "survivor")
	r := <-done
	if r.err != nil || r.sum.ByStatus["submitted"] != 1 {
		t.Fatalf("batch: %+v, %v", r.sum, r.err)
	}
	if rec := readRecord(t, out, ins[0].InstanceID); rec.Worker != "survivor" {
		t.Fatalf("finished by %q", rec.Worker)
	}
	checkOutput(t, out, repos, ins)
}

// TestQueueCoordinatorRestarted kills the coordinator process once its
// first result is saved and starts another: it finishes the batch with
// every instance run once.
func TestQueueCoordinatorRestarted(t *testing.T) {
	t.Parallel()
	url := natsServer(t)
	repos, ins := lightBatch(t, 3)
	wctx, stopWorkers := context.WithCancel(context.Background())
	defer stopWorkers()
	held := make(chan struct{}) // the instances after the first wait until the coordinator is killed
	pool := &workerPool{light: true, wrap: func(id string, r Runner) Runner {
		if id == ins[0].InstanceID {
			return r
		}
		return runnerFunc(func(ctx context.Context, job Job) (Result, error) {
			<-held
			return r.Run(ctx, job)
		})
	}}
	pool.start(t, wctx, url, repos, "w1", "w2")
	out := t.TempDir()
	first := startProc(t, "first coordinator", procSpec{Role: "coordinator", URL: url, Instances: writeInstances(t, ins), Repos: repos, Out: out, AckWait: steadyAckWait})
	waitFile(t, filepath.Join(out, RunsDir, DirName(ins[0].InstanceID), DoneFile))
	first.kill(t)
	close(held)

	sum, err := RunQueued(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: out},
		testQueue(url, steadyAckWait, 0), RunnerSpec{Agent: agentRunner()})
	if err != nil || sum.Finished != 3 || sum.ByStatus["submitted"] != 3 || sum.Resumed != 1 {
		t.Fatalf("restarted: %+v, %v", sum, err)
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, in := range ins {
		if pool.calls[in.InstanceID] != 1 {
			t.Errorf("%s ran %d times", in.InstanceID, pool.calls[in.InstanceID])
		}
	}
	checkOutput(t, out, repos, ins)
}

// waitFile waits until any of the files exists.
func waitFile(t *testing.T, paths ...string) {
	t.Helper()
	for deadline := time.Now().Add(exitLimit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, p := range paths {
			if _, err := os.Stat(p); err == nil {
				return
			}
		}
	}
	t.Fatalf("none of %v appeared", paths)
}

// TestQueueRunnerCrashes: a runner that panics on one instance every time
// leaves it failed after the delivery limit, and the worker goes on.
func TestQueueRunnerCrashes(t *testing.T) {
	t.Parallel()
	url := natsServer(t)
	repos, ins := lightBatch(t, 3)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pool := &workerPool{light: true, wrap: func(id string, r Runner) Runner {
		if id != "acme__inventory-2" {
			return r
		}
		return runnerFunc(func(context.Context, Job) (Result, error) { panic("out of its depth") })
	}}
	pool.start(t, ctx, url, repos, "w1")
	out := t.TempDir()
	sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out},
		testQueue(url, time.Second, 2), RunnerSpec{Agent: agentRunner()})
	if err != nil || sum.ByStatus["submitted"] != 2 || sum.ByStatus[StatusError] != 1 {
		t.Fatalf("batch: %+v, %v", sum, err)
	}
	rec := readRecord(t, out, "acme__inventory-2")
	if !strings.Contains(rec.Message, "each of 2 deliveries") || !strings.Contains(rec.Message, "out of its depth") {
		t.Fatalf("record: %+v", rec)
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.calls["acme__inventory-2"] != 2 {
		t.Fatalf("the crashing instance ran %d times", pool.calls["acme__inventory-2"])
	}
	checkOutput(t, out, repos, ins, "acme__inventory-2")
}

func readRecord(t *testing.T, out, id string) Record {
	t.Helper()
	rec, err := loadRecord(filepath.Join(out, RunsDir, DirName(id)))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestQueueWorkerGivesUp: a worker that fails to set up instances of one
// repository after another, though it has each, stops with an error that
// says so; the instances no connected worker could set up are recorded
// as failed, with the reason.
func TestQueueWorkerGivesUp(t *testing.T) {
	t.Parallel()
	url := natsServer(t)
	repos := t.TempDir()
	var ins []swebench.Instance
	for _, repo := range []string{"broken/a", "broken/b", "broken/c"} {
		if err := os.MkdirAll(swebench.RepoDir(repos, repo), 0o755); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, swebench.Instance{InstanceID: strings.ReplaceAll(repo, "/", "__") + "-1", Repo: repo,
			BaseCommit: strings.Repeat("1", 40), ProblemStatement: "broken"})
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	worked := make(chan error, 1)
	go func() {
		worked <- Work(ctx, WorkerConfig{Queue: testQueue(url, 0, 0), ReposDir: repos, WorkDir: t.TempDir(), Name: "w1",
			NewRunner: func(RunnerSpec) Runner { return lightRunner() }})
	}()
	out := t.TempDir()
	sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out}, testQueue(url, 0, 0), RunnerSpec{Agent: agentRunner()})
	if err != nil || sum.ByStatus[StatusSetup] != 3 {
		t.Fatalf("batch: %+v, %v", sum, err)
	}
	if rec := readRecord(t, out, ins[0].InstanceID); !strings.Contains(rec.Message, "no connected worker can set it up (w1: ") {
		t.Errorf("record: %+v", rec)
	}
	select {
	case err := <-worked:
		if err == nil || !strings.Contains(err.Error(), "failed for 3 repositories in a row") {
			t.Fatalf("the worker ended with %v", err)
		}
	case <-time.After(exitLimit):
		t.Fatal("the worker did not give up")
	}
	checkOutput(t, out, repos, ins, ins[0].InstanceID, ins[1].InstanceID, ins[2].InstanceID)
}
