//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/internal/sockettest"
)

// workspace is a git repository with a fake secret in a fake home.
func workspace(t *testing.T) (ws, home string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	ws = filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(home, ".ssh"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	// New asks the go command where its caches are; in a fresh home it may
	// start a telemetry process that outlives it and writes into the home
	// while the test removes it. Telemetry off: it writes nothing.
	mode := filepath.Join(home, ".config", "go", "telemetry", "mode")
	if err := os.MkdirAll(filepath.Dir(mode), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mode, []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	t.Setenv("HOME", home)
	return ws, home
}

// needPython skips where the attack needs python3 to be written.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

func policy(t *testing.T, ws string, o Options) *Policy {
	t.Helper()
	o.GitDirs = append(o.GitDirs, filepath.Join(ws, ".git"))
	p, err := New(ws, o)
	if err != nil {
		t.Skipf("confinement is not available here: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func run(t *testing.T, p *Policy, ws, script string) (string, error) {
	t.Helper()
	c, err := p.Command(os.Environ(), "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err = c.Run()
	return out.String(), err
}

// TestEscapesFail tries each way out; each must fail, and the outside
// must show no trace.
func TestEscapesFail(t *testing.T) {
	ws, home := workspace(t)
	p := policy(t, ws, Options{})
	outside := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	gitDir := filepath.Join(ws, ".git")
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, script string
		leaves       string // a path that must not exist afterwards
		harmless     bool   // the command may succeed: it changes only what the sandbox throws away
	}{
		{"write to home", "echo x > " + filepath.Join(home, "planted"), filepath.Join(home, "planted"), true},
		{"write outside through a symlink", "echo x > out/planted", filepath.Join(outside, "planted"), false},
		{"write to another temp folder", "echo x > " + filepath.Join(outside, "direct"), filepath.Join(outside, "direct"), false},
		{"write a git hook", "echo 'echo pwned' > $(git rev-parse --git-common-dir)/hooks/pre-commit", filepath.Join(gitDir, "hooks", "pre-commit"), false},
		{"read the ssh key", "cat " + filepath.Join(home, ".ssh", "id_rsa") + " | grep -q PRIVATE", "", false},
		{"connect to loopback", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port), "", false},
		{"reach an outside address", "exec 3<>/dev/tcp/1.1.1.1/80", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, p, ws, tc.script)
			if err == nil && !tc.harmless {
				t.Errorf("the escape succeeded: %s", out)
			}
			if tc.leaves != "" {
				if _, err := os.Stat(tc.leaves); err == nil {
					t.Errorf("%s was written outside", tc.leaves)
				}
			}
		})
	}
	if sockettest.Pending(t, ln.(*net.TCPListener), false) {
		t.Error("the loopback server received a connection from a confined command")
	}
}

// TestWorkInTheWorkspace: what a fix needs still works: writing in the
// workspace and /tmp, reading the repository, running git and python.
func TestWorkInTheWorkspace(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	script := `set -e
echo 'print("ok")' > t.py
mkdir -p pkg && echo x > pkg/f && rm pkg/f
echo tmp > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"
python3 -c 'import tempfile; tempfile.NamedTemporaryFile()' 2>/dev/null || true
git status --short >/dev/null
command -v python3 >/dev/null && python3 t.py || echo ok`
	out, err := run(t, p, ws, script)
	if err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "scratch")); err == nil {
		t.Errorf("TMPDIR is the host's temporary folder, not a private one")
	}
}

// TestNoProcessOutlivesTheCommand: a background child dies with bash. It
// holds the command's output open; once the command has ended, the output
// is closed only if nothing of the command is left.
func TestNoProcessOutlivesTheCommand(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	c, err := p.Command(os.Environ(), "bash", "-c", "sleep 600 & disown; echo started")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c.Dir, c.Stdout, c.Stderr = ws, w, w
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Errorf("a background process outlived its command: its output is still open (%v)", err)
	}
	if !strings.Contains(string(out), "started") {
		t.Errorf("the command did not run: %q", out)
	}
}

// TestForkBombIsBounded: processes are bounded: a command that forks
// until it cannot stops at the limit, the machine still starts processes
// meanwhile, and nothing of it is left after.
func TestForkBombIsBounded(t *testing.T) {
	needPython(t)
	ws, _ := workspace(t)
	const limit = 48
	p := policy(t, ws, Options{Limits: Limits{Procs: limit}})
	if p.cg.pids == "" && os.Getuid() == 0 {
		t.Skip("no pids cgroup here, and root is exempt from RLIMIT_NPROC")
	}
	c, err := p.Command(os.Environ(), "python3", "-c", `
import os, sys
r, w = os.pipe()
n = 1
while n < 10000:
    try:
        if os.fork() == 0:
            os.read(r, 1)
            os._exit(0)
    except OSError as e:
        print("stopped after", n, e.strerror, flush=True)
        break
    n += 1
os.read(0, 1)`)
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	watch := p.Watch(func() {})
	line, err := bufio.NewReader(out).ReadString('\n') // the bomb has met the limit
	if err != nil {
		t.Fatalf("the bomb never stopped: %v", err)
	}
	var n int
	fmt.Sscanf(line, "stopped after %d", &n)
	if n == 0 || n > limit {
		t.Errorf("the bomb ran %d processes at once (%q), want at most %d", n, line, limit)
	}
	if out, err := exec.Command("true").CombinedOutput(); err != nil {
		t.Errorf("the machine cannot start processes during the bomb: %v %s", err, out)
	}
	if notes := watch.Stop(); len(notes) == 0 && p.cg.pids != "" {
		t.Error("the watch did not note the process limit the bomb met")
	}
	stdin.Close()
	_ = c.Process.Kill() // the helper: the command dies with it, and everything in its namespace with the command
	_ = c.Wait()
	if p.cg.pids == "" {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for pidsCurrent(t, p.cg.pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling for a condition
	}
	if n := pidsCurrent(t, p.cg.pids); n != 0 {
		t.Errorf("%d processes of the bomb left after it was stopped", n)
	}
}

func pidsCurrent(t *testing.T, dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "pids.current"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(string(b), &n)
	return n
}

func TestAllowWriteAndNet(t *testing.T) {
	ws, _ := workspace(t)
	extra := t.TempDir()
	p := policy(t, ws, Options{AllowWrite: []string{extra}, AllowNet: true})
	if out, err := run(t, p, ws, "echo x > "+filepath.Join(extra, "ok")); err != nil {
		t.Errorf("--allow-write: %v %s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	if out, err := run(t, p, ws, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port)); err != nil {
		t.Errorf("--allow-net: %v %s", err, out)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "auto": Auto, "strict": Strict, "off": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("maybe"); err == nil {
		t.Error("ParseMode accepted maybe")
	}
}

// BenchmarkConfinedCommand is the cost of confinement per command, next
// to the same command unconfined: wall time, and the CPU time the command
// and its helper used (cpu-ms/op), which a busy machine inflates less.
// The helper is the test binary; SWE_ADEPT_BENCH_HELPER=path/to/swe-adept
// adds the real binary as the helper, whose own package initialisation
// every command pays too.
func BenchmarkConfinedCommand(b *testing.B) {
	ws := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	p, err := New(ws, Options{})
	if err != nil {
		b.Skipf("confinement is not available here: %v", err)
	}
	defer p.Close()
	b.Run("confined", func(b *testing.B) {
		benchCommand(b, func() *exec.Cmd {
			c, _ := p.Command(os.Environ(), "bash", "-c", "true")
			return c
		}, ws)
	})
	b.Run("unconfined", func(b *testing.B) {
		benchCommand(b, func() *exec.Cmd { return exec.Command("bash", "-c", "true") }, ws)
	})
	if exe := os.Getenv("SWE_ADEPT_BENCH_HELPER"); exe != "" {
		p.exe = exe
		b.Run("confined-by-"+filepath.Base(exe), func(b *testing.B) {
			benchCommand(b, func() *exec.Cmd {
				c, _ := p.Command(os.Environ(), "bash", "-c", "true")
				return c
			}, ws)
		})
	}
}

func benchCommand(b *testing.B, cmd func() *exec.Cmd, dir string) {
	var cpu time.Duration
	for b.Loop() {
		c := cmd()
		c.Dir = dir
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
