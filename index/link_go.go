package index

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/index/parse"
)

// goLinker links Go calls within the module: same-package functions and
// types, methods called on the method's receiver variable, and functions
// of the module's other packages called through their import name.
type goLinker struct {
	*linker
	pkgOf   []int32          // file -> package number, -1 for other languages
	pkgDir  map[string]int32 // directory -> its non-test package
	pkgName map[int32]string
	imports []map[string]string
}

// goPkgScope is a package's scope number in linker.members; it sits past
// every file scope.
func (g *goLinker) goPkgScope(p int32) int32 { return -int32(len(g.files)) - 1 - p }

func linkGo(r *linker) {
	g := &goLinker{linker: r, pkgOf: make([]int32, len(r.files)), pkgDir: map[string]int32{}, pkgName: map[int32]string{}, imports: make([]map[string]string, len(r.files))}
	g.groupPackages()
	g.attachMethods()
	r.eachFile(parse.Go, g.bindImports)
	r.eachCallFile(parse.Go, g.resolveCalls)
}

// groupPackages numbers packages (directory plus package name, so that an
// external _test package stays apart) and puts each file's top-level
// functions and types in its package's scope.
func (g *goLinker) groupPackages() {
	ids := map[string]int32{}
	for fi, f := range g.files {
		g.pkgOf[fi] = -1
		if f.Lang != parse.Go {
			continue
		}
		dir := goDir(f.Path)
		key := dir + "\x00" + f.Pkg
		id, ok := ids[key]
		if !ok {
			id = int32(len(ids))
			ids[key] = id
		}
		g.pkgOf[fi] = id
		if !strings.HasSuffix(f.Pkg, "_test") {
			if _, ok := g.pkgDir[dir]; !ok {
				g.pkgDir[dir] = id
				g.pkgName[id] = f.Pkg
			}
		}
		lo, hi := g.fileUnits(fi)
		for u := lo; u < hi; u++ {
			if g.parent[u] < 0 && g.kind(u) != KindChunk && g.raw[u].Recv == "" {
				g.members[scopeName{g.goPkgScope(id), g.units[u].Name}] = u
			}
		}
	}
}

// attachMethods makes each method a child of its receiver's type when the
// type is declared in the same package, whichever file holds it.
func (g *goLinker) attachMethods() {
	for fi, f := range g.files {
		if f.Lang != parse.Go {
			continue
		}
		lo, hi := g.fileUnits(fi)
		for u := lo; u < hi; u++ {
			recv := g.raw[u].Recv
			if recv == "" || g.parent[u] >= 0 {
				continue
			}
			if t, ok := g.members[scopeName{g.goPkgScope(g.pkgOf[fi]), recv}]; ok && g.kind(t) == KindClass {
				g.setParent(u, t)
			}
		}
	}
}

// bindImports maps each import name of a file to a directory of the module.
func (g *goLinker) bindImports(fi int) {
	if g.goModule == "" {
		return
	}
	m := map[string]string{}
	for _, im := range g.files[fi].Imports {
		dir, ok := moduleDir(g.goModule, im.Module)
		if !ok {
			continue
		}
		name := im.Alias
		if name == "" || name == "." || name == "_" {
			if name != "" {
				continue
			}
			name = g.packageName(dir, path.Base(im.Module))
		}
		m[name] = dir
	}
	g.imports[fi] = m
}

// goDir is a Go file's directory as the linker names packages: "" at
// the root.
func goDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// moduleDir is the directory of module mod that an import path names ("" at
// its root), if the path is inside the module.
func moduleDir(mod, importPath string) (string, bool) {
	if importPath == mod {
		return "", true
	}
	return strings.CutPrefix(importPath, mod+"/")
}

// packageName is the package clause of a module directory's files, which
// is what an import without an alias binds.
func (g *goLinker) packageName(dir, fallback string) string {
	if id, ok := g.pkgDir[dir]; ok && g.pkgName[id] != "" {
		return g.pkgName[id]
	}
	return fallback
}

func (g *goLinker) resolveCalls(fi int) {
	g.linkCalls(fi, func(u int32, name string) int32 { return g.resolveCall(fi, u, name) }, nil)
}

func (g *goLinker) resolveCall(fi int, u int32, name string) int32 {
	return g.resolveCallHops(fi, u, name, 0)
}

func (g *goLinker) resolveCallHops(fi int, u int32, name string, hops int) int32 {
	if !parse.IsDotted(name) || hops > maxHops {
		return -1
	}
	head, rest, dotted := strings.Cut(name, ".")
	scope := g.goPkgScope(g.pkgOf[fi])
	if !dotted {
		if t, ok := g.members[scopeName{scope, head}]; ok {
			return t
		}
		return -1
	}
	if strings.IndexByte(rest, '.') >= 0 {
		return -1
	}
	if m := g.methodOwner(u); m >= 0 && g.raw[m].RecvVar == head {
		if typ, ok := g.members[scopeName{scope, g.raw[m].Recv}]; ok {
			if t, ok := g.members[scopeName{typ, rest}]; ok {
				return t
			}
		}
		return -1
	}
	if t := g.pkgMember(fi, head, rest); t >= 0 {
		return t
	}
	if typ := g.varType(fi, u, head, hops); typ >= 0 {
		if t, ok := g.members[scopeName{typ, rest}]; ok {
			return t
		}
	}
	return -1
}

// pkgMember finds name in the module package that file fi imports as pkg.
func (g *goLinker) pkgMember(fi int, pkg, name string) int32 {
	dir, ok := g.imports[fi][pkg]
	if !ok {
		return -1
	}
	p, ok := g.pkgDir[dir]
	if !ok {
		return -1
	}
	if t, ok := g.members[scopeName{g.goPkgScope(p), name}]; ok {
		return t
	}
	return -1
}

// typeUnit resolves a type name as written in file fi ("T" or "pkg.T").
func (g *goLinker) typeUnit(fi int, name string) int32 {
	var t int32 = -1
	if pkg, typ, ok := strings.Cut(name, "."); ok {
		t = g.pkgMember(fi, pkg, typ)
	} else if u, ok := g.members[scopeName{g.goPkgScope(g.pkgOf[fi]), name}]; ok {
		t = u
	}
	if t >= 0 && g.kind(t) == KindClass {
		return t
	}
	return -1
}

// varType is the type unit of a variable of unit u (or of a unit around
// it): from a composite literal or var declaration, or from the declared
// result of the function that produced it.
func (g *goLinker) varType(fi int, u int32, name string, hops int) int32 {
	for s := u; s >= 0; s = g.parent[s] {
		for _, v := range g.raw[s].Vars {
			if v.Name != name {
				continue
			}
			if typ, ok := strings.CutSuffix(v.Type, "{}"); ok {
				return g.typeUnit(fi, typ)
			}
			fn := g.resolveCallHops(fi, s, v.Type, hops+1)
			if fn < 0 || g.kind(fn) == KindClass {
				return -1
			}
			res := goResultType(g.units[fn].Signature, g.units[fn].Name)
			if res == "" {
				return -1
			}
			return g.typeUnit(int(g.fileOf[fn]), res)
		}
	}
	return -1
}

// goResultType reads the first result type from a signature such as
// "func NewT(x int) (*T, error)": "T".
func goResultType(sig, name string) string {
	i := strings.Index(sig, name+"(")
	if i < 0 {
		return ""
	}
	depth, j := 0, i+len(name)
	for ; j < len(sig); j++ {
		if sig[j] == '(' {
			depth++
		} else if sig[j] == ')' {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	res := strings.TrimSpace(sig[min(j+1, len(sig)):])
	res = strings.TrimPrefix(res, "(")
	if k := strings.IndexAny(res, ",) "); k >= 0 {
		res = res[:k]
	}
	res = strings.TrimLeft(res, "*")
	if k := strings.IndexByte(res, '['); k >= 0 {
		res = res[:k]
	}
	if !parse.IsDotted(res) {
		return ""
	}
	return res
}

// methodOwner is the method that unit u is (or is nested in), -1 if none.
func (g *goLinker) methodOwner(u int32) int32 {
	for s := u; s >= 0; s = g.parent[s] {
		if g.raw[s].Recv != "" {
			return s
		}
	}
	return -1
}

// readGoModule reads the module path from root/go.mod, "" if none.
func readGoModule(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
