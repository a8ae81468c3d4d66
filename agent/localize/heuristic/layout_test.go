package heuristic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

// writeTree writes files under a temporary folder and indexes it.
func writeTree(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Build(context.Background(), dir, index.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestLayoutFromContent: folders are tests, docs or vendored for what they
// hold, whatever their names say.
func TestLayoutFromContent(t *testing.T) {
	ix := writeTree(t, map[string]string{
		"setup.py":                           "from setuptools import setup\nsetup(name='sphinx')\n",
		"LICENSE":                            "BSD\n",
		"sphinx/__init__.py":                 "",
		"sphinx/writers/rst.py":              "def visit_table(node):\n    return node\n",
		"sphinx/writers/__init__.py":         "",
		"sphinx/testing/__init__.py":         "",
		"sphinx/testing/fixtures.py":         "def make_app(srcdir):\n    return srcdir\n",
		"sphinx/packages/__init__.py":        "",
		"sphinx/packages/sixlib/__init__.py": "def moves():\n    return 1\n",
		"sphinx/packages/sixlib/LICENSE":     "MIT\n",
		"tests/test_writers.py":              "def test_visit_table():\n    assert True\n",
		"tests/test_build.py":                "def test_build():\n    assert True\n",
		"tests/roots/test-root/conf.py":      "project = 'x'\n",
		"tests/roots/test-root/target.py":    "def documented():\n    pass\n",
		"checks/verify.py":                   "def test_all_links():\n    pass\n",
		"doc/index.rst":                      "Welcome\n",
		"doc/usage.rst":                      "Usage\n",
		"doc/usage/extensions.rst":           "Extensions\n",
		"doc/usage/example_google.py":        "def function_with_types(a, b):\n    return a\n",
		"doc/conf.py":                        "project = 'sphinx'\n",
	})
	lay := learnLayout(ix)
	tests := []struct {
		path string
		want asideKind
	}{
		{"sphinx/writers/rst.py", asideNone},
		{"sphinx/testing/fixtures.py", asideNone},
		{"sphinx/packages/sixlib/__init__.py", asideVendor},
		{"tests/test_writers.py", asideTest},
		{"tests/roots/test-root/target.py", asideTest},
		{"checks/verify.py", asideTest},
		{"doc/usage/example_google.py", asideDocs},
		{"doc/conf.py", asideDocs},
	}
	for _, tc := range tests {
		if got := lay.kindOf(tc.path); got != tc.want {
			t.Errorf("kindOf(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestLayoutNeedsAHostDistribution: a tree with no distribution of its
// own at the top (a monorepo of packages) vendors nothing.
func TestLayoutNeedsAHostDistribution(t *testing.T) {
	ix := writeTree(t, map[string]string{
		"alpha/setup.py":          "",
		"alpha/alpha/__init__.py": "def a():\n    pass\n",
		"beta/pyproject.toml":     "",
		"beta/beta/__init__.py":   "def b():\n    pass\n",
	})
	lay := learnLayout(ix)
	if k := lay.kindOf("alpha/alpha/__init__.py"); k != asideNone {
		t.Errorf("alpha is %q in a tree of sibling distributions", k)
	}
}

// TestInitThatImplements: a package __init__ that holds the package's
// code is ranked as the module it is; one that only gathers its modules
// ranks below them.
func TestInitThatImplements(t *testing.T) {
	var impl strings.Builder
	impl.WriteString("class Documenter:\n    def format_signature(self, overloads):\n        return [str(o) for o in overloads]\n\n")
	for i := range 12 {
		fmt.Fprintf(&impl, "\ndef helper_%d(x):\n    return x + %d\n", i, i)
	}
	ix := writeTree(t, map[string]string{
		"setup.py":                   "",
		"docgen/__init__.py":         "from .autodoc import *\n",
		"docgen/autodoc/__init__.py": impl.String(),
		"docgen/autodoc/typehints.py": "def record_typehints(app, signature, overloads):\n    return {'signature': signature}\n\n\n" +
			"def merge_typehints(app, signature):\n    return signature\n",
		"docgen/gather/__init__.py": "from .parts import Part\n\n\ndef part_signature(p):\n    return p.signature\n",
		"docgen/gather/parts.py":    "class Part:\n    def signature(self, overloads):\n        return overloads\n",
	})
	checkRanking(t, ix, []rankCase{
		{name: "an implementing __init__", issue: "format_signature ignores overloads\n\nThe signature of overloaded callables loses every overload but the first.",
			file: "docgen/autodoc/__init__.py"},
		{name: "a gathering __init__", issue: "Part signature ignores overloads\n\nThe signature of a Part loses its overloads.",
			below: [2]string{"docgen/gather/parts.py", "docgen/gather/__init__.py"}},
	})
}
