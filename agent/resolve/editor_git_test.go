package resolve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitInit(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"init", "-q"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git init %v: %v\n%s", args, err, out)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// snapshotDir maps every file under dir to its bytes.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return nil
	})
	return files
}

// TestEditorNeverTouchesGitDirs: the editor runs outside the sandbox, so
// it must refuse, by itself, every path that resolves into a git
// directory, however it is reached (a symlink made by the agent's shell)
// and whatever the directory is called; reads included (a config can
// hold credentials) and creates included (a hook).
func TestEditorNeverTouchesGitDirs(t *testing.T) {
	layouts := []struct {
		name    string
		setup   func(t *testing.T, ws string) (gitDir string)
		targets []string // paths the model names, resolving into gitDir (or to it, ending in /)
	}{
		{"in place: .git directory", func(t *testing.T, ws string) string {
			gitInit(t, ws)
			symlink(t, ".git", filepath.Join(ws, "g"))
			symlink(t, ".git/config", filepath.Join(ws, "c"))
			symlink(t, filepath.Join(ws, ".git"), filepath.Join(ws, "abs"))
			return filepath.Join(ws, ".git")
		}, []string{"g/config", "g/hooks/pre-commit.sample", "c", "abs/config", "g/../g/config", "g/", "sub/../g/HEAD"}},
		{"worktree: .git file", func(t *testing.T, ws string) string {
			main := filepath.Join(t.TempDir(), "main")
			gitInit(t, main)
			if out, err := exec.Command("git", "-C", main, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			os.RemoveAll(ws)
			if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", "--detach", ws).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			symlink(t, ".git", filepath.Join(ws, "g"))
			return filepath.Join(ws, ".git")
		}, []string{"g/"}},
		{"renamed git dir", func(t *testing.T, ws string) string {
			gitInit(t, "--separate-git-dir", filepath.Join(ws, "store"), ws)
			symlink(t, "store", filepath.Join(ws, "s"))
			return filepath.Join(ws, "store")
		}, []string{"store/config", "store/hooks/pre-commit.sample", "s/config", "store/"}},
		{"bare repository inside", func(t *testing.T, ws string) string {
			gitInit(t, "--bare", filepath.Join(ws, "vendor", "thing"))
			symlink(t, "vendor/thing/hooks", filepath.Join(ws, "h"))
			return filepath.Join(ws, "vendor", "thing")
		}, []string{"vendor/thing/config", "h/pre-commit.sample", "vendor/thing/"}},
		{"nested repository", func(t *testing.T, ws string) string {
			gitInit(t, filepath.Join(ws, "sub"))
			symlink(t, "sub/.git", filepath.Join(ws, "n"))
			return filepath.Join(ws, "sub", ".git")
		}, []string{"sub/.git/config", "n/config", "n/"}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitDir := l.setup(t, ws)
			w, err := NewWorkspace(ws)
			if err != nil {
				t.Fatal(err)
			}
			e := NewEditor(w, nil)
			real, _ := filepath.EvalSymlinks(gitDir)
			before := snapshotDir(t, real)
			for _, p := range l.targets {
				attempts := []EditArgs{
					{Command: "view", Path: p},
					{Command: "str_replace", Path: p, OldStr: "[core]", NewStr: "[core]\n\tfsmonitor = /tmp/evil"},
					{Command: "insert", Path: p, InsertLine: ptr(0), NewStr: "#!/bin/sh"},
					{Command: "create", Path: p + "/post-checkout", FileText: "#!/bin/sh\n"},
				}
				if strings.Contains(p, "/") && !strings.HasSuffix(p, "/") { // a sibling inside the git directory
					attempts = append(attempts, EditArgs{Command: "create", Path: p + ".new", FileText: "x"})
				}
				for _, a := range attempts {
					out, err := e.Do(a)
					text := out.Text
					if err != nil {
						text = err.Error()
					}
					if !strings.Contains(text, "git") || strings.Contains(text, "Created") || strings.Contains(text, "Edited") || strings.Contains(text, "Here is") {
						t.Errorf("%s %s: %.100q; want a refusal naming the git directory", a.Command, p, text)
					}
				}
			}
			if after := snapshotDir(t, real); len(after) != len(before) {
				t.Errorf("files in the git directory: %d before, %d after", len(before), len(after))
			} else {
				for f, b := range before {
					if after[f] != b {
						t.Errorf("%s was changed", f)
					}
				}
			}
		})
	}
}

// TestEditorFollowsLinksInside: symlinks that stay in the workspace and
// out of git directories still work, for reading, editing and creating.
func TestEditorFollowsLinksInside(t *testing.T) {
	e, dir := newTestEditor(t)
	gitInit(t, dir)
	write(t, dir, "pkg/a.py", "x = 1\n")
	symlink(t, "pkg", filepath.Join(dir, "rel"))
	symlink(t, filepath.Join(dir, "pkg"), filepath.Join(dir, "abs"))
	symlink(t, "../pkg/a.py", filepath.Join(dir, "pkg2"))
	steps := []struct {
		args EditArgs
		want string
	}{
		{EditArgs{Command: "view", Path: "rel/a.py"}, "x = 1"},
		{EditArgs{Command: "str_replace", Path: "abs/a.py", OldStr: "x = 1", NewStr: "x = 2"}, "Edited abs/a.py"},
		{EditArgs{Command: "create", Path: "rel/new/b.py", FileText: "y = 1\n"}, "Created rel/new/b.py"},
		{EditArgs{Command: "view", Path: "abs"}, "abs/new/"},
		{EditArgs{Command: "undo_edit", Path: "rel/new/b.py"}, "removed"},
	}
	for _, s := range steps {
		out, err := e.Do(s.args)
		if err != nil || !strings.Contains(out.Text, s.want) {
			t.Errorf("%s %s: %q, %v; want %q", s.args.Command, s.args.Path, out.Text, err, s.want)
		}
	}
	if got := read(t, dir, "pkg/a.py"); got != "x = 2\n" {
		t.Errorf("pkg/a.py = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "pkg/new/b.py")); !os.IsNotExist(err) {
		t.Errorf("undo left pkg/new/b.py: %v", err)
	}
}
