package parse

// The patterns the script extractor reads, matched on the recorded tree
// (scan_script.go). Each is written as a tree-sitter query would put it;
// script_match_test.go holds those queries and checks that both find the
// same matches.

// scriptMatch is one pattern found at node, with the nodes it captured
// (noNode where the pattern has no such capture).
type scriptMatch struct {
	role  scriptRole
	node  snode
	name  snode
	value snode
	fn    snode // wrapped: the wrapping function
	req   snode // require: the called name
	spec  snode // require: the module string
	prop  snode // require: the member taken
	left  snode // assign: the assigned member
	vvar  snode // newvar, param, typedfield: the variable
	vtype snode // newvar, param, typedfield: its type or constructor
}

type scriptRole uint8

const (
	roleFunction   scriptRole = iota + 1 // function_declaration name: (identifier)
	roleClass                            // class_declaration name: (_)
	roleMethod                           // method_definition name: (_)
	roleBinding                          // const name = <function, class or object>
	roleWrapped                          // const name = wrap(..., <function>)
	roleRequire                          // const name = require("m")[.prop]
	roleAssign                           // a.b = <function, class, object, name or call>
	rolePair                             // key: <function>
	roleNewVar                           // x = new T(), this.x = new T()
	roleCall                             // f(...), new f(...): node is f
	roleImport                           // import_statement
	roleExport                           // export_statement
	roleField                            // class field holding a function
	roleType                             // interface, type alias, enum, namespace
	roleParam                            // x: T
	roleTypedField                       // class field x: T
	roleJSX                              // <Name ...>: node is Name
)

// scriptRoleNames are the roles as the queries name their outer captures.
var scriptRoleNames = [...]string{
	roleFunction: "function", roleClass: "class", roleMethod: "method", roleBinding: "binding",
	roleWrapped: "wrapped", roleRequire: "require", roleAssign: "assign", rolePair: "pair",
	roleNewVar: "newvar", roleCall: "call", roleImport: "import", roleExport: "export",
	roleField: "field", roleType: "type", roleParam: "param", roleTypedField: "typedfield", roleJSX: "jsx",
}

func (r scriptRole) String() string { return scriptRoleNames[r] }

// eachMatch calls fn with every match in the tree, in document order of
// the matched nodes.
func (t stree) eachMatch(fn func(m *scriptMatch)) {
	for n := snode(0); n < t.len(); n++ {
		t.match(n, fn)
	}
}

func (t stree) newMatch(role scriptRole, node snode) *scriptMatch {
	return &scriptMatch{role: role, node: node, name: noNode, value: noNode, fn: noNode, req: noNode,
		spec: noNode, prop: noNode, left: noNode, vvar: noNode, vtype: noNode}
}

// functionKinds are the values that define a function.
var functionKinds = []skind{kArrowFunction, kFunctionExpression, kGeneratorFunction}

func (t stree) match(n snode, fn func(m *scriptMatch)) {
	named := func(role scriptRole, nameKinds ...skind) {
		name := t.child(n, fName)
		if name != noNode && (len(nameKinds) == 0 || t.isKind(name, nameKinds...)) {
			m := t.newMatch(role, n)
			m.name = name
			fn(m)
		}
	}
	switch t.kind(n) {
	case kFunctionDeclaration, kGeneratorFunctionDeclaration:
		named(roleFunction, kIdentifier)
	case kClassDeclaration, kAbstractClassDeclaration:
		named(roleClass)
	case kMethodDefinition, kAbstractMethodSignature:
		named(roleMethod)
	case kInterfaceDeclaration, kTypeAliasDeclaration, kEnumDeclaration:
		named(roleType)
	case kInternalModule:
		named(roleType, kIdentifier)
	case kVariableDeclarator:
		t.declarator(n, fn)
	case kAssignmentExpression:
		t.assignment(n, fn)
	case kPair:
		t.member(n, rolePair, t.child(n, fKey), functionKinds, fn)
	case kFieldDefinition:
		t.member(n, roleField, t.child(n, fProperty), []skind{kArrowFunction, kFunctionExpression}, fn)
	case kPublicFieldDefinition:
		name := t.child(n, fName)
		t.member(n, roleField, name, []skind{kArrowFunction, kFunctionExpression}, fn)
		if t.kind(name) == kPropertyIdentifier {
			t.typed(n, roleTypedField, name, fn)
		}
	case kRequiredParameter, kOptionalParameter:
		if v := t.child(n, fPattern); t.kind(v) == kIdentifier {
			t.typed(n, roleParam, v, fn)
		}
	case kCallExpression:
		t.inner(roleCall, t.child(n, fFunction), fn)
	case kNewExpression:
		t.inner(roleCall, t.child(n, fConstructor), fn)
	case kJSXOpeningElement, kJSXSelfClosingElement:
		t.inner(roleJSX, t.child(n, fName), fn)
	case kImportStatement:
		fn(t.newMatch(roleImport, n))
	case kExportStatement:
		fn(t.newMatch(roleExport, n))
	}
}

// inner is a match whose node is the captured child itself.
func (t stree) inner(role scriptRole, c snode, fn func(m *scriptMatch)) {
	if c != noNode {
		fn(t.newMatch(role, c))
	}
}

// member is "name: value" whose value is one of kinds.
func (t stree) member(n snode, role scriptRole, name snode, kinds []skind, fn func(m *scriptMatch)) {
	if v := t.child(n, fValue); name != noNode && t.isKind(v, kinds...) {
		m := t.newMatch(role, n)
		m.name, m.value = name, v
		fn(m)
	}
}

// typed is "v: T" where T is a plain type name.
func (t stree) typed(n snode, role scriptRole, v snode, fn func(m *scriptMatch)) {
	ann := t.child(n, fType)
	if t.kind(ann) != kTypeAnnotation {
		return
	}
	t.children(ann, func(c snode) bool {
		if t.kind(c) == kTypeIdentifier {
			m := t.newMatch(role, n)
			m.vvar, m.vtype = v, c
			fn(m)
		}
		return true
	})
}

func (t stree) declarator(n snode, fn func(m *scriptMatch)) {
	name, val := t.child(n, fName), t.child(n, fValue)
	if name == noNode || val == noNode {
		return
	}
	ident := t.kind(name) == kIdentifier
	switch t.kind(val) {
	case kArrowFunction, kFunctionExpression, kGeneratorFunction, kClass, kObject:
		if ident {
			m := t.newMatch(roleBinding, n)
			m.name, m.value = name, val
			fn(m)
		}
	case kCallExpression:
		callee, args := t.child(val, fFunction), t.child(val, fArguments)
		if ident && callee != noNode && t.kind(args) == kArguments {
			if arg := t.firstOf(args, kArrowFunction, kFunctionExpression); arg != noNode {
				m := t.newMatch(roleWrapped, n)
				m.name, m.fn, m.value = name, callee, arg
				fn(m)
			}
		}
		if req, spec := t.requireCall(val); req != noNode {
			m := t.newMatch(roleRequire, n)
			m.name, m.req, m.spec = name, req, spec
			fn(m)
		}
	case kMemberExpression:
		prop := t.child(val, fProperty)
		if req, spec := t.requireCall(t.child(val, fObject)); ident && req != noNode && prop != noNode {
			m := t.newMatch(roleRequire, n)
			m.name, m.req, m.spec, m.prop = name, req, spec, prop
			fn(m)
		}
	case kNewExpression:
		if c := t.child(val, fConstructor); ident && c != noNode {
			m := t.newMatch(roleNewVar, n)
			m.vvar, m.vtype = name, c
			fn(m)
		}
	}
}

// requireCall reads "f('m')": a call of a plain name with one string
// argument, whose name and string it returns.
func (t stree) requireCall(call snode) (req, spec snode) {
	if t.kind(call) != kCallExpression {
		return noNode, noNode
	}
	req, args := t.child(call, fFunction), t.child(call, fArguments)
	if t.kind(req) != kIdentifier || t.kind(args) != kArguments {
		return noNode, noNode
	}
	if spec := t.soleNamedChild(args); t.kind(spec) == kString {
		return req, spec
	}
	return noNode, noNode
}

// firstOf is n's first named child of one of kinds.
func (t stree) firstOf(n snode, kinds ...skind) snode {
	found := noNode
	t.children(n, func(c snode) bool {
		if t.isKind(c, kinds...) {
			found = c
			return false
		}
		return true
	})
	return found
}

func (t stree) assignment(n snode, fn func(m *scriptMatch)) {
	left, right := t.child(n, fLeft), t.child(n, fRight)
	if t.kind(left) != kMemberExpression || right == noNode {
		return
	}
	switch obj := t.child(left, fObject); t.kind(obj) {
	case kIdentifier, kMemberExpression:
		switch t.kind(right) {
		case kArrowFunction, kFunctionExpression, kGeneratorFunction, kClass, kObject, kIdentifier, kCallExpression:
			m := t.newMatch(roleAssign, n)
			m.left, m.value = left, right
			fn(m)
		}
	case kThis:
		if c := t.child(right, fConstructor); t.kind(right) == kNewExpression && c != noNode {
			m := t.newMatch(roleNewVar, n)
			m.vvar, m.vtype = left, c
			fn(m)
		}
	}
}
