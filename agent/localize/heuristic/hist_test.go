package heuristic

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/localize/history"
	"github.com/swe-adept/swe-adept/index"
)

// gitRepo is a made-up repository whose commits are a day apart, so ages
// are known.
type gitRepo struct {
	t     *testing.T
	dir   string
	clock int64
}

func newGitRepo(t *testing.T, files map[string]string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	r := &gitRepo{t: t, dir: t.TempDir(), clock: 1_600_000_000}
	r.git("init", "-q", "-b", "main")
	r.commit("initial", files)
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := "@" + strconv.FormatInt(r.clock, 10) + " +0000"
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes the files (appending to those whose body starts with
// "+") and commits them a day after the last commit.
func (r *gitRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if tail, ok := strings.CutPrefix(body, "+"); ok {
			old, _ := os.ReadFile(p)
			body = string(old) + tail
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.clock += 86400
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// index indexes the work tree as it is checked out.
func (r *gitRepo) index() *index.Index {
	r.t.Helper()
	ix, err := index.Build(context.Background(), r.dir, index.Options{NoCache: true})
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
	r.commit("Fix a blank page in Inkscape when the document holds one shape", map[string]string{
		"tests/test_export.py": "def test_blank_page_in_inkscape():\n    assert write_document([], None)\n",
		"inks/export/svg.py":   "def write_document(shapes, stream):\n    stream.write('<svg xmlns=\"http://www.w3.org/2000/svg\">')\n    for s in shapes:\n        stream.write(s.to_svg())\n"})
	base := r.commit("Add colour column", map[string]string{"inks/schema.py": "+\n\ndef colour_of(row):\n    return row.get('colour')\n"})
	future := r.commit("Inkscape shows a blank page for an exported image", map[string]string{
		"inks/export/png.py": "def write_image(shapes, stream):\n    stream.write(b'\\x89PNG')\n"})
	r.git("checkout", "-q", "--detach", base)
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
		r.commit("Tidy CSV reading "+strconv.Itoa(i), map[string]string{"inks/formats/csvfmt.py": "+\n# note " + strconv.Itoa(i) + "\n"})
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
		r.commit("Reader and schema change "+strconv.Itoa(i), map[string]string{
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
