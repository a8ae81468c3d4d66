package index

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index/internal/corpus"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// linkEdit changes the tree; the build after it must equal a fresh one.
type linkEdit struct {
	name string
	edit func(t *testing.T, dir string)
	// local edits leave other files' resolution as it was: only the
	// edited file is resolved again. Others may resolve every file.
	local bool
}

// editFile rewrites file with change, which fails the test through t if
// the file is not as it expects.
func editFile(file string, change func(t *testing.T, src []byte) []byte) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(file))
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, change(t, src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func replaceIn(file, old, new string) func(t *testing.T, dir string) {
	return editFile(file, func(t *testing.T, src []byte) []byte {
		if !strings.Contains(string(src), old) {
			t.Fatalf("%s does not contain %q", file, old)
		}
		return []byte(strings.Replace(string(src), old, new, 1))
	})
}

// renameFirstDef renames the file's first top-level function.
func renameFirstDef(file string) func(t *testing.T, dir string) {
	return editFile(file, func(t *testing.T, src []byte) []byte {
		i := bytes.Index(src, []byte("\ndef "))
		if i < 0 {
			t.Fatalf("%s has no top-level function", file)
		}
		name := i + len("\ndef ")
		end := name + bytes.IndexByte(src[name:], '(')
		return append(append(append([]byte{}, src[:end]...), "_renamed"...), src[end:]...)
	})
}

func appendTo(file, text string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(file)), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func removeFile(file string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
			t.Fatal(err)
		}
	}
}

// runLinkEdits applies the edits in turn to one copy of src, building with
// the cache after each, and checks every build, and the warm build after
// it, against a build without the cache.
func runLinkEdits(t *testing.T, src string, edits []linkEdit) {
	dir := t.TempDir()
	testtree.Copy(t, src, dir)
	b := newCachedBuilds(t)
	b.build(t, dir)
	for _, e := range edits {
		e.edit(t, dir)
		inc, n := b.build(t, dir)
		if e.local && n != 1 {
			t.Errorf("%s: %d files resolved, want 1", e.name, n)
		}
		fresh := sameAsFresh(t, e.name, dir, inc)
		warm, n := b.build(t, dir)
		if n != 0 {
			t.Errorf("%s: warm build resolved %d files, want 0", e.name, n)
		}
		if st := warm.Stats(); st.Cache != "warm" {
			t.Fatalf("%s: next build is %s, want warm", e.name, st.Cache)
		}
		if got, want := dump(warm), dump(fresh); got != want {
			t.Fatalf("%s: warm index differs from a fresh one:\n%s", e.name, lineDiff(want, got))
		}
	}
}

// cachedBuilds builds trees with one cache, and reads from each build's
// log how many files it resolved.
type cachedBuilds struct {
	opts Options
	log  bytes.Buffer
}

func newCachedBuilds(t *testing.T) *cachedBuilds {
	b := &cachedBuilds{}
	b.opts = Options{CacheDir: t.TempDir(), shards: maxShards, Logger: slog.New(slog.NewTextHandler(&b.log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	return b
}

// build indexes dir and says how many files had their calls resolved.
func (b *cachedBuilds) build(t *testing.T, dir string) (*Index, int) {
	t.Helper()
	b.log.Reset()
	ix := buildT(t, dir, b.opts)
	return ix, resolvedFiles(t, b.log.String())
}

// sameAsFresh fails the test unless ix equals an index of dir built
// without the cache, which it returns.
func sameAsFresh(t *testing.T, what, dir string, ix *Index) *Index {
	t.Helper()
	fresh := buildT(t, dir, Options{NoCache: true})
	if got, want := dump(ix), dump(fresh); got != want {
		t.Fatalf("%s: index differs from a fresh one:\n%s", what, lineDiff(want, got))
	}
	return fresh
}

// boundedEdit is an edit and how many files the build after it may
// resolve: from min to max, max 0 meaning all but one.
type boundedEdit struct {
	name     string
	edit     func(t *testing.T, dir string)
	min, max int
}

// runBoundedEdits applies the edits in turn to root, checking each build
// against its bounds and against a build without the cache.
func runBoundedEdits(t *testing.T, root string, edits []boundedEdit) {
	b := newCachedBuilds(t)
	ix, _ := b.build(t, root)
	total := ix.Stats().Files
	for _, e := range edits {
		e.edit(t, root)
		inc, n := b.build(t, root)
		most := e.max
		if most == 0 {
			most = total - 1
		}
		t.Logf("%s: %d of %d files resolved", e.name, n, total)
		if n < e.min || n > most {
			t.Errorf("%s: %d of %d files resolved, want %d to %d", e.name, n, total, e.min, most)
		}
		sameAsFresh(t, e.name, root, inc)
	}
}

func resolvedFiles(t *testing.T, log string) int {
	t.Helper()
	_, after, ok := strings.Cut(log, "resolved_files=")
	if !ok {
		t.Fatalf("no resolved_files in the build log:\n%s", log)
	}
	n, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLinksFollowPythonEdits(t *testing.T) {
	runLinkEdits(t, filepath.Join("..", "testdata", "index", "pyrepo"), []linkEdit{
		{"comment appended", appendTo("pkg/util.py", "# x\n"), true},
		{"body edited in place", replaceIn("pkg/base.py", "return helper(1)", "return decorate(1)"), true},
		{"imported function renamed", replaceIn("pkg/util.py", "def tidy(s):", "def tidy2(s):"), false},
		{"imported function restored", replaceIn("pkg/util.py", "def tidy2(s):", "def tidy(s):"), false},
		{"method added to a base class", replaceIn("pkg/base.py", "    def step(self):", "    def missing(self):\n        return 1\n\n    def step(self):"), false},
		{"re-export changed", replaceIn("pkg/__init__.py", "from .base import Base, helper", "from .base import Base, decorate as helper"), false},
		{"lines inserted above definitions", replaceIn("pkg/base.py", "import functools\n", "import functools\n\n\n# moved down\n"), false},
		{"module variable imported", replaceIn("pkg/sub/models.py", "    m.save()\n", "    m.save()\n    DEFAULT.run()\n"), true},
		{"imported module variable defined", appendTo("pkg/base.py", "\nDEFAULT = Base(\"x\")\n"), true},
		{"import of the variable added", replaceIn("pkg/sub/models.py", "from ..base import Base, decorate", "from ..base import Base, decorate, DEFAULT"), false},
		{"module variable retyped", replaceIn("pkg/base.py", "DEFAULT = Base(\"x\")", "DEFAULT = helper(\"x\")"), true},
		{"imported file deleted", removeFile("pkg/util.py"), false},
		{"imported file added back", appendTo("pkg/util.py", "def join(*parts):\n    return parts\n\n\ndef tidy(s):\n    return s\n"), false},
		{"new file", appendTo("pkg/extra.py", "from .util import tidy\n\n\ndef clean(s):\n    return tidy(s)\n"), false},
		{"base class moved to another file", replaceIn("pkg/sub/models.py", "from ..base import Base, decorate, DEFAULT", "from ..extra import clean as Base\nfrom ..base import decorate, DEFAULT"), false},
	})
}

func TestLinksFollowGoEdits(t *testing.T) {
	runLinkEdits(t, filepath.Join("..", "testdata", "index", "gorepo"), []linkEdit{
		{"comment appended", appendTo("shapes/shape.go", "// x\n"), true},
		{"method added in another file", appendTo("shapes/build.go", "\nfunc (c Circle) Empty() bool { return c.R == 0 }\n"), false},
		{"lines inserted above a method", replaceIn("shapes/shape.go", "func (c *Circle) Area() float64 {", "\n\n// Area is pi r squared.\nfunc (c *Circle) Area() float64 {"), false},
		{"constructor renamed", replaceIn("shapes/build.go", "func NewCircle(", "func MakeCircle("), false},
		{"module path changed", replaceIn("go.mod", "module example.com/geo", "module example.com/geo2"), false},
	})
}

func TestLinksCorruptIsIgnored(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	opts := Options{CacheDir: t.TempDir(), shards: maxShards}
	want := dump(buildT(t, dir, opts))
	files, _ := filepath.Glob(filepath.Join(opts.CacheDir, "index-*.*.links"))
	if len(files) != maxShards {
		t.Fatalf("want %d links shards in %s, got %v", maxShards, opts.CacheDir, files)
	}
	// Corrupt the largest shard.
	var victim string
	var data []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > len(data) {
			victim, data = f, b
		}
	}
	for name, bad := range map[string][]byte{
		"garbage":   []byte("not links"),
		"truncated": data[:len(data)/2],
		"bit flip":  flipByte(data, len(data)/2),
		"missing":   nil,
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			if bad == nil {
				err = os.Remove(victim)
			} else {
				err = os.WriteFile(victim, bad, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(buildT(t, dir, opts)); got != want {
				t.Errorf("index with corrupt links differs:\n%s", lineDiff(want, got))
			}
			if got := dump(buildT(t, dir, opts)); got != want {
				t.Errorf("index with rewritten links differs:\n%s", lineDiff(want, got))
			}
		})
	}
}

// TestLinksFollowEditsOnStdlib checks, on real code, that an edit which
// changes what a file defines re-resolves the files that read it, and
// only them: each build must equal a fresh one and resolve fewer files.
func TestLinksFollowEditsOnStdlib(t *testing.T) {
	stdlib := corpus.StdlibOrSkip(t)
	root := t.TempDir()
	for _, pkg := range []string{"json", "email", "http", "urllib", "asyncio", "unittest"} {
		if _, err := os.Stat(filepath.Join(stdlib, pkg)); err != nil {
			t.Skipf("no %s package in %s", pkg, stdlib)
		}
		testtree.Copy(t, filepath.Join(stdlib, pkg), filepath.Join(root, pkg))
	}
	// Each resolves the edited file and its readers, and no others.
	runBoundedEdits(t, root, []boundedEdit{
		{"function added", appendTo("json/encoder.py", "\n\ndef added():\n    return 1\n"), 2, 0},
		{"function renamed", renameFirstDef("email/utils.py"), 2, 0},
		{"class method added", replaceIn("email/message.py", "    def __str__(self):", "    def added(self):\n        return 1\n\n    def __str__(self):"), 2, 0},
		{"function renamed in a parsing module", renameFirstDef("urllib/parse.py"), 2, 0},
		{"function added to a star-imported module", appendTo("asyncio/events.py", "\n\ndef added():\n    return 1\n"), 2, 0},
		{"function renamed in a star-imported module", renameFirstDef("asyncio/events.py"), 2, 0},
		{"base class method added", replaceIn("unittest/case.py", "    def __init__(self, methodName='runTest'):", "    def added(self):\n        return 1\n\n    def __init__(self, methodName='runTest'):"), 2, 0},
	})
}

// TestLinksFollowGoEditsInThisModule does the same on Go: this module's
// own packages, where an edit to one package re-resolves it and its
// importers only.
func TestLinksFollowGoEditsInThisModule(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"go.mod", "agent/event", "agent/tool", "internal/atomicfile", "memory"} {
		src, dst := filepath.Join("..", p), filepath.Join(root, p)
		if p != "go.mod" {
			testtree.Copy(t, src, dst)
			continue
		}
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runBoundedEdits(t, root, []boundedEdit{
		{"function added to an imported package", appendTo("agent/event/event.go", "\nfunc Added() int { return 1 }\n"), 2, 0},
		{"function added to a leaf package", appendTo("memory/memory.go", "\nfunc Added() int { return 1 }\n"), 1, 0},
		{"function an importer calls renamed", replaceIn("agent/event/gate.go", "func NewGate() *Gate", "func NewGate2() *Gate"), 2, 0},
		{"body edited", appendTo("agent/tool/tool.go", "\n// a comment\n"), 1, 1},
	})
}

// TestLinksTornSaveIsIgnored checks that shards and manifest from
// different saves, as a save cut short or two builds saving at once leave
// them, are not taken for a consistent resolution.
func TestLinksTornSaveIsIgnored(t *testing.T) {
	for _, torn := range []string{"old manifest", "old shard"} {
		t.Run(torn, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
			b := newCachedBuilds(t)
			ix, _ := b.build(t, dir)
			total := ix.Stats().Files
			before := map[string][]byte{}
			links, _ := filepath.Glob(filepath.Join(b.opts.CacheDir, "*.links"))
			for _, p := range links {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				before[p] = data
			}
			// Renaming a function others call changes several shards.
			replaceIn("pkg/util.py", "def tidy(s):", "def tidy2(s):")(t, dir)
			b.build(t, dir)
			var restore string
			for p, data := range before {
				now, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				isManifest := !strings.Contains(strings.TrimSuffix(filepath.Base(p), ".links"), ".")
				if !bytes.Equal(now, data) && isManifest == (torn == "old manifest") {
					restore = p
				}
			}
			if restore == "" {
				t.Fatalf("the edit rewrote no %s", torn)
			}
			if err := os.WriteFile(restore, before[restore], 0o644); err != nil {
				t.Fatal(err)
			}
			// The next edit is local; with torn links every file is resolved.
			appendTo("pkg/base.py", "# x\n")(t, dir)
			inc, n := b.build(t, dir)
			if n != total {
				t.Errorf("with an %s, %d of %d files resolved, want all", torn, n, total)
			}
			sameAsFresh(t, "with an "+torn, dir, inc)
		})
	}
}

func TestLinksFollowScriptEdits(t *testing.T) {
	runLinkEdits(t, filepath.Join("..", "testdata", "index", "tsrepo"), []linkEdit{
		{"comment appended", appendTo("src/core/repo.ts", "// x\n"), true},
		{"body edited in place", replaceIn("src/core/repo.ts", "return 'repo';", "return 'repository';"), true},
		{"barrel's function renamed", replaceIn("src/store/index.ts", "export function create(", "export function make("), false},
		{"base class method renamed", replaceIn("src/core/service.ts", "  log(msg: string): void {", "  trace(msg: string): void {"), false},
		{"tsconfig paths changed", replaceIn("tsconfig.json", `"@core/*": ["src/core/*"]`, `"@core/*": ["src/store/*"]`), false},
		{"imported file deleted", removeFile("src/store/memory.ts"), false},
	})
	runLinkEdits(t, filepath.Join("..", "testdata", "index", "jsrepo"), []linkEdit{
		{"module.exports member renamed", replaceIn("lib/helpers.js", "  fee: (x) => x + 1,", "  charge: (x) => x + 1,"), false},
		{"export * target renamed", replaceIn("src/util/math.js", "export function sum(xs) {", "export function total(xs) {"), false},
		{"default export made anonymous", replaceIn("lib/legacy.cjs", "module.exports = Legacy;", "module.exports = function () {};"), false},
	})
}

func TestScriptConfig(t *testing.T) {
	c, ok := decodeTSConfig([]byte(`{
  // comment with "quotes"
  "compilerOptions": {
    "baseUrl": "./src", /* block */
    "paths": {"@app/*": ["app/*", "legacy/*"], "@app/core": ["core/index"], "cfg": ["../config/main"],},
  },
}`))
	if !ok {
		t.Fatal("config not read")
	}
	tests := []struct {
		spec string
		want []string
	}{
		{"@app/core", []string{"src/core/index", "src/app/core", "src/legacy/core", "src/@app/core"}},
		{"@app/ui/button", []string{"src/app/ui/button", "src/legacy/ui/button", "src/@app/ui/button"}},
		{"cfg", []string{"config/main", "src/cfg"}},
		{"lodash", []string{"src/lodash"}},
	}
	for _, tc := range tests {
		if got := c.candidates(tc.spec); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("candidates(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	if _, ok := decodeTSConfig([]byte(`{"compilerOptions": {"strict": true}}`)); ok {
		t.Error("a config without baseUrl or paths should give none")
	}
}
