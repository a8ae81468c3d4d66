package parse

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// The script walker (scan_script.c) records a file's syntax tree cut down
// to its named nodes, each under one of the kinds below; extractScript
// reads the patterns it needs from that table. Nodes of kinds not listed
// are recorded as kOther, comments not at all, and string literals
// without their insides.
type skind uint8

const (
	kNone    skind = iota // not recorded
	kOther                // any other named node, ERROR included; keep at 1 (KIND_OTHER in scan.h)
	kDefault              // the "default" keyword, the one anonymous node recorded
	kProgram
	kFunctionDeclaration
	kGeneratorFunctionDeclaration
	kClassDeclaration
	kAbstractClassDeclaration
	kMethodDefinition
	kAbstractMethodSignature
	kVariableDeclarator
	kArrowFunction
	kFunctionExpression
	kFunction // older grammars' name for a function expression
	kGeneratorFunction
	kClass
	kObject
	kCallExpression
	kNewExpression
	kArguments
	kString
	kMemberExpression
	kIdentifier
	kPropertyIdentifier
	kTypeIdentifier
	kThis
	kAssignmentExpression
	kPair
	kPairPattern
	kObjectPattern
	kShorthandPropertyIdentifier
	kShorthandPropertyIdentifierPattern
	kParenthesizedExpression
	kImportStatement
	kImportClause
	kImportRequireClause
	kNamespaceImport
	kNamedImports
	kImportSpecifier
	kExportStatement
	kExportClause
	kExportSpecifier
	kNamespaceExport
	kFieldDefinition
	kPublicFieldDefinition
	kInterfaceDeclaration
	kTypeAliasDeclaration
	kEnumDeclaration
	kInternalModule
	kRequiredParameter
	kOptionalParameter
	kTypeAnnotation
	kAccessibilityModifier
	kClassBody
	kClassHeritage
	kExtendsClause
	kImplementsClause
	kJSXOpeningElement
	kJSXSelfClosingElement
)

// scriptKinds names each kind's grammar symbol; the table maps every
// symbol of that name (aliases have their own) to the kind.
var scriptKinds = map[string]skind{
	"program": kProgram, "function_declaration": kFunctionDeclaration,
	"generator_function_declaration": kGeneratorFunctionDeclaration, "class_declaration": kClassDeclaration,
	"abstract_class_declaration": kAbstractClassDeclaration, "method_definition": kMethodDefinition,
	"abstract_method_signature": kAbstractMethodSignature, "variable_declarator": kVariableDeclarator,
	"arrow_function": kArrowFunction, "function_expression": kFunctionExpression, "function": kFunction,
	"generator_function": kGeneratorFunction, "class": kClass, "object": kObject,
	"call_expression": kCallExpression, "new_expression": kNewExpression, "arguments": kArguments,
	"string": kString, "member_expression": kMemberExpression, "identifier": kIdentifier,
	"property_identifier": kPropertyIdentifier, "type_identifier": kTypeIdentifier, "this": kThis,
	"assignment_expression": kAssignmentExpression, "pair": kPair, "pair_pattern": kPairPattern,
	"object_pattern": kObjectPattern, "shorthand_property_identifier": kShorthandPropertyIdentifier,
	"shorthand_property_identifier_pattern": kShorthandPropertyIdentifierPattern,
	"parenthesized_expression":              kParenthesizedExpression, "import_statement": kImportStatement,
	"import_clause": kImportClause, "import_require_clause": kImportRequireClause,
	"namespace_import": kNamespaceImport, "named_imports": kNamedImports, "import_specifier": kImportSpecifier,
	"export_statement": kExportStatement, "export_clause": kExportClause, "export_specifier": kExportSpecifier,
	"namespace_export": kNamespaceExport, "field_definition": kFieldDefinition,
	"public_field_definition": kPublicFieldDefinition, "interface_declaration": kInterfaceDeclaration,
	"type_alias_declaration": kTypeAliasDeclaration, "enum_declaration": kEnumDeclaration,
	"internal_module": kInternalModule, "required_parameter": kRequiredParameter,
	"optional_parameter": kOptionalParameter, "type_annotation": kTypeAnnotation,
	"accessibility_modifier": kAccessibilityModifier, "class_body": kClassBody,
	"class_heritage": kClassHeritage, "extends_clause": kExtendsClause, "implements_clause": kImplementsClause,
	"jsx_opening_element": kJSXOpeningElement, "jsx_self_closing_element": kJSXSelfClosingElement,
}

// kindLeaf marks kinds whose insides the walker skips (KIND_LEAF in
// scan.h): a string literal holds no calls, a comment nothing at all.
const kindLeaf = 0x80

// sfield is the field a node sits in under its parent.
type sfield uint8

const (
	fNone sfield = iota
	fName
	fValue
	fFunction
	fArguments
	fConstructor
	fLeft
	fRight
	fKey
	fObject
	fProperty
	fPattern
	fType
	fBody
	fSource
	fDeclaration
	fAlias
)

var scriptFields = map[string]sfield{
	"name": fName, "value": fValue, "function": fFunction, "arguments": fArguments,
	"constructor": fConstructor, "left": fLeft, "right": fRight, "key": fKey, "object": fObject,
	"property": fProperty, "pattern": fPattern, "type": fType, "body": fBody, "source": fSource,
	"declaration": fDeclaration, "alias": fAlias,
}

// scriptTable is the walker's table for one grammar: the kind of each
// symbol, and the field of each field id.
func scriptTable(g *sitter.Language) (kinds, fields []byte) {
	kinds = make([]byte, g.SymbolCount())
	for sym := range kinds {
		name := g.SymbolName(sitter.Symbol(sym))
		switch g.SymbolType(sitter.Symbol(sym)) {
		case sitter.SymbolTypeRegular:
			k, ok := scriptKinds[name]
			if !ok {
				k = kOther
			}
			kinds[sym] = byte(k)
			switch name {
			case "string":
				kinds[sym] |= kindLeaf
			case "comment":
				kinds[sym] = kindLeaf
			}
		case sitter.SymbolTypeAnonymous:
			if name == "default" {
				kinds[sym] = byte(kDefault)
			}
		}
	}
	fields = []byte{0}
	for id := 1; ; id++ {
		name := g.FieldName(id)
		if name == "" {
			break
		}
		fields = append(fields, byte(scriptFields[name]))
	}
	return kinds, fields
}

// stree is a script file's recorded tree: nodeWords words per node in
// document order (see scan_script.c), the root first.
type stree []uint32

// snode is a node's index in its stree; noNode is none.
type snode int32

const (
	nodeWords        = 8
	noNode    snode  = -1
	noRecord  uint32 = 0xffffffff
)

func (t stree) len() snode               { return snode(len(t) / nodeWords) }
func (t stree) at(n snode, w int) uint32 { return t[int(n)*nodeWords+w] }

func (t stree) kind(n snode) skind {
	if n == noNode {
		return kNone
	}
	return skind(t.at(n, 0))
}

func (t stree) field(n snode) sfield { return sfield(t.at(n, 0) >> 8) }
func (t stree) start(n snode) uint32 { return t.at(n, 1) }
func (t stree) end(n snode) uint32   { return t.at(n, 2) }
func (t stree) line(n snode) int     { return int(t.at(n, 3)) + 1 }
func (t stree) endLine(n snode) int  { return endLine(t.at(n, 3), t.at(n, 4), t.at(n, 5)) }
func (t stree) next(n snode) snode   { return snode(t.at(n, 7)) }
func (t stree) isNamed(n snode) bool { return t.kind(n) != kDefault }
func (t stree) isKind(n snode, ks ...skind) bool {
	k := t.kind(n)
	for _, want := range ks {
		if k == want {
			return true
		}
	}
	return false
}

func (t stree) parent(n snode) snode {
	if n == noNode {
		return noNode
	}
	if p := t.at(n, 6); p != noRecord {
		return snode(p)
	}
	return noNode
}

// children calls fn with each recorded child of n in order until fn
// returns false.
func (t stree) children(n snode, fn func(c snode) bool) {
	if n == noNode {
		return
	}
	for c, end := n+1, t.next(n); c < end && c < t.len(); c = t.next(c) {
		if !fn(c) {
			return
		}
	}
}

// child is n's first child in field f, as ChildByFieldName finds it.
func (t stree) child(n snode, f sfield) snode {
	found := noNode
	t.children(n, func(c snode) bool {
		if t.field(c) == f {
			found = c
			return false
		}
		return true
	})
	return found
}

// namedChildren are n's named children.
func (t stree) namedChildren(n snode) []snode {
	var out []snode
	t.children(n, func(c snode) bool {
		if t.isNamed(c) {
			out = append(out, c)
		}
		return true
	})
	return out
}

// soleNamedChild is n's named child if it has exactly one, else noNode.
func (t stree) soleNamedChild(n snode) snode {
	if first := t.namedChild(n, 0); first != noNode && t.namedChild(n, 1) == noNode {
		return first
	}
	return noNode
}

// namedChild is n's i-th named child.
func (t stree) namedChild(n snode, i int) snode {
	found := noNode
	t.children(n, func(c snode) bool {
		if !t.isNamed(c) {
			return true
		}
		if i == 0 {
			found = c
			return false
		}
		i--
		return true
	})
	return found
}
