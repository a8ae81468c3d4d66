package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

const runSample = "../testdata/run"

// sampleCheckout makes a git repository of the sample package.
func sampleCheckout(t *testing.T) string {
	t.Helper()
	return sampleCheckoutAt(t, t.TempDir())
}

// sampleCheckoutAt makes the sample repository in dir.
func sampleCheckoutAt(t *testing.T, dir string) string {
	t.Helper()
	testtree.Copy(t, filepath.Join(runSample, "inventory"), dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "sample"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestRunCommandBadInput(t *testing.T) {
	repo := sampleCheckout(t)
	issue := filepath.Join(runSample, "issue.md")
	empty := filepath.Join(t.TempDir(), "empty.md")
	if err := os.WriteFile(empty, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(t.TempDir(), "issue.bin")
	if err := os.WriteFile(binary, []byte("\x7fELF\x00\x01binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	script := []string{"--script-resolve", filepath.Join(runSample, "resolve.json")}
	tests := []struct {
		name  string
		args  []string
		usage bool
		want  string
	}{
		{"binary issue", []string{"--repo", repo, "--issue", binary, "--headless"}, true, "is not text"},
		{"unknown run to resume", []string{"--repo", repo, "--resume", "20990101-0000-dead", "--headless"}, true, "no such run"},
		{"named localization model without a server", append([]string{"--repo", repo, "--issue", issue, "--headless", "--localize-model", "gpt-5.2"}, script...), true, "--localize-model gpt-5.2 needs a model server"},
		{"the hint for no model names a working command", []string{"--repo", repo, "--issue", issue, "--headless"}, true, "'swe-adept localize' runs localization alone"},
		{"no issue", []string{"--repo", repo, "--headless"}, true, "--issue is required"},
		{"empty issue", []string{"--repo", repo, "--issue", empty, "--headless"}, true, "is empty"},
		{"no model", []string{"--repo", repo, "--issue", issue, "--headless"}, true, "set OPENAI_API_KEY"},
		{"ask without a screen", []string{"--repo", repo, "--issue", issue, "--headless", "--approve", "ask"}, true, "needs the screen"},
		{"bad approve", []string{"--repo", repo, "--issue", issue, "--approve", "maybe"}, true, "want ask, auto or deny"},
		{"not a repository", []string{"--repo", t.TempDir(), "--issue", issue, "--headless", "--script-resolve", filepath.Join(runSample, "resolve.json")}, false, "not a git repository"},
		{"bad script", []string{"--repo", repo, "--issue", issue, "--headless", "--script-resolve", issue}, true, "--script-resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runCommand(context.Background(), "run", tt.args, strings.NewReader(""), &out, &errb)
			var ue usageError
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &ue) != tt.usage {
				t.Errorf("err %v (usage %v), want %q (usage %v)", err, errors.As(err, &ue), tt.want, tt.usage)
			}
		})
	}
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = repo
	if st, _ := cmd.Output(); len(st) != 0 {
		t.Errorf("bad input changed the checkout: %s", st)
	}
}

func TestRunCommandHeadless(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	repo := sampleCheckout(t)
	issue, err := os.ReadFile(filepath.Join(runSample, "issue.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err = runCommand(context.Background(), "run", []string{"--repo", repo, "--issue", "-", "--headless",
		"--script-localize", filepath.Join(runSample, "localize.json"), "--script-resolve", filepath.Join(runSample, "resolve.json")}, bytes.NewReader(issue), &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first event.Event
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Type != event.RunStarted {
		t.Errorf("first line %q: %v", lines[0], err)
	}
	var sum struct {
		Type, Status, Cost, Patch string
		Tokens                    int
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Type != "summary" || sum.Status != "submitted" || sum.Tokens == 0 || sum.Cost == "" || sum.Patch == "" {
		t.Errorf("summary line %s", lines[len(lines)-1])
	}
	var listed bytes.Buffer
	if err := runCommand(context.Background(), "runs", []string{"--repo", repo}, nil, &listed, nil); err != nil || !strings.Contains(listed.String(), "submitted") {
		t.Errorf("runs: %v\n%s", err, listed.String())
	}
	var gc bytes.Buffer
	if err := runCommand(context.Background(), "gc", []string{"--repo", repo, "--all"}, nil, &gc, nil); err != nil || !strings.Contains(gc.String(), "removed") {
		t.Errorf("gc: %v\n%s", err, gc.String())
	}
	if err := runCommand(context.Background(), "gc", []string{"--repo", repo}, nil, &gc, nil); err == nil {
		t.Error("gc without --all or an id succeeded")
	}
}

// TestRunHeadlessStreams: a headless run against a streaming server prints
// the model's words as delta lines, a few per call however fast the server
// streams; --no-stream asks for whole answers and prints none. Either way
// the run's saved events hold no deltas.
func TestRunHeadlessStreams(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's run needs it")
	}
	const key = "sk-test-cli-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	for _, noStream := range []bool{false, true} {
		t.Run(map[bool]string{false: "streamed", true: "no-stream"}[noStream], func(t *testing.T) {
			scripts := map[string]*llm.Script{}
			for agent, file := range map[string]string{"localize": "localize.json", "resolve": "resolve.json"} {
				sc, err := llm.LoadScript(filepath.Join(runSample, file))
				if err != nil {
					t.Fatal(err)
				}
				scripts[agent] = sc
			}
			srv := providertest.New(t, providertest.Config{Family: providertest.OpenAIChat, Scripts: scripts, Key: key})
			config := filepath.Join(t.TempDir(), "config.toml") // empty: nothing from the machine's own
			if err := os.WriteFile(config, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--repo", sampleCheckout(t), "--issue", filepath.Join(runSample, "issue.md"), "--headless",
				"--model", "gpt-4o", "--base-url", srv.BaseURL(), "--model-config", config}
			if noStream {
				args = append(args, "--no-stream")
			}
			var out, errb bytes.Buffer
			if err := runCommand(context.Background(), "run", args, strings.NewReader(""), &out, &errb); err != nil {
				t.Fatalf("run: %v\n%s", err, errb.String())
			}
			deltas, calls, inCall, most := 0, 0, 0, 0
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var e event.Event
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				switch e.Type {
				case event.ModelCall:
					calls, inCall = calls+1, 0
				case event.Delta:
					deltas, inCall = deltas+1, inCall+1
					most = max(most, inCall)
				}
			}
			if noStream != (deltas == 0) || noStream != (srv.Chunks() == 0) {
				t.Errorf("no-stream %v: %d delta lines, %d chunks streamed", noStream, deltas, srv.Chunks())
			}
			if most > 3 {
				t.Errorf("%d delta lines for one call streamed in an instant: not paced", most)
			}
			saved, err := os.ReadFile(filepath.Join(runDirFromSummary(t, out.String()), "events.jsonl"))
			if err != nil || strings.Contains(string(saved), `"type":"delta"`) {
				t.Errorf("saved events hold deltas (%v)", err)
			}
		})
	}
}

// runDirOf is the run folder named in a headless run's summary line.
func runDirFromSummary(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		RunDir string `json:"run_dir"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.RunDir == "" {
		t.Fatalf("summary line %q: %v", lines[len(lines)-1], err)
	}
	return sum.RunDir
}
