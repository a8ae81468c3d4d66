package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWorktreeGitFileReadOnly: a run's linked worktree lives inside the
// repository's git directory and names it in its .git file. Commands write
// anywhere in the worktree, by relative or absolute path, but not the .git
// file: rewritten, it would point git at a directory of their choosing.
func TestWorktreeGitFileReadOnly(t *testing.T) {
	main := filepath.Join(t.TempDir(), "main")
	gitIn := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", main, "-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn("init", "-q")
	gitIn("commit", "-q", "--allow-empty", "-m", "x")
	ws := filepath.Join(main, ".git", "swe-adept", "worktrees", "r1")
	gitIn("worktree", "add", "-q", "--detach", ws)
	dotgit := filepath.Join(ws, ".git")
	pointer, err := os.ReadFile(dotgit)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(ws, Options{GitDirs: []string{filepath.Join(main, ".git", "worktrees", "r1"), filepath.Join(main, ".git"), dotgit}})
	if err != nil {
		t.Skipf("confinement is not available here: %v", err)
	}
	defer p.Close()
	c, err := p.Command(os.Environ(), "bash", "-c", `echo evil > .git; echo evil > "$PWD/.git"; echo ok > rel; echo ok > "$PWD/abs"; true`)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	out, _ := c.CombinedOutput()
	if got, _ := os.ReadFile(dotgit); string(got) != string(pointer) {
		t.Errorf("the .git file was rewritten to %q\n%s", got, out)
	}
	for _, f := range []string{"rel", "abs"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("a command could not write %s in the worktree: %v\n%s", f, err, out)
		}
	}
}
