package index

import (
	"strings"

	"github.com/swe-adept/swe-adept/index/parse"
)

// lookupInModule finds name as an attribute of module mod: a top-level
// definition of its file, a name its file imports (re-exports), a
// submodule, or a name from one of its star imports. mod "" is the top of
// the tree.
func (p *pyLinker) lookupInModule(mod, name string, hops int, memo *fileMemo) pyTarget {
	if t := p.lookupDirect(mod, name, hops, memo); t.ok() {
		return t
	}
	if f, ok := p.modules[mod]; ok && mod != "" && len(p.stars[f]) > 0 {
		return p.lookupStars(f, mod, name, hops, memo)
	}
	return noTarget
}

// lookupStars searches the modules that file f star-imports, and theirs,
// breadth first and each once: star imports fan out widely (SymPy's
// packages) and can form cycles.
func (p *pyLinker) lookupStars(f int, mod, name string, hops int, memo *fileMemo) pyTarget {
	memo.dep(f)
	seen := map[string]bool{mod: true}
	queue := append([]string(nil), p.stars[f]...)
	for len(queue) > 0 && len(seen) < 4*maxHops*maxHops {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		if t := p.lookupDirect(s, name, hops+1, memo); t.ok() {
			return t
		}
		if sf, ok := p.modules[s]; ok && s != "" {
			memo.dep(sf)
			queue = append(queue, p.stars[sf]...)
		}
	}
	return noTarget
}

// lookupDirect is lookupInModule without star imports.
func (p *pyLinker) lookupDirect(mod, name string, hops int, memo *fileMemo) pyTarget {
	if hops > maxHops {
		return noTarget
	}
	f, hasFile := -1, false
	if mod != "" {
		f, hasFile = p.modules[mod]
	}
	if hasFile {
		memo.dep(f)
		if u, ok := p.members[scopeName{fileScope(f), name}]; ok {
			return pyTarget{unit: u}
		}
		if b, ok := p.binds[f][name]; ok && !(b.mod == mod && b.name == name) {
			if t := p.resolveBinding(b, hops+1, memo); t.ok() {
				return t
			}
		}
	}
	sub := name
	if mod != "" {
		sub = mod + "." + name
	}
	if _, ok := p.modules[sub]; ok || p.pkgs[sub] {
		return pyTarget{unit: -1, mod: sub}
	}
	return noTarget
}

func (p *pyLinker) resolveBinding(b pyBinding, hops int, memo *fileMemo) pyTarget {
	if b.name == "" {
		if _, ok := p.modules[b.mod]; ok || p.pkgs[b.mod] {
			return pyTarget{unit: -1, mod: b.mod}
		}
		return noTarget
	}
	return p.lookupInModule(b.mod, b.name, hops, memo)
}

// lookupName resolves a bare name used in unit u of file f, Python's way:
// a class body sees its own names; functions see their own nested
// definitions and those of enclosing functions (not of enclosing classes);
// then the module's definitions, imports and star imports.
func (p *pyLinker) lookupName(f int, u int32, name string, memo *fileMemo) pyTarget {
	if u >= 0 && p.kind(u) == KindClass && p.hasMembers[u] {
		if m, ok := p.members[scopeName{u, name}]; ok {
			return pyTarget{unit: m}
		}
	}
	for s := u; s >= 0; s = p.parent[s] {
		if k := p.kind(s); (k == KindFunction || k == KindMethod) && p.hasMembers[s] {
			if m, ok := p.members[scopeName{s, name}]; ok {
				return pyTarget{unit: m}
			}
		}
	}
	if memo == nil {
		return p.lookupModuleScope(f, name, nil)
	}
	t, ok := memo.names[name]
	if !ok {
		t = p.lookupModuleScope(f, name, memo)
		memo.names[name] = t
	}
	return t
}

// lookupModuleScope resolves a name at the top of file f: its
// definitions, then its imports, then its star imports.
func (p *pyLinker) lookupModuleScope(f int, name string, memo *fileMemo) pyTarget {
	if m, ok := p.members[scopeName{fileScope(f), name}]; ok {
		return pyTarget{unit: m}
	}
	if b, ok := p.binds[f][name]; ok {
		return p.resolveBinding(b, 0, memo)
	}
	if len(p.stars[f]) > 0 {
		return p.lookupStars(f, p.fileMod[f], name, 0, memo)
	}
	return noTarget
}

// attr follows one ".name" from a target: a module's attribute or a
// class's member (its own or inherited).
func (p *pyLinker) attr(t pyTarget, name string, memo *fileMemo) pyTarget {
	switch {
	case t.unit >= 0:
		if p.kind(t.unit) != KindClass {
			return noTarget
		}
		if m := p.classMemberMemo(t.unit, name, memo); m >= 0 {
			return pyTarget{unit: m}
		}
		return noTarget
	case t.mod != "":
		if memo == nil {
			return p.lookupInModule(t.mod, name, 0, nil)
		}
		key := [2]string{t.mod, name}
		r, ok := memo.modAttrs[key]
		if !ok {
			r = p.lookupInModule(t.mod, name, 0, memo)
			memo.modAttrs[key] = r
		}
		return r
	}
	return noTarget
}

// fileMemo caches, for the calls of one file, lookups that many calls
// repeat: module-scope names, module attributes and class members. It
// belongs to one goroutine. It also records which files the lookups read
// (deps): an edit to what one of them defines or imports may change how
// this file resolves, and nothing else can.
type fileMemo struct {
	names    map[string]pyTarget
	modAttrs map[[2]string]pyTarget
	members  map[scopeName]int32
	deps     depSet
}

func newFileMemo(files int) *fileMemo {
	return &fileMemo{names: map[string]pyTarget{}, modAttrs: map[[2]string]pyTarget{}, members: map[scopeName]int32{},
		deps: newDepSet(files)}
}

// dep records that the lookups read file f.
func (m *fileMemo) dep(f int) {
	if m != nil {
		m.deps.add(f)
	}
}

func (m *fileMemo) depAll(fs []int32) {
	if m != nil {
		m.deps.addAll(fs)
	}
}

func (p *pyLinker) classMemberMemo(c int32, name string, memo *fileMemo) int32 {
	if memo == nil || !p.fullMRO {
		return p.classMember(c, name, memo)
	}
	key := scopeName{c, name}
	m, ok := memo.members[key]
	if !ok {
		m = p.classMember(c, name, memo)
		memo.members[key] = m
	}
	return m
}

// classMember finds a method or nested class in a class or, depth-first
// and left to right, in its bases: close enough to Python's MRO for
// navigation.
func (p *pyLinker) classMember(c int32, name string, memo *fileMemo) int32 {
	var seen [maxHops]int32
	return p.memberDFS(c, name, seen[:0], memo)
}

func (p *pyLinker) memberDFS(c int32, name string, seen []int32, memo *fileMemo) int32 {
	memo.dep(int(p.fileOf[c]))
	if m, ok := p.members[scopeName{c, name}]; ok {
		return m
	}
	if !p.fullMRO || len(seen) >= maxHops-1 {
		return -1
	}
	for _, s := range seen {
		if s == c {
			return -1
		}
	}
	seen = append(seen, c)
	memo.depAll(p.baseDeps[p.fileOf[c]])
	for _, b := range p.bases[c] {
		if m := p.memberDFS(b, name, seen, memo); m >= 0 {
			return m
		}
	}
	return -1
}

// resolveDotted resolves "a.b.c" as seen from unit u of file f.
func (p *pyLinker) resolveDotted(f int, u int32, name string, memo *fileMemo) pyTarget {
	return p.resolveDottedHops(f, u, name, memo, 0)
}

func (p *pyLinker) resolveDottedHops(f int, u int32, name string, memo *fileMemo, hops int) pyTarget {
	if hops > maxHops {
		return noTarget
	}
	head, rest, more := strings.Cut(name, ".")
	var t pyTarget
	switch {
	case (head == "self" || head == "cls") && more:
		c := p.enclosingClass(u)
		if c < 0 {
			return noTarget
		}
		t = pyTarget{unit: c}
		// self.x.m(): x set from a call in one of the class's methods.
		if attr, after, deeper := strings.Cut(rest, "."); deeper && p.classMemberMemo(c, attr, memo) < 0 {
			if vt := p.selfAttrType(f, c, attr, memo, hops); vt.ok() {
				t, rest = vt, after
			}
		}
	case more:
		if vt := p.localVarType(f, u, head, memo, hops); vt.ok() {
			t = vt
			break
		}
		t = p.lookupName(f, u, head, memo)
	default:
		t = p.lookupName(f, u, head, memo)
	}
	for more && t.ok() {
		head, rest, more = strings.Cut(rest, ".")
		t = p.attr(t, head, memo)
	}
	return t
}

// localVarType is what a local name was assigned from, "x = A()" making x
// an A, looking through the unit and the functions around it, then the
// module's top-level assignments.
func (p *pyLinker) localVarType(f int, u int32, name string, memo *fileMemo, hops int) pyTarget {
	for s := u; s >= 0; s = p.parent[s] {
		if k := p.kind(s); k == KindClass {
			continue
		}
		for _, v := range p.raw[s].Vars {
			if v.Name == name {
				return p.varType(f, s, v.Type, memo, hops)
			}
		}
	}
	if typ, ok := p.moduleVars[f][name]; ok {
		return p.varType(f, -1, typ, memo, hops)
	}
	return noTarget
}

// varType resolves the callee an assignment called; only a class tells
// what the variable is (a function's return type is unknown).
func (p *pyLinker) varType(f int, scope int32, callee string, memo *fileMemo, hops int) pyTarget {
	t := p.resolveDottedHops(f, scope, callee, memo, hops+1)
	if t.unit >= 0 && p.kind(t.unit) == KindClass {
		return t
	}
	return noTarget
}

// selfAttrType finds "self.attr = A()" in the methods of class c.
func (p *pyLinker) selfAttrType(f int, c int32, attr string, memo *fileMemo, hops int) pyTarget {
	_, hi := p.fileUnits(f)
	end := p.units[c].End
	for g := c + 1; g < hi && p.units[g].Start <= end; g++ {
		if p.parent[g] != c {
			continue
		}
		for _, v := range p.raw[g].Vars {
			if len(v.Name) == len(attr)+5 && strings.HasPrefix(v.Name, "self.") && v.Name[5:] == attr {
				return p.varType(f, g, v.Type, memo, hops)
			}
		}
	}
	return noTarget
}

// resolveBases resolves each class's written bases to classes of the repo,
// in the scope around the class.
func (p *pyLinker) resolveBases(f int) {
	lo, hi := p.fileUnits(f)
	var memo *fileMemo // made for the first class with bases
	defer func() {
		if memo != nil {
			p.baseDeps[f] = memo.deps.list()
		}
	}()
	for g := lo; g < hi; g++ {
		u := p.units[g]
		if u.Kind != KindClass || len(u.Bases) == 0 {
			continue
		}
		for _, b := range u.Bases {
			if i := strings.IndexByte(b, '['); i > 0 {
				b = b[:i] // Generic[T] -> Generic
			}
			if !parse.IsDotted(b) {
				continue
			}
			if memo == nil {
				memo = newFileMemo(len(p.files))
			}
			t := p.resolveDotted(f, p.parent[g], b, memo)
			if t.unit >= 0 && t.unit != g && p.kind(t.unit) == KindClass {
				p.bases[g] = append(p.bases[g], t.unit)
			}
		}
	}
}

// resolveCalls links every call of a file's units. Calling a class links
// the class and, when it (or a base) defines one, its __init__: the class
// is where a reader lands, the initializer is the code that runs.
func (p *pyLinker) resolveCalls(f int) {
	memo := newFileMemo(len(p.files))
	p.collectModuleVars(f)
	p.linkCalls(f,
		func(u int32, name string) int32 { return p.resolveCall(f, u, name, memo) },
		func(c int32) int32 { return p.classMemberMemo(c, "__init__", memo) })
	p.deps[f] = memo.deps.list()
}

func (p *pyLinker) resolveCall(f int, u int32, name string, memo *fileMemo) int32 {
	if rest, ok := strings.CutPrefix(name, "super()."); ok {
		c := p.enclosingClass(u)
		if c < 0 || !parse.IsDotted(rest) || strings.IndexByte(rest, '.') >= 0 {
			return -1
		}
		memo.depAll(p.baseDeps[p.fileOf[c]])
		for _, b := range p.bases[c] {
			if m := p.classMemberMemo(b, rest, memo); m >= 0 {
				return m
			}
		}
		return -1
	}
	if !parse.IsDotted(name) {
		return -1
	}
	t := p.resolveDotted(f, u, name, memo)
	return t.unit
}

// collectModuleVars gathers a file's top-level "x = A()" assignments, which
// its functions see as globals.
func (p *pyLinker) collectModuleVars(f int) {
	lo, hi := p.fileUnits(f)
	var m map[string]string
	for g := lo; g < hi; g++ {
		if p.kind(g) != KindChunk {
			continue
		}
		for _, v := range p.raw[g].Vars {
			if strings.IndexByte(v.Name, '.') >= 0 {
				continue
			}
			if m == nil {
				m = map[string]string{}
			}
			if _, ok := m[v.Name]; !ok {
				m[v.Name] = v.Type
			}
		}
	}
	p.moduleVars[f] = m
}
