package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/internal/golden"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// backdate sets the times of everything under dir to when, as in a
// checkout whose directories the walk may take from its listing cache.
func backdate(t testing.TB, dir string, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatalf("backdate %s: %v", dir, err)
	}
}

// dump renders an index as the golden text: one unit per line, its edges
// and unresolved calls indented below it, then the stats that do not
// depend on timing.
func dump(ix *Index) string {
	var b strings.Builder
	for _, f := range ix.Files() {
		fmt.Fprintf(&b, "file %s lang=%s lines=%d units=%d\n", f.Path, f.Lang, f.Lines, len(f.Units))
		for _, id := range f.Units {
			u, _ := ix.Unit(id)
			fmt.Fprintf(&b, "  %s %s %d-%d %q", u.ID, u.Kind, u.Start, u.End, u.Signature)
			if u.QualName != strings.TrimPrefix(u.ID, u.Path+":") {
				fmt.Fprintf(&b, " qual=%s", u.QualName)
			}
			if u.Parent != "" {
				fmt.Fprintf(&b, " parent=%s", u.Parent)
			}
			if len(u.Bases) > 0 {
				fmt.Fprintf(&b, " bases=%s", strings.Join(u.Bases, ","))
			}
			b.WriteString("\n")
			for _, e := range u.Children {
				fmt.Fprintf(&b, "    %s %s @%d\n", e.Rel, e.ID, e.Line)
			}
			for _, c := range u.Unresolved {
				fmt.Fprintf(&b, "    unresolved %s @%d\n", c.Name, c.Line)
			}
		}
	}
	st := ix.Stats()
	fmt.Fprintf(&b, "stats files=%d units=%d edges=%d resolved=%d unresolved=%d lines=%d\n",
		st.Files, st.Units, st.Edges, st.ResolvedCalls, st.UnresolvedCalls, st.Lines)
	fmt.Fprintf(&b, "languages %s\n", sortedCounts(st.Languages))
	fmt.Fprintf(&b, "skipped %s\n", sortedCounts(st.Skipped))
	fmt.Fprintf(&b, "degraded %s\n", sortedCounts(st.Degraded))
	return b.String()
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// lineDiff lists the lines that differ, enough to see what changed.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

func TestBuildGolden(t *testing.T) {
	for _, name := range []string{"pyrepo", "gorepo", "jsrepo", "tsrepo"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("..", "testdata", "index", name)
			if _, err := os.Stat(src); err != nil {
				t.Skipf("sample %s not present", name)
			}
			dir := t.TempDir()
			testtree.Copy(t, src, dir)
			if name == "pyrepo" {
				// A loop that would never end if symlinked dirs were followed.
				if err := os.Symlink("..", filepath.Join(dir, "pkg", "loop")); err != nil {
					t.Fatalf("symlink: %v", err)
				}
			}
			ix, err := Build(context.Background(), dir, Options{NoCache: true})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			golden.CheckFile(t, filepath.Join("..", "testdata", "index", name+".golden"), dump(ix))
		})
	}
}
