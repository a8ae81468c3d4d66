package parse

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/swe-adept/swe-adept/index/internal/corpus"
)

// The Python walker (scan_python.c) must find what this tree-sitter query
// finds: the query states the rules plainly, the scanner is the fast way
// to follow them. refExtractPython is the extractor that read the query.

var refPyLang = &Language{
	name:    "python",
	exts:    []string{".py"},
	grammar: python.GetLanguage,
	query:   refPyQuery,
	extract: refExtractPython,
}

const refPyQuery = `
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
(decorated_definition) @decorated
(call function: (_) @call)
(import_statement) @import
(import_from_statement) @import_from
(assignment left: (_) @var right: (call function: (_) @callee))
`

// Pattern indexes of refPyQuery, in order.
const (
	pyFunction = iota
	pyClass
	pyDecorated
	pyCall
	pyImport
	pyImportFrom
	pyAssign
)

// refExtraction carries the query-reading methods, which the scanner's
// record-reading ones replaced.
type refExtraction struct{ *extraction }

func refExtractPython(x0 *extraction) {
	x := refExtraction{x0}
	decorated := map[uint32]*sitter.Node{} // definition start byte -> decorated_definition
	for {
		m, ok := x.qc.NextMatch()
		if !ok {
			break
		}
		switch m.PatternIndex {
		case pyFunction, pyClass:
			x.pyDef(m)
		case pyDecorated:
			n := m.Captures[0].Node
			if d := n.ChildByFieldName("definition"); d != nil {
				decorated[d.StartByte()] = n
			}
		case pyCall:
			n := m.Captures[0].Node
			if n.EndByte()-n.StartByte() == 5 && string(x.text(n)) == "super" {
				continue // super().m() is resolved as a whole
			}
			x.calls = append(x.calls, callSite{pos: n.StartByte(), line: lineOf(n), name: pyCallName(x.text(n))})
		case pyImport:
			x.pyImport(m.Captures[0].Node)
		case pyImportFrom:
			x.pyImportFrom(m.Captures[0].Node)
		case pyAssign:
			x.pyAssign(m)
		}
	}
	// Decorators belong to the definition: its span starts at the first one.
	for i := range x.defs {
		d := &x.defs[i]
		for {
			n, ok := decorated[d.startByte]
			if !ok || n.StartByte() >= d.startByte { // a broken tree must not loop
				break
			}
			d.startByte, d.start = n.StartByte(), lineOf(n)
		}
	}
	x.finish(func(d *def, parent *Unit) Kind {
		switch {
		case d.class:
			return KindClass
		case parent != nil && parent.Kind == KindClass:
			return KindMethod
		default:
			return KindFunction
		}
	})
}

func (x refExtraction) pyDef(m *sitter.QueryMatch) {
	name := x.capture(m, "name")
	node := x.capture(m, "function")
	if m.PatternIndex == pyClass {
		node = x.capture(m, "class")
	}
	if node == nil || name == nil {
		return
	}
	d := def{
		class: m.PatternIndex == pyClass, name: string(x.text(name)),
		startByte: node.StartByte(), endByte: node.EndByte(),
		start: lineOf(node), end: endLineOf(node),
	}
	headerEnd := name.EndByte()
	fields := []string{"parameters", "return_type"}
	if d.class {
		fields = []string{"type_parameters", "superclasses"}
	}
	for _, f := range fields {
		if c := node.ChildByFieldName(f); c != nil && c.EndByte() > headerEnd {
			headerEnd = c.EndByte()
		}
	}
	d.sig = oneLine(strings.ToValidUTF8(string(x.src[node.StartByte():headerEnd]), "?"), 240) + ":"
	if d.class {
		d.bases = x.pyBases(node.ChildByFieldName("superclasses"))
	}
	x.defs = append(x.defs, d)
}

// pyBases are the positional superclass expressions; keyword arguments such
// as metaclass= are not bases.
func (x refExtraction) pyBases(args *sitter.Node) []string {
	if args == nil {
		return nil
	}
	var bases []string
	for i := 0; i < int(args.NamedChildCount()); i++ {
		c := args.NamedChild(i)
		switch c.Type() {
		case "keyword_argument", "list_splat", "dictionary_splat", "comment":
			continue
		}
		bases = append(bases, compactCall(x.text(c)))
	}
	return bases
}

func (x refExtraction) pyImport(n *sitter.Node) {
	line := lineOf(n)
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "dotted_name":
			x.out.Imports = append(x.out.Imports, Import{Module: compactCall(x.text(c)), Line: line})
		case "aliased_import":
			mod, alias := c.ChildByFieldName("name"), c.ChildByFieldName("alias")
			if mod != nil && alias != nil {
				x.out.Imports = append(x.out.Imports, Import{
					Module: compactCall(x.text(mod)), Alias: string(x.text(alias)), Line: line,
				})
			}
		}
	}
}

func (x refExtraction) pyImportFrom(n *sitter.Node) {
	modNode := n.ChildByFieldName("module_name")
	if modNode == nil {
		return
	}
	line := lineOf(n)
	mod := compactCall(x.text(modNode))
	level := 0
	for level < len(mod) && mod[level] == '.' {
		level++
	}
	mod = mod[level:]
	base := Import{Module: mod, Level: level, Line: line}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if c.StartByte() == modNode.StartByte() {
			continue
		}
		imp := base
		switch c.Type() {
		case "dotted_name":
			imp.Name = compactCall(x.text(c))
		case "aliased_import":
			name, alias := c.ChildByFieldName("name"), c.ChildByFieldName("alias")
			if name == nil || alias == nil {
				continue
			}
			imp.Name, imp.Alias = compactCall(x.text(name)), string(x.text(alias))
		case "wildcard_import":
			imp.Name = "*"
		default:
			continue
		}
		x.out.Imports = append(x.out.Imports, imp)
	}
}

// pyAssign records "x = f(...)" and "self.x = f(...)": later x.m() and
// self.x.m() resolve through what f is.
func (x refExtraction) pyAssign(m *sitter.QueryMatch) {
	v, callee := x.capture(m, "var"), x.capture(m, "callee")
	if v == nil || callee == nil {
		return
	}
	name := string(x.text(v))
	if !IsDotted(name) {
		return
	}
	if head, rest, ok := strings.Cut(name, "."); ok && (head != "self" || strings.IndexByte(rest, '.') >= 0) {
		return
	}
	typ := pyCallName(x.text(callee))
	if !IsDotted(typ) {
		return
	}
	x.vars = append(x.vars, callSite{pos: v.StartByte(), line: lineOf(v), name: name, typ: typ})
}

func pyScanSeeds(t testing.TB) [][]byte {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "pyrepo", "*", "*.py"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", "pyrepo", "*", "*", "*.py"))
	var srcs [][]byte
	for _, p := range append(seeds, more...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, data)
	}
	return append(srcs,
		[]byte("class A(B, metaclass=M):\n  @d\n  def f(self): super().f()\n"),
		[]byte("def f(:\n\tpass\n\x00\xff"),
		[]byte("@a\n@b(c())\nclass C(D[int], *e, **k):\n  x: T = f(g)(h)\n  self.y = a.b(c).d()\n"),
		[]byte("import a.b as c, d\nfrom ..e import (f as g, h)\nfrom . import *\nf\"{x(y)}\"\n"),
		[]byte("class E(F,  # note\n        G, x=1):\n    pass\n"),
		[]byte(strings.Repeat("x = 1\n", 450)),
		[]byte("\"{0\n(0}\""), // error recovery puts a call inside a plain string
		[]byte("s = rb\"x\" f\"{a(b)}\" 'c'\nt = Rf'{g()!r:>{w()}}'\nu = u\"{h()}\"\nv = \"\"\"{i()}\"\"\"\nw = F'''{j()}'''\nx = 'q\\\nf(1)'\n"),
		[]byte{})
}

// sameAsQuery fails if the scanner and the query extract src differently.
func sameAsQuery(t *testing.T, p *Parser, src []byte) {
	t.Helper()
	got, err := p.Extract(context.Background(), pythonLang, "f.py", src, maxFileSize)
	if err != nil {
		t.Fatalf("scanner: %v", err)
	}
	want, err := p.Extract(context.Background(), refPyLang, "f.py", src, maxFileSize)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanner and query differ on %q:\nscanner %+v\nquery   %+v", src, got, want)
	}
}

func TestPyScanMatchesQuery(t *testing.T) {
	p := newParser()
	defer p.close()
	for _, src := range pyScanSeeds(t) {
		sameAsQuery(t, p, src)
	}
}

// TestPyScanMatchesQueryOnStdlib compares the two on a sample of real
// code, where the scanner's shortcuts (the strings and imports it does not
// enter) meet every construct the language has.
func TestPyScanMatchesQueryOnStdlib(t *testing.T) {
	dir := corpus.StdlibOrSkip(t)
	srcs := corpusSources(t, dir, func(l *Language) bool { return l == pythonLang })
	if len(srcs) == 0 {
		t.Skipf("no Python standard library at %s", dir)
	}
	p := newParser()
	defer p.close()
	for i := 0; i < len(srcs); i += 7 {
		sameAsQuery(t, p, srcs[i].src)
	}
}

func FuzzPyScanMatchesQuery(f *testing.F) {
	for _, src := range pyScanSeeds(f) {
		f.Add(src)
	}
	p := newParser()
	defer p.close()
	f.Fuzz(func(t *testing.T, src []byte) { sameAsQuery(t, p, src) })
}
