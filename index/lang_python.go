package index

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

var pythonLang = &language{
	name:    "python",
	exts:    []string{".py"},
	grammar: python.GetLanguage,
	query: `
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
(decorated_definition) @decorated
(call function: (_) @call)
(import_statement) @import
(import_from_statement) @import_from
(assignment left: (_) @var right: (call function: (_) @callee))
`,
	extract: extractPython,
	resolve: resolvePython,
}

// Pattern indexes of pythonLang.query, in order.
const (
	pyFunction = iota
	pyClass
	pyDecorated
	pyCall
	pyImport
	pyImportFrom
	pyAssign
)

func extractPython(x *extraction) {
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
	x.finish(func(d *def, parent *rawUnit) Kind {
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

func (x *extraction) pyDef(m *sitter.QueryMatch) {
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
func (x *extraction) pyBases(args *sitter.Node) []string {
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

// pyCallName normalises a callee: white space goes, and `super(A, self).m`
// becomes `super().m`, which is how resolution reads it.
func pyCallName(b []byte) string {
	if bytes.HasPrefix(b, []byte("super(")) {
		if i := bytes.Index(b, []byte(").")); i > 0 && bytes.IndexByte(b[i+2:], '(') < 0 {
			return "super()." + compactCall(b[i+2:])
		}
	}
	return compactCall(b)
}

func (x *extraction) pyImport(n *sitter.Node) {
	line := lineOf(n)
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "dotted_name":
			x.out.Imports = append(x.out.Imports, rawImport{Module: compactCall(x.text(c)), Line: line})
		case "aliased_import":
			mod, alias := c.ChildByFieldName("name"), c.ChildByFieldName("alias")
			if mod != nil && alias != nil {
				x.out.Imports = append(x.out.Imports, rawImport{
					Module: compactCall(x.text(mod)), Alias: string(x.text(alias)), Line: line,
				})
			}
		}
	}
}

func (x *extraction) pyImportFrom(n *sitter.Node) {
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
	base := rawImport{Module: mod, Level: level, Line: line}
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
func (x *extraction) pyAssign(m *sitter.QueryMatch) {
	v, callee := x.capture(m, "var"), x.capture(m, "callee")
	if v == nil || callee == nil {
		return
	}
	name := string(x.text(v))
	if !isDotted(name) {
		return
	}
	if head, rest, ok := strings.Cut(name, "."); ok && (head != "self" || strings.IndexByte(rest, '.') >= 0) {
		return
	}
	typ := pyCallName(x.text(callee))
	if !isDotted(typ) {
		return
	}
	x.vars = append(x.vars, callSite{pos: v.StartByte(), line: lineOf(v), name: name, typ: typ})
}
