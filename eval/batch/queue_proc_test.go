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
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// envProc makes this test binary a worker or coordinator process: its
// value is a procSpec in JSON.
const envProc = "SWE_ADEPT_TEST_PROC"

func TestMain(m *testing.M) {
	if spec := os.Getenv(envProc); spec != "" {
		os.Exit(runProc(spec))
	}
	os.Exit(m.Run())
}

// procSpec is one re-executed process of a fault test.
type procSpec struct {
	Role string // "worker" or "coordinator"
	URL  string
	// Repos is the repositories folder; Work a worker's own folder.
	Repos, Work string
	Name        string
	Workers     int
	// Runner behaviours by instance id ("*": every instance): Hang blocks
	// until the process ends; Gated writes Gate/started-<id> and waits for
	// Gate/go; FailOnce fails the first run in this process. Agent plays the
	// scripted whole run instead of the light runner.
	Hang, Gated, FailOnce []string
	Gate                  string
	Agent                 bool
	Log                   string // the process's log file; "": none

	Instances  string // a coordinator's instances file
	Out        string
	AckWait    time.Duration
	MaxDeliver int
	// SaveFaults makes saving an instance's result in the output folder
	// fail this many times, as a full disk would.
	SaveFaults map[string]int
}

func runProc(raw string) int {
	var spec procSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "test process:", err)
		return 3
	}
	ctx, stop := signalContext()
	defer stop()
	// Each process logs to its own file, and stderr holds only what it
	// says to its user.
	logTo := io.Discard
	if spec.Log != "" {
		f, err := os.Create(spec.Log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "test process:", err)
			return 3
		}
		defer f.Close()
		logTo = f
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(logTo, nil)))
	var err error
	switch spec.Role {
	case "worker":
		err = Work(ctx, WorkerConfig{Queue: testQueue(spec.URL, spec.AckWait, spec.MaxDeliver), ReposDir: spec.Repos,
			WorkDir: spec.Work, Name: spec.Name, Workers: spec.Workers, Progress: os.Stderr,
			NewRunner: func(RunnerSpec) Runner { return spec.runner() }})
	case "coordinator":
		err = spec.coordinate(ctx)
	default:
		err = fmt.Errorf("unknown role %q", spec.Role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test process:", err)
		return 1
	}
	return 0
}

// signalContext ends on SIGTERM, as the command's own does.
func signalContext() (context.Context, func()) {
	ctx, stop := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
			stop()
		case <-ctx.Done():
		}
	}()
	return ctx, stop
}

func (spec procSpec) coordinate(ctx context.Context) error {
	ins, _, err := swebench.ReadInstancesFile(spec.Instances)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	faults := spec.SaveFaults
	saveFault = func(id string) error {
		mu.Lock()
		defer mu.Unlock()
		if faults[id] > 0 {
			faults[id]--
			return fmt.Errorf("write %s: %w", id, syscall.ENOSPC)
		}
		return nil
	}
	runner := RunnerSpec{Agent: agentRunner()}
	_, err = RunQueued(ctx, Config{Instances: ins, ReposDir: spec.Repos, OutDir: spec.Out, Progress: os.Stderr},
		testQueue(spec.URL, spec.AckWait, spec.MaxDeliver), runner)
	return err
}

func (spec procSpec) runner() Runner {
	var inner Runner = lightRunner()
	if spec.Agent {
		inner = agentRunner()
	}
	return runnerFunc(func(ctx context.Context, job Job) (Result, error) {
		id := job.Task.InstanceID
		switch {
		case matches(spec.Hang, id):
			<-ctx.Done()
			return Result{}, ctx.Err()
		case matches(spec.Gated, id):
			if err := gate(ctx, spec.Gate, id); err != nil {
				return Result{}, err
			}
		case matches(spec.FailOnce, id):
			failedMu.Lock()
			first := !failed[id]
			failed[id] = true
			failedMu.Unlock()
			if first {
				return Result{Status: StatusError}, errors.New("the model server went away")
			}
		}
		return inner.Run(ctx, job)
	})
}

// failed holds the instances a FailOnce runner failed in this process.
var (
	failedMu sync.Mutex
	failed   = map[string]bool{}
)

func matches(ids []string, id string) bool {
	return slices.Contains(ids, id) || slices.Contains(ids, "*")
}

// gate marks the instance started and waits for the test to open the gate.
func gate(ctx context.Context, dir, id string) error {
	if err := os.WriteFile(filepath.Join(dir, "started-"+DirName(id)), nil, 0o644); err != nil {
		return err
	}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// lightRunner stands in for a model: a quick, deterministic result with a
// patch and a file in the run folder, so fault tests spend their time on
// the queue.
func lightRunner() Runner {
	return runnerFunc(func(ctx context.Context, job Job) (Result, error) {
		id := job.Task.InstanceID
		if err := os.WriteFile(filepath.Join(job.RunDir, "notes.txt"), []byte("ran "+id+"\n"), 0o644); err != nil {
			return Result{}, err
		}
		patch := fmt.Sprintf("--- a/notes\n+++ b/notes\n@@ -0,0 +1 @@\n+%s\n", id)
		return Result{Status: "submitted", Model: "light", Patch: patch}, nil
	})
}

// proc is a re-executed worker or coordinator, with its stderr kept.
type proc struct {
	name string
	log  string // its log file, if it has one
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	grew chan struct{} // closed and replaced whenever out grows
	done chan struct{}
	err  error
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.Write(b)
	close(p.grew)
	p.grew = make(chan struct{})
	return len(b), nil
}

// startProc starts a process; the test fails if it is still running when
// the test ends.
func startProc(t *testing.T, name string, spec procSpec) *proc {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, log: spec.Log, grew: make(chan struct{}), done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), envProc+"="+string(raw))
	p.cmd.Stderr = p
	p.cmd.Stdout = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("SWE_ADEPT_TEST_SHOW") != "" {
			t.Logf("%s output:\n%s", name, p.output())
			if b, err := os.ReadFile(p.log); err == nil {
				t.Logf("%s log:\n%s", name, b)
			}
		}
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.done
			t.Errorf("%s was still running at the end of the test; its output:\n%s", name, p.output())
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the process has printed s.
func (p *proc) waitFor(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		p.mu.Lock()
		found, grew := strings.Contains(p.out.String(), s), p.grew
		p.mu.Unlock()
		if found {
			return
		}
		select {
		case <-grew:
		case <-p.done:
			if !strings.Contains(p.output(), s) {
				t.Fatalf("%s ended without printing %q: %v; its output:\n%s", p.name, s, p.err, p.output())
			}
			return
		case <-deadline:
			t.Fatalf("%s did not print %q within %s; its output:\n%s", p.name, s, limit, p.output())
		}
	}
}

// exit waits for the process to end by itself and returns its error.
func (p *proc) exit(t *testing.T, limit time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(limit):
		t.Fatalf("%s still waiting after %s; its output:\n%s", p.name, limit, p.output())
		return nil
	}
}

// stop ends a worker as Ctrl-C would and checks that it ended cleanly.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.exit(t, 60*time.Second); err != nil {
		t.Errorf("%s: %v; its output:\n%s", p.name, err, p.output())
	}
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	<-p.done
}

func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// natsServerAt starts a JetStream server on a chosen port (0: any) and
// store, and returns it; it is shut down when the test ends.
func natsServerAt(t *testing.T, port int, store string) *server.Server {
	t.Helper()
	if port == 0 {
		port = -1
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true,
		StoreDir: store, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// natsServer starts a JetStream server on loopback for one test.
func natsServer(t *testing.T) string {
	t.Helper()
	return natsServerAt(t, 0, t.TempDir()).ClientURL()
}

// writeInstances writes instances as a JSONL file for a coordinator.
func writeInstances(t *testing.T, ins []swebench.Instance) string {
	t.Helper()
	var lines []string
	for _, in := range ins {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	p := filepath.Join(t.TempDir(), "instances.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lightBatch is n instances of the run sample's repository under their
// own ids, for the light runner.
func lightBatch(t *testing.T, n int) (repos string, ins []swebench.Instance) {
	t.Helper()
	repos = t.TempDir()
	commit := mirror(t, filepath.Join(runSample, "inventory"), repos, "acme/inventory")
	for i := range n {
		ins = append(ins, swebench.Instance{InstanceID: fmt.Sprintf("acme__inventory-%d", i+1), Repo: "acme/inventory",
			BaseCommit: commit, ProblemStatement: "the discount is wrong"})
	}
	return repos, ins
}

// checkOutput checks the end of every fault test: exactly one record per
// instance in the output folder, and the predictions a local batch of the
// same instances writes with the light runner, where the instances in
// failed fail.
func checkOutput(t *testing.T, out, repos string, ins []swebench.Instance, failed ...string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(out, RunsDir))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	var want []string
	for _, in := range ins {
		want = append(want, DirName(in.InstanceID))
		if rec := readRecord(t, out, in.InstanceID); rec.InstanceID != in.InstanceID {
			t.Errorf("runs/%s holds the record of %q", DirName(in.InstanceID), rec.InstanceID)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("runs/ holds %v, want one folder per instance %v", got, want)
	}
	local := t.TempDir()
	runner := runnerFunc(func(ctx context.Context, job Job) (Result, error) {
		if slices.Contains(failed, job.Task.InstanceID) {
			return Result{}, errors.New("failed")
		}
		return lightRunner().Run(ctx, job)
	})
	if _, err := Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: local, Workers: 2, Runner: runner}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{PredsJSONL, PredsJSON} {
		if q, l := readFile(t, filepath.Join(out, f)), readFile(t, filepath.Join(local, f)); q != l {
			t.Errorf("%s differs from a local batch's:\n%s\n---\n%s", f, q, l)
		}
	}
	if t.Failed() {
		for _, in := range ins {
			if rec, err := loadRecord(filepath.Join(out, RunsDir, DirName(in.InstanceID))); err == nil && rec.Status != "submitted" {
				t.Logf("%s: %s by %s: %s", in.InstanceID, rec.Status, rec.Worker, rec.Message)
			}
		}
	}
}

// testQueue is a queue with the short waits fault tests need.
func testQueue(url string, ackWait time.Duration, maxDeliver int) Queue {
	if ackWait == 0 {
		ackWait = 2 * time.Second
	}
	return Queue{URL: url, AckWait: ackWait, MaxDeliver: maxDeliver, Wait: time.Minute, tune: timing{lease: 5 * time.Second,
		beat: time.Second, reconcile: 500 * time.Millisecond, quiet: 3 * time.Second}}
}
