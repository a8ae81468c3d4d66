package heuristic

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// layout is what each folder of the tree holds, learned from its content
// rather than its name: a folder called "sphinx" may be the library, and a
// folder called "packages" may hold someone else's. A folder is
//   - tests when most of the Python modules directly in it are test
//     modules (by the test runners' file names, or for defining test
//     functions); everything below it (fixture trees) is tests too;
//   - docs when it is no package and documentation files (reStructuredText,
//     Markdown, notebooks, images) outnumber code in it and below;
//   - vendored when, inside a distribution, it holds a distribution of its
//     own (a setup script, project file or licence).
type layout struct {
	kinds map[string]asideKind // folder -> what it is; library folders are absent
}

// Limits on the walk of the tree for non-code files: a hostile or huge
// tree costs at most this many entries.
const maxLayoutEntries = 200_000

var (
	docExts = map[string]bool{".rst": true, ".md": true, ".txt": true, ".ipynb": true, ".adoc": true,
		".png": true, ".svg": true, ".jpg": true, ".gif": true, ".inc": true}
	distMarkers = []string{"setup.py", "setup.cfg", "pyproject.toml", "license", "licence", "copying"}
)

func learnLayout(ix *index.Index) *layout {
	l := &layout{kinds: map[string]asideKind{}}
	py, tests := map[string]int{}, map[string]int{}
	for _, f := range ix.Files() {
		if path.Ext(f.Path) != ".py" {
			continue
		}
		d := path.Dir(f.Path)
		py[d]++
		if isTestModule(ix, f) {
			tests[d]++
		}
	}
	for d, n := range tests {
		if d != "." && 2*n >= py[d] {
			l.kinds[d] = asideTest
		}
	}
	docs, code, marked := walkNonCode(ix)
	for d, n := range docs {
		if d == "." || l.kinds[d] != asideNone {
			continue
		}
		if _, pkg := ix.File(d + "/__init__.py"); !pkg && n >= 3 && n > code[d] {
			l.kinds[d] = asideDocs
		}
	}
	if marked["."] {
		for d := range marked {
			if d != "." && l.kinds[d] == asideNone {
				l.kinds[d] = asideVendor
			}
		}
	}
	return l
}

// isTestModule: a file the test runners collect by its name, or one that
// defines test functions.
func isTestModule(ix *index.Index, f *index.File) bool {
	base := path.Base(f.Path)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" {
		return true
	}
	for _, id := range f.Units {
		if u, ok := ix.Unit(id); ok && u.Kind != index.KindChunk && strings.HasPrefix(u.Name, "test_") {
			return true
		}
	}
	return false
}

// walkNonCode counts, for every folder, the documentation files and the
// indexed code files in it and below, and notes the folders that hold a
// distribution marker. Hidden folders are passed over.
func walkNonCode(ix *index.Index) (docs, code map[string]int, marked map[string]bool) {
	docs, code, marked = map[string]int{}, map[string]int{}, map[string]bool{}
	root := ix.Root()
	seen := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxLayoutEntries {
			return filepath.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		name := strings.ToLower(d.Name())
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		dir := path.Dir(rel)
		for _, m := range distMarkers {
			if name == m || strings.HasPrefix(name, m+".") || (m == "license" && strings.HasSuffix(name, ".license")) {
				marked[dir] = true
			}
		}
		counts := docs
		if _, ok := ix.File(rel); ok {
			counts = code
		} else if !docExts[path.Ext(name)] {
			return nil
		}
		for a := dir; ; a = path.Dir(a) {
			counts[a]++
			if a == "." {
				break
			}
		}
		return nil
	})
	return docs, code, marked
}

// kindOf is what the folders above p make it: the topmost folder that is
// not library code decides.
func (l *layout) kindOf(p string) asideKind {
	var dirs []string
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if k := l.kinds[dirs[i]]; k != asideNone {
			return k
		}
	}
	return asideNone
}
