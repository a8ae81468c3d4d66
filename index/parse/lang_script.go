package parse

import (
	"strings"

	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// JavaScript and TypeScript share one extractor: the grammars name their
// nodes alike, and .tsx differs from .ts only in its grammar. (They share
// one linker too, since a TypeScript file may import a JavaScript one and
// back.)
var (
	jsLang = &Language{
		name: JavaScript, exts: []string{".js", ".jsx", ".mjs", ".cjs"},
		grammar: javascript.GetLanguage, scan: scanJavaScript,
		extract: extractScript,
	}
	tsLang = &Language{
		name: TypeScript, exts: []string{".ts", ".mts", ".cts"},
		grammar: typescript.GetLanguage, scan: scanTypeScript,
		extract: extractScript,
	}
	tsxLang = &Language{
		name: TypeScript, exts: []string{".tsx"},
		grammar: tsx.GetLanguage, scan: scanTSX,
		extract: extractScript,
	}
)

// IsScript is whether a language name is JavaScript's or TypeScript's.
func IsScript(lang string) bool { return lang == JavaScript || lang == TypeScript }

// Levels of a script's Import: what kind of statement it came from.
const (
	ScriptImport      = 0 // import or require: Alias is bound to Module's export Name ("*": the module)
	ScriptReexport    = 1 // export ... from Module: Alias (or Name) is Module's export Name
	ScriptExportLocal = 2 // export { Name as Alias }, export default Name, module.exports = Name
)

// scriptExtraction is one script file's state on top of extraction.
type scriptExtraction struct {
	*extraction
	t stree
	// objects are top-level object literals that may hold methods; they
	// become units if they do.
	objects map[uint32]*def
	members []objectMember
}

type objectMember struct {
	object uint32 // start byte of the object literal
	d      def
}

// extractScript reads the walker's tree (scan_script.go) through the
// patterns of script_match.go.
func extractScript(x *extraction) {
	s := &scriptExtraction{extraction: x, t: stree(x.recs), objects: map[uint32]*def{}}
	s.t.eachMatch(s.match)
	s.addObjects()
	x.finish(func(d *def, parent *Unit) Kind {
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

func (s *scriptExtraction) match(m *scriptMatch) {
	n := m.node
	switch m.role {
	case roleFunction, roleClass:
		if name := s.str(m.name); name != "" {
			s.defs = append(s.defs, s.newDef(name, n, n, n))
		}
	case roleMethod:
		s.method(m)
	case roleBinding:
		s.binding(m)
	case roleWrapped:
		s.wrapped(m)
	case roleRequire:
		s.require(m)
	case roleAssign:
		s.assign(m)
	case rolePair, roleField:
		s.member(m)
	case roleType:
		s.typeDecl(m)
	case roleNewVar:
		s.addVar(m.vvar, compactCall(s.text(m.vvar)), compactCall(s.text(m.vtype))+"{}")
	case roleParam, roleTypedField:
		s.typedVar(m)
	case roleCall:
		s.call(n)
	case roleJSX:
		if name := compactCall(s.text(n)); name != "" && (name[0] >= 'A' && name[0] <= 'Z' || strings.Contains(name, ".")) {
			s.calls = append(s.calls, callSite{pos: s.t.start(n), line: s.t.line(n), name: name})
		}
	case roleImport:
		s.importStmt(n)
	case roleExport:
		s.exportStmt(n)
	}
}

// text is the source under a node, shared with src (no copy).
func (s *scriptExtraction) text(n snode) []byte {
	if n == noNode {
		return nil
	}
	return s.span(s.t.start(n), s.t.end(n))
}

func (s *scriptExtraction) str(n snode) string {
	if n == noNode {
		return ""
	}
	return strings.ToValidUTF8(string(s.text(n)), "?")
}

// spanDef is a definition spanning node, its signature not yet set.
func (s *scriptExtraction) spanDef(name string, node snode) def {
	t := s.t
	return def{name: name, startByte: t.start(node), endByte: t.end(node), start: t.line(node), end: t.endLine(node)}
}

// newDef is a definition spanning node, its signature the source from
// head up to fn's body; a class (fn a class node) also has its bases.
func (s *scriptExtraction) newDef(name string, head, node, fn snode) def {
	t := s.t
	d := s.spanDef(name, node)
	if t.isKind(fn, kClass, kClassDeclaration, kAbstractClassDeclaration) {
		d.class, d.bases = true, s.heritage(fn)
	}
	end := t.end(fn)
	if body := t.child(fn, fBody); body != noNode {
		end = t.start(body)
	}
	if t.start(head) <= end {
		d.sig = oneLine(strings.ToValidUTF8(string(s.span(t.start(head), end)), "?"), 240)
	}
	d.sig = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.sig), "=>"))
	return d
}

// heritage reads a class's extends clause: JavaScript puts the expression
// in class_heritage, TypeScript in an extends_clause inside it.
func (s *scriptExtraction) heritage(cls snode) []string {
	t := s.t
	for _, h := range t.namedChildren(cls) {
		if t.kind(h) != kClassHeritage {
			continue
		}
		for _, c := range t.namedChildren(h) {
			switch t.kind(c) {
			case kImplementsClause:
				continue
			case kExtendsClause:
				if v := t.child(c, fValue); v != noNode {
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
func (s *scriptExtraction) method(m *scriptMatch) {
	name := s.str(m.name)
	p := s.t.parent(m.node)
	if name == "" || p == noNode {
		return
	}
	d := s.newDef(name, m.node, m.node, m.node)
	switch s.t.kind(p) {
	case kClassBody:
		s.defs = append(s.defs, d)
	case kObject:
		s.members = append(s.members, objectMember{object: s.t.start(p), d: d})
	}
}

// member is a "key: function" pair of an object literal, or a class field
// holding a function.
func (s *scriptExtraction) member(m *scriptMatch) {
	name := strings.Trim(s.str(m.name), "'\"`")
	p := s.t.parent(m.node)
	if name == "" || m.value == noNode || p == noNode {
		return
	}
	d := s.newDef(name, m.node, m.node, m.value)
	if s.t.kind(p) == kObject {
		s.members = append(s.members, objectMember{object: s.t.start(p), d: d})
		return
	}
	s.defs = append(s.defs, d)
}

// binding is "const name = <function, class or object>".
func (s *scriptExtraction) binding(m *scriptMatch) {
	name, n, val := s.str(m.name), m.node, m.value
	if name == "" || val == noNode {
		return
	}
	head := s.declHead(n)
	if s.t.kind(val) == kObject {
		if s.topLevel(s.t.parent(n)) {
			s.object(name, head, n, val)
		}
		return
	}
	s.defs = append(s.defs, s.newDef(name, head, n, val))
}

// wrapped is a top-level "const f = wrap(..., (args) => body)": memo,
// forwardRef, curry helpers and the like, whose result is the function
// the argument defines. The signature is the declaration up to the call's
// arguments.
func (s *scriptExtraction) wrapped(m *scriptMatch) {
	name, n := s.str(m.name), m.node
	if name == "" || m.fn == noNode || !s.topLevel(s.t.parent(n)) {
		return
	}
	d := s.spanDef(name, n)
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(s.t.start(s.declHead(n)), s.t.end(m.fn))), "?"), 160) + "(…)"
	s.defs = append(s.defs, d)
}

// declHead is where a declarator's signature starts: its declaration
// when that declares nothing else ("const f = ..." rather than "f = ...").
func (s *scriptExtraction) declHead(n snode) snode {
	if p := s.t.parent(n); p != noNode && s.t.soleNamedChild(p) != noNode {
		return p
	}
	return n
}

// object notes a top-level object literal that becomes a unit if any of
// its members is a function.
func (s *scriptExtraction) object(name string, head, node, obj snode) {
	d := s.spanDef(name, node)
	d.class = true
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(s.t.start(head), s.t.start(obj))), "?"), 200) + " {…}"
	s.objects[s.t.start(obj)] = &d
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
func (s *scriptExtraction) topLevel(decl snode) bool {
	p := s.t.parent(decl)
	if s.t.kind(p) == kExportStatement {
		p = s.t.parent(p)
	}
	return s.t.kind(p) == kProgram
}

// require records "const x = require('m')", "const {a, b: c} =
// require('m')" and "const a = require('m').b" as imports.
func (s *scriptExtraction) require(m *scriptMatch) {
	if s.str(m.req) != "require" {
		return
	}
	spec := unquote(s.str(m.spec))
	if spec == "" || m.name == noNode {
		return
	}
	line := s.t.line(m.node)
	if m.prop != noNode {
		s.addImport(Import{Module: spec, Name: s.str(m.prop), Alias: s.str(m.name), Line: line})
		return
	}
	switch s.t.kind(m.name) {
	case kIdentifier:
		s.addImport(Import{Module: spec, Name: "*", Alias: s.str(m.name), Line: line})
	case kObjectPattern:
		s.eachNamePair(m.name, func(key, local string) {
			s.addImport(Import{Module: spec, Name: key, Alias: local, Line: line})
		})
	}
}

func (s *scriptExtraction) addImport(im Import) {
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
func (s *scriptExtraction) assign(m *scriptMatch) {
	n, val := m.node, m.value
	if m.left == noNode || val == noNode || !s.topLevel(s.t.parent(n)) {
		return
	}
	target := compactCall(s.text(m.left))
	line := s.t.line(n)
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
		if len(parts) != 2 || !s.isFunction(val) {
			return
		}
		d := s.newDef(parts[1], n, n, val)
		d.recv = parts[0]
		s.defs = append(s.defs, d)
	}
}

func (s *scriptExtraction) isFunction(n snode) bool {
	return s.t.isKind(n, kArrowFunction, kFunctionExpression, kGeneratorFunction, kFunction)
}

// exportValue records what a CommonJS export assigns: a name, a
// function or class (a unit under the exported name, or its own name),
// an object literal (its members), or another module.
func (s *scriptExtraction) exportValue(name string, val, stmt snode, line int) {
	t := s.t
	switch {
	case t.kind(val) == kIdentifier:
		s.addImport(Import{Level: ScriptExportLocal, Name: s.str(val), Alias: name, Line: line})
	case t.kind(val) == kObject && name == "default":
		s.objectExports(val, line)
		s.object("module.exports", stmt, stmt, val)
	case t.kind(val) == kCallExpression:
		arg := t.soleNamedChild(t.child(val, fArguments))
		if s.str(t.child(val, fFunction)) == "require" && arg != noNode {
			if spec := unquote(s.str(arg)); spec != "" {
				s.addImport(Import{Level: ScriptReexport, Module: spec, Name: "*", Line: line})
				s.addImport(Import{Level: ScriptReexport, Module: spec, Name: "default", Alias: "default", Line: line})
			}
		}
	case s.isFunction(val) || t.kind(val) == kClass:
		own := s.str(t.child(val, fName))
		if own == "" {
			own = name
		}
		s.defs = append(s.defs, s.newDef(own, stmt, stmt, val))
		if own != name {
			s.addImport(Import{Level: ScriptExportLocal, Name: own, Alias: name, Line: line})
		}
	}
}

// objectExports records "module.exports = { a, b: c }": shorthand and
// name-valued properties export those names.
func (s *scriptExtraction) objectExports(obj snode, line int) {
	s.eachNamePair(obj, func(key, local string) {
		s.addImport(Import{Level: ScriptExportLocal, Name: local, Alias: key, Line: line})
	})
}

// eachNamePair calls fn with each "key: local" of an object literal or a
// destructuring pattern whose value is a plain name; shorthand "a" is
// "a: a". Other properties name no binding and are passed over.
func (s *scriptExtraction) eachNamePair(obj snode, fn func(key, local string)) {
	t := s.t
	for _, c := range t.namedChildren(obj) {
		switch t.kind(c) {
		case kShorthandPropertyIdentifier, kShorthandPropertyIdentifierPattern:
			fn(s.str(c), s.str(c))
		case kPair, kPairPattern:
			k, v := t.child(c, fKey), t.child(c, fValue)
			if k != noNode && t.kind(v) == kIdentifier {
				fn(s.str(k), s.str(v))
			}
		}
	}
}

func (s *scriptExtraction) typeDecl(m *scriptMatch) {
	name, n := s.str(m.name), m.node
	if name == "" {
		return
	}
	d := s.spanDef(name, n)
	d.class = true
	end := s.t.end(n)
	if body := s.t.child(n, fBody); body != noNode {
		end = s.t.start(body)
	}
	d.sig = oneLine(strings.ToValidUTF8(string(s.span(s.t.start(n), end)), "?"), 160)
	s.defs = append(s.defs, d)
}

func (s *scriptExtraction) addVar(at snode, name, typ string) {
	s.vars = append(s.vars, callSite{pos: s.t.start(at), line: s.t.line(at), name: name, typ: typ})
}

// typedVar records a declared type: a parameter "x: T" (and "this.x" for
// a constructor's "private x: T"), or a class field "x: T" as "this.x".
func (s *scriptExtraction) typedVar(m *scriptMatch) {
	name, typ := s.str(m.vvar), s.str(m.vtype)+"{}"
	if m.role == roleTypedField {
		s.addVar(m.vvar, "this."+name, typ)
		return
	}
	s.addVar(m.vvar, name, typ)
	if s.t.kind(s.t.namedChild(m.node, 0)) == kAccessibilityModifier {
		s.addVar(m.vvar, "this."+name, typ)
	}
}

func (s *scriptExtraction) call(fn snode) {
	switch s.t.kind(fn) {
	case kFunctionExpression, kArrowFunction, kParenthesizedExpression, kFunction, kClass:
		return // an immediately invoked expression names nothing
	}
	name := strings.ReplaceAll(compactCall(s.text(fn)), "?.", ".")
	if name == "" || name == "require" || name == "import" {
		return // module loads, recorded as imports
	}
	s.calls = append(s.calls, callSite{pos: s.t.start(fn), line: s.t.line(fn), name: name})
}

func (s *scriptExtraction) importStmt(n snode) {
	t := s.t
	line := t.line(n)
	spec := unquote(s.str(t.child(n, fSource)))
	for _, c := range t.namedChildren(n) {
		switch t.kind(c) {
		case kImportClause:
			s.importClause(c, spec, line)
		case kImportRequireClause: // TypeScript's import x = require("m")
			id, src := t.namedChild(c, 0), t.child(c, fSource)
			if id != noNode && src != noNode {
				s.addImport(Import{Module: unquote(s.str(src)), Name: "*", Alias: s.str(id), Line: line})
			}
		}
	}
}

func (s *scriptExtraction) importClause(c snode, spec string, line int) {
	if spec == "" {
		return
	}
	t := s.t
	for _, part := range t.namedChildren(c) {
		switch t.kind(part) {
		case kIdentifier:
			s.addImport(Import{Module: spec, Name: "default", Alias: s.str(part), Line: line})
		case kNamespaceImport:
			if id := t.namedChild(part, 0); id != noNode {
				s.addImport(Import{Module: spec, Name: "*", Alias: s.str(id), Line: line})
			}
		case kNamedImports:
			for _, sp := range t.namedChildren(part) {
				if t.kind(sp) == kImportSpecifier {
					name, alias := s.specifier(sp)
					s.addImport(Import{Module: spec, Name: name, Alias: alias, Line: line})
				}
			}
		}
	}
}

// specifier reads "name as alias" of an import or export specifier.
func (s *scriptExtraction) specifier(sp snode) (name, alias string) {
	name = unquoteName(s.str(s.t.child(sp, fName)))
	alias = unquoteName(s.str(s.t.child(sp, fAlias)))
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

func (s *scriptExtraction) exportStmt(n snode) {
	t := s.t
	line := t.line(n)
	spec := unquote(s.str(t.child(n, fSource)))
	isDefault, listed := false, false
	t.children(n, func(c snode) bool {
		switch t.kind(c) {
		case kDefault:
			isDefault = true
		case kExportClause:
			listed = true
			s.exportClause(c, spec, line)
		case kNamespaceExport:
			listed = true
			if id := t.namedChild(c, 0); id != noNode && spec != "" {
				s.addImport(Import{Level: ScriptReexport, Module: spec, Name: "*", Alias: unquoteName(s.str(id)), Line: line})
			}
		}
		return true
	})
	if spec != "" && !listed {
		s.addImport(Import{Level: ScriptReexport, Module: spec, Name: "*", Line: line}) // export * from
		return
	}
	if !isDefault {
		return
	}
	if decl := t.child(n, fDeclaration); decl != noNode {
		if name := s.str(t.child(decl, fName)); name != "" {
			s.addImport(Import{Level: ScriptExportLocal, Name: name, Alias: "default", Line: line})
		}
		return
	}
	if val := t.child(n, fValue); val != noNode {
		switch {
		case t.kind(val) == kObject:
			s.object("default", n, n, val)
		case t.kind(val) == kIdentifier || s.isFunction(val) || t.kind(val) == kClass:
			s.exportValue("default", val, n, line)
		}
	}
}

func (s *scriptExtraction) exportClause(c snode, spec string, line int) {
	for _, sp := range s.t.namedChildren(c) {
		if s.t.kind(sp) != kExportSpecifier {
			continue
		}
		name, alias := s.specifier(sp)
		if spec != "" {
			s.addImport(Import{Level: ScriptReexport, Module: spec, Name: name, Alias: alias, Line: line})
		} else {
			s.addImport(Import{Level: ScriptExportLocal, Name: name, Alias: alias, Line: line})
		}
	}
}
