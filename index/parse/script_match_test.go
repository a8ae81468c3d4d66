package parse

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/swe-adept/swe-adept/index/internal/corpus"
)

// The script matcher (script_match.go) must find what these tree-sitter
// queries find: the queries state the patterns plainly, the matcher on
// the walker's table is the fast way to follow them.

// The patterns as tree-sitter queries: each names its role in its outer
// capture (scriptRoleNames).
const refScriptQuery = `
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
const refJSQuery = `
(field_definition property: (_) @name value: [(arrow_function) (function_expression)] @value) @field
`

// tsQuery: TypeScript's own declarations, its class fields, and the
// declared types of parameters and fields, which say what x is in x.m().
const refTSQuery = `
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)] @value) @field
(abstract_method_signature name: (_) @name) @method
[(interface_declaration name: (_) @name) (type_alias_declaration name: (_) @name) (enum_declaration name: (_) @name) (internal_module name: (identifier) @name)] @type
(abstract_class_declaration name: (_) @name) @class
[(required_parameter pattern: (identifier) @var type: (type_annotation (type_identifier) @vtype)) (optional_parameter pattern: (identifier) @var type: (type_annotation (type_identifier) @vtype))] @param
(public_field_definition name: (property_identifier) @var type: (type_annotation (type_identifier) @vtype)) @typedfield
`

// jsxQuery: <Component/> renders, that is calls, Component.
const refJSXQuery = `
(jsx_opening_element name: (_) @jsx)
(jsx_self_closing_element name: (_) @jsx)
`

func refScriptQueryFor(l *Language) string {
	switch l {
	case jsLang:
		return refScriptQuery + refJSQuery + refJSXQuery
	case tsLang:
		return refScriptQuery + refTSQuery
	default:
		return refScriptQuery + refTSQuery + refJSXQuery
	}
}

// queryMatches lists the query's matches as "role@start-end name=s-e ...",
// sorted; a role found twice at one node (one match per function argument
// of a wrapper call) counts once, with its first match.
func queryMatches(t testing.TB, l *Language, src []byte) []string {
	t.Helper()
	q, err := sitter.NewQuery([]byte(refScriptQueryFor(l)), l.grammar())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	tree := refParse(t, l, src)
	defer tree.Close()
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(q, tree.RootNode())
	roles := map[string]bool{}
	for _, r := range scriptRoleNames {
		roles[r] = r != ""
	}
	var out []string
	seen := map[string]bool{}
	for {
		m, ok := qc.NextMatch()
		if !ok {
			break
		}
		var role string
		var node *sitter.Node
		caps := map[string]string{}
		for _, c := range m.Captures {
			name := q.CaptureNameForId(c.Index)
			if roles[name] {
				role, node = name, c.Node
				continue
			}
			caps[name] = fmt.Sprintf("%d-%d", c.Node.StartByte(), c.Node.EndByte())
		}
		if node == nil {
			continue
		}
		key := fmt.Sprintf("%s@%d-%d", role, node.StartByte(), node.EndByte())
		if seen[key] && role == "wrapped" {
			continue
		}
		seen[key] = true
		out = append(out, matchString(key, caps))
	}
	slices.Sort(out)
	return out
}

// scanMatches lists the matcher's matches as queryMatches does.
func scanMatches(t testing.TB, sc *scanner, l *Language, src []byte) []string {
	t.Helper()
	recs, _, err := sc.scan(context.Background(), l.scan, src)
	if err != nil {
		t.Fatal(err)
	}
	tr := stree(recs)
	var out []string
	tr.eachMatch(func(m *scriptMatch) {
		caps := map[string]string{}
		for name, n := range map[string]snode{"name": m.name, "value": m.value, "fn": m.fn, "req": m.req,
			"spec": m.spec, "prop": m.prop, "left": m.left, "var": m.vvar, "vtype": m.vtype} {
			if n != noNode {
				caps[name] = fmt.Sprintf("%d-%d", tr.start(n), tr.end(n))
			}
		}
		out = append(out, matchString(fmt.Sprintf("%s@%d-%d", m.role, tr.start(m.node), tr.end(m.node)), caps))
	})
	slices.Sort(out)
	return out
}

func matchString(key string, caps map[string]string) string {
	var b strings.Builder
	b.WriteString(key)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range caps {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, " %s=%s", name, caps[name])
	}
	return b.String()
}

// sameMatches fails if the queries and the matcher differ on src. The
// walker does not record comments, so to the matcher "f(/* c */ 'x')"
// has one argument where the query's anchors see two; the two are
// compared on the source with its comments blanked.
func sameMatches(t testing.TB, sc *scanner, l *Language, src []byte) {
	t.Helper()
	src = blankComments(t, l, src)
	want, got := queryMatches(t, l, src), scanMatches(t, sc, l, src)
	if !slices.Equal(got, want) {
		var missing, extra []string
		for _, w := range want {
			if !slices.Contains(got, w) {
				missing = append(missing, w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				extra = append(extra, g)
			}
		}
		t.Fatalf("matcher and queries differ on %s source %q:\nonly the queries: %v\nonly the matcher: %v", l.exts[0], src, missing, extra)
	}
}

// refParse parses src with the library's own parser.
func refParse(t testing.TB, l *Language, src []byte) *sitter.Tree {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(l.grammar())
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// blankComments turns every comment into spaces, keeping its newlines (a
// comment across lines ends a statement as a newline would).
func blankComments(t testing.TB, l *Language, src []byte) []byte {
	t.Helper()
	tree := refParse(t, l, src)
	defer tree.Close()
	out := slices.Clone(src)
	var visit func(n *sitter.Node)
	visit = func(n *sitter.Node) {
		if n.Type() == "comment" {
			for i := n.StartByte(); i < n.EndByte() && int(i) < len(out); i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			visit(n.Child(i))
		}
	}
	visit(tree.RootNode())
	return out
}

func scriptMatchSeeds(t testing.TB) map[*Language][][]byte {
	seeds := map[*Language][][]byte{}
	for _, glob := range []string{"jsrepo/*/*.*", "jsrepo/*/*/*.*", "tsrepo/*/*.*", "tsrepo/*/*/*.*"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "index", glob))
		for _, p := range paths {
			l := ForPath(p)
			if l == nil || !IsScript(l.Name()) {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			seeds[l] = append(seeds[l], data)
		}
	}
	for _, l := range []*Language{jsLang, tsLang, tsxLang} {
		seeds[l] = append(seeds[l],
			[]byte("const a = require('a'), {b, c: d} = require(\"b\"), e = require('e').f; x.y = function () {}"),
			[]byte("const w = memo(() => 1, function g() {}); this.p = new P(); const q = new Q.R(1)"),
			[]byte("export default class extends A.B { static #x = () => {}; get [k]() {} }"),
			[]byte("module.exports = { a() {}, 'b': function () {}, c }; exports.d = require('./d')"),
			[]byte("f(/* c */ 'x'); const r = require(/* c */ 'r'); g?.h(); new (a.b)(); (() => 1)()"),
			[]byte("class C {\n  m( {\n}\nconst = ;\n"), // broken
			[]byte{})
	}
	seeds[tsLang] = append(seeds[tsLang],
		[]byte("class K<T> extends B<T> implements I { constructor(private a: A, public b?: B) { super() } f: F; g = (x: X) => x }\n"+
			"abstract class L { abstract m(): void } interface I { x(y: Y): Z } type T = (u: U) => V; enum E { A } namespace N {}"))
	seeds[tsxLang] = append(seeds[tsxLang], []byte("const App = () => <Layout.Main a={f()}><Item/><div/></Layout.Main>"))
	return seeds
}

func TestScriptMatchesQuery(t *testing.T) {
	sc := newScanner()
	defer sc.close()
	for l, srcs := range scriptMatchSeeds(t) {
		for _, src := range srcs {
			sameMatches(t, sc, l, src)
		}
	}
}

// TestScriptMatchesQueryOnNPM compares the two on the npm corpora, when
// they are unpacked (see bench_test.go), where the matcher meets every
// construct real code has.
func TestScriptMatchesQueryOnNPM(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the npm corpora")
	}
	sc := newScanner()
	defer sc.close()
	found := false
	for _, c := range corpus.All() {
		if !c.Script || !c.Installed() {
			continue
		}
		srcs := corpusSources(t, c.Dir, func(l *Language) bool { return IsScript(l.Name()) })
		for i := 0; i < len(srcs); i += 3 {
			found = true
			sameMatches(t, sc, srcs[i].lang, srcs[i].src)
		}
	}
	if !found {
		t.Skip("no npm corpus unpacked (scripts/npm-corpora.sh)")
	}
}

func FuzzScriptMatchesQuery(f *testing.F) {
	langs := []*Language{jsLang, tsLang, tsxLang}
	for i, l := range langs {
		for _, src := range scriptMatchSeeds(f)[l] {
			f.Add(src, uint8(i))
		}
	}
	sc := newScanner()
	defer sc.close()
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		sameMatches(t, sc, langs[int(which)%len(langs)], src)
	})
}
