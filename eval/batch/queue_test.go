package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// Variables that make this test binary a worker process, for the test
// that kills one.
const (
	envWorkerQueue = "SWE_ADEPT_TEST_WORKER_QUEUE"
	envWorkerRepos = "SWE_ADEPT_TEST_WORKER_REPOS"
	envWorkerDir   = "SWE_ADEPT_TEST_WORKER_DIR"
	// SWE_ADEPT_TEST_COORDINATOR=queue|instances|repos|out makes it a coordinator.
	envCoordinator = "SWE_ADEPT_TEST_COORDINATOR"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorkerQueue); url != "" {
		os.Exit(workerProcess(url))
	}
	if args := os.Getenv(envCoordinator); args != "" {
		os.Exit(coordinatorProcess(strings.Split(args, "|")))
	}
	os.Exit(m.Run())
}

// workerProcess is a real worker process whose runner hangs until the
// process is killed.
func workerProcess(url string) int {
	err := Work(context.Background(), WorkerConfig{Queue: Queue{URL: url}, ReposDir: os.Getenv(envWorkerRepos),
		WorkDir: os.Getenv(envWorkerDir), Name: "doomed", NewRunner: func(s RunnerSpec) Runner {
			return runnerFunc(func(ctx context.Context, job Job) (Result, error) {
				<-ctx.Done() // hang until killed: the test kills this process mid-instance
				return Result{}, ctx.Err()
			})
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// coordinatorProcess is a real coordinator process, for the test that
// kills one.
func coordinatorProcess(args []string) int {
	ins, _, err := swebench.ReadInstancesFile(args[1])
	if err == nil {
		_, err = RunQueued(context.Background(), Config{Instances: ins, ReposDir: args[2], OutDir: args[3]},
			Queue{URL: args[0], AckWait: 2 * time.Second}, RunnerSpec{Agent: agentRunner()})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// natsServer starts a JetStream server on loopback for one test.
func natsServer(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s.ClientURL()
}

// workers runs n in-process workers until the test ends, each counting
// the instances its runner was given.
type workerPool struct {
	mu    sync.Mutex
	calls map[string]int // instance → runner calls, over every worker
	by    map[string]string
	wrap  func(id string, r Runner) Runner
}

func (p *workerPool) start(t *testing.T, ctx context.Context, url, repos string, names ...string) {
	t.Helper()
	for _, name := range names {
		cfg := WorkerConfig{Queue: Queue{URL: url}, ReposDir: repos, WorkDir: filepath.Join(t.TempDir(), name), Name: name,
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

// twentyInstances is the run sample under 19 ids and one instance whose
// repository no worker has.
func twentyInstances(t *testing.T) (string, []swebench.Instance) {
	repos, ins := inventoryBatch(t)
	base := ins[0]
	ins = ins[:0]
	for i := range 19 {
		in := base
		in.InstanceID = fmt.Sprintf("acme__inventory-%d", i+1)
		ins = append(ins, in)
	}
	missing := base
	missing.InstanceID, missing.Repo = "gone__gone-1", "gone/gone"
	return repos, append(ins, missing)
}

// TestQueueMatchesLocalBatch runs twenty scripted instances through a real
// JetStream server with three workers, and compares the output with a
// local batch of the same instances.
func TestQueueMatchesLocalBatch(t *testing.T) {
	url := natsServer(t)
	repos, ins := twentyInstances(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pool := &workerPool{}
	pool.start(t, ctx, url, repos, "w1", "w2", "w3")

	out := t.TempDir()
	spec := RunnerSpec{Agent: agentRunner()}
	sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out}, Queue{URL: url, AckWait: 2 * time.Second}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finished != 20 || sum.ByStatus["submitted"] != 19 || sum.ByStatus[StatusSetup] != 1 {
		t.Fatalf("queued batch: %+v", sum)
	}
	pool.mu.Lock()
	for _, in := range ins[:19] {
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
	if !strings.Contains(gone.Message, "each of 3 deliveries") {
		t.Errorf("the instance that failed everywhere: %+v", gone)
	}
	checkRunFolder(t, filepath.Join(out, RunsDir, "acme__inventory-2"))

	local := t.TempDir()
	if _, err := Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: local, Workers: 3, Runner: spec.Runner()}); err != nil {
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
	url := natsServer(t)
	repos, ins := inventoryBatch(t)
	ins = ins[:1]
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
			Queue{URL: url, AckWait: time.Second}, RunnerSpec{Agent: agentRunner()})
		done <- result{sum, err}
	}()

	doomed := exec.Command(os.Args[0], "-test.run=^$")
	doomed.Env = append(os.Environ(), envWorkerQueue+"="+url, envWorkerRepos+"="+repos, envWorkerDir+"="+t.TempDir())
	if err := doomed.Start(); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, url, out, ins[0].InstanceID, "doomed")
	if err := doomed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = doomed.Wait()

	pool := &workerPool{}
	pool.start(t, ctx, url, repos, "survivor")
	r := <-done
	if r.err != nil || r.sum.ByStatus["submitted"] != 1 {
		t.Fatalf("batch: %+v, %v", r.sum, r.err)
	}
	if rec := readRecord(t, out, ins[0].InstanceID); rec.Worker != "survivor" {
		t.Fatalf("finished by %q", rec.Worker)
	}
}

// TestQueueCoordinatorRestarted kills the coordinator process once its
// first result is saved and starts another: it finishes the batch with
// every instance run once.
func TestQueueCoordinatorRestarted(t *testing.T) {
	url := natsServer(t)
	repos, ins := inventoryBatch(t)
	wctx, stopWorkers := context.WithCancel(context.Background())
	defer stopWorkers()
	pool := &workerPool{}
	pool.start(t, wctx, url, repos, "w1", "w2")
	out := t.TempDir()
	list := filepath.Join(t.TempDir(), "instances.jsonl")
	var lines []string
	for _, in := range ins {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(list, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	first := exec.Command(os.Args[0], "-test.run=^$")
	first.Env = append(os.Environ(), envCoordinator+"="+strings.Join([]string{url, list, repos, out}, "|"))
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(out, RunsDir, DirName(ins[0].InstanceID), DoneFile), filepath.Join(out, RunsDir, DirName(ins[1].InstanceID), DoneFile))
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	sum, err := RunQueued(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: out},
		Queue{URL: url, AckWait: 2 * time.Second}, RunnerSpec{Agent: agentRunner()})
	if err != nil || sum.Finished != 3 || sum.ByStatus["submitted"] != 3 || sum.Resumed < 1 {
		t.Fatalf("restarted: %+v, %v", sum, err)
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, in := range ins {
		if pool.calls[in.InstanceID] != 1 {
			t.Errorf("%s ran %d times", in.InstanceID, pool.calls[in.InstanceID])
		}
	}
	checkPreds(t, out, repos, ins)
}

// waitFile waits until any of the files exists.
func waitFile(t *testing.T, paths ...string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
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
	url := natsServer(t)
	repos, ins := inventoryBatch(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pool := &workerPool{wrap: func(id string, r Runner) Runner {
		if id != "acme__inventory-2" {
			return r
		}
		return runnerFunc(func(context.Context, Job) (Result, error) { panic("out of its depth") })
	}}
	pool.start(t, ctx, url, repos, "w1")
	out := t.TempDir()
	sum, err := RunQueued(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out},
		Queue{URL: url, AckWait: time.Second, MaxDeliver: 2}, RunnerSpec{Agent: agentRunner()})
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
}

// waitRunning waits until a worker marks the instance as its own.
func waitRunning(t *testing.T, url, out, id, worker string) {
	t.Helper()
	n, err := namesFor(out)
	if err != nil {
		t.Fatal(err)
	}
	nc, js, err := Queue{URL: url}.connect("test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		kv, err := js.KeyValue(ctx, n.Running)
		if err == nil {
			var e jetstream.KeyValueEntry
			if e, err = kv.Get(ctx, token(id)); err == nil && string(e.Value()) == worker {
				cancel()
				return
			}
		}
		cancel()
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never started on %s", id, worker)
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
