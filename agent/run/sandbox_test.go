package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/sandbox"
)

// TestConfinedRunLeavesNoTrace: a scripted run whose commands try every
// way out (write home, /tmp and through a symlink, plant a git hook, read
// an ssh key, reach a loopback server and the outside, fork a bomb, leave
// a process behind) changes nothing outside its workspace, reaches no
// server, and still runs the sample's tests.
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
	reached := make(chan bool, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			reached <- true
			c.Close()
		}
	}()
	repo, _ := sampleRepo(t)
	escapes := []string{
		"echo x > " + filepath.Join(home, "planted"),
		"echo x > " + filepath.Join(outside, "planted"),
		"ln -s " + outside + " out && echo x > out/via-link",
		"echo 'touch " + filepath.Join(outside, "hook-ran") + "' > $(git rev-parse --git-common-dir)/hooks/pre-commit && chmod +x $(git rev-parse --git-common-dir)/hooks/pre-commit",
		"cat ~/.ssh/id_rsa",
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", ln.Addr().(*net.TCPAddr).Port),
		"curl -s -m 3 http://example.com || exec 3<>/dev/tcp/93.184.215.14/80",
		"bomb() { bomb | bomb & }; bomb; sleep 1; echo survived",
		"(sleep 2; touch " + filepath.Join(outside, "straggler") + ") & echo left",
		"python3 -m unittest 2>&1 | tail -3",
	}
	var turns []llm.Turn
	for _, c := range escapes {
		args, _ := json.Marshal(map[string]any{"command": c, "timeout": 10})
		turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "bash", Arguments: args}}})
	}
	sub, _ := json.Marshal(map[string]string{"summary": "tried every way out"})
	turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "submit", Arguments: sub}}})
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Approve: "auto", Allow: []string{""},
		ResolveModel: llm.NewScripted(&llm.Script{Turns: turns}), Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}},
		Sandbox: sandbox.Options{Mode: sandbox.Strict}})
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
	time.Sleep(2500 * time.Millisecond) // the straggler's time
	for _, p := range []string{filepath.Join(home, "planted"), filepath.Join(outside, "planted"), filepath.Join(outside, "via-link"),
		filepath.Join(outside, "straggler"), filepath.Join(repo, ".git", "hooks", "pre-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: a confined command wrote outside its workspace", p)
		}
	}
	all := strings.Join(results, "\n")
	for _, leak := range []string{"PRIVATE KEY", "connected", "survived"} {
		if strings.Contains(all, leak) && !(leak == "survived" && strings.Contains(all, "Resource temporarily unavailable")) {
			t.Errorf("an escape worked: the output says %q", leak)
		}
	}
	select {
	case <-reached:
		t.Error("the loopback server was reached")
	default:
	}
	if !strings.Contains(all, "Ran 8 tests") {
		t.Errorf("the sample's tests did not run confined:\n%s", all)
	}
}
