package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inPlaceRun runs a whole scripted in-place run as the engineer would.
func inPlaceRun(t *testing.T, repo string) (string, error) {
	t.Helper()
	wd, _ := os.Getwd()
	out, err := cli(t, repo, "run", "--repo", repo, "--in-place", "--headless", "--issue", filepath.Join(wd, runSample, "issue.md"),
		"--script-resolve", filepath.Join(wd, runSample, "resolve.json"), "--locations", filepath.Join(wd, runSample, "locations.txt")).CombinedOutput()
	return string(out), err
}

// TestInPlaceStartingStates runs an in-place run from each state an
// engineer's checkout may be in: it either gives the checkout back byte
// for byte, or refuses up front, saying why, and touches nothing.
func TestInPlaceStartingStates(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, repo string)
		refused string // "" when the run must complete and restore exactly
	}{
		{"mode 600 untracked and changed files", func(t *testing.T, repo string) {
			write(t, repo, "secret.env", "TOKEN=x\n", 0o600)
			os.Chmod(filepath.Join(repo, "crlf.txt"), 0o600)
		}, ""},
		{"a nested repository", func(t *testing.T, repo string) {
			gitIn(t, repo, "init", "-q", "nested")
			write(t, repo, "nested/own.txt", "its own\n", 0o644)
		}, ""},
		{"a clean filter", func(t *testing.T, repo string) {
			gitIn(t, repo, "config", "filter.upper.clean", "tr a-z A-Z")
			write(t, repo, ".gitattributes", "*.txt filter=upper\n", 0o644)
		}, "git filter"},
		{"autocrlf", func(t *testing.T, repo string) { gitIn(t, repo, "config", "core.autocrlf", "true") }, "core.autocrlf"},
		{"eol=crlf attributes", func(t *testing.T, repo string) {
			write(t, repo, ".gitattributes", "* text eol=crlf\n", 0o644)
		}, "text/eol attributes"},
		{"a tracked 0600 file the agent edits", func(t *testing.T, repo string) {
			os.Chmod(filepath.Join(repo, "inventory", "pricing.py"), 0o600)
		}, ""},
		{"an ignored file and ORIG_HEAD", func(t *testing.T, repo string) {
			write(t, repo, "build/keep.bin", "\x00ignored bytes\r\n", 0o640)
			write(t, repo, ".git/ORIG_HEAD", "0123456789012345678901234567890123456789\n", 0o644)
		}, ""},
		{"add -N", func(t *testing.T, repo string) {
			write(t, repo, "planned.txt", "later\n", 0o644)
			gitIn(t, repo, "add", "-N", "planned.txt")
		}, "intent-to-add"},
		{"skip-worktree", func(t *testing.T, repo string) { gitIn(t, repo, "update-index", "--skip-worktree", "README.md") }, "skip-worktree"},
		{"a merge in progress", func(t *testing.T, repo string) {
			gitIn(t, repo, "stash", "push", "-q", "--include-untracked", "-m", "aside for the merge setup")
			gitIn(t, repo, "checkout", "-q", "-b", "other")
			write(t, repo, "other.txt", "from other\n", 0o644)
			gitIn(t, repo, "add", "other.txt")
			gitIn(t, repo, "commit", "-q", "-m", "other")
			gitIn(t, repo, "checkout", "-q", "main")
			gitIn(t, repo, "merge", "--no-commit", "--no-ff", "-q", "other")
		}, "merge is in progress"},
		{"a branch named swe-adept", func(t *testing.T, repo string) { gitIn(t, repo, "branch", "swe-adept") }, "branch named swe-adept"},
		{"a cherry-pick in progress", func(t *testing.T, repo string) {
			gitIn(t, repo, "stash", "push", "-q", "--include-untracked", "-m", "aside for the cherry-pick setup")
			gitIn(t, repo, "checkout", "-q", "-b", "other")
			write(t, repo, "docs/notes.txt", "theirs\n", 0o644)
			gitIn(t, repo, "commit", "-q", "-am", "theirs")
			gitIn(t, repo, "checkout", "-q", "main")
			write(t, repo, "docs/notes.txt", "ours\n", 0o644)
			gitIn(t, repo, "commit", "-q", "-am", "ours")
			cp := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "cherry-pick", "other")
			cp.Dir = repo
			_ = cp.Run() // conflicts: the cherry-pick stays in progress
		}, "cherry-pick is in progress"},
		{"a dirty submodule", func(t *testing.T, repo string) {
			sub := t.TempDir()
			gitIn(t, sub, "init", "-q", "-b", "main")
			write(t, sub, "lib.txt", "v1\n", 0o644)
			gitIn(t, sub, "add", "lib.txt")
			gitIn(t, sub, "commit", "-q", "-m", "lib")
			gitIn(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/lib")
			gitIn(t, repo, "commit", "-q", "-m", "add lib")
			write(t, repo, "vendor/lib/lib.txt", "changed inside\n", 0o644)
		}, "submodule vendor/lib has changes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each run has a checkout and a home of its own
			repo := messyCheckout(t)
			tc.prepare(t, repo)
			before := checkoutState(t, repo)
			out, err := inPlaceRun(t, repo)
			if tc.refused != "" {
				if err == nil || !strings.Contains(out, tc.refused) {
					t.Errorf("want a refusal naming %q; err %v:\n%s", tc.refused, err, tail(out))
				}
			} else if err != nil {
				t.Fatalf("run: %v\n%s", err, tail(out))
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("the checkout differs:\n%s", diffLines(before, after))
			}
		})
	}
}

// TestInPlaceSignals: SIGINT, SIGTERM, SIGHUP and SIGQUIT all end an
// in-place run with the checkout put back, and a second in-place run
// started meanwhile is refused.
func TestInPlaceSignals(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			repo := messyCheckout(t)
			before := checkoutState(t, repo)
			cmd, sc := startRun(t, repo, "--in-place", "--script-delay", "50ms")
			for i := 0; i < 40 && sc.Scan(); i++ {
			}
			second, err := inPlaceRun(t, repo)
			if err == nil || !strings.Contains(second, "another swe-adept run is working in this checkout") {
				t.Errorf("a second in-place run was not refused: %v\n%s", err, tail(second))
			}
			_ = cmd.Process.Signal(sig)
			for sc.Scan() {
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the run did not end on the signal")
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("the checkout differs after %s:\n%s", sig, diffLines(before, after))
			}
		})
	}
}

// TestEditsDuringAnInPlaceRunAreKept: a file the engineer writes while the
// run works in place stops the run; the checkout comes back as it was, and
// the edit is kept as a patch that applies.
func TestEditsDuringAnInPlaceRunAreKept(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	repo := messyCheckout(t)
	before := checkoutState(t, repo)
	wd, _ := os.Getwd()
	cmd, sc := startRun(t, repo, "--in-place", "--script-delay", "1s", "--locations", filepath.Join(wd, runSample, "locations.txt"))
	// The scripted model waits a second inside each call: an edit made as
	// a resolution model call starts lands between the agent's commands.
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"model_call","agent":"resolve"`) {
			break
		}
	}
	write(t, repo, "mine.txt", "written during the run\n", 0o644)
	var last string
	for sc.Scan() {
		last = sc.Text()
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the run went on after the engineer's edit")
	}
	if !strings.Contains(last, `you changed \"mine.txt\" in your checkout`) {
		t.Errorf("the summary does not say why: %s", last)
	}
	if after := checkoutState(t, repo); after != before {
		t.Fatalf("the checkout differs:\n%s", diffLines(before, after))
	}
	patches, _ := filepath.Glob(filepath.Join(repo, ".git", "swe-adept", "runs", "*", "edits-during-run.patch"))
	if len(patches) != 1 {
		t.Fatalf("the edit was not kept as a patch: %v", patches)
	}
	if own, err := os.ReadFile(filepath.Join(filepath.Dir(patches[0]), "patch.diff")); err == nil && strings.Contains(string(own), "mine.txt") {
		t.Errorf("the run's own patch.diff holds the engineer's edit, so applying both applies it twice:\n%s", own)
	}
	gitIn(t, repo, "apply", patches[0])
	if b, err := os.ReadFile(filepath.Join(repo, "mine.txt")); err != nil || string(b) != "written during the run\n" {
		t.Errorf("the kept patch does not bring the edit back: %v %q", err, b)
	}
}
