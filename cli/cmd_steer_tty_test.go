package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noTTY makes the process one without a controlling terminal, as under
// cron or CI, for the length of a test.
func noTTY(t *testing.T) {
	t.Helper()
	old := openTTY
	openTTY = func() (*os.File, error) { return nil, errors.New("no controlling terminal") }
	t.Cleanup(func() { openTTY = old })
}

// TestNoTerminalNoSilentAutoApprove: without a terminal, a run or demo
// that would ask the engineer refuses to start and names --headless; it
// never answers the questions itself. An explicit policy still runs.
func TestNoTerminalNoSilentAutoApprove(t *testing.T) {
	noTTY(t)
	repo := sampleCheckout(t)
	issue := filepath.Join(runSample, "issue.md")
	script := []string{"--script-localize", filepath.Join(runSample, "localize.json"), "--script-resolve", filepath.Join(runSample, "resolve.json")}
	for _, tc := range []struct {
		name string
		run  func(out, errb *bytes.Buffer) error
	}{
		{"run, issue on stdin", func(out, errb *bytes.Buffer) error {
			return runCommand(context.Background(), "run", append([]string{"--repo", repo, "--issue", "-"}, script...), strings.NewReader("the discount is wrong"), out, errb)
		}},
		{"run, issue in a file", func(out, errb *bytes.Buffer) error {
			return runCommand(context.Background(), "run", append([]string{"--repo", repo, "--issue", issue, "--approve", "ask"}, script...), strings.NewReader(""), out, errb)
		}},
		{"demo", func(out, errb *bytes.Buffer) error {
			return runCommand(context.Background(), "demo", []string{"--speed", "0", "--dir", filepath.Join(t.TempDir(), "shop")}, nil, out, errb)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := tc.run(&out, &errb)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--headless") {
				t.Fatalf("err %v, want a usage error naming --headless", err)
			}
			if strings.Contains(errb.String(), "auto") || out.Len() > 0 {
				t.Errorf("it ran anyway:\nstdout %s\nstderr %s", out.String(), errb.String())
			}
		})
	}
}
