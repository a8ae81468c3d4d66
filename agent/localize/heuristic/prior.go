package heuristic

import (
	"path"
	"strings"

	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// asideKind says why a file is not the repository's library code: the
// places an issue's fix rarely lives, though their text often matches the
// issue best (a test reproduces it, an example uses the same words).
type asideKind string

const (
	asideNone   asideKind = ""
	asideTest   asideKind = "tests"
	asideDocs   asideKind = "docs"
	asideVendor asideKind = "vendored"
	asideScript asideKind = "script" // a Python file outside every package of a packaged repository
)

// aboutWords are words of an issue's title that make a tree the subject.
// Tests are left out: "tests fail when ..." is mostly about the code.
// Examples are mostly scripts outside the package, so the words that
// name docs or examples lift both.
var aboutWords = map[string][]asideKind{
	"doc": {asideDocs, asideScript}, "docs": {asideDocs, asideScript}, "documentation": {asideDocs, asideScript},
	"example": {asideDocs, asideScript}, "examples": {asideDocs, asideScript},
	"tutorial": {asideDocs, asideScript}, "gallery": {asideDocs, asideScript},
}

// priors knows, for one repository, which files are library code.
type priors struct {
	ix       *index.Index
	lay      *layout
	packaged bool // the repository has Python packages (folders with __init__.py)
	about    map[asideKind]bool
	initSaid bool // the issue names an __init__.py
}

func newPriors(ix *index.Index, lay *layout) *priors {
	pr := &priors{ix: ix, lay: lay, about: map[asideKind]bool{}}
	for _, f := range ix.Files() {
		if path.Base(f.Path) == "__init__.py" {
			pr.packaged = true
			break
		}
	}
	return pr
}

// kind classifies a path by its name (the test runners' conventions for
// test modules), by what the folders above it hold, then by whether a
// packaged repository's Python file sits outside every package (setup
// scripts, docs configuration, examples, loose tools).
func (pr *priors) kind(p string) asideKind {
	if search.IsTestPath(path.Base(p)) {
		return asideTest
	}
	if k := pr.lay.kindOf(p); k != asideNone {
		return k
	}
	if pr.packaged && path.Ext(p) == ".py" && !pr.inPackage(p) {
		return asideScript
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
// library unless the issue is about them, and a package's __init__ that
// gathers its modules ranks below them unless the issue names it.
func (pr *priors) scale(p string, w Params) float64 {
	k := pr.kind(p)
	s := 1.0
	if k != asideNone && !pr.about[k] {
		s = w.Aside
	}
	if path.Base(p) == "__init__.py" && !pr.initSaid && pr.gatherer(p) {
		s *= w.Init
	}
	return s
}

// library reports whether p is library code, or in a tree the issue is
// about.
func (pr *priors) library(p string) bool {
	k := pr.kind(p)
	return k == asideNone || pr.about[k]
}

// gathererMax is the most definitions a package's __init__ holds and
// still be read as gathering its modules; one that defines more is an
// implementation module in its own right (some packages keep all their
// code there).
const gathererMax = 10

// gatherer reports whether a file defines few functions and classes of
// its own, so what an issue names there is mostly defined elsewhere.
func (pr *priors) gatherer(p string) bool {
	f, ok := pr.ix.File(p)
	if !ok {
		return true
	}
	n := 0
	for _, id := range f.Units {
		if u, ok := pr.ix.Unit(id); ok && u.Kind != index.KindChunk {
			n++
		}
	}
	return n <= gathererMax
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
		for _, k := range aboutWords[w] {
			pr.about[k] = true
		}
	}
}
