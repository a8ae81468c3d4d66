package index

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// JavaScript and TypeScript share one extractor and one resolver: the
// grammars name their nodes alike, a TypeScript file may import a
// JavaScript one and back, and .tsx differs from .ts only in its grammar.
// The TypeScript entries leave resolve nil since jsLang's resolver links
// both.
var (
	jsLang = &language{
		name: langJavaScript, exts: []string{".js", ".jsx", ".mjs", ".cjs"},
		grammar: javascript.GetLanguage, query: scriptQuery + jsQuery + jsxQuery,
		extract: extractScript, resolve: resolveScript,
	}
	tsLang = &language{
		name: langTypeScript, exts: []string{".ts", ".mts", ".cts"},
		grammar: typescript.GetLanguage, query: scriptQuery + tsQuery,
		extract: extractScript,
	}
	tsxLang = &language{
		name: langTypeScript, exts: []string{".tsx"},
		grammar: tsx.GetLanguage, query: scriptQuery + tsQuery + jsxQuery,
		extract: extractScript,
	}
)

// The names of the script languages, as rawFile.Lang holds them.
const (
	langJavaScript = "javascript"
	langTypeScript = "typescript"
)

func isScript(lang string) bool { return lang == langJavaScript || lang == langTypeScript }

// Each pattern names its role in its outer capture; extractScript
// dispatches on that name, since the patterns differ by grammar.
const scriptQuery = `
[(function_declaration name: (identifier) @name) (generator_function_declaration name: (identifier) @name)] @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function) (class) (object)] @value) @binding
(variable_declarator name: (identifier) @name value: (call_expression function: (_) @fn arguments: (arguments [(arrow_function) (function_expression)] @value))) @wrapped
(variable_declarator name: (_) @name value: (call_expression function: (identifier) @req arguments: (arguments . (string) @spec .))) @require
(variable_declarator name: (identifier) @name value: (member_expression object: (call_expression function: (identifier) @req arguments: (arguments . (string) @spec .)) property: (_) @prop)) @require
(assignment_expression left: (member_expression object: [(identifier) (member_expression)]) @left right: [(arrow_function) (function_expression) (generator_function) (class) (object) (identifier) (call_expression)] @value) @assign
(pair key: (_) @name value: [(arrow_function) (function_expression) (generator_function)] @value) @pair
(variable_declarator name: (identifier) @var value: (new_expression constructor: (_) @vtype)) @newvar
(assignment_expression left: (member_expression object: (this)) @var right: (new_expression constructor: (_) @vtype)) @newvar
(call_expression function: (_) @call)
(new_expression constructor: (_) @call)
(import_statement) @import
(export_statement) @export
`

// jsQuery: class fields holding functions, under JavaScript's field name.
const jsQuery = `
(field_definition property: (_) @name value: [(arrow_function) (function_expression)] @value) @field
`

// tsQuery: TypeScript's own declarations, its class fields, and the
// declared types of parameters and fields, which say what x is in x.m().
const tsQuery = `
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)] @value) @field
(abstract_method_signature name: (_) @name) @method
[(interface_declaration name: (_) @name) (type_alias_declaration name: (_) @name) (enum_declaration name: (_) @name) (internal_module name: (identifier) @name)] @type
(abstract_class_declaration name: (_) @name) @class
[(required_parameter pattern: (identifier) @var type: (type_annotation (type_identifier) @vtype)) (optional_parameter pattern: (identifier) @var type: (type_annotation (type_identifier) @vtype))] @param
(public_field_definition name: (property_identifier) @var type: (type_annotation (type_identifier) @vtype)) @typedfield
`

// jsxQuery: <Component/> renders, that is calls, Component.
const jsxQuery = `
(jsx_opening_element name: (_) @jsx)
(jsx_self_closing_element name: (_) @jsx)
`

// Levels of a script's rawImport: what kind of statement it came from.
const (
	scriptImport      = 0 // import or require: Alias is bound to Module's export Name ("*": the module)
	scriptReexport    = 1 // export ... from Module: Alias (or Name) is Module's export Name
	scriptExportLocal = 2 // export { Name as Alias }, export default Name, module.exports = Name
)

// scriptRoles are the outer capture names of the query's patterns.
var scriptRoles = map[string]bool{
	"function": true, "class": true, "method": true, "binding": true, "require": true, "assign": true,
	"pair": true, "newvar": true, "call": true, "import": true, "export": true, "field": true, "type": true,
	"param": true, "typedfield": true, "jsx": true, "wrapped": true,
}

// scriptExtraction is one script file's state on top of extraction.
type scriptExtraction struct {
	*extraction
	// objects are top-level object literals that may hold methods; they
	// become units if they do.
	objects map[uint32]*def
	members []objectMember
	wraps   map[uint32]bool // declarations already taken by wrapped
}

type objectMember struct {
	object uint32 // start byte of the object literal
	d      def
}

func extractScript(x *extraction) {
	s := &scriptExtraction{extraction: x, objects: map[uint32]*def{}, wraps: map[uint32]bool{}}
	for {
		m, ok := x.qc.NextMatch()
		if !ok {
			break
		}
		role, node := s.role(m)
		if node == nil {
			continue
		}
		s.match(m, role, node)
	}
	s.addObjects()
	x.finish(func(d *def, parent *rawUnit) Kind {
		switch {
		case d.class:
			return KindClass
		case parent != nil && parent.Kind == KindClass, d.recv != "":
			return KindMethod
		default:
			return KindFunction
		}
	})
}

func (s *scriptExtraction) role(m *sitter.QueryMatch) (string, *sitter.Node) {
	for _, c := range m.Captures {
		if int(c.Index) < len(s.names) && scriptRoles[s.names[c.Index]] {
			return s.names[c.Index], c.Node
		}
	}
	return "", nil
}

func (s *scriptExtraction) match(m *sitter.QueryMatch, role string, n *sitter.Node) {
	switch role {
	case "function", "class":
		if name := s.str(s.capture(m, "name")); name != "" {
			s.defs = append(s.defs, s.newDef(name, n, n, n))
		}
	case "method":
		s.method(m, n)
	case "binding":
		s.binding(m, n)
	case "wrapped":
		s.wrapped(m, n)
	case "require":
		s.require(m, n)
	case "assign":
		s.assign(m, n)
	case "pair", "field":
		s.member(m, n)
	case "type":
		s.typeDecl(m, n)
	case "newvar":
		s.newVar(m)
	case "param", "typedfield":
		s.typedVar(m, role, n)
	case "call":
		s.call(n)
	case "jsx":
		if name := compactCall(s.text(n)); name != "" && (name[0] >= 'A' && name[0] <= 'Z' || strings.Contains(name, ".")) {
			s.calls = append(s.calls, callSite{pos: n.StartByte(), line: lineOf(n), name: name})
		}
	case "import":
		s.importStmt(n)
	case "export":
		s.exportStmt(n)
	}
}

func (s *scriptExtraction) str(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return strings.ToValidUTF8(string(s.text(n)), "?")
}

// newDef is a definition spanning node, its signature the source from
// head up to fn's body; a class (fn a class node) also has its bases.
func (s *scriptExtraction) newDef(name string, head, node, fn *sitter.Node) def {
	d := def{name: name, startByte: node.StartByte(), endByte: node.EndByte(), start: lineOf(node), end: endLineOf(node)}
	switch fn.Type() {
	case "class", "class_declaration", "abstract_class_declaration":
		d.class, d.bases = true, s.heritage(fn)
	}
	end := fn.EndByte()
	if body := fn.ChildByFieldName("body"); body != nil {
		end = body.StartByte()
	}
	if head.StartByte() <= end {
		d.sig = oneLine(strings.ToValidUTF8(string(s.span(head.StartByte(), end)), "?"), 240)
	}
	d.sig = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.sig), "=>"))
	return d
}

// heritage reads a class's extends clause: JavaScript puts the expression
// in class_heritage, TypeScript in an extends_clause inside it.
func (s *scriptExtraction) heritage(cls *sitter.Node) []string {
	for i := 0; i < int(cls.NamedChildCount()); i++ {
		h := cls.NamedChild(i)
		if h.Type() != "class_heritage" {
			continue
		}
		for j := 0; j < int(h.NamedChildCount()); j++ {
			c := h.NamedChild(j)
			switch c.Type() {
			case "implements_clause":
				continue
			case "extends_clause":
				if v := c.ChildByFieldName("value"); v != nil {
					return []string{compactCall(s.text(v))}
				}
			default:
				return []string{compactCall(s.text(c))}
			}
		}
	}
	return nil
}

// method keeps class methods, and methods of object literals that are
// units themselves.
func (s *scriptExtraction) method(m *sitter.QueryMatch, n *sitter.Node) {
	name := s.str(s.capture(m, "name"))
	p := n.Parent()
	if name == "" || p == nil {
		return
	}
	d := s.newDef(name, n, n, n)
	switch p.Type() {
	case "class_body":
		s.defs = append(s.defs, d)
	case "object":
		s.members = append(s.members, objectMember{object: p.StartByte(), d: d})
	}
}

// member is a "key: function" pair of an object literal, or a class field
// holding a function.
func (s *scriptExtraction) member(m *sitter.QueryMatch, n *sitter.Node) {
	name := strings.Trim(s.str(s.capture(m, "name")), "'\"`")
	val := s.capture(m, "value")
	p := n.Parent()
	if name == "" || val == nil || p == nil {
		return
	}
	d := s.newDef(name, n, n, val)
	if p.Type() == "object" {
		s.members = append(s.members, objectMember{object: p.StartByte(), d: d})
		return
	}
	s.defs = append(s.defs, d)
}

// binding is "const name = <function, class or object>".
func (s *scriptExtraction) binding(m *sitter.QueryMatch, n *sitter.Node) {
	name, val := s.str(s.capture(m, "name")), s.capture(m, "value")
	if name == "" || val == nil {
		return
	}
	head := declHead(n)
	switch val.Type() {
	case "object":
		if topLevel(n.Parent()) {
			s.object(name, head, n, val)
		}
	default:
		s.defs = append(s.defs, s.newDef(name, head, n, val))
	}
}

// wrapped is a top-level "const f = wrap(..., (args) => body)": memo,
// forwardRef, curry helpers and the like, whose result is the function
// the argument defines. The signature is the declaration up to the call's
// arguments.
func (s *scriptExtraction) wrapped(m *sitter.QueryMatch, n *sitter.Node) {
	name, fn := s.str(s.capture(m, "name")), s.capture(m, "fn")
	if name == "" || fn == nil || s.wraps[n.StartByte()] || !topLevel(n.Parent()) {
		return
	}
	s.wraps[n.StartByte()] = true // one match per function argument
	head := declHead(n)
	d := def{name: name, startByte: n.StartByte(), endByte: n.EndByte(), start: lineOf(n), end: endLineOf(n)}
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(head.StartByte(), fn.EndByte())), "?"), 160) + "(…)"
	s.defs = append(s.defs, d)
}

// declHead is where a declarator's signature starts: its declaration
// when that declares nothing else ("const f = ..." rather than "f = ...").
func declHead(n *sitter.Node) *sitter.Node {
	if p := n.Parent(); p != nil && p.NamedChildCount() == 1 {
		return p
	}
	return n
}

// object notes a top-level object literal that becomes a unit if any of
// its members is a function.
func (s *scriptExtraction) object(name string, head, node, obj *sitter.Node) {
	d := def{class: true, name: name, startByte: node.StartByte(), endByte: node.EndByte(),
		start: lineOf(node), end: endLineOf(node)}
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(head.StartByte(), obj.StartByte())), "?"), 200) + " {…}"
	s.objects[obj.StartByte()] = &d
}

// addObjects turns the noted objects that hold methods into units, with
// their methods, and drops the methods of other object literals.
func (s *scriptExtraction) addObjects() {
	used := map[uint32]bool{}
	for _, om := range s.members {
		if d, ok := s.objects[om.object]; ok {
			s.defs = append(s.defs, om.d)
			if !used[om.object] {
				used[om.object] = true
				s.defs = append(s.defs, *d)
			}
		}
	}
}

// topLevel reports whether a declaration sits at the top of the module,
// exported or not.
func topLevel(decl *sitter.Node) bool {
	if decl == nil {
		return false
	}
	p := decl.Parent()
	if p != nil && p.Type() == "export_statement" {
		p = p.Parent()
	}
	return p != nil && p.Type() == "program"
}

// require records "const x = require('m')", "const {a, b: c} =
// require('m')" and "const a = require('m').b" as imports.
func (s *scriptExtraction) require(m *sitter.QueryMatch, n *sitter.Node) {
	if s.str(s.capture(m, "req")) != "require" {
		return
	}
	spec := unquote(s.str(s.capture(m, "spec")))
	name := s.capture(m, "name")
	if spec == "" || name == nil {
		return
	}
	line := lineOf(n)
	if prop := s.capture(m, "prop"); prop != nil {
		s.addImport(rawImport{Module: spec, Name: s.str(prop), Alias: s.str(name), Line: line})
		return
	}
	switch name.Type() {
	case "identifier":
		s.addImport(rawImport{Module: spec, Name: "*", Alias: s.str(name), Line: line})
	case "object_pattern":
		s.eachNamePair(name, func(key, local string) {
			s.addImport(rawImport{Module: spec, Name: key, Alias: local, Line: line})
		})
	}
}

func (s *scriptExtraction) addImport(im rawImport) {
	s.out.Imports = append(s.out.Imports, im)
}

// unquote strips a string literal's quotes; escapes are rare in module
// specifiers and kept as written.
func unquote(lit string) string {
	if len(lit) >= 2 && strings.ContainsRune("'\"`", rune(lit[0])) && lit[len(lit)-1] == lit[0] {
		return lit[1 : len(lit)-1]
	}
	return ""
}

// assign handles the top-level assignments that define or export:
// module.exports = ..., exports.name = ..., C.prototype.m = function,
// C.m = function.
func (s *scriptExtraction) assign(m *sitter.QueryMatch, n *sitter.Node) {
	left, val := s.capture(m, "left"), s.capture(m, "value")
	if left == nil || val == nil || !topLevel(n.Parent()) {
		return
	}
	target := compactCall(s.text(left))
	line := lineOf(n)
	switch {
	case target == "module.exports":
		s.exportValue("default", val, n, line)
	case strings.HasPrefix(target, "module.exports.") || strings.HasPrefix(target, "exports."):
		name := target[strings.LastIndexByte(target, '.')+1:]
		s.exportValue(name, val, n, line)
	default:
		parts := strings.Split(target, ".")
		if len(parts) == 3 && parts[1] == "prototype" {
			parts = []string{parts[0], parts[2]}
		}
		if len(parts) != 2 || !isFunctionNode(val) {
			return
		}
		d := s.newDef(parts[1], n, n, val)
		d.recv = parts[0]
		s.defs = append(s.defs, d)
	}
}

func isFunctionNode(n *sitter.Node) bool {
	switch n.Type() {
	case "arrow_function", "function_expression", "generator_function", "function":
		return true
	}
	return false
}

// exportValue records what a CommonJS export assigns: a name, a
// function or class (a unit under the exported name, or its own name),
// an object literal (its members), or another module.
func (s *scriptExtraction) exportValue(name string, val, stmt *sitter.Node, line int) {
	switch {
	case val.Type() == "identifier":
		s.addImport(rawImport{Level: scriptExportLocal, Name: s.str(val), Alias: name, Line: line})
	case val.Type() == "object" && name == "default":
		s.objectExports(val, line)
		s.object("module.exports", stmt, stmt, val)
	case val.Type() == "call_expression":
		fn, args := val.ChildByFieldName("function"), val.ChildByFieldName("arguments")
		if fn != nil && args != nil && s.str(fn) == "require" && args.NamedChildCount() == 1 {
			if spec := unquote(s.str(args.NamedChild(0))); spec != "" {
				s.addImport(rawImport{Level: scriptReexport, Module: spec, Name: "*", Line: line})
				s.addImport(rawImport{Level: scriptReexport, Module: spec, Name: "default", Alias: "default", Line: line})
			}
		}
	case isFunctionNode(val) || val.Type() == "class":
		own := s.str(val.ChildByFieldName("name"))
		if own == "" {
			own = name
		}
		s.defs = append(s.defs, s.newDef(own, stmt, stmt, val))
		if own != name {
			s.addImport(rawImport{Level: scriptExportLocal, Name: own, Alias: name, Line: line})
		}
	}
}

// objectExports records "module.exports = { a, b: c }": shorthand and
// name-valued properties export those names.
func (s *scriptExtraction) objectExports(obj *sitter.Node, line int) {
	s.eachNamePair(obj, func(key, local string) {
		s.addImport(rawImport{Level: scriptExportLocal, Name: local, Alias: key, Line: line})
	})
}

// eachNamePair calls fn with each "key: local" of an object literal or a
// destructuring pattern whose value is a plain name; shorthand "a" is
// "a: a". Other properties name no binding and are passed over.
func (s *scriptExtraction) eachNamePair(obj *sitter.Node, fn func(key, local string)) {
	for i := 0; i < int(obj.NamedChildCount()); i++ {
		c := obj.NamedChild(i)
		switch c.Type() {
		case "shorthand_property_identifier", "shorthand_property_identifier_pattern":
			fn(s.str(c), s.str(c))
		case "pair", "pair_pattern":
			k, v := c.ChildByFieldName("key"), c.ChildByFieldName("value")
			if k != nil && v != nil && v.Type() == "identifier" {
				fn(s.str(k), s.str(v))
			}
		}
	}
}

func (s *scriptExtraction) typeDecl(m *sitter.QueryMatch, n *sitter.Node) {
	name := s.str(s.capture(m, "name"))
	if name == "" {
		return
	}
	d := def{class: true, name: name, startByte: n.StartByte(), endByte: n.EndByte(), start: lineOf(n), end: endLineOf(n)}
	end := n.EndByte()
	if body := n.ChildByFieldName("body"); body != nil {
		end = body.StartByte()
	}
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(n.StartByte(), end)), "?"), 160)
	s.defs = append(s.defs, d)
}

// newVar records "x = new T()" and "this.x = new T()": x holds a T.
func (s *scriptExtraction) newVar(m *sitter.QueryMatch) {
	v, t := s.capture(m, "var"), s.capture(m, "vtype")
	if v == nil || t == nil {
		return
	}
	s.vars = append(s.vars, callSite{pos: v.StartByte(), line: lineOf(v), name: compactCall(s.text(v)), typ: compactCall(s.text(t)) + "{}"})
}

// typedVar records a declared type: a parameter "x: T" (and "this.x" for
// a constructor's "private x: T"), or a class field "x: T" as "this.x".
func (s *scriptExtraction) typedVar(m *sitter.QueryMatch, role string, n *sitter.Node) {
	v, t := s.capture(m, "var"), s.capture(m, "vtype")
	if v == nil || t == nil {
		return
	}
	name, typ := s.str(v), s.str(t)+"{}"
	add := func(name string) {
		s.vars = append(s.vars, callSite{pos: v.StartByte(), line: lineOf(v), name: name, typ: typ})
	}
	if role == "typedfield" {
		add("this." + name)
		return
	}
	add(name)
	if first := n.NamedChild(0); first != nil && first.Type() == "accessibility_modifier" {
		add("this." + name)
	}
}

func (s *scriptExtraction) call(fn *sitter.Node) {
	switch fn.Type() {
	case "function_expression", "arrow_function", "parenthesized_expression", "function", "class":
		return // an immediately invoked expression names nothing
	}
	name := strings.ReplaceAll(compactCall(s.text(fn)), "?.", ".")
	if name == "" || name == "require" || name == "import" {
		return // module loads, recorded as imports
	}
	s.calls = append(s.calls, callSite{pos: fn.StartByte(), line: lineOf(fn), name: name})
}

func (s *scriptExtraction) importStmt(n *sitter.Node) {
	line := lineOf(n)
	spec := unquote(s.str(n.ChildByFieldName("source")))
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "import_clause":
			s.importClause(c, spec, line)
		case "import_require_clause": // TypeScript's import x = require("m")
			id, src := c.NamedChild(0), c.ChildByFieldName("source")
			if id != nil && src != nil {
				s.addImport(rawImport{Module: unquote(s.str(src)), Name: "*", Alias: s.str(id), Line: line})
			}
		}
	}
}

func (s *scriptExtraction) importClause(c *sitter.Node, spec string, line int) {
	if spec == "" {
		return
	}
	for j := 0; j < int(c.NamedChildCount()); j++ {
		part := c.NamedChild(j)
		switch part.Type() {
		case "identifier":
			s.addImport(rawImport{Module: spec, Name: "default", Alias: s.str(part), Line: line})
		case "namespace_import":
			if id := part.NamedChild(0); id != nil {
				s.addImport(rawImport{Module: spec, Name: "*", Alias: s.str(id), Line: line})
			}
		case "named_imports":
			for k := 0; k < int(part.NamedChildCount()); k++ {
				if sp := part.NamedChild(k); sp.Type() == "import_specifier" {
					name, alias := s.specifier(sp)
					s.addImport(rawImport{Module: spec, Name: name, Alias: alias, Line: line})
				}
			}
		}
	}
}

// specifier reads "name as alias" of an import or export specifier.
func (s *scriptExtraction) specifier(sp *sitter.Node) (name, alias string) {
	name = unquoteName(s.str(sp.ChildByFieldName("name")))
	alias = unquoteName(s.str(sp.ChildByFieldName("alias")))
	if alias == "" {
		alias = name
	}
	return name, alias
}

// unquoteName accepts the string names ES2022 allows in specifiers.
func unquoteName(s string) string {
	if q := unquote(s); q != "" {
		return q
	}
	return s
}

func (s *scriptExtraction) exportStmt(n *sitter.Node) {
	line := lineOf(n)
	spec := unquote(s.str(n.ChildByFieldName("source")))
	isDefault, listed := false, false
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch c.Type() {
		case "default":
			isDefault = true
		case "export_clause":
			listed = true
			s.exportClause(c, spec, line)
		case "namespace_export":
			listed = true
			if id := c.NamedChild(0); id != nil && spec != "" {
				s.addImport(rawImport{Level: scriptReexport, Module: spec, Name: "*", Alias: unquoteName(s.str(id)), Line: line})
			}
		}
	}
	if spec != "" && !listed {
		s.addImport(rawImport{Level: scriptReexport, Module: spec, Name: "*", Line: line}) // export * from
		return
	}
	if !isDefault {
		return
	}
	if decl := n.ChildByFieldName("declaration"); decl != nil {
		if name := s.str(decl.ChildByFieldName("name")); name != "" {
			s.addImport(rawImport{Level: scriptExportLocal, Name: name, Alias: "default", Line: line})
		}
		return
	}
	if val := n.ChildByFieldName("value"); val != nil {
		switch {
		case val.Type() == "object":
			s.object("default", n, n, val)
		case val.Type() == "identifier" || isFunctionNode(val) || val.Type() == "class":
			s.exportValue("default", val, n, line)
		}
	}
}

func (s *scriptExtraction) exportClause(c *sitter.Node, spec string, line int) {
	for k := 0; k < int(c.NamedChildCount()); k++ {
		sp := c.NamedChild(k)
		if sp.Type() != "export_specifier" {
			continue
		}
		name, alias := s.specifier(sp)
		if spec != "" {
			s.addImport(rawImport{Level: scriptReexport, Module: spec, Name: name, Alias: alias, Line: line})
		} else {
			s.addImport(rawImport{Level: scriptExportLocal, Name: name, Alias: alias, Line: line})
		}
	}
}
