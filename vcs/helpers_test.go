package vcs

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMain gives every git command a known identity and no machine-wide
// config, so the tests pass on a machine with no `git config user.name` and
// whatever the developer's ~/.gitconfig says.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
		"GIT_COMMITTER_NAME": "Test Committer", "GIT_COMMITTER_EMAIL": "committer@example.com",
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	if corpusMaster != "" {
		os.RemoveAll(filepath.Dir(corpusMaster))
	}
	os.Exit(code)
}

// gitT runs the real git CLI for setting up and checking, failing the test
// on error.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitRaw(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func gitRaw(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off"}, args...)...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newRepo makes a repository on branch main with one commit.
func newRepo(t testing.TB) string {
	t.Helper()
	return newRepoWith(t)
}

// newRepoWith is newRepo with extra `git init` flags.
func newRepoWith(t testing.TB, initArgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	gitT(t, dir, append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	write(t, dir, ".gitignore", "*.log\nbuild/\n")
	write(t, dir, "app.py", "def main():\n    return 1\n")
	write(t, dir, "lib/util.py", "X = 1\nY = 2\n")
	write(t, dir, "data.bin", "\x00\x01\x02binary\x00")
	write(t, dir, "old.txt", "deleted in the working tree\n")
	write(t, dir, "gone.txt", "deleted in the index\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func openT(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// treeFiles returns every file under dir (outside .git) with its bytes and
// mode, the ground truth for "byte for byte".
func treeFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a linked worktree's .git file
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = info.Mode().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// repoState is everything the engineer could observe about a checkout.
type repoState struct {
	Head, Branch, Status, Staged, Unstaged string
	Files                                  map[string]string
}

func stateOf(t testing.TB, dir string) repoState {
	t.Helper()
	return repoState{
		Head:     strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD")),
		Branch:   strings.TrimSpace(gitT(t, dir, "rev-parse", "--abbrev-ref", "HEAD")),
		Status:   gitT(t, dir, "status", "--porcelain=v1", "--untracked-files=all", "--ignored"),
		Staged:   gitT(t, dir, "diff", "--cached", "--binary"),
		Unstaged: gitT(t, dir, "diff", "--binary"),
		Files:    treeFiles(t, dir),
	}
}

func diffState(t testing.TB, want, got repoState) {
	t.Helper()
	for _, f := range []struct{ name, w, g string }{
		{"HEAD", want.Head, got.Head}, {"branch", want.Branch, got.Branch},
		{"status", want.Status, got.Status}, {"staged diff", want.Staged, got.Staged},
		{"unstaged diff", want.Unstaged, got.Unstaged},
	} {
		if f.w != f.g {
			t.Errorf("%s differs:\nwant %q\ngot  %q", f.name, f.w, f.g)
		}
	}
	var names []string
	for n := range want.Files {
		names = append(names, n)
	}
	for n := range got.Files {
		if _, ok := want.Files[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if want.Files[n] != got.Files[n] {
			t.Errorf("file %s differs:\nwant %q\ngot  %q", n, want.Files[n], got.Files[n])
		}
	}
}

// makeDirty puts a checkout into every kind of uncommitted state at once.
func makeDirty(t testing.TB, dir string) {
	t.Helper()
	write(t, dir, "app.py", "def main():\n    return 2  # unstaged\n")
	write(t, dir, "lib/util.py", "X = 10\nY = 2\n")
	gitT(t, dir, "add", "lib/util.py")
	write(t, dir, "lib/util.py", "X = 10\nY = 20  # staged, then changed again\n")
	write(t, dir, "lib/staged_new.py", "NEW = True\n")
	gitT(t, dir, "add", "lib/staged_new.py")
	write(t, dir, "notes/todo.txt", "untracked\n")
	write(t, dir, "debug.log", "ignored\n")
	write(t, dir, "data.bin", "\x00\xff\xfe changed binary\x00")
	if err := os.Remove(filepath.Join(dir, "old.txt")); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "rm", "-q", "gone.txt")
	write(t, dir, "exec.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(dir, "exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(gitT(t, dir, "status", "--porcelain")) == "" {
		t.Fatal("makeDirty left a clean tree")
	}
}
