package parse

import (
	"strconv"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
)

var goLang = &Language{
	name:    Go,
	exts:    []string{".go"},
	grammar: golang.GetLanguage,
	query: `
(package_clause (package_identifier) @name) @package
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (_) @type) @type_spec
(type_alias name: (type_identifier) @name) @type_alias
(call_expression function: (_) @call)
(import_spec) @import
(short_var_declaration left: (expression_list . (identifier) @var) right: (expression_list . (_) @value))
(var_spec name: (identifier) @var type: (_) @vartype)
`,
	extract: extractGo,
}

// Pattern indexes of goLang.query, in order.
const (
	goPackage = iota
	goFunction
	goMethod
	goTypeSpec
	goTypeAlias
	goCall
	goImport
	goShortVar
	goVarSpec
)

func extractGo(x *extraction) {
	for {
		m, ok := x.qc.NextMatch()
		if !ok {
			break
		}
		switch m.PatternIndex {
		case goPackage:
			if n := x.capture(m, "name"); n != nil {
				x.out.Pkg = string(x.text(n))
			}
		case goFunction, goMethod:
			x.goFunc(m)
		case goTypeSpec, goTypeAlias:
			x.goType(m)
		case goCall:
			n := m.Captures[0].Node
			if n.Type() == "func_literal" {
				continue
			}
			x.calls = append(x.calls, callSite{pos: n.StartByte(), line: lineOf(n), name: compactCall(x.text(n))})
		case goImport:
			x.goImport(m.Captures[0].Node)
		case goShortVar, goVarSpec:
			x.goVar(m)
		}
	}
	x.finish(func(d *def, parent *Unit) Kind {
		switch {
		case d.class:
			return KindClass
		case d.recv != "":
			return KindMethod
		default:
			return KindFunction
		}
	})
}

func (x *extraction) goFunc(m *sitter.QueryMatch) {
	name := x.capture(m, "name")
	node := x.capture(m, "function")
	if node == nil {
		node = x.capture(m, "method")
	}
	if name == nil || node == nil {
		return
	}
	d := def{
		name: string(x.text(name)), startByte: node.StartByte(), endByte: node.EndByte(),
		start: lineOf(node), end: endLineOf(node),
	}
	end := node.EndByte()
	if body := node.ChildByFieldName("body"); body != nil {
		end = body.StartByte()
	}
	d.sig = oneLine(strings.ToValidUTF8(string(x.src[node.StartByte():end]), "?"), 240)
	if r := x.capture(m, "receiver"); r != nil {
		d.recvVar, d.recv = goReceiver(string(x.text(r)))
	}
	x.defs = append(x.defs, d)
}

// goReceiver reads "(r *T[K])" as variable "r" and type "T".
func goReceiver(s string) (name, typ string) {
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "("), ")")
	fields := strings.Fields(s)
	switch len(fields) {
	case 0:
		return "", ""
	case 1:
		typ = fields[0]
	default:
		name, typ = fields[0], strings.Join(fields[1:], "")
	}
	typ = strings.TrimLeft(typ, "*")
	if i := strings.IndexByte(typ, '['); i >= 0 {
		typ = typ[:i]
	}
	return name, typ
}

func (x *extraction) goType(m *sitter.QueryMatch) {
	name := x.capture(m, "name")
	node := x.capture(m, "type_spec")
	if node == nil {
		node = x.capture(m, "type_alias")
	}
	if name == nil || node == nil {
		return
	}
	d := def{
		class: true, name: string(x.text(name)), startByte: node.StartByte(), endByte: node.EndByte(),
		start: lineOf(node), end: endLineOf(node),
	}
	typ := x.capture(m, "type")
	switch {
	case typ == nil:
		d.sig = "type " + oneLine(string(x.text(node)), 160)
	case typ.Type() == "struct_type" || typ.Type() == "interface_type":
		head := string(x.src[node.StartByte():typ.StartByte()])
		d.sig = "type " + oneLine(head, 160) + " " + strings.TrimSuffix(typ.Type(), "_type")
	default:
		d.sig = "type " + oneLine(string(x.text(node)), 160)
	}
	d.sig = strings.ToValidUTF8(d.sig, "?")
	x.defs = append(x.defs, d)
}

func (x *extraction) goImport(n *sitter.Node) {
	p := n.ChildByFieldName("path")
	if p == nil {
		return
	}
	raw := string(x.text(p))
	path, err := strconv.Unquote(raw)
	if err != nil {
		path = strings.Trim(raw, "\"`")
	}
	imp := Import{Module: path, Line: lineOf(n)}
	if name := n.ChildByFieldName("name"); name != nil {
		imp.Alias = string(x.text(name))
	}
	x.out.Imports = append(x.out.Imports, imp)
}

// goVar records what a variable holds when its type is plain to see:
// "x := T{...}", "x := &T{...}" and "var x T" give Type "T{}"; "x := F(...)"
// gives Type "F", whose declared result type resolution reads.
func (x *extraction) goVar(m *sitter.QueryMatch) {
	v := x.capture(m, "var")
	if v == nil {
		return
	}
	var typ string
	if t := x.capture(m, "vartype"); t != nil {
		typ = goTypeName(x.text(t))
	} else if val := x.capture(m, "value"); val != nil {
		typ = x.goValueType(val)
	}
	if typ == "" {
		return
	}
	x.vars = append(x.vars, callSite{pos: v.StartByte(), line: lineOf(v), name: string(x.text(v)), typ: typ})
}

func (x *extraction) goValueType(val *sitter.Node) string {
	switch val.Type() {
	case "unary_expression":
		if op := val.ChildByFieldName("operand"); op != nil && op.Type() == "composite_literal" {
			return x.goValueType(op)
		}
	case "composite_literal":
		if t := val.ChildByFieldName("type"); t != nil {
			return goTypeName(x.text(t))
		}
	case "call_expression":
		if f := val.ChildByFieldName("function"); f != nil {
			if name := compactCall(x.text(f)); IsDotted(name) {
				return name
			}
		}
	}
	return ""
}

// goTypeName turns "*pkg.T[K]" into "pkg.T{}", the mark of a known type;
// "" for types that have no methods of their own in the repo (maps,
// slices, funcs, channels).
func goTypeName(b []byte) string {
	s := strings.TrimLeft(compactCall(b), "*")
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	if !IsDotted(s) {
		return ""
	}
	return s + "{}"
}
