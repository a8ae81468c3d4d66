package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repo is a throwaway git repository with a fixed clock, so commit times
// (and so ages) are known.
type repo struct {
	t     *testing.T
	dir   string
	clock int64
}

func newRepo(t *testing.T) *repo {
	r := &repo{t: t, dir: t.TempDir(), clock: 1_600_000_000}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := "@" + itoa(r.clock) + " +0000"
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// commit writes files and commits them a day after the last commit.
func (r *repo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.clock += 86400
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

const shapes = "class Polygon:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n        return k\n"

func load(t *testing.T, r *repo, rev, cache string) *History {
	t.Helper()
	h, err := Load(context.Background(), Options{GitDir: filepath.Join(r.dir, ".git"), Rev: rev, Paths: []string{"*.py"}, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func messages(h *History) []string {
	var out []string
	for _, c := range h.Commits {
		out = append(out, c.Message)
	}
	return out
}

// TestNoFutureLeaks: the history of a commit holds none of the commits
// made after it, though the repository has them, and its ages are counted
// from that commit.
func TestNoFutureLeaks(t *testing.T) {
	r := newRepo(t)
	r.commit("add shapes", map[string]string{"geo/shapes.py": shapes})
	base := r.commit("docs for scale", map[string]string{"geo/shapes.py": shapes + "\n# scale by k\n"})
	r.commit("Fix polygon area sign", map[string]string{"geo/shapes.py": strings.Replace(shapes, "return 0", "return abs(0)", 1)})
	h := load(t, r, base, "")
	if got := messages(h); !slices.Equal(got, []string{"docs for scale", "add shapes"}) {
		t.Fatalf("history of the base commit: %q; the later fix leaked in", got)
	}
	if h.AgeDays(h.Commits[0]) != 0 || h.AgeDays(h.Commits[1]) != 1 {
		t.Errorf("ages %v, %v: want 0 and 1 day before the base commit", h.AgeDays(h.Commits[0]), h.AgeDays(h.Commits[1]))
	}
	// A side branch made from an older commit shares no later history.
	r.git("checkout", "-q", "-b", "side", base)
	side := r.commit("side work", map[string]string{"geo/side.py": "def side():\n    pass\n"})
	if got := messages(load(t, r, side, "")); !slices.Equal(got, []string{"side work", "docs for scale", "add shapes"}) {
		t.Errorf("side branch history %q", got)
	}
}

// TestCacheIsIncremental: a second load reads nothing from git, a load of
// a later commit reads only the new commits, and a load of an earlier one
// is served from the cache without its later commits.
func TestCacheIsIncremental(t *testing.T) {
	r := newRepo(t)
	cache := t.TempDir()
	first := r.commit("one", map[string]string{"a.py": "def a():\n    pass\n"})
	second := r.commit("two", map[string]string{"b.py": "def b():\n    pass\n"})
	if h := load(t, r, second, cache); h.Read != 2 || len(h.Commits) != 2 {
		t.Fatalf("first load read %d, holds %d", h.Read, len(h.Commits))
	}
	if h := load(t, r, second, cache); h.Read != 0 || len(h.Commits) != 2 {
		t.Fatalf("second load read %d from git, holds %d", h.Read, len(h.Commits))
	}
	third := r.commit("three", map[string]string{"c.py": "def c():\n    pass\n"})
	if h := load(t, r, third, cache); h.Read != 1 || len(h.Commits) != 3 {
		t.Fatalf("load of a new commit read %d, holds %d", h.Read, len(h.Commits))
	}
	if h := load(t, r, first, cache); h.Read != 0 || !slices.Equal(messages(h), []string{"one"}) {
		t.Fatalf("load of the first commit read %d and holds %q", h.Read, messages(h))
	}
	// A damaged cache is read afresh, not trusted.
	if err := os.WriteFile(filepath.Join(cache, "history.gob"), []byte("\x0fnot a cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h := load(t, r, third, cache); h.Read != 3 || len(h.Commits) != 3 {
		t.Fatalf("after damage: read %d, holds %d", h.Read, len(h.Commits))
	}
}

// TestFilesFunctionsAndRenames: a commit keeps the files it touched, the
// definitions its hunks span, the identifiers of its changed lines, and
// paths follow later renames to their name at the head.
func TestFilesFunctionsAndRenames(t *testing.T) {
	r := newRepo(t)
	r.commit("add shapes", map[string]string{"geo/shapes.py": shapes})
	r.commit("Fix scale factor", map[string]string{"geo/shapes.py": strings.Replace(shapes, "return k\n", "return k * scale_factor\n", 1)})
	r.git("mv", "geo/shapes.py", "geo/polygons.py")
	head := r.commit("rename shapes", nil)
	h := load(t, r, head, "")
	fix := h.Commits[1]
	if fix.Message != "Fix scale factor" || len(fix.Files) != 1 {
		t.Fatalf("fix commit %+v", fix)
	}
	if f := fix.Files[0]; !slices.Equal(f.Funcs, []string{"scale"}) || f.Added != 1 || f.Removed != 1 {
		t.Errorf("touch %+v: want scale, one line each way", f)
	}
	if !slices.ContainsFunc(fix.Idents, func(i Ident) bool { return i.Name == "scale_factor" }) {
		t.Errorf("identifiers %+v lack scale_factor", fix.Idents)
	}
	if p := h.PathAtHead(fix.Files[0].Path); p != "geo/polygons.py" {
		t.Errorf("path at head %q, want the renamed geo/polygons.py", p)
	}
	if add := h.Commits[2].Files[0]; !slices.Equal(add.Funcs, []string{"Polygon", "area", "scale"}) {
		t.Errorf("added file spans %v", add.Funcs)
	}
}

func TestLoadErrors(t *testing.T) {
	r := newRepo(t)
	r.commit("one", map[string]string{"a.py": "x = 1\n"})
	for _, rev := range []string{"no-such-branch", "--all", ""} {
		_, err := Load(context.Background(), Options{GitDir: filepath.Join(r.dir, ".git"), Rev: rev + "x"})
		if err == nil {
			t.Errorf("Load(%q) gave no error", rev+"x")
		}
	}
	if _, err := Load(context.Background(), Options{GitDir: t.TempDir()}); err == nil {
		t.Error("a folder that is no repository gave no error")
	}
}
