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
)

// runProgram starts the test binary as the helper with prog, to run name.
func runProgram(t *testing.T, enc string, name string, args ...string) (string, int) {
	t.Helper()
	c := exec.Command(os.Args[0], append([]string{name}, args...)...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=" + enc}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("start the helper: %v", err)
	return "", 0
}

// TestHelperProgram runs programs through the helper without namespaces:
// the ops run in order, a failure names its op and stops the command, an
// optional op's failure skips what depends on it, and a malformed program
// is refused.
func TestHelperProgram(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "x")
	tests := []struct {
		name     string
		prog     func(p *program)
		raw      string // the environment value, when not p's encoding
		cmd      []string
		wantCode int
		wantOut  string
	}{
		{name: "ops then the command", prog: func(p *program) {
			p.mkdir(0, "made", filepath.Join(dir, "made"), 0o755, false)
			p.op(opSymlink, ifPrev, "link", []string{"made", filepath.Join(dir, "link")})
		}, cmd: []string{"test", "-d", filepath.Join(dir, "link")}},
		{name: "a failure names its op", prog: func(p *program) {
			p.mkdir(0, "make the thing", missing, 0o755, false)
		}, cmd: []string{"true"}, wantCode: 126, wantOut: "swe-adept sandbox: make the thing: no such file or directory"},
		{name: "an optional failure skips what depends on it", prog: func(p *program) {
			p.mkdir(optional, "maybe", missing, 0o755, false)
			p.op(opSymlink, ifPrev, "link", []string{"x", filepath.Join(dir, "skipped")})
		}, cmd: []string{"test", "!", "-L", filepath.Join(dir, "skipped")}},
		{name: "the command is found on PATH", prog: func(p *program) {}, cmd: []string{"no-such-command-here"},
			wantCode: 126, wantOut: "swe-adept sandbox: exec no-such-command-here: no such file or directory"},
		{name: "not hex", raw: "zz", cmd: []string{"true"}, wantCode: 126, wantOut: "swe-adept sandbox: program: invalid argument"},
		{name: "cut short", raw: "0600", cmd: []string{"true"}, wantCode: 126, wantOut: "swe-adept sandbox: program: invalid argument"},
		{name: "a string longer than the program", raw: "06000100ffff0000", cmd: []string{"true"}, wantCode: 126, wantOut: "program: invalid argument"},
		{name: "an unknown op", raw: "63000000", cmd: []string{"true"}, wantCode: 126, wantOut: "function not implemented"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := tt.raw
			if tt.prog != nil {
				p := &program{}
				tt.prog(p)
				enc = p.encode()
			}
			out, code := runProgram(t, enc, tt.cmd[0], tt.cmd[1:]...)
			if code != tt.wantCode || !strings.Contains(strings.ToLower(out), tt.wantOut) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tt.wantCode, tt.wantOut)
			}
		})
	}
}

// TestExitStatus: the command's exit status, or the signal that ended
// it, is what the caller sees, though a helper stands between them.
func TestExitStatus(t *testing.T) {
	needPython(t)
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	if _, err := run(t, p, ws, "exit 3"); exitCode(err) != 3 {
		t.Errorf("exit 3: %v", err)
	}
	// The interpreter is the namespace's first process (bash execs it),
	// and the kernel's SIGSEGV ends it.
	_, err := run(t, p, ws, `python3 -c 'import ctypes; ctypes.string_at(0)'`)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("a crash: %v", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Errorf("a crash ended with %v, want SIGSEGV", ee)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestHeldNamespaces: the commands of one policy join the user and
// network namespaces held for it, neither the host's; each still gets
// mount and pid namespaces of its own. (The first command is still
// running when the second looks: a namespace's number can be reused once
// it is gone.)
func TestHeldNamespaces(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	if p.held == nil {
		t.Skip("this kernel would not let commands join held namespaces: each makes its own")
	}
	const show = "for n in user net mnt pid; do echo $n $(readlink /proc/self/ns/$n); done"
	first, err := p.Command(os.Environ(), "bash", "-c", show+"; read _")
	if err != nil {
		t.Fatal(err)
	}
	first.Dir = ws
	stdin, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		first.Wait()
	}()
	r := bufio.NewReader(stdout)
	var lines []string
	for range 4 {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the first command: %v", err)
		}
		lines = append(lines, l)
	}
	out, err := run(t, p, ws, show)
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	a, b := namespaceIDs(strings.Join(lines, "")), namespaceIDs(out)
	for _, n := range []string{"user", "net", "mnt", "pid"} {
		host, err := os.Readlink("/proc/self/ns/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if a[n] == host || a[n] == "" {
			t.Errorf("a command runs in the host's %s namespace (%s)", n, host)
		}
		if shared := a[n] == b[n]; shared != (n == "user" || n == "net") {
			t.Errorf("%s namespace: first command %s, second %s", n, a[n], b[n])
		}
	}
}

func namespaceIDs(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		n, id, _ := strings.Cut(l, " ")
		m[n] = id
	}
	return m
}
