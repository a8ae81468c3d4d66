package parse

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// chunkLines is the most lines one chunk of top-level code holds (paper §3.1).
const chunkLines = 200

// extraction is one file on its way from bytes to a File. The language's
// extract function fills defs, calls and imports from its query's captures;
// finish turns them into ordered, nested units with chunks.
type extraction struct {
	src   []byte
	names []string // capture names by capture index
	qc    *sitter.QueryCursor
	recs  []uint32 // a native scanner's records, instead of qc
	out   *File

	defs  []def
	calls []callSite
	// vars are assignments of a call's result to a name ("x = A()",
	// "self.x = A()"): name in name, callee in typ.
	vars []callSite
}

// def is one definition found by a query.
type def struct {
	class     bool
	name      string
	startByte uint32 // includes decorators
	endByte   uint32
	start     int // 1-based lines
	end       int
	sig       string
	bases     []string
	recv      string
	recvVar   string
}

type callSite struct {
	pos  uint32
	line int
	name string
	typ  string
}

// capture returns the node captured under name in a match, nil if none.
func (x *extraction) capture(m *sitter.QueryMatch, name string) *sitter.Node {
	for _, c := range m.Captures {
		if int(c.Index) < len(x.names) && x.names[c.Index] == name {
			return c.Node
		}
	}
	return nil
}

// lineOf is the 1-based line a node starts on.
func lineOf(n *sitter.Node) int { return int(n.StartPoint().Row) + 1 }

// endLine is endLineOf from a node's start row and end point.
func endLine(startRow, endRow, endCol uint32) int {
	if endCol == 0 && endRow > startRow {
		return int(endRow)
	}
	return int(endRow) + 1
}

// endLineOf is the 1-based last line a node covers; a node that ends at the
// very start of a line does not cover that line.
func endLineOf(n *sitter.Node) int {
	p := n.EndPoint()
	if p.Column == 0 && p.Row > n.StartPoint().Row {
		return int(p.Row)
	}
	return int(p.Row) + 1
}

// text is the source under a node, shared with src (no copy).
func (x *extraction) text(n *sitter.Node) []byte {
	s, e := n.StartByte(), n.EndByte()
	if int(e) > len(x.src) || s > e {
		return nil
	}
	return x.src[s:e]
}

// span is the source between two byte offsets, as text is for a node.
func (x *extraction) span(s, e uint32) []byte {
	if int(e) > len(x.src) || s > e {
		return nil
	}
	return x.src[s:e]
}

// finish builds the file's units from the collected definitions and calls.
func (x *extraction) finish(kindOf func(d *def, parent *Unit) Kind) {
	sort.SliceStable(x.defs, func(i, j int) bool {
		a, b := &x.defs[i], &x.defs[j]
		if a.startByte != b.startByte {
			return a.startByte < b.startByte
		}
		return a.endByte > b.endByte
	})
	units, owner := x.nest(kindOf)
	chunks := makeChunks(x.src, units, x.out.Lines)
	units, owner = mergeChunks(units, chunks, owner)
	x.assignCalls(units, owner)
	x.out.Units = units
}

// nest orders definitions into units with parents and unique qualified
// names. owner[i] is the byte range of unit i, used to place calls.
func (x *extraction) nest(kindOf func(d *def, parent *Unit) Kind) ([]Unit, [][2]uint32) {
	units := make([]Unit, 0, len(x.defs))
	owner := make([][2]uint32, 0, len(x.defs))
	seen := make(map[string]int, len(x.defs))
	var stack []int
	for i := range x.defs {
		d := &x.defs[i]
		for len(stack) > 0 && !(owner[stack[len(stack)-1]][0] <= d.startByte && d.endByte <= owner[stack[len(stack)-1]][1]) {
			stack = stack[:len(stack)-1]
		}
		parent := -1
		var pu *Unit
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
			pu = &units[parent]
		}
		qualName, qual := d.name, d.name
		if d.recv != "" {
			qualName, qual = d.recv+"."+d.name, d.recv+"."+d.name
		}
		if pu != nil {
			qualName, qual = pu.QualName+"."+d.name, pu.Qual+"."+d.name
		}
		if n := seen[qual]; n > 0 {
			seen[qual] = n + 1
			qual += "#" + strconv.Itoa(n+1)
		} else {
			seen[qual] = 1
		}
		units = append(units, Unit{
			Kind: kindOf(d, pu), Name: d.name, Qual: qual, QualName: qualName,
			Start: d.start, End: d.end, Sig: d.sig, Parent: parent,
			Bases: d.bases, Recv: d.recv, RecvVar: d.recvVar,
		})
		owner = append(owner, [2]uint32{d.startByte, d.endByte})
		stack = append(stack, len(units)-1)
	}
	return units, owner
}

// makeChunks cuts the lines no top-level definition covers into runs of at
// most chunkLines lines, blank lines trimmed at both ends of each run.
func makeChunks(src []byte, units []Unit, lines int) []Unit {
	covered := make([]bool, lines+2)
	for i := range units {
		if units[i].Parent >= 0 {
			continue
		}
		for l := units[i].Start; l <= units[i].End && l <= lines; l++ {
			covered[l] = true
		}
	}
	starts := lineStarts(src)
	blank := func(l int) bool { return len(bytes.TrimSpace(lineBytes(src, starts, l))) == 0 }
	var chunks []Unit
	emit := func(s, e int) {
		for s <= e && blank(s) {
			s++
		}
		for e >= s && blank(e) {
			e--
		}
		if s > e {
			return
		}
		n := len(chunks) + 1
		name := "<chunk " + strconv.Itoa(n) + ">"
		chunks = append(chunks, Unit{
			Kind: KindChunk, Name: name, Qual: name, QualName: name,
			Start: s, End: e, Parent: -1,
			Sig: oneLine(string(bytes.TrimSpace(lineBytes(src, starts, s))), 120),
		})
	}
	for l := 1; l <= lines; {
		if covered[l] {
			l++
			continue
		}
		s := l
		for l <= lines && !covered[l] && l-s < chunkLines {
			l++
		}
		emit(s, l-1)
	}
	return chunks
}

// mergeChunks interleaves chunks with definitions by start line, fixing the
// parent indexes; chunks get an empty byte range in owner (calls reach them
// by line).
func mergeChunks(units, chunks []Unit, owner [][2]uint32) ([]Unit, [][2]uint32) {
	if len(chunks) == 0 {
		return units, owner
	}
	out := make([]Unit, 0, len(units)+len(chunks))
	newIdx := make([]int, len(units))
	ci := 0
	for i := range units {
		for ci < len(chunks) && chunks[ci].Start < units[i].Start {
			out = append(out, chunks[ci])
			ci++
		}
		newIdx[i] = len(out)
		out = append(out, units[i])
	}
	out = append(out, chunks[ci:]...)
	for i := range out {
		if out[i].Kind != KindChunk && out[i].Parent >= 0 {
			out[i].Parent = newIdx[out[i].Parent]
		}
	}
	merged := make([][2]uint32, len(out))
	for i := range merged {
		merged[i] = [2]uint32{1, 0} // chunks own no bytes
	}
	for i, ni := range newIdx {
		merged[ni] = owner[i]
	}
	return out, merged
}

// assignCalls gives each call to the innermost definition around it, or to
// the chunk holding its line; repeated callees of a unit are counted once
// with the first line. Variable assignments are placed the same way.
func (x *extraction) assignCalls(units []Unit, owner [][2]uint32) {
	seen := make(map[callKey]int)
	placeSites(units, owner, x.calls, func(u int, c *callSite) {
		key := callKey{u, c.name}
		if k, ok := seen[key]; ok {
			units[u].Calls[k].Count++
			return
		}
		seen[key] = len(units[u].Calls)
		units[u].Calls = append(units[u].Calls, Call{Name: c.name, Line: c.line, Count: 1})
	})
	vars := make(map[callKey]bool)
	placeSites(units, owner, x.vars, func(u int, c *callSite) {
		if key := (callKey{u, c.name}); !vars[key] {
			vars[key] = true
			units[u].Vars = append(units[u].Vars, Var{Name: c.name, Type: c.typ})
		}
	})
}

// placeSites sweeps sites and definitions, both in byte order, with a
// stack of open definitions, and hands each site to its innermost unit.
func placeSites(units []Unit, owner [][2]uint32, sites []callSite, add func(u int, c *callSite)) {
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].pos < sites[j].pos })
	var defIdx, chunkIdx []int
	for i := range units {
		if units[i].Kind == KindChunk {
			chunkIdx = append(chunkIdx, i)
		} else {
			defIdx = append(defIdx, i)
		}
	}
	var stack []int
	next := 0
	for i := range sites {
		c := &sites[i]
		for next < len(defIdx) && owner[defIdx[next]][0] <= c.pos {
			stack = popUntilContains(stack, owner, owner[defIdx[next]][0])
			stack = append(stack, defIdx[next])
			next++
		}
		stack = popUntilContains(stack, owner, c.pos)
		u := -1
		if len(stack) > 0 {
			u = stack[len(stack)-1]
		} else {
			u = chunkFor(units, chunkIdx, c.line)
		}
		if u >= 0 {
			add(u, c)
		}
	}
}

type callKey struct {
	unit int
	name string
}

func popUntilContains(stack []int, owner [][2]uint32, pos uint32) []int {
	for len(stack) > 0 && owner[stack[len(stack)-1]][1] <= pos {
		stack = stack[:len(stack)-1]
	}
	return stack
}

func chunkFor(units []Unit, chunkIdx []int, line int) int {
	i := sort.Search(len(chunkIdx), func(i int) bool { return units[chunkIdx[i]].End >= line })
	if i < len(chunkIdx) && units[chunkIdx[i]].Start <= line {
		return chunkIdx[i]
	}
	return -1
}

// lineStarts are the byte offsets where each line begins (index 0 = line 1).
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+2)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return starts
}

func lineBytes(src []byte, starts []int, line int) []byte {
	if line < 1 || line > len(starts) {
		return nil
	}
	s := starts[line-1]
	e := len(src)
	if line < len(starts) {
		e = starts[line]
	}
	return src[s:e]
}

// countLines counts lines the way editors number them: a final line
// without a newline still counts.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// oneLine collapses white space runs to one space and caps the length, so a
// multi-line signature prints on one line.
func oneLine(s string, max int) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\\' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	out = strings.ReplaceAll(out, "( ", "(")
	out = strings.ReplaceAll(out, " )", ")")
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8Start(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// compactCall removes white space from a callee expression so that the same
// callee written over several lines gets one name.
func compactCall(b []byte) string {
	const max = 120
	if len(b) > 4*max {
		b = b[:4*max]
	}
	clean := true
	for _, c := range b {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\\' {
			clean = false
			break
		}
	}
	var s string
	if clean {
		s = string(b)
	} else {
		out := make([]byte, 0, len(b))
		for _, c := range b {
			if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\\' {
				out = append(out, c)
			}
		}
		s = string(out)
	}
	if len(s) > max {
		s = s[:max]
	}
	return strings.ToValidUTF8(s, "?")
}

// IsDotted reports whether s is a plain dotted name (a.b.c): the only
// shape of callee and type that linking follows, and so the only one
// extraction keeps for a variable's name and type.
func IsDotted(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c < 0x80 {
			return false
		}
	}
	return true
}
