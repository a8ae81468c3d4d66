package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

const sampleDir = "../../testdata/run"

// gitEnv lets tests commit on machines with no git identity.
var gitEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample repository's tests and the scripted agent's commands need it")
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sampleRepo makes a git repository of the sample with an engineer's
// uncommitted edit and untracked file, and returns it with the dirty bytes.
func sampleRepo(t *testing.T) (dir string, readme []byte) {
	t.Helper()
	dir = t.TempDir()
	testtree.Copy(t, filepath.Join(sampleDir, "inventory"), dir)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "inventory")
	readme = append(must(os.ReadFile(filepath.Join(dir, "README.md"))), []byte("\nWork in progress: notes on bulk pricing.\n")...)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ask about VAT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, readme
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func script(t *testing.T, name string) *llm.Scripted {
	t.Helper()
	s, err := llm.LoadScript(filepath.Join(sampleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return llm.NewScripted(s)
}

func readIssue(t *testing.T) string {
	t.Helper()
	return string(must(os.ReadFile(filepath.Join(sampleDir, "issue.md"))))
}

// unittest runs the sample's tests in dir and reports whether they pass.
func unittest(t *testing.T, dir string) (bool, string) {
	t.Helper()
	cmd := exec.Command("python3", "-m", "unittest")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

// collect drains a run's events.
func collect(r *Run) chan []event.Event {
	ch := make(chan []event.Event, 1)
	events := r.Events() // before Wait, which drains the events nobody took
	go func() {
		var evs []event.Event
		for e := range events {
			evs = append(evs, e)
		}
		ch <- evs
	}()
	return ch
}

func countType(evs []event.Event, typ event.Type) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}
