package index

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/internal/testtree"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWalkIgnores(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    string // kept files, space separated, sorted
		skipped map[string]int
	}{
		{
			name: "nested gitignore with negation and dir-only patterns",
			files: map[string]string{
				".gitignore":          "*.gen.py\nout/\n!keep.gen.py\n",
				"a.py":                "",
				"x.gen.py":            "",
				"keep.gen.py":         "",
				"out/o.py":            "",
				"src/out.py":          "", // a file named like a dir-only pattern stays
				"src/.gitignore":      "local_*.py\n",
				"src/local_a.py":      "",
				"src/deep/local_b.py": "",
				"other/local_c.py":    "", // src's patterns do not apply here
			},
			want:    "a.py keep.gen.py other/local_c.py src/out.py",
			skipped: map[string]int{SkipIgnored: 4},
		},
		{
			name: "double star and anchored patterns",
			files: map[string]string{
				".gitignore":         "/top.py\n**/fixtures/**\ndocs/**/*.py\n",
				"top.py":             "",
				"pkg/top.py":         "",
				"pkg/fixtures/f.py":  "",
				"docs/conf.py":       "",
				"docs/api/gen/m.py":  "",
				"pkg/docs/inside.py": "",
			},
			want:    "pkg/docs/inside.py pkg/top.py",
			skipped: map[string]int{SkipIgnored: 4},
		},
		{
			name: "vendored and environment trees",
			files: map[string]string{
				"m.py":                           "",
				"vendor/v.go":                    "",
				"node_modules/n/index.py":        "",
				".venv/lib/x.py":                 "",
				"pkg/__pycache__/m.py":           "",
				"proj.egg-info/x.py":             "",
				"lib/python3/site-packages/s.py": "",
				"notes.txt":                      "not source",
			},
			want:    "m.py",
			skipped: map[string]int{SkipVendored: 6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			cands, skipped, err := walk(context.Background(), root, nil, discard())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cands {
				got = append(got, c.rel)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != tt.want {
				t.Errorf("kept %q, want %q", strings.Join(got, " "), tt.want)
			}
			for k, v := range tt.skipped {
				if skipped[k] != v {
					t.Errorf("skipped[%s] = %d, want %d (all: %v)", k, skipped[k], v, skipped)
				}
			}
		})
	}
}

func TestWalkSkipsSymlinkLoopAndUnreadable(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/m.py": "def f(): pass\n", "b/locked/x.py": ""})
	if err := os.Symlink("..", filepath.Join(root, "a", "up")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join(root, "a", "m.py"), filepath.Join(root, "link.py")); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(root, "b", "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	ix, err := Build(context.Background(), root, Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	st := ix.Stats()
	wantFiles := 1
	if os.Geteuid() == 0 {
		wantFiles = 2 // root reads the locked dir anyway
	}
	if st.Files != wantFiles || st.Skipped[SkipSymlink] != 2 {
		t.Errorf("files %d, skipped %v; want %d files and 2 symlinks", st.Files, st.Skipped, wantFiles)
	}
	if os.Geteuid() != 0 && st.Skipped[SkipUnreadable] != 1 {
		t.Errorf("skipped %v, want the locked dir counted as unreadable", st.Skipped)
	}
}

func TestBuildLargeFileIsChunkedNotParsed(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("def f():\n    return 1\n", 30) // 600 lines
	writeFiles(t, root, map[string]string{"big.py": big, "small.py": "def g():\n    return 2\n"})
	ix, err := Build(context.Background(), root, Options{NoCache: true, MaxFileSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ix.File("big.py")
	if len(f.Units) != 1 || ix.Stats().Degraded[SkipTooLarge] != 1 || ix.Stats().Skipped[SkipTooLarge] != 0 {
		t.Fatalf("big.py units %v, degraded %v; want one chunk and too_large counted as indexed with a problem", f.Units, ix.Stats().Degraded)
	}
	big = strings.Repeat("x = 1\n", 450)
	writeFiles(t, root, map[string]string{"big.py": big})
	ix, _ = Build(context.Background(), root, Options{NoCache: true, MaxFileSize: 300})
	f, _ = ix.File("big.py")
	if strings.Join(f.Units, " ") != "big.py:<chunk 1> big.py:<chunk 2> big.py:<chunk 3>" {
		t.Errorf("450 unparsed lines: units %v, want three chunks", f.Units)
	}
	if g, ok := ix.Unit("small.py:g"); !ok || g.Kind != KindFunction {
		t.Errorf("small.py should still be parsed: %+v", g)
	}
}

func TestBuildBadRoot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.py")
	writeFiles(t, filepath.Dir(file), map[string]string{"f.py": ""})
	for _, root := range []string{"", filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := Build(context.Background(), root, Options{NoCache: true}); err == nil {
			t.Errorf("Build(%q) succeeded, want an error", root)
		}
	}
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), root)
	if _, err := Build(ctx, root, Options{NoCache: true}); err == nil {
		t.Fatal("Build with a cancelled context succeeded")
	}
}

func TestBuildProgress(t *testing.T) {
	root := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), root)
	var calls, last, total int
	_, err := Build(context.Background(), root, Options{NoCache: true, Progress: func(done, tot int) {
		calls++
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		last, total = done, tot
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != total || total == 0 {
		t.Errorf("progress: %d calls, last %d of %d", calls, last, total)
	}
}

// TestWalkReusesDirectoryListings checks that an unchanged directory is
// taken from the listing cache and a changed one is listed again.
func TestWalkReusesDirectoryListings(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/m.py": "", "a/b/n.py": "", "c.py": ""})
	old := time.Now().Add(-time.Hour)
	backdate(t, root, old)
	cachePath := filepath.Join(t.TempDir(), "dirs")
	list := func() string {
		dc := openDirCache(cachePath, discard())
		cands, _, err := walk(context.Background(), root, dc, discard())
		if err != nil {
			t.Fatal(err)
		}
		if err := dc.save(); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cands {
			got = append(got, c.rel)
		}
		sort.Strings(got)
		return strings.Join(got, " ")
	}
	if got := list(); got != "a/b/n.py a/m.py c.py" {
		t.Fatalf("first walk: %q", got)
	}
	// A file added behind the cache's back (the directory's mtime put
	// back) stays unseen: proof the listing came from the cache.
	writeFiles(t, root, map[string]string{"a/b/hidden.py": ""})
	backdate(t, root, old)
	if got := list(); got != "a/b/n.py a/m.py c.py" {
		t.Fatalf("walk with cached listings: %q", got)
	}
	// A normal change moves the directory's mtime: listed again.
	writeFiles(t, root, map[string]string{"a/b/new.py": ""})
	if got := list(); got != "a/b/hidden.py a/b/n.py a/b/new.py a/m.py c.py" {
		t.Fatalf("walk after a change: %q", got)
	}
	if err := os.WriteFile(cachePath, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := list(); !strings.Contains(got, "a/b/new.py") {
		t.Fatalf("walk with a corrupt directory cache: %q", got)
	}
}
