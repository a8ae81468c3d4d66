//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/sandbox/sandboxtest"
)

// TestRunSaysUnconfined: where the shell cannot be confined, a headless
// run says so in one line on stderr before the first event, refuses every
// command (nobody can approve one), and records it in the summary line.
func TestRunSaysUnconfined(t *testing.T) {
	if !sandboxtest.WithoutUserNamespaces(t) {
		return
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	repo := sampleCheckout(t)
	issue, err := os.ReadFile(filepath.Join(runSample, "issue.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	runCommand(context.Background(), "run", []string{"--repo", repo, "--issue", "-", "--headless",
		"--script-localize", filepath.Join(runSample, "localize.json"), "--script-resolve", filepath.Join(runSample, "resolve.json")}, bytes.NewReader(issue), &out, &errb)
	warnings := strings.Count(errb.String(), "commands are NOT confined")
	if warnings != 1 || !strings.Contains(errb.String(), "no command will run") {
		t.Errorf("stderr says it %d times, want once with what happens to commands:\n%s", warnings, errb.String())
	}
	if !strings.Contains(out.String(), `"unconfined":`) || strings.Count(out.String(), "Command refused: the shell cannot be confined") == 0 {
		t.Errorf("the events and summary do not show an unconfined run whose commands were refused:\n%.2000s", out.String())
	}
}
