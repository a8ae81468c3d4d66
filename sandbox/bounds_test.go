//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/swe-adept/swe-adept/sandbox/sandboxtest"
)

// runWatched runs script confined under a watch, as the shell does, and
// returns its output and the limits the watch says it met.
func runWatched(t *testing.T, p *Policy, ws, script string) (string, []string, error) {
	t.Helper()
	c, err := p.Command(os.Environ(), "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.Dir, c.Stdout, c.Stderr = ws, &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	w := p.Watch(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	err = c.Wait()
	return out.String(), w.Stop(), err
}

// TestBombs: each kind of bomb meets its limit, is told so, and leaves the
// host as it was.
func TestBombs(t *testing.T) {
	needPython(t)
	ws, _ := workspace(t)
	const mib = 1 << 20
	p := policy(t, ws, Options{Limits: Limits{Memory: 256 * mib, Tmp: 16 * mib, File: 32 * mib, Disk: 64 * mib}})
	tests := []struct {
		name, script string
		want         string // in the output or the watch's notes
		check        func(t *testing.T)
	}{
		{"memory", `python3 -c 'b = b"x" * (2 << 30); print("alloc" + "ated", len(b))'`, "memory limit", nil},
		{"private /tmp", `head -c 24M /dev/zero > "$TMPDIR/big"`, "No space left on device", nil},
		{"shared memory", `head -c 24M /dev/zero > /dev/shm/big`, "No space left on device", nil},
		{"empty home", `head -c 24M /dev/zero > "$HOME/big"`, "No space left on device", nil},
		{"one big file", `head -c 64M /dev/zero > big`, "File size limit exceeded", func(t *testing.T) {
			if fi, err := os.Stat(filepath.Join(ws, "big")); err == nil && fi.Size() > 32*mib {
				t.Errorf("the workspace holds a file of %d bytes, over the 32M limit", fi.Size())
			}
		}},
		{"many files", `for i in $(seq 200); do head -c 4M /dev/zero > many$i || exit; done; echo "all written"`, "disk", func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(ws, "many*"))
			if len(files) == 200 {
				t.Errorf("all 200 files (800M) were written, over the 64M limit")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "memory" && p.cg.memory == "" {
				t.Skip("no memory cgroup here: the limit is the address space, which this case does not measure")
			}
			out, notes, err := runWatched(t, p, ws, tc.script)
			all := out + strings.Join(notes, "\n")
			if err == nil || !strings.Contains(all, tc.want) {
				t.Errorf("the bomb did not meet its limit (%v), want %q in:\n%s", err, tc.want, all)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// TestSweepsCrashedRuns: a run killed with its policy open leaves its
// folder and cgroups; the next policy removes them, and leaves a live
// policy's alone.
func TestSweepsCrashedRuns(t *testing.T) {
	if os.Getenv("SWE_ADEPT_TEST_CRASH") != "" {
		ws, _ := workspace(t)
		p := policy(t, ws, Options{})
		os.Stdout.WriteString("state " + p.state + "\n")
		for _, d := range p.cg.dirs {
			os.Stdout.WriteString("cgroup " + d + "\n")
		}
		os.Stdout.WriteString("ready\n")
		select {} // until killed
	}
	ws, _ := workspace(t)
	live := policy(t, ws, Options{})
	child := exec.Command(os.Args[0], "-test.run=^TestSweepsCrashedRuns$")
	child.Env = append(os.Environ(), "SWE_ADEPT_TEST_CRASH=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var left []string
	for sc := bufio.NewScanner(out); sc.Scan() && sc.Text() != "ready"; {
		if _, p, ok := strings.Cut(sc.Text(), " "); ok {
			left = append(left, p)
		}
	}
	child.Process.Kill() // a crash: no Close
	child.Wait()
	if len(left) == 0 {
		t.Fatal("the crashed run made no policy")
	}
	for _, p := range left {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the crashed run left no %s to sweep: %v", p, err)
		}
	}
	next := policy(t, ws, Options{})
	for _, p := range left {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of a crashed run is still there after the next run started (%v)", p, err)
		}
	}
	for _, p := range append([]string{live.state, next.state}, append(live.cg.dirs, next.cg.dirs...)...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a live policy's %s was swept: %v", p, err)
		}
	}
	if out, err := run(t, live, ws, "true"); err != nil {
		t.Errorf("the live policy no longer works: %v %s", err, out)
	}
}

// TestCloseLeavesNothing: a policy's folder and cgroups go with it.
func TestCloseLeavesNothing(t *testing.T) {
	ws, _ := workspace(t)
	p, err := New(ws, Options{})
	if err != nil {
		t.Skipf("confinement is not available here: %v", err)
	}
	if out, err := run(t, p, ws, "go env GOROOT >/dev/null 2>&1; echo x > $TMPDIR/f"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range append([]string{p.state}, p.cg.dirs...) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after Close (%v)", d, err)
		}
	}
}

// TestUnavailable: where user namespaces are off, New says the shell
// cannot be confined, and how to allow it.
func TestUnavailable(t *testing.T) {
	if !sandboxtest.WithoutUserNamespaces(t) {
		return
	}
	ws, _ := workspace(t)
	_, err := New(ws, Options{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "sysctl") {
		t.Fatalf("New without user namespaces = %v, want ErrUnavailable saying how to allow them", err)
	}
}
