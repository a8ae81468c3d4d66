package parse

import (
	"bytes"
	"strings"

	"github.com/smacker/go-tree-sitter/python"
)

var pythonLang = &Language{
	name:    Python,
	exts:    []string{".py"},
	grammar: python.GetLanguage,
	scan:    scanPython,
	extract: extractPython,
}

// decoration is where a decorated definition's decorators begin.
type decoration struct {
	start uint32
	line  int
}

// extractPython reads the scanner's records (see scan_python.c) in document
// order.
func extractPython(x *extraction) {
	decorated := map[uint32]decoration{} // definition start byte -> its decorators
	r := x.recs
	for i := 0; i < len(r); {
		switch r[i] {
		case recFunc, recClass:
			i = x.pyDef(r, i)
		case recDecorated:
			decorated[r[i+3]] = decoration{start: r[i+1], line: int(r[i+2]) + 1}
			i += 4
		case recCall:
			s, e, line := r[i+1], r[i+2], int(r[i+3])+1
			i += 4
			b := x.span(s, e)
			if e-s == 5 && string(b) == "super" {
				continue // super().m() is resolved as a whole
			}
			x.calls = append(x.calls, callSite{pos: s, line: line, name: pyCallName(b)})
		case recImport:
			i = x.pyImport(r, i)
		case recImportFrom:
			i = x.pyImportFrom(r, i)
		case recAssign:
			x.pyAssign(r[i+1], r[i+2], int(r[i+3])+1, r[i+4], r[i+5])
			i += 6
		default:
			i = len(r) // cannot happen: the scanner writes only the tags above
		}
	}
	// Decorators belong to the definition: its span starts at the first one.
	for i := range x.defs {
		d := &x.defs[i]
		for {
			n, ok := decorated[d.startByte]
			if !ok || n.start >= d.startByte { // a broken tree must not loop
				break
			}
			d.startByte, d.start = n.start, n.line
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

// pyDef reads a definition record: tag, start, end, start row, end row,
// end column, name span, header end, base count and base spans. It returns
// the index of the next record.
func (x *extraction) pyDef(r []uint32, i int) int {
	start, end, startRow, endRow, endCol := r[i+1], r[i+2], r[i+3], r[i+4], r[i+5]
	nameS, nameE, headerEnd, nb := r[i+6], r[i+7], r[i+8], int(r[i+9])
	d := def{
		class: r[i] == recClass, name: string(x.span(nameS, nameE)),
		startByte: start, endByte: end,
		start: int(startRow) + 1, end: endLine(startRow, endRow, endCol),
	}
	d.sig = oneLine(strings.ToValidUTF8(string(x.src[start:headerEnd]), "?"), 240) + ":"
	i += 10
	for k := 0; k < nb; k++ {
		d.bases = append(d.bases, compactCall(x.span(r[i], r[i+1])))
		i += 2
	}
	x.defs = append(x.defs, d)
	return i
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

// pyImport reads an import record: tag, row, name count and names (kind,
// name span, alias span).
func (x *extraction) pyImport(r []uint32, i int) int {
	line, n := int(r[i+1])+1, int(r[i+2])
	i += 3
	for k := 0; k < n; k++ {
		kind, name, alias := r[i], x.span(r[i+1], r[i+2]), x.span(r[i+3], r[i+4])
		i += 5
		imp := Import{Module: compactCall(name), Line: line}
		if kind == impAliased {
			imp.Alias = string(alias)
		}
		x.out.Imports = append(x.out.Imports, imp)
	}
	return i
}

// pyImportFrom reads a from-import record: tag, row, module span, name
// count and names as in pyImport.
func (x *extraction) pyImportFrom(r []uint32, i int) int {
	line, mod, n := int(r[i+1])+1, compactCall(x.span(r[i+2], r[i+3])), int(r[i+4])
	i += 5
	level := 0
	for level < len(mod) && mod[level] == '.' {
		level++
	}
	mod = mod[level:]
	base := Import{Module: mod, Level: level, Line: line}
	for k := 0; k < n; k++ {
		kind, name, alias := r[i], x.span(r[i+1], r[i+2]), x.span(r[i+3], r[i+4])
		i += 5
		imp := base
		switch kind {
		case impDotted:
			imp.Name = compactCall(name)
		case impAliased:
			imp.Name, imp.Alias = compactCall(name), string(alias)
		case impWildcard:
			imp.Name = "*"
		}
		x.out.Imports = append(x.out.Imports, imp)
	}
	return i
}

// pyAssign records "x = f(...)" and "self.x = f(...)": later x.m() and
// self.x.m() resolve through what f is.
func (x *extraction) pyAssign(vs, ve uint32, line int, cs, ce uint32) {
	name := string(x.span(vs, ve))
	if !IsDotted(name) {
		return
	}
	if head, rest, ok := strings.Cut(name, "."); ok && (head != "self" || strings.IndexByte(rest, '.') >= 0) {
		return
	}
	typ := pyCallName(x.span(cs, ce))
	if !IsDotted(typ) {
		return
	}
	x.vars = append(x.vars, callSite{pos: vs, line: line, name: name, typ: typ})
}
