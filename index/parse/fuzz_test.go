package parse

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPythonUnits feeds arbitrary bytes to the Python extractor: it must
// never panic, every span must lie inside the file, parents must come
// before their children, every call must sit inside its unit, and ids
// must be unique.
func FuzzPythonUnits(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "pyrepo", "*", "*.py"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "pyrepo", "*", "*", "*.py"))
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("class A(B, metaclass=M):\n  @d\n  def f(self): super().f()\n"))
	f.Add([]byte("def f(:\n\tpass\n\x00\xff"))
	f.Add([]byte(strings.Repeat("x = 1\n", 450)))
	p := newParser()
	defer p.close()
	f.Fuzz(func(t *testing.T, src []byte) {
		rf, err := p.Extract(context.Background(), pythonLang, "f.py", src, maxFileSize)
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		checkFile(t, rf)
	})
}

func checkFile(t *testing.T, rf *File) {
	t.Helper()
	seen := map[string]bool{}
	for i, u := range rf.Units {
		if u.Start < 1 || u.End < u.Start || u.End > rf.Lines {
			t.Fatalf("unit %s spans %d-%d in a file of %d lines", u.Qual, u.Start, u.End, rf.Lines)
		}
		if u.Kind == KindChunk && u.End-u.Start+1 > chunkLines {
			t.Fatalf("chunk %s has %d lines", u.Qual, u.End-u.Start+1)
		}
		if seen[u.Qual] {
			t.Fatalf("duplicate id %s", u.Qual)
		}
		seen[u.Qual] = true
		if u.Parent >= i {
			t.Fatalf("unit %s has parent %d after it (%d)", u.Qual, u.Parent, i)
		}
		if u.Parent >= 0 {
			p := rf.Units[u.Parent]
			if u.Start < p.Start || u.End > p.End {
				t.Fatalf("unit %s (%d-%d) outside its parent %s (%d-%d)", u.Qual, u.Start, u.End, p.Qual, p.Start, p.End)
			}
		}
		for _, c := range u.Calls {
			if c.Line < u.Start || c.Line > u.End {
				t.Fatalf("call %s at line %d outside unit %s (%d-%d)", c.Name, c.Line, u.Qual, u.Start, u.End)
			}
		}
	}
}

// TestSeedsKeepInvariants runs the fuzz checks over the sample repository
// and the chunking limits without the fuzzer.
func TestSeedsKeepInvariants(t *testing.T) {
	p := newParser()
	defer p.close()
	inputs := map[string]string{
		"long module": strings.Repeat("x = 1\n", 450),
		"long blank":  "import os\n" + strings.Repeat("\n", 300) + "y = 2\n",
		"empty":       "",
		"no newline":  "def f(): return g()",
		"nested":      "def a():\n  def b():\n    class C:\n      def d(self): return b()\n  return b\n",
		"redefined":   "def f(): pass\ndef f(): pass\nclass K:\n  @property\n  def v(self): pass\n  @v.setter\n  def v(self, x): pass\n",
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			rf, err := p.Extract(context.Background(), pythonLang, "f.py", []byte(src), maxFileSize)
			if err != nil {
				t.Fatal(err)
			}
			checkFile(t, rf)
		})
	}
	rf, _ := p.Extract(context.Background(), pythonLang, "f.py", []byte(inputs["long module"]), maxFileSize)
	if len(rf.Units) != 3 || rf.Units[2].Start != 401 || rf.Units[2].End != 450 {
		t.Errorf("450 lines of top-level code should make chunks 1-200, 201-400, 401-450: %+v", rf.Units)
	}
	rf, _ = p.Extract(context.Background(), pythonLang, "f.py", []byte(inputs["redefined"]), maxFileSize)
	var quals []string
	for _, u := range rf.Units {
		quals = append(quals, u.Qual)
	}
	if got, want := strings.Join(quals, " "), "f f#2 K K.v K.v#2"; got != want {
		t.Errorf("repeated definitions: ids %q, want %q", got, want)
	}
}

// FuzzGoUnits holds the Go extractor to the same invariants.
func FuzzGoUnits(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "gorepo", "*", "*.go"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "gorepo", "*", "*", "*.go"))
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("package p\nfunc (r *T[K]) M() { x := &T{}; x.M(); var y T; y.M() }\ntype T[K any] struct{}\n"))
	f.Add([]byte("package p\nfunc (\n) M("))
	p := newParser()
	defer p.close()
	f.Fuzz(func(t *testing.T, src []byte) {
		rf, err := p.Extract(context.Background(), goLang, "f.go", src, maxFileSize)
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		checkFile(t, rf)
	})
}

// FuzzScriptUnits feeds arbitrary bytes to the JavaScript, TypeScript and
// TSX extractors, with the invariants of FuzzPythonUnits.
func FuzzScriptUnits(f *testing.F) {
	for _, glob := range []string{"jsrepo/*/*.*", "jsrepo/*/*/*.*", "tsrepo/*/*/*.*"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", glob))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data, uint8(len(p)))
			}
		}
	}
	f.Add([]byte("export default class extends A.B { static #x = () => {}; get [k]() {} }"), uint8(0))
	f.Add([]byte("module.exports = { a() {}, 'b': function () {}, c }; exports.d = require('./d')"), uint8(1))
	f.Add([]byte("export * as ns from './m'; import x, * as y from \"y\"; new (a.b)()"), uint8(2))
	f.Add([]byte("const f = async function* g(){}; X.prototype.m = () => this.#p?.q()"), uint8(0))
	langs := []*Language{jsLang, tsLang, tsxLang}
	p := newParser()
	defer p.close()
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		l := langs[int(which)%len(langs)]
		rf, err := p.Extract(context.Background(), l, "f"+l.exts[0], src, maxFileSize)
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		checkFile(t, rf)
	})
}
