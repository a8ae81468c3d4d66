package heuristic

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/swe-adept/swe-adept/agent/localize/history"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// gitRepo is a made-up repository whose commits are a day apart, so ages
// are known.
type gitRepo struct {
	*testtree.Repo
	t *testing.T
}

func newGitRepo(t *testing.T, files map[string]string) gitRepo {
	t.Helper()
	r := gitRepo{testtree.NewRepo(t), t}
	r.Commit("initial", files)
	return r
}

// index indexes the work tree as it is checked out.
func (r gitRepo) index() *index.Index {
	r.t.Helper()
	ix, err := index.Build(context.Background(), r.Dir, index.Options{NoCache: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return ix
}

// inks is a made-up package: two readers of the same shape, a schema the
// readers lean on, and two exporters.
var inks = map[string]string{
	"setup.py":                 "from setuptools import setup\nsetup(name='inks')\n",
	"inks/__init__.py":         "",
	"inks/formats/__init__.py": "",
	"inks/formats/csvfmt.py": "from inks.schema import check_columns\n\n\nclass CsvReader:\n" +
		"    def read_rows(self, path):\n        rows = open(path).read().splitlines()\n        return [check_columns(r.split(',')) for r in rows[:-1]]\n",
	"inks/formats/jsonfmt.py": "import json\n\n\nclass JsonReader:\n" +
		"    def read_rows(self, path):\n        rows = json.load(open(path))\n        return rows[:-1]\n",
	"inks/schema.py":          "COLUMNS = ('x', 'y', 'colour')\n\n\ndef check_columns(row):\n    return dict(zip(COLUMNS, row))\n",
	"inks/export/__init__.py": "",
	"inks/export/svg.py":      "def write_document(shapes, stream):\n    stream.write('<svg>')\n    for s in shapes:\n        stream.write(s.to_svg())\n",
	"inks/export/png.py":      "def write_image(shapes, stream):\n    stream.write(b'PNG')\n",
	"tests/test_readers.py":   "from inks.formats.csvfmt import CsvReader\n\n\ndef test_read_rows():\n    assert CsvReader().read_rows('a.csv')\n",
}

// rankAt localizes the issue in ix with the given weights and the history
// the localizer finds in the index's own repository.
func rankAt(t *testing.T, ix *index.Index, p Params, issue string) (files, funcs []string, h *Heuristic) {
	t.Helper()
	h = NewWithParams(ix, nil, p)
	_, files, funcs = heurConverse(t, h, issue)
	return files, funcs, h
}

// TestSimilarPastChanges: a past change whose message reads like the
// issue lifts the file and the function it changed; a later commit, made
// after the checked-out one, says nothing, though it reads like the issue
// even more.
func TestSimilarPastChanges(t *testing.T) {
	r := newGitRepo(t, inks)
	r.Commit("Fix a blank page in Inkscape when the document holds one shape", map[string]string{
		"tests/test_export.py": "def test_blank_page_in_inkscape():\n    assert write_document([], None)\n",
		"inks/export/svg.py":   "def write_document(shapes, stream):\n    stream.write('<svg xmlns=\"http://www.w3.org/2000/svg\">')\n    for s in shapes:\n        stream.write(s.to_svg())\n"})
	base := r.Commit("Add colour column", map[string]string{"inks/schema.py": "+\n\ndef colour_of(row):\n    return row.get('colour')\n"})
	future := r.Commit("Inkscape shows a blank page for an exported image", map[string]string{
		"inks/export/png.py": "def write_image(shapes, stream):\n    stream.write(b'\\x89PNG')\n"})
	r.Git("checkout", "-q", "--detach", base)
	ix := r.index()
	issue := "Blank page in Inkscape\n\nOpening what I exported in Inkscape shows a blank page."

	p := DefaultParams()
	p.History = 0
	without, _, _ := rankAt(t, ix, p, issue)
	if len(without) > 0 && without[0] == "inks/export/svg.py" {
		t.Fatalf("without history svg.py already ranks first (%v): the case shows nothing", without)
	}
	p.History = 0.5
	files, funcs, h := rankAt(t, ix, p, issue)
	if len(files) == 0 || files[0] != "inks/export/svg.py" {
		t.Errorf("files %v: the file the similar past change touched should lead", files)
	}
	if !slices.Contains(funcs[:min(5, len(funcs))], "inks/export/svg.py:write_document") {
		t.Errorf("functions %v: write_document, which the past change spanned, should be in the first five", funcs)
	}
	if i, j := slices.Index(files, "inks/export/svg.py"), slices.Index(files, "inks/export/png.py"); j >= 0 && j < i {
		t.Errorf("files %v: png.py, changed only after the checked-out commit, rose above svg.py", files)
	}
	// The past fix touched its test too; the history ranks library code
	// only, so the test takes no place in it.
	if ev := h.st.hist.files; len(ev) == 0 || ev[0] != "inks/export/svg.py" || slices.Contains(ev, "tests/test_export.py") {
		t.Errorf("history's files %v: want svg.py first and no tests", ev)
	}
	m := h.historyModel(context.Background())
	if m == nil {
		t.Fatal("no history found in the repository")
	}
	for _, c := range m.h.Commits {
		if c.Hash == future {
			t.Fatalf("the commit made after %s is in its history", base[:8])
		}
	}
}

// TestRecentChurn: of two readers the issue fits equally, the one that
// changed most lately ranks first when recency counts.
func TestRecentChurn(t *testing.T) {
	r := newGitRepo(t, inks)
	for i := range 4 {
		r.Commit("Tidy CSV reading "+strconv.Itoa(i), map[string]string{"inks/formats/csvfmt.py": "+\n# note " + strconv.Itoa(i) + "\n"})
	}
	ix := r.index()
	issue := "read_rows loses the last row\n\n`read_rows` returns one row too few."
	p := DefaultParams()
	p.History, p.Recent = 0, 0
	without, _, _ := rankAt(t, ix, p, issue)
	if len(without) > 0 && without[0] == "inks/formats/csvfmt.py" {
		t.Fatalf("without recency csvfmt.py already leads (%v): the case shows nothing", without)
	}
	p.Recent = 0.3
	files, _, _ := rankAt(t, ix, p, issue)
	if len(files) == 0 || files[0] != "inks/formats/csvfmt.py" {
		t.Errorf("files %v: the reader changed lately should lead", files)
	}
}

// TestCoChange: the file that changes together with the best candidate
// rises when co-change counts.
func TestCoChange(t *testing.T) {
	r := newGitRepo(t, inks)
	for i := range 3 {
		r.Commit("Reader and schema change "+strconv.Itoa(i), map[string]string{
			"inks/formats/csvfmt.py": "+\n# csv " + strconv.Itoa(i) + "\n",
			"inks/schema.py":         "+\n# schema " + strconv.Itoa(i) + "\n",
		})
	}
	ix := r.index()
	issue := "CsvReader.read_rows accepts a row with a missing column\n\n`CsvReader.read_rows` should refuse rows without a colour."
	p := DefaultParams()
	p.History, p.Recent, p.CoChange = 0, 0, 0
	without, _, _ := rankAt(t, ix, p, issue)
	at := func(files []string) int { return slices.Index(files, "inks/schema.py") }
	p.CoChange = 0.5
	files, _, _ := rankAt(t, ix, p, issue)
	if at(files) < 0 || (at(without) >= 0 && at(files) >= at(without)) {
		t.Errorf("schema.py at %d with co-change (%v), at %d without (%v): it should rise", at(files), files, at(without), without)
	}
}

// TestNoHistoryOutsideARepository: a sample tree inside another project
// is not that project's history.
func TestNoHistoryOutsideARepository(t *testing.T) {
	h := New(geoRepo(t), nil)
	if m := h.historyModel(context.Background()); m != nil {
		t.Fatalf("the geo sample took the history of the repository around it: %d commits", len(m.h.Commits))
	}
	var none *history.History
	if m := New(geoRepo(t), nil).WithHistory(none).historyModel(context.Background()); m != nil {
		t.Fatal("a localizer given no history found one")
	}
}
