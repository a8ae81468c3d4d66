package index

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index/parse"
)

// scriptLinker links JavaScript and TypeScript calls: names bound by
// import and require (named, default, namespace), followed through
// re-exports and index barrels; this.m() and super.m() inside classes
// along their extends chains; new C() to the class and its constructor;
// and x.m() where x holds a new T() or is declared as a T.
type scriptLinker struct {
	*linker
	byPath map[string]int32 // script files by path
	binds  []map[string]parse.Import
	// exports are each file's export statements (re-exports and local
	// exports), in source order.
	exports [][]parse.Import
	bases   [][]int32 // class unit -> its resolved base classes
	// baseDeps are, per file, the files resolving its classes' bases read.
	baseDeps []depSet
	specs    sync.Map // specKey -> int32 file, -1 when outside the repo
}

type specKey struct {
	dir, spec string
}

// scriptTarget is what a name resolves to: a unit, or a whole module (an
// import * or a require).
type scriptTarget struct {
	unit   int32
	module int32
}

var noScript = scriptTarget{unit: -1, module: -1}

func (t scriptTarget) ok() bool { return t.unit >= 0 || t.module >= 0 }

func linkScripts(r *linker) {
	s := &scriptLinker{linker: r, byPath: map[string]int32{}, binds: make([]map[string]parse.Import, len(r.files)),
		exports: make([][]parse.Import, len(r.files)), bases: make([][]int32, len(r.units)), baseDeps: make([]depSet, len(r.files))}
	for fi, f := range r.files {
		if parse.IsScript(f.Lang) {
			s.byPath[f.Path] = int32(fi)
		}
	}
	if len(s.byPath) == 0 {
		return
	}
	s.attachAssigned()
	s.each(s.bindImports)
	s.each(s.resolveBases)
	s.eachCallFileWhere(s.isScriptFile, s.resolveCalls)
}

func (s *scriptLinker) isScriptFile(f int) bool { return parse.IsScript(s.files[f].Lang) }

func (s *scriptLinker) each(fn func(f int)) { s.eachFileWhere(s.isScriptFile, fn) }

// attachAssigned makes "C.prototype.m = function" and "C.m = function" a
// member of C when C is defined at the top of the same file.
func (s *scriptLinker) attachAssigned() {
	for fi, f := range s.files {
		if !parse.IsScript(f.Lang) {
			continue
		}
		lo, hi := s.fileUnits(fi)
		for u := lo; u < hi; u++ {
			recv := s.raw[u].Recv
			if recv == "" || s.parent[u] >= 0 {
				continue
			}
			if c, ok := s.members[scopeName{fileScope(fi), recv}]; ok && c != u {
				s.setParent(u, c)
			}
		}
	}
}

func (s *scriptLinker) bindImports(f int) {
	b := map[string]parse.Import{}
	var ex []parse.Import
	for _, im := range s.files[f].Imports {
		switch im.Level {
		case parse.ScriptImport:
			b[im.Alias] = im
		default:
			ex = append(ex, im)
		}
	}
	s.binds[f], s.exports[f] = b, ex
}

// resolveBases resolves each class's extends clause to a class of the
// repository.
func (s *scriptLinker) resolveBases(f int) {
	deps := newDepSet(len(s.files))
	s.baseDeps[f] = deps
	lo, hi := s.fileUnits(f)
	for u := lo; u < hi; u++ {
		for _, b := range s.raw[u].Bases {
			if t := s.asValue(s.resolveDotted(f, s.parent[u], b, 0, deps), deps); t.unit >= 0 && s.kind(t.unit) == KindClass {
				s.bases[u] = append(s.bases[u], t.unit)
			}
		}
	}
}

func (s *scriptLinker) resolveCalls(f int) {
	deps := slices.Clone(s.baseDeps[f])
	s.linkCalls(f,
		func(u int32, name string) int32 { return s.resolveCall(f, u, name, deps) },
		func(c int32) int32 { return s.classMember(c, "constructor", 0, deps) })
	s.deps[f] = deps.list()
}

// resolveCall is the unit a call names, -1 if none in the repository.
func (s *scriptLinker) resolveCall(f int, u int32, name string, deps depSet) int32 {
	if !scriptDotted(name) {
		return -1
	}
	return s.asValue(s.resolveDotted(f, u, name, 0, deps), deps).unit
}

// asValue is what a module stands for where a value is expected (called,
// constructed, extended): its default export, which is module.exports
// for CommonJS.
func (s *scriptLinker) asValue(t scriptTarget, deps depSet) scriptTarget {
	if t.unit < 0 && t.module >= 0 {
		return s.exportOf(t.module, "default", 0, deps)
	}
	return t
}

// resolveDotted resolves a.b.c as written in unit u (or at the top of
// file f when u is -1).
func (s *scriptLinker) resolveDotted(f int, u int32, name string, hops int, deps depSet) scriptTarget {
	parts := strings.Split(name, ".")
	switch parts[0] {
	case "this":
		cls := s.enclosingClass(u)
		if cls < 0 || len(parts) < 2 {
			return noScript
		}
		if len(parts) > 2 {
			if typ := s.fieldType(f, cls, parts[1], hops, deps); typ >= 0 {
				return s.follow(f, scriptTarget{unit: typ, module: -1}, parts[2:], hops, deps)
			}
			return noScript
		}
		return scriptTarget{unit: s.classMember(cls, parts[1], 0, deps), module: -1}
	case "super":
		cls := s.enclosingClass(u)
		if cls < 0 || len(s.bases[cls]) == 0 {
			return noScript
		}
		base := s.bases[cls][0]
		if len(parts) == 1 {
			return scriptTarget{unit: base, module: -1}
		}
		return s.follow(f, scriptTarget{unit: base, module: -1}, parts[1:], hops, deps)
	}
	t := s.resolveName(f, u, parts[0], hops, deps)
	if !t.ok() && len(parts) > 1 {
		if typ := s.varType(f, u, parts[0], hops, deps); typ >= 0 {
			t = scriptTarget{unit: typ, module: -1}
		}
	}
	if !t.ok() {
		return noScript
	}
	return s.follow(f, t, parts[1:], hops, deps)
}

// follow follows .a.b from t: a module's exports, a class's members
// (along its bases), an object's or a function's attached members.
func (s *scriptLinker) follow(f int, t scriptTarget, rest []string, hops int, deps depSet) scriptTarget {
	for _, p := range rest {
		switch {
		case t.module >= 0:
			mod := t.module
			t = s.exportOf(mod, p, hops, deps)
			if !t.ok() {
				// module.exports = C: C's static members.
				if d := s.exportOf(mod, "default", hops, deps); d.unit >= 0 {
					t = scriptTarget{unit: s.classMember(d.unit, p, 0, deps), module: -1}
				}
			}
		case t.unit >= 0:
			t = scriptTarget{unit: s.classMember(t.unit, p, 0, deps), module: -1}
		}
		if !t.ok() {
			return noScript
		}
	}
	return t
}

// resolveName is a plain name as seen from unit u of file f: an enclosing
// function's nested definition, a top-level definition, or an import.
// Class bodies are not scopes: a method is reached through this.
func (s *scriptLinker) resolveName(f int, u int32, name string, hops int, deps depSet) scriptTarget {
	for sc := u; sc >= 0; sc = s.parent[sc] {
		if s.kind(sc) == KindClass || !s.hasMembers[sc] {
			continue
		}
		if t, ok := s.members[scopeName{sc, name}]; ok {
			return scriptTarget{unit: t, module: -1}
		}
	}
	if t, ok := s.members[scopeName{fileScope(f), name}]; ok {
		return scriptTarget{unit: t, module: -1}
	}
	im, ok := s.binds[f][name]
	if !ok || hops > maxHops {
		return noScript
	}
	mod := s.spec(f, im.Module, deps)
	if mod < 0 {
		return noScript
	}
	if im.Name == "*" {
		return scriptTarget{unit: -1, module: mod}
	}
	return s.exportOf(mod, im.Name, hops+1, deps)
}

// exportOf is what module f exports under name: an explicit export
// statement, a top-level definition, a member of module.exports, or what
// an "export * from" module exports.
func (s *scriptLinker) exportOf(f int32, name string, hops int, deps depSet) scriptTarget {
	if hops > maxHops {
		return noScript
	}
	deps.add(int(f))
	for _, e := range s.exports[f] {
		if e.Alias != name {
			continue
		}
		if e.Level == parse.ScriptExportLocal {
			return s.resolveName(int(f), -1, e.Name, hops+1, deps)
		}
		mod := s.spec(int(f), e.Module, deps)
		switch {
		case mod < 0:
			return noScript
		case e.Name == "*":
			return scriptTarget{unit: -1, module: mod}
		default:
			return s.exportOf(mod, e.Name, hops+1, deps)
		}
	}
	if t, ok := s.members[scopeName{fileScope(int(f)), name}]; ok {
		return scriptTarget{unit: t, module: -1}
	}
	if obj, ok := s.members[scopeName{fileScope(int(f)), "module.exports"}]; ok {
		if t, ok := s.members[scopeName{obj, name}]; ok {
			return scriptTarget{unit: t, module: -1}
		}
	}
	if name == "default" {
		return noScript
	}
	for _, e := range s.exports[f] {
		if e.Level == parse.ScriptReexport && e.Name == "*" && e.Alias == "" {
			if mod := s.spec(int(f), e.Module, deps); mod >= 0 {
				if t := s.exportOf(mod, name, hops+1, deps); t.ok() {
					return t
				}
			}
		}
	}
	return noScript
}

// classMember finds a member of class (or object) c, then along its
// bases; every class it looks in is a file the caller's resolution read.
func (s *scriptLinker) classMember(c int32, name string, depth int, deps depSet) int32 {
	if c < 0 || depth > maxHops {
		return -1
	}
	deps.add(int(s.fileOf[c]))
	if t, ok := s.members[scopeName{c, name}]; ok {
		return t
	}
	for _, b := range s.bases[c] {
		if t := s.classMember(b, name, depth+1, deps); t >= 0 {
			return t
		}
	}
	return -1
}

// varType is the class a local name holds: "x = new T()" or "x: T" in u
// or a unit around it.
func (s *scriptLinker) varType(f int, u int32, name string, hops int, deps depSet) int32 {
	for sc := u; sc >= 0; sc = s.parent[sc] {
		for _, v := range s.raw[sc].Vars {
			if v.Name == name {
				return s.typeUnit(f, sc, v.Type, hops, deps)
			}
		}
	}
	return -1
}

// fieldType is the class this.name holds, from the class's field
// declarations or an assignment in any of its methods.
func (s *scriptLinker) fieldType(f int, cls int32, name string, hops int, deps depSet) int32 {
	key := "this." + name
	// The class comes first, then its methods, which follow it in source
	// order.
	_, hi := s.fileUnits(f)
	for m := cls; m < hi && s.units[m].Start <= s.units[cls].End; m++ {
		for _, v := range s.raw[m].Vars {
			if v.Name == key {
				return s.typeUnit(f, m, v.Type, hops, deps)
			}
		}
	}
	return -1
}

func (s *scriptLinker) typeUnit(f int, u int32, typ string, hops int, deps depSet) int32 {
	name, ok := strings.CutSuffix(typ, "{}")
	if !ok || hops > maxHops || !scriptDotted(name) {
		return -1
	}
	t := s.asValue(s.resolveDotted(f, u, name, hops+1, deps), deps)
	if t.unit >= 0 && s.kind(t.unit) == KindClass {
		return t.unit
	}
	return -1
}

// spec is the repository file a module specifier names from file f, -1
// for packages and anything else outside the repository.
func (s *scriptLinker) spec(f int, spec string, deps depSet) int32 {
	dir := path.Dir(s.files[f].Path)
	key := specKey{dir, spec}
	var t int32
	if v, ok := s.specs.Load(key); ok {
		t = v.(int32)
	} else {
		t = s.lookupSpec(dir, spec)
		s.specs.Store(key, t)
	}
	if t >= 0 {
		deps.add(int(t))
	}
	return t
}

func (s *scriptLinker) lookupSpec(dir, spec string) int32 {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		return s.lookupFile(path.Join(dir, spec))
	}
	for _, base := range s.scripts.candidates(spec) {
		if t := s.lookupFile(base); t >= 0 {
			return t
		}
	}
	return -1
}

// scriptExts are tried in order after a specifier without one, and
// after index in a directory.
var scriptExts = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// compiledExts are the extensions TypeScript's sources compile to, with
// the source extensions to try in their place.
var compiledExts = []struct {
	from string
	to   []string
}{{".js", []string{".ts", ".tsx"}}, {".jsx", []string{".tsx"}}, {".mjs", []string{".mts"}}, {".cjs", []string{".cts"}}}

// lookupFile finds the file a path names the way bundlers and TypeScript
// do: as written, with an extension added, with a compiled extension
// swapped for its source (".js" written for a ".ts" file), or as a
// directory's index.
func (s *scriptLinker) lookupFile(p string) int32 {
	p = path.Clean(p)
	if strings.HasPrefix(p, "../") || p == ".." {
		return -1
	}
	if t, ok := s.byPath[p]; ok {
		return t
	}
	for _, ext := range scriptExts {
		if t, ok := s.byPath[p+ext]; ok {
			return t
		}
	}
	for _, sw := range compiledExts {
		if stem, ok := strings.CutSuffix(p, sw.from); ok {
			for _, ext := range sw.to {
				if t, ok := s.byPath[stem+ext]; ok {
					return t
				}
			}
		}
	}
	for _, ext := range scriptExts {
		if t, ok := s.byPath[p+"/index"+ext]; ok {
			return t
		}
	}
	return -1
}

// scriptDotted is parse.IsDotted with the characters JavaScript names add:
// $ and the # of private members.
func scriptDotted(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '_' && c != '$' && c != '#' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c < 0x80 {
			return false
		}
	}
	return true
}
