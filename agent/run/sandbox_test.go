//go:build linux

package run

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/internal/sockettest"
	"github.com/swe-adept/swe-adept/sandbox"
)

// hidden wraps a command so that no string policy can read it.
func hidden(cmd string) string {
	return "echo " + base64.StdEncoding.EncodeToString([]byte(cmd)) + " | base64 -d | bash -s"
}

// ranAll fails the test when the command policy refused a command: an
// attack it stopped proves nothing of the sandbox.
func ranAll(t *testing.T, obs string) {
	t.Helper()
	if strings.Contains(obs, "Command refused") {
		t.Fatalf("the command policy refused an attack, so the sandbox was not tested:\n%s", obs)
	}
}

// TestConfinedRunLeavesNoTrace: a scripted run whose commands try every
// way out, hidden from the command policy (write home, /tmp and through a
// symlink, plant a git hook, read an ssh key, reach a loopback server and
// the outside, fork a bomb, leave a process behind) changes nothing
// outside its workspace, reaches no server, meets the process limit, and
// still runs the sample's tests.
func TestConfinedRunLeavesNoTrace(t *testing.T) {
	needPython(t)
	if _, err := sandbox.New(t.TempDir(), sandbox.Options{}); err != nil {
		t.Skipf("confinement is not available here: %v", err)
	}
	home, outside := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	repo, _ := sampleRepo(t)
	// The straggler holds this pipe open while it lives; the git directory
	// is shown to commands, read-only.
	fifo := filepath.Join(repo, ".git", "straggler.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const procs = 64
	escapes := []string{
		"echo x > " + filepath.Join(home, "planted"),
		"echo x > " + filepath.Join(outside, "planted"),
		"ln -s " + outside + " out && echo x > out/via-link",
		"echo 'touch " + filepath.Join(outside, "hook-ran") + "' > $(git rev-parse --git-common-dir)/hooks/pre-commit && chmod +x $(git rev-parse --git-common-dir)/hooks/pre-commit",
		"cat ~/.ssh/id_rsa " + filepath.Join(home, ".ssh", "id_rsa"),
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", ln.Addr().(*net.TCPAddr).Port),
		"curl -s -m 3 http://example.com || exec 3<>/dev/tcp/93.184.215.14/80",
		`python3 -c '
import os
r, w = os.pipe()
for n in range(1, 2000):
    try:
        if os.fork() == 0:
            os.read(r, 1); os._exit(0)
    except OSError as e:
        print("bomb stopped after", n, "processes:", e.strerror); break
else:
    print("bomb unbounded")'`,
		`python3 -c 'import os, time; os.open("` + fifo + `", os.O_RDONLY | os.O_NONBLOCK); time.sleep(600)' & echo left`,
		"python3 -m unittest 2>&1 | tail -3",
	}
	var turns []llm.Turn
	for _, c := range escapes {
		args, _ := json.Marshal(map[string]any{"command": hidden(c), "timeout": 30})
		turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "bash", Arguments: args}}})
	}
	sub, _ := json.Marshal(map[string]string{"summary": "tried every way out"})
	turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "submit", Arguments: sub}}})
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Approve: "auto",
		ResolveModel: llm.NewScripted(&llm.Script{Turns: turns}), Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}},
		Sandbox: sandbox.Options{Mode: sandbox.Strict, Limits: sandbox.Limits{Procs: procs}}})
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for e := range r.Events() {
		if e.Type == event.ToolResult && e.Tool != nil {
			results = append(results, e.Tool.Observation)
		}
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(results, "\n")
	ranAll(t, all)
	for _, p := range []string{filepath.Join(home, "planted"), filepath.Join(outside, "planted"), filepath.Join(outside, "via-link"),
		filepath.Join(repo, ".git", "hooks", "pre-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: a confined command wrote outside its workspace", p)
		}
	}
	// With no reader left, opening the pipe for writing fails at once.
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
		t.Error("a process a command left behind is still alive after the run")
	} else if !errors.Is(err, syscall.ENXIO) {
		t.Fatalf("open the straggler's pipe: %v", err)
	}
	for _, leak := range []string{"PRIVATE KEY", "connected", "bomb unbounded"} {
		if strings.Contains(all, leak) {
			t.Errorf("an escape worked: the output says %q", leak)
		}
	}
	var n int
	if _, after, ok := strings.Cut(all, "bomb stopped after "); !ok {
		t.Errorf("the fork bomb did not meet the process limit:\n%s", all)
	} else if fmt.Sscan(after, &n); n > procs {
		t.Errorf("the fork bomb ran %d processes, over the limit of %d", n, procs)
	}
	if sockettest.Pending(t, ln.(*net.TCPListener), false) {
		t.Error("the loopback server was reached")
	}
	if !strings.Contains(all, "Ran 8 tests") {
		t.Errorf("the sample's tests did not run confined:\n%s", all)
	}
}
