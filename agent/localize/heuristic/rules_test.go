package heuristic

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// geoRepo is a made-up package with the places issues mislead a
// localizer to: an example and a test that use the issue's words, a
// vendored copy, a manager beside the module that does the work, a generic
// writer beside a format's own, and a package __init__ that re-exports.
var geoRepo = sampleIndex("testdata/geo")

// rankCase is an issue and what its ranking must show.
type rankCase struct {
	name  string
	issue string
	file  string // must be the first file
	fn    string // must be among the first five functions
	fnTop int    // or among the first fnTop
	below [2]string
}

// checkRanking localizes each case's issue in ix and checks its ranking.
func checkRanking(t *testing.T, ix *index.Index, tests []rankCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, files, funcs := heurConverse(t, New(ix, nil), tc.issue)
			if len(files) == 0 || len(funcs) == 0 {
				t.Fatalf("empty ranking: files %v, functions %v", files, funcs)
			}
			if tc.file != "" && files[0] != tc.file {
				t.Errorf("first file %s, want %s (files %v)", files[0], tc.file, files)
			}
			top := cmp.Or(tc.fnTop, 5)
			if tc.fn != "" && !slices.Contains(funcs[:min(top, len(funcs))], tc.fn) {
				t.Errorf("%s not among the first %d functions %v", tc.fn, top, funcs)
			}
			if a, b := tc.below[0], tc.below[1]; a != "" {
				ia, ib := slices.Index(files, a), slices.Index(files, b)
				if ia < 0 || (ib >= 0 && ib < ia) {
					t.Errorf("%s (at %d) should rank above %s (at %d): %v", a, ia, b, ib, files)
				}
			}
		})
	}
}

func TestRankingRules(t *testing.T) {
	tests := []rankCase{
		{
			name: "names the issue's own code defines lead nowhere, the words still do",
			issue: "Wrong total for my shapes\n\n```python\nclass MyShape:\n    def my_area(self):\n        return 3\n\n" +
				"def summarize(items):\n    return sum(i.my_area() for i in items)\n```\nThe manager's total area of the polygons is wrong.",
			file: "geo/manager.py",
			fn:   "geo/manager.py:ShapeManager.total_area",
		},
		{
			name:  "a dotted module path in the environment section maps to its file",
			issue: "Drawing fails\n\nEnvironment:\n- module: geo.io.svg\n- python 3.11\n\nNothing is drawn at all.",
			file:  "geo/io/svg.py",
		},
		{
			name:  "a quoted log line goes to the code that logs it",
			issue: "Shapes vanish from drawings\n\nI see this in the log:\n\nWARNING: skipping shape without points in the drawing\n",
			file:  "geo/io/svg.py",
			fn:    "geo/io/svg.py:SvgWriter.write_shape",
		},
		{
			name:  "a quoted error message goes to the code that raises it",
			issue: "Cannot measure a line\n\nI get \"polygon needs at least three points\" when I pass two points.",
			file:  "geo/shapes.py",
			fn:    "geo/shapes.py:polygon_area",
		},
		{
			name:  "a failing test points at the code it tests",
			issue: "Flaky result\n\ntests/test_shapes.py::test_polygon_area fails on my machine with a rounding difference.",
			file:  "geo/shapes.py",
			fn:    "geo/shapes.py:Polygon.area",
			below: [2]string{"geo/shapes.py", "tests/test_shapes.py"},
		},
		{
			name:  "examples and docs rank below the library they use",
			issue: "polygon area and total area\n\nThe polygon area and the total area printed for a polygon and a circle are wrong.",
			below: [2]string{"geo/shapes.py", "docs/examples/plot_polygon_area.py"},
		},
		{
			name:  "unless the issue is about them",
			issue: "Docs example plot_polygon_area is wrong\n\nThe polygon area example in the gallery prints the total area twice.",
			file:  "docs/examples/plot_polygon_area.py",
		},
		{
			name:  "vendored code ranks below the library",
			issue: "Stroke width is lost\n\nThe stroke width of a shape written with its points is not kept.",
			below: [2]string{"geo/io/base.py", "geo/_vendor/tinyjson.py"},
		},
		{
			name:  "the callee of the named method is where the work is done",
			issue: "total is negative\n\n`ShapeManager.total_area()` returns a negative number sometimes.",
			fn:    "geo/shapes.py:polygon_area",
			fnTop: 2,
		},
		{
			name:  "the format's own module beats the generic one",
			issue: "SVG output has no stroke\n\nWhen I write shapes as svg the stroke is missing.",
			file:  "geo/io/svg.py",
			below: [2]string{"geo/io/svg.py", "geo/io/base.py"},
		},
		{
			name:  "a package __init__ ranks below the module that defines what it re-exports",
			issue: "Circle scale is wrong\n\n`Circle.scale` returns a circle of the wrong radius.",
			file:  "geo/shapes.py",
			below: [2]string{"geo/shapes.py", "geo/__init__.py"},
		},
		{
			name: "a command the issue runs, and the table it prints, lead to the code that prints it",
			issue: "geo show should also print the perimeter\n\nI add shapes with `manager.add_shape(Circle(2))` and " +
				"`manager.add_polygon(points)` and then look at them:\n\n```\n$ geo show shapes.txt\n" +
				"Name    Kind    Area\nwheel   Circle  12.57\n```\n\nThe shapes' area is there but not their perimeter.",
			file:  "geo/cli.py",
			fn:    "geo/cli.py:show_command",
			fnTop: 1,
		},
		{
			name: "a sentence the program printed leads to the code that prints it",
			issue: "Files are skipped silently\n\n```\n$ geo count a.txt b.txt\n" +
				" * Note: some shape files could not be read and were skipped.\n2\n```\n",
			file:  "geo/cli.py",
			fn:    "geo/cli.py:load",
			fnTop: 1,
		},
	}
	checkRanking(t, geoRepo(t), tests)
}

// TestSessionOutput: what an interactive session printed is searched for
// as the repository's text, and leads to the code that prints it; the
// session's input and its continuation lines are not output.
func TestSessionOutput(t *testing.T) {
	issue := "Wrong description of shapes\n\n```pycon\n>>> from geo import shapes\n>>> shapes.Polygon([(0, 0), (1, 0),\n" +
		"...     (1, 1)])\n3-point polygon, its area still unknown\n```\n" +
		"But `Polygon.area()` and `polygon_area` give the area of the polygon, so it is known."
	calls, _, funcs := heurConverse(t, New(geoRepo(t), nil), issue)
	var searched []string
	for _, c := range calls {
		if c.Name == search.FindCodeContent.Name {
			searched = append(searched, c.Arguments)
		}
	}
	if !slices.ContainsFunc(searched, func(a string) bool { return strings.Contains(a, "polygon, its area still unknown") }) {
		t.Errorf("the printed line was not searched for: %v", searched)
	}
	if !slices.Contains(funcs[:min(3, len(funcs))], "geo/shapes.py:Polygon.__repr__") {
		t.Errorf("Polygon.__repr__ not among the first three functions %v", funcs)
	}
	for _, e := range ExtractEntryPoints(issue) {
		if e.Kind == EntryOutput && (strings.Contains(e.Text, "shapes") || strings.Contains(e.Text, "(1, 1)")) {
			t.Errorf("%q is the session's input, not its output", e.Text)
		}
	}
}

// TestForeignCommands: the words and output of a program that is not the
// repository's own are no evidence.
func TestForeignCommands(t *testing.T) {
	issue := "```\n$ make show\nName    Kind    Area\n$ geo show\nName    Kind    Area\n```\n"
	kept := dropForeignCommands(search.NewSearcher(geoRepo(t)), ExtractEntryPoints(issue))
	progs := map[string]bool{}
	for _, e := range kept {
		if e.Kind == EntryCommand || e.Kind == EntryOutput {
			for _, p := range e.Programs {
				progs[p] = true
			}
		}
	}
	if !progs["geo"] {
		t.Errorf("programs kept %v, want geo's: its own program ran the command too", progs)
	}
	kept = dropForeignCommands(search.NewSearcher(geoRepo(t)), ExtractEntryPoints("```\n$ make show\nName    Kind    Area\n```\n"))
	for _, e := range kept {
		if e.Kind == EntryCommand || e.Kind == EntryOutput {
			t.Errorf("%+v: only another program ran it", e)
		}
	}
}

// TestNeverEmpty: an issue whose every name is the reporter's own, in a
// repository whose words it barely shares, still gets a ranking.
func TestNeverEmpty(t *testing.T) {
	issue := "It breaks\n\n```python\nclass Foo:\n    pass\n\ndef bar():\n    return Foo()\n```\n"
	_, files, funcs := heurConverse(t, New(geoRepo(t), nil), issue)
	if len(files) == 0 {
		t.Errorf("no files ranked (functions %v)", funcs)
	}
}

func TestDropLocal(t *testing.T) {
	ix := geoRepo(t)
	issue := "```python\nfrom geo import Polygon\nclass Square(Polygon):\n    def area(self):\n        return 1\n" +
		"shape = Square([])\n```\nSquare.area disagrees with Polygon.area"
	kept, local := dropLocal(search.NewSearcher(ix), ExtractEntryPoints(issue))
	texts := map[string]bool{}
	for _, e := range kept {
		texts[e.Text] = true
	}
	if !slices.Contains(local, "Square") || texts["Square"] || texts["shape"] {
		t.Errorf("the script's own Square and shape should be left out: local %v", local)
	}
	if !texts["area"] {
		t.Errorf("area is defined by the script and by the repository: it must stay (kept %v)", kept)
	}
}

// TestOwnProgram: the program a shell line runs is the repository's when
// the repository holds it where programs live, in any of its languages.
func TestOwnProgram(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		prog  string
		own   bool
	}{
		{"a package", []string{"geo/__init__.py"}, "geo", true},
		{"a package under src", []string{"src/geo/__init__.py"}, "geo", true},
		{"a module, dashes as underscores", []string{"geo_tool.py"}, "geo-tool", true},
		{"a Go command", []string{"cmd/geo/main.go", "geo.go"}, "geo", true},
		{"a Node executable", []string{"bin/geo.js", "src/index.ts"}, "geo", true},
		{"a module of that name deeper down", []string{"src/_runner/python.py"}, "python", false},
		{"another program", []string{"geo/__init__.py"}, "make", false},
		{"a path", []string{"geo/__init__.py"}, "./geo", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(sourceFor(f)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ix, err := index.Build(context.Background(), dir, index.Options{NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := ownProgram(search.NewSearcher(ix), tc.prog); got != tc.own {
				t.Errorf("ownProgram(%q) = %v, want %v", tc.prog, got, tc.own)
			}
		})
	}
}

func sourceFor(file string) string {
	switch filepath.Ext(file) {
	case ".go":
		return "package main\n\nfunc main() {}\n"
	case ".js", ".ts":
		return "function main() {}\n"
	}
	return "def main():\n    pass\n"
}

// TestQuotedTextFoundFirstByName: a unit that holds the message the issue
// quotes holds it even when the search for its name showed it first.
func TestQuotedTextFoundFirstByName(t *testing.T) {
	issue := "`polygon_area` fails\n\nIt says \"polygon needs at least three points\" for my square."
	h := New(geoRepo(t), nil)
	h.corpus = h.lex()
	st := newHState(context.Background(), h, issue, 20)
	st.entryTurn()
	su, ok := st.seen["geo/shapes.py:polygon_area"]
	if !ok || !su.raises {
		t.Errorf("polygon_area seen %v, holds the message %v; want both", ok, ok && su.raises)
	}
}
