package heuristic

import (
	"path"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// asideKind says why a file is not the repository's library code: the
// places an issue's fix rarely lives, though their text often matches the
// issue best (a test reproduces it, an example uses the same words).
type asideKind string

const (
	asideNone    asideKind = ""
	asideTest    asideKind = "tests"
	asideDocs    asideKind = "docs"
	asideExample asideKind = "examples"
	asideVendor  asideKind = "vendored"
	asideScript  asideKind = "script" // a Python file outside every package of a packaged repository
)

// asideDirs maps a folder name to what a tree under it holds. The names
// are the conventions of the ecosystems the index reads, not of any one
// repository.
var asideDirs = map[string]asideKind{
	"test": asideTest, "tests": asideTest, "testing": asideTest, "__tests__": asideTest, "spec": asideTest,
	"doc": asideDocs, "docs": asideDocs, "documentation": asideDocs, "sphinx": asideDocs,
	"example": asideExample, "examples": asideExample, "demo": asideExample, "demos": asideExample,
	"sample": asideExample, "samples": asideExample, "tutorial": asideExample, "tutorials": asideExample,
	"gallery": asideExample, "benchmarks": asideExample, "benchmark": asideExample,
	"vendor": asideVendor, "vendored": asideVendor, "_vendor": asideVendor, "third_party": asideVendor,
	"thirdparty": asideVendor, "extern": asideVendor, "externals": asideVendor, "node_modules": asideVendor,
}

// aboutWords are words of an issue's title that make a tree the subject.
// Tests are left out: "tests fail when ..." is mostly about the code.
var aboutWords = map[string]asideKind{
	"doc": asideDocs, "docs": asideDocs, "documentation": asideDocs, "sphinx": asideDocs,
	"example": asideExample, "examples": asideExample, "tutorial": asideExample, "gallery": asideExample,
}

// priors knows, for one repository, which files are library code.
type priors struct {
	ix       *index.Index
	packaged bool // the repository has Python packages (folders with __init__.py)
	about    map[asideKind]bool
	initSaid bool // the issue names an __init__.py
}

func newPriors(ix *index.Index) *priors {
	pr := &priors{ix: ix, about: map[asideKind]bool{}}
	for _, f := range ix.Files() {
		if path.Base(f.Path) == "__init__.py" {
			pr.packaged = true
			break
		}
	}
	return pr
}

// kind classifies a path by its folders and name, then by whether a
// packaged repository's Python file sits outside every package (setup
// scripts, docs configuration, loose tools).
func (pr *priors) kind(p string) asideKind {
	if isTestFile(p) {
		return asideTest
	}
	if k := pr.dirKind(p); k != asideNone {
		return k
	}
	if pr.packaged && path.Ext(p) == ".py" && !pr.inPackage(p) {
		return asideScript
	}
	return asideNone
}

func (pr *priors) dirKind(p string) asideKind {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if k, ok := asideDirs[strings.ToLower(seg)]; ok {
			return k
		}
	}
	return asideNone
}

// inPackage reports whether some folder above the file is a package.
func (pr *priors) inPackage(p string) bool {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if _, ok := pr.ix.File(d + "/__init__.py"); ok {
			return true
		}
	}
	return false
}

// scale is the factor a file's scores take: aside trees rank below the
// library unless the issue is about them, and a package's __init__ below
// the modules it gathers unless the issue names it.
func (pr *priors) scale(p string, w Params) float64 {
	k := pr.kind(p)
	s := 1.0
	if k != asideNone && !pr.about[k] {
		s = w.Aside
	}
	if path.Base(p) == "__init__.py" && !pr.initSaid {
		s *= w.Init
	}
	return s
}

// learnAbout marks the trees the issue is about: it names a file inside
// one, or its title names the kind ("docs build fails").
func (pr *priors) learnAbout(entries []EntryPoint, title string) {
	for _, e := range entries {
		if e.Kind != EntryFile && e.File == "" {
			continue
		}
		f := e.Text
		if e.File != "" {
			f = e.File
		}
		// A named test is mostly a failing one: the fix is in the code it
		// tests, so naming a test does not lift the tests' prior.
		if k := pr.kind(f); k != asideNone && k != asideTest {
			pr.about[k] = true
		}
		if path.Base(f) == "__init__.py" {
			pr.initSaid = true
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !('a' <= r && r <= 'z')
	}) {
		if k, ok := aboutWords[w]; ok {
			pr.about[k] = true
		}
	}
}
