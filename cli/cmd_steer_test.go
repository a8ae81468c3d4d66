package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/eval/export"
)

// summaryLine decodes the last line of a headless run's output.
func summaryLine(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum["type"] != "summary" {
		t.Fatalf("no summary line: %v\n%s", err, lines[len(lines)-1])
	}
	return sum
}

// TestDemoDenyEverything: the headless demo refusing every question ends
// submitted_unmerged (the merge was refused), fails the command, and its
// SWE-bench export predicts the empty patch, saying why.
func TestDemoDenyEverything(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the demo's tests need it")
	}
	dir := filepath.Join(t.TempDir(), "shop")
	var out, errb bytes.Buffer
	err := runCommand(context.Background(), "demo", []string{"--headless", "--approve", "deny", "--speed", "0", "--dir", dir}, nil, &out, &errb)
	if code := exitCode(err); code != 1 {
		t.Errorf("exit status %d (%v), want 1", code, err)
	}
	sum := summaryLine(t, out.String())
	if sum["status"] != "submitted_unmerged" || sum["applied"] == true {
		t.Fatalf("summary %v", sum)
	}
	pred := filepath.Join(t.TempDir(), "pred.json")
	var eo, ee bytes.Buffer
	if code := Main([]string{"export", sum["id"].(string), "--repo", dir, "--format", "swe-bench", "--out", pred}, &eo, &ee); code != 0 {
		t.Fatalf("export: %d %s", code, ee.String())
	}
	var p map[string]any
	if err := json.Unmarshal(must(os.ReadFile(pred)), &p); err != nil {
		t.Fatal(err)
	}
	if p["model_patch"] != "" || !strings.Contains(p["note"].(string), "submitted_unmerged") {
		t.Errorf("prediction %v: want an empty model_patch and a note", p)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// cancelOnStart cancels a run as soon as its first event is written, as a
// Ctrl-C would.
type cancelOnStart struct {
	mu     sync.Mutex
	w      io.Writer
	cancel context.CancelFunc
}

func (c *cancelOnStart) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte(`"type":"run_started"`)) {
		c.cancel()
	}
	return c.w.Write(p)
}

// TestCancelledRunAndDemoExitAlike: a cancelled demo and a cancelled run
// end with the same exit status, the one for an interrupted command.
func TestCancelledRunAndDemoExitAlike(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	repo := sampleCheckout(t)
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, stdout io.Writer) error
	}{
		{"demo", func(ctx context.Context, stdout io.Writer) error {
			return runCommand(ctx, "demo", []string{"--headless", "--speed", "0.01", "--dir", filepath.Join(t.TempDir(), "shop")}, nil, stdout, io.Discard)
		}},
		{"run", func(ctx context.Context, stdout io.Writer) error {
			return runCommand(ctx, "run", []string{"--repo", repo, "--issue", filepath.Join(runSample, "issue.md"), "--headless", "--script-delay", "2m",
				"--script-localize", filepath.Join(runSample, "localize.json"), "--script-resolve", filepath.Join(runSample, "resolve.json")}, strings.NewReader(""), stdout, io.Discard)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out bytes.Buffer
			err := tc.run(ctx, &cancelOnStart{w: &out, cancel: cancel})
			if sum := summaryLine(t, out.String()); sum["status"] != "cancelled" {
				t.Fatalf("status %v", sum["status"])
			}
			if code := exitCode(err); code != exitCancelled {
				t.Errorf("a cancelled %s exits %d (%v), want %d", tc.name, code, err, exitCancelled)
			}
		})
	}
}

// TestRunsListsAFinishedLocalize: 'runs' shows a localize that kept its
// ranking among the runs as localized, with its start time.
func TestRunsListsAFinishedLocalize(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	repo := sampleCheckout(t)
	var out bytes.Buffer
	if err := runCommand(context.Background(), "localize", []string{"--repo", repo, "--issue", filepath.Join(runSample, "issue.md"),
		"--script", filepath.Join(runSample, "localize.json")}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	runs, err := run.List(context.Background(), repo)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if l := runs[0]; l.Status != "localized" || l.Started.IsZero() || !strings.HasPrefix(l.Issue, "apply_discount") {
		t.Errorf("the localize is listed as %+v", l)
	}
}

// TestUsageListsEveryFlag: the usage lines of demo and export name each
// of their flags, and export's every format.
func TestUsageListsEveryFlag(t *testing.T) {
	for _, name := range []string{"demo", "export"} {
		c := commands[name]
		fs := newFlags(name)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(c.usage, "--"+f.Name+" ") && !strings.Contains(c.usage, "--"+f.Name+"]") {
				t.Errorf("%s: the usage line lacks --%s: %s", name, f.Name, c.usage)
			}
		})
	}
	for _, format := range export.Formats {
		if !strings.Contains(commands["export"].usage, format) {
			t.Errorf("export: the usage line lacks the format %s", format)
		}
	}
}
