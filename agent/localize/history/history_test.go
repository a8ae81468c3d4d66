package history

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/testtree"
)

const shapes = "class Polygon:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n        return k\n"

func load(t *testing.T, r *testtree.Repo, rev, cache string) *History {
	t.Helper()
	h, err := Load(context.Background(), Options{GitDir: filepath.Join(r.Dir, ".git"), Rev: rev, Paths: []string{"*.py"}, CacheDir: cache})
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
	r := testtree.NewRepo(t)
	r.Commit("add shapes", map[string]string{"geo/shapes.py": shapes})
	base := r.Commit("docs for scale", map[string]string{"geo/shapes.py": shapes + "\n# scale by k\n"})
	r.Commit("Fix polygon area sign", map[string]string{"geo/shapes.py": strings.Replace(shapes, "return 0", "return abs(0)", 1)})
	h := load(t, r, base, "")
	if got := messages(h); !slices.Equal(got, []string{"docs for scale", "add shapes"}) {
		t.Fatalf("history of the base commit: %q; the later fix leaked in", got)
	}
	if h.AgeDays(h.Commits[0]) != 0 || h.AgeDays(h.Commits[1]) != 1 {
		t.Errorf("ages %v, %v: want 0 and 1 day before the base commit", h.AgeDays(h.Commits[0]), h.AgeDays(h.Commits[1]))
	}
	// A side branch made from an older commit shares no later history.
	r.Git("checkout", "-q", "-b", "side", base)
	side := r.Commit("side work", map[string]string{"geo/side.py": "def side():\n    pass\n"})
	if got := messages(load(t, r, side, "")); !slices.Equal(got, []string{"side work", "docs for scale", "add shapes"}) {
		t.Errorf("side branch history %q", got)
	}
}

// TestCacheIsIncremental: a second load reads nothing from git, a load of
// a later commit reads only the new commits, and a load of an earlier one
// is served from the cache without its later commits.
func TestCacheIsIncremental(t *testing.T) {
	r := testtree.NewRepo(t)
	cache := t.TempDir()
	first := r.Commit("one", map[string]string{"a.py": "def a():\n    pass\n"})
	second := r.Commit("two", map[string]string{"b.py": "def b():\n    pass\n"})
	if h := load(t, r, second, cache); h.Read != 2 || len(h.Commits) != 2 {
		t.Fatalf("first load read %d, holds %d", h.Read, len(h.Commits))
	}
	if h := load(t, r, second, cache); h.Read != 0 || len(h.Commits) != 2 {
		t.Fatalf("second load read %d from git, holds %d", h.Read, len(h.Commits))
	}
	third := r.Commit("three", map[string]string{"c.py": "def c():\n    pass\n"})
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
	r := testtree.NewRepo(t)
	r.Commit("add shapes", map[string]string{"geo/shapes.py": shapes})
	r.Commit("Fix scale factor", map[string]string{"geo/shapes.py": strings.Replace(shapes, "return k\n", "return k * scale_factor\n", 1)})
	r.Git("mv", "geo/shapes.py", "geo/polygons.py")
	head := r.Commit("rename shapes", nil)
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
	r := testtree.NewRepo(t)
	r.Commit("one", map[string]string{"a.py": "x = 1\n"})
	for _, rev := range []string{"no-such-branch", "--all", ""} {
		_, err := Load(context.Background(), Options{GitDir: filepath.Join(r.Dir, ".git"), Rev: rev + "x"})
		if err == nil {
			t.Errorf("Load(%q) gave no error", rev+"x")
		}
	}
	if _, err := Load(context.Background(), Options{GitDir: t.TempDir()}); err == nil {
		t.Error("a folder that is no repository gave no error")
	}
}
