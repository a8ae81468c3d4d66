package index

import (
	"path"
	"strings"

	"github.com/swe-adept/swe-adept/index/parse"
)

// pyTarget is what a Python name refers to inside the repo: a unit, or a
// module (by dotted name) whose attributes can be looked up further.
type pyTarget struct {
	unit int32 // -1 when not a unit
	mod  string
}

var noTarget = pyTarget{unit: -1}

func (t pyTarget) ok() bool { return t.unit >= 0 || t.mod != "" }

// pyBinding is what an import binds a name to: a module (name == "") or a
// name inside a module.
type pyBinding struct {
	mod  string
	name string
}

// maxHops bounds re-export and base-class chains, which cycles can make
// endless.
const maxHops = 12

type pyLinker struct {
	*linker
	modules map[string]int  // dotted module name -> file
	pkgs    map[string]bool // every package prefix, namespace packages included
	fileMod []string        // canonical module name of each file
	binds   []map[string]pyBinding
	stars   [][]string
	bases   [][]int32 // global unit -> resolved base classes
	// moduleVars are each file's top-level "x = A()" (name -> callee),
	// filled by the file's own resolveCalls.
	moduleVars []map[string]string
	// fullMRO is false while bases are being resolved, when other classes'
	// bases may not be known yet.
	fullMRO bool
	// baseDeps are, per file, the files that resolving its classes' bases
	// read: a call resolved through those bases depends on them too.
	baseDeps [][]int32
}

func linkPython(r *linker) {
	p := &pyLinker{
		linker: r, modules: map[string]int{}, pkgs: map[string]bool{},
		fileMod: make([]string, len(r.files)), binds: make([]map[string]pyBinding, len(r.files)),
		stars: make([][]string, len(r.files)), bases: make([][]int32, len(r.units)),
		moduleVars: make([]map[string]string, len(r.files)), baseDeps: make([][]int32, len(r.files)),
	}
	p.registerModules()
	r.eachFile(parse.Python, p.bindImports)
	r.eachFile(parse.Python, p.resolveBases)
	p.fullMRO = true
	r.eachCallFile(parse.Python, p.resolveCalls)
}

// registerModules maps dotted module names to files: a/b.py and
// a/b/__init__.py are both "a.b". Code under src/ or lib/ is also known
// without that prefix, and when the root is itself a package (it has an
// __init__.py) its files are also known under the root's name, which is how
// the package's own absolute imports name them.
func (p *pyLinker) registerModules() {
	rootPkg := ""
	for _, f := range p.files {
		if f.Lang == parse.Python && f.Path == "__init__.py" && parse.IsDotted(p.rootBase) {
			rootPkg = p.rootBase
		}
	}
	for i, f := range p.files {
		if f.Lang != parse.Python {
			continue
		}
		dotted := strings.TrimSuffix(f.Path, path.Ext(f.Path))
		dotted = strings.TrimSuffix(strings.TrimSuffix(dotted, "__init__"), "/")
		dotted = strings.ReplaceAll(dotted, "/", ".")
		canon := dotted
		if first, rest, ok := strings.Cut(dotted, "."); ok && (first == "src" || first == "lib") {
			p.addModule(rest, i)
			canon = rest
		}
		if rootPkg != "" {
			canon = strings.TrimSuffix(rootPkg+"."+dotted, ".")
			p.addModule(canon, i)
		}
		if dotted != "" {
			p.addModule(dotted, i)
		}
		p.fileMod[i] = canon
	}
}

func (p *pyLinker) addModule(name string, f int) {
	if _, ok := p.modules[name]; !ok {
		p.modules[name] = f
	}
	for {
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			p.pkgs[name] = true
			return
		}
		name = name[:i]
		p.pkgs[name] = true
	}
}

// bindImports turns a file's import statements into name bindings.
func (p *pyLinker) bindImports(f int) {
	imps := p.files[f].Imports
	if len(imps) == 0 {
		return
	}
	b := make(map[string]pyBinding, len(imps))
	for _, im := range imps {
		mod := im.Module
		if im.Level > 0 {
			mod = p.absModule(f, im.Level, im.Module)
		}
		switch {
		case im.Name == "*":
			p.stars[f] = append(p.stars[f], mod)
		case im.Name != "":
			alias := im.Alias
			if alias == "" {
				alias = im.Name
			}
			b[alias] = pyBinding{mod: mod, name: im.Name}
		case im.Alias != "":
			b[im.Alias] = pyBinding{mod: mod}
		default:
			first, _, _ := strings.Cut(mod, ".")
			b[first] = pyBinding{mod: first}
		}
	}
	p.binds[f] = b
}

// packageOf is the package a file's relative imports start from.
func (p *pyLinker) packageOf(f int) string {
	mod := p.fileMod[f]
	if path.Base(p.files[f].Path) == "__init__.py" {
		return mod
	}
	if i := strings.LastIndexByte(mod, '.'); i >= 0 {
		return mod[:i]
	}
	return ""
}

// absModule resolves `from ..a import b`'s module against the file's package.
func (p *pyLinker) absModule(f, level int, mod string) string {
	pkg := p.packageOf(f)
	for i := 1; i < level; i++ {
		j := strings.LastIndexByte(pkg, '.')
		if j < 0 {
			pkg = ""
			continue
		}
		pkg = pkg[:j]
	}
	switch {
	case pkg == "":
		return mod
	case mod == "":
		return pkg
	default:
		return pkg + "." + mod
	}
}
