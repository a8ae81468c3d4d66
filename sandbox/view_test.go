//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhatTheFlagsWiden: --allow-read shows a hidden path read-only,
// --pass-env passes a variable; neither shows the model settings file or
// passes the model's key.
func TestWhatTheFlagsWiden(t *testing.T) {
	ws, home := workspace(t)
	shared := filepath.Join(home, "shared")
	settings := filepath.Join(shared, "swe-adept.toml")
	for path, text := range map[string]string{filepath.Join(shared, "data.txt"): "SHARED DATA", settings: "api_key_env = 'MY_KEY'"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := policy(t, ws, Options{AllowRead: []string{shared}, PassEnv: []string{"DJANGO_SETTINGS_MODULE"},
		DenyEnv: []string{"MY_KEY"}, Conceal: []string{settings}})
	c, err := p.Command(append(os.Environ(), "DJANGO_SETTINGS_MODULE=app.settings", "MY_KEY=sk-secret-value"), "bash", "-c",
		`cat `+shared+`/data.txt; echo; cat `+settings+`; echo x >> `+shared+`/data.txt && echo "wrote shared"; env`)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	b, _ := c.CombinedOutput()
	out := string(b)
	for _, want := range []string{"SHARED DATA", "DJANGO_SETTINGS_MODULE=app.settings"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q is missing: the flags did not widen the sandbox:\n%s", want, out)
		}
	}
	for _, leak := range []string{"api_key_env", "sk-secret-value", "wrote shared"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q reached the command:\n%s", leak, out)
		}
	}
}

// TestAGoModuleTests: a Go module's tests run confined, with the module
// cache read-only and the build cache through an overlay: the engineer's
// cache is read, never written.
func TestAGoModuleTests(t *testing.T) {
	goModCache, goCache := goEnvOf(t, "GOMODCACHE"), goEnvOf(t, "GOCACHE")
	dep := "golang.org/x/sys@v0.49.0" // this module's own dependency, in the cache when its tests build
	if _, err := os.Stat(filepath.Join(goModCache, dep)); err != nil {
		t.Skipf("%s is not in the module cache", dep)
	}
	ws := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.26.0\n\nrequire golang.org/x/sys v0.49.0\n",
		"m.go":        "package m\n\nimport \"golang.org/x/sys/unix\"\n\nfunc PageSize() int { return unix.Getpagesize() }\n",
		"m_test.go":   "package m\n\nimport \"testing\"\n\nfunc TestPageSize(t *testing.T) {\n\tif PageSize() <= 0 {\n\t\tt.Fatal(\"no page size\")\n\t}\n}\n",
		"go.sum":      goSumLines(t, "golang.org/x/sys v0.49.0"),
		".gitignore":  "",
		"testdata/.k": "",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := policy(t, ws, Options{})
	planted := "planted-by-a-command-" + filepath.Base(p.state)
	out, err := run(t, p, ws, "GOFLAGS=-mod=readonly go test -count=1 ./... && echo x > \"$(go env GOCACHE)/"+planted+"\" && echo planted")
	if err != nil || !strings.Contains(out, "ok") || !strings.Contains(out, "planted") {
		t.Fatalf("the module's tests did not run confined: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(goCache, planted)); err == nil {
		os.Remove(filepath.Join(goCache, planted))
		t.Errorf("a confined command wrote into the engineer's build cache")
	}
}

// TestAVirtualenvRuns: a virtualenv in the home (where the toolchain
// caches are shown) runs its interpreter confined.
func TestAVirtualenvRuns(t *testing.T) {
	needPython(t)
	ws, home := workspace(t)
	venv := filepath.Join(home, ".virtualenvs", "proj")
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Skipf("no venv module: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, "test_ok.py"), []byte("import unittest, sys\n\nclass T(unittest.TestCase):\n    def test_venv(self):\n        self.assertIn('proj', sys.prefix)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := policy(t, ws, Options{})
	out, err := run(t, p, ws, venv+"/bin/python -m unittest -v 2>&1")
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("the virtualenv's interpreter did not run confined: %v\n%s", err, out)
	}
}

func goEnvOf(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// goSumLines are this module's go.sum lines for the module version mv.
func goSumLines(t *testing.T, mv string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), mv+" ") || strings.HasPrefix(sc.Text(), mv+"/go.mod ") {
			b.WriteString(sc.Text() + "\n")
		}
	}
	return b.String()
}

// TestWorktreeWorkspace: a workspace that is a linked worktree inside the
// repository's git directory (a run's default) is writable, by relative
// and absolute paths, while the git directory around it is not.
func TestWorktreeWorkspace(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	ws := filepath.Join(repo, ".git", "swe-adept", "worktrees", "w1")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x"},
		{"-C", repo, "worktree", "add", "-q", ws}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v %s", args, err, out)
		}
	}
	p := policy(t, ws, Options{})
	out, err := run(t, p, ws, "echo a > rel && echo b > "+filepath.Join(ws, "abs")+" && echo written; echo c > "+filepath.Join(repo, ".git", "planted"))
	if !strings.Contains(out, "written") {
		t.Errorf("the worktree is not writable: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "planted")); err == nil {
		t.Error("the git directory around the worktree was written")
	}
}
