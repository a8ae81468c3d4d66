package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	t.Setenv("HOME", home)
	return ws, home
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
	accepted := make(chan bool, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- true
			c.Close()
		}
	}()
	gitDir := filepath.Join(ws, ".git")
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, script string
		leaves       string // a path that must not exist afterwards
	}{
		{"write to home", "echo x > " + filepath.Join(home, "planted"), filepath.Join(home, "planted")},
		{"write outside through a symlink", "echo x > out/planted", filepath.Join(outside, "planted")},
		{"write to another temp folder", "echo x > " + filepath.Join(outside, "direct"), filepath.Join(outside, "direct")},
		{"write a git hook", "echo 'echo pwned' > $(git rev-parse --git-common-dir)/hooks/pre-commit", filepath.Join(gitDir, "hooks", "pre-commit")},
		{"read the ssh key", "cat " + filepath.Join(home, ".ssh", "id_rsa") + " | grep -q PRIVATE", ""},
		{"connect to loopback", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port), ""},
		{"reach an outside address", "exec 3<>/dev/tcp/1.1.1.1/80", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, p, ws, tc.script)
			if err == nil {
				t.Errorf("the escape succeeded: %s", out)
			}
			if tc.leaves != "" {
				if _, err := os.Stat(tc.leaves); err == nil {
					t.Errorf("%s was written outside", tc.leaves)
				}
			}
		})
	}
	select {
	case <-accepted:
		t.Error("the loopback server accepted a connection from a confined command")
	case <-time.After(50 * time.Millisecond):
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
	if _, err := os.Stat(filepath.Join(p.Temp, "scratch")); err != nil {
		t.Errorf("TMPDIR is not the private folder: %v", err)
	}
}

// TestNoProcessOutlivesTheCommand: a background child dies with bash.
func TestNoProcessOutlivesTheCommand(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	marker := filepath.Join(ws, "alive")
	if out, err := run(t, p, ws, "(sleep 1; touch "+marker+") & echo started"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a background process outlived its command")
	}
}

// TestForkBombIsBounded: a fork bomb meets the process limit, the machine
// still starts processes while it runs, and nothing of it is left after.
func TestForkBombIsBounded(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	if p.spec.Cgroup == "" {
		t.Skip("no pids cgroup to join here: the limit is RLIMIT_NPROC, which this test does not measure")
	}
	count := func() int {
		b, err := os.ReadFile(filepath.Join(p.spec.Cgroup, "pids.current"))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		fmt.Sscan(string(b), &n)
		return n
	}
	c, err := p.Command(os.Environ(), "bash", "-c", `bomb() { bomb | bomb & }; bomb; sleep 30`)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	during := count()
	if out, err := exec.Command("true").CombinedOutput(); err != nil {
		t.Errorf("the machine cannot start processes during the bomb: %v %s", err, out)
	}
	_ = c.Process.Kill() // pid 1 of the command's namespace: everything in it goes
	_ = c.Wait()
	if during > maxProcs || during < 16 {
		t.Errorf("%d processes in the command's cgroup during the bomb, want many but at most %d", during, maxProcs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := count(); n != 0 {
		t.Errorf("%d processes of the bomb left after it was stopped", n)
	}
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
// to the same command unconfined.
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
		for b.Loop() {
			c, _ := p.Command(os.Environ(), "bash", "-c", "true")
			c.Dir = ws
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unconfined", func(b *testing.B) {
		for b.Loop() {
			c := exec.Command("bash", "-c", "true")
			c.Dir = ws
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
