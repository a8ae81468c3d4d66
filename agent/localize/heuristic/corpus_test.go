package heuristic

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

// The reference corpus below is the plain construction the corpus must
// match: each unit's own text cut from its file's lines and tokenized as
// a string, each file's source tokenized again, and term frequencies
// counted in a map per document.

// refDocs is one ranking's documents as token lists.
func refUnitDocs(ix *index.Index) [][]string {
	lines := map[string][]string{}
	var docs [][]string
	for _, u := range ix.Units() {
		var toks []string
		name := identTokens(u.QualName)
		for range nameBoost {
			toks = append(toks, name...)
		}
		toks = append(toks, identTokens(strings.TrimSuffix(u.Path, path.Ext(u.Path)))...)
		docs = append(docs, append(toks, identTokens(refOwnText(ix, u, lines))...))
	}
	return docs
}

func refOwnText(ix *index.Index, u *index.Unit, cache map[string][]string) string {
	lines, ok := cache[u.Path]
	if !ok {
		src, err := ix.Source(u.Path)
		if err != nil {
			return u.Signature
		}
		lines = strings.Split(string(src), "\n")
		cache[u.Path] = lines
	}
	var nested [][2]int
	for _, e := range u.Children {
		if ch, ok := ix.Unit(e.ID); ok && e.Rel == index.Contains && ch.Path == u.Path {
			nested = append(nested, [2]int{ch.Start, ch.End})
		}
	}
	var b strings.Builder
	for l := max(u.Start, 1); l <= min(u.End, len(lines)); l++ {
		if !inSpans(l, nested) {
			b.WriteString(lines[l-1] + "\n")
		}
	}
	return b.String()
}

func refFileDocs(ix *index.Index) [][]string {
	var docs [][]string
	for _, f := range ix.Files() {
		var d []string
		p := identTokens(strings.TrimSuffix(f.Path, path.Ext(f.Path)))
		for range nameBoost {
			d = append(d, p...)
		}
		if src, err := ix.Source(f.Path); err == nil {
			d = append(d, identTokens(string(src))...)
		}
		docs = append(docs, d)
	}
	return docs
}

// refPostings counts term frequencies the plain way: term -> doc -> tf.
func refPostings(docs [][]string) map[string]map[int]float32 {
	out := map[string]map[int]float32{}
	for i, d := range docs {
		for _, t := range d {
			if out[t] == nil {
				out[t] = map[int]float32{}
			}
			out[t][i]++
		}
	}
	return out
}

// sameBM25 compares a ranking with its reference documents: document
// lengths, and every term's postings (in document order).
func sameBM25(t *testing.T, what string, m *bm25, docs [][]string) {
	t.Helper()
	if len(m.lens) != len(docs) {
		t.Fatalf("%s: %d documents, want %d", what, len(m.lens), len(docs))
	}
	for i, d := range docs {
		if m.lens[i] != float64(len(d)) {
			t.Errorf("%s: document %d has length %v, want %d", what, i, m.lens[i], len(d))
		}
	}
	want := refPostings(docs)
	for term, byDoc := range want {
		got := m.postings(term)
		if !slices.IsSortedFunc(got, func(a, b posting) int { return int(a.doc - b.doc) }) {
			t.Errorf("%s: postings of %q out of order: %v", what, term, got)
		}
		if len(got) != len(byDoc) {
			t.Errorf("%s: %q in %d documents, want %d", what, term, len(got), len(byDoc))
			continue
		}
		for _, p := range got {
			if byDoc[int(p.doc)] != p.tf {
				t.Errorf("%s: %q in document %d: tf %v, want %v", what, term, p.doc, p.tf, byDoc[int(p.doc)])
			}
		}
	}
	for term, id := range m.terms.ids {
		if int(id) < len(m.post) && len(m.post[id]) > 0 && want[term] == nil {
			t.Errorf("%s: term %q has postings the reference lacks", what, term)
		}
	}
}

// oddTree is a made-up package whose text tests the tokenizer's edges:
// CRLF line ends, non-ASCII identifiers and strings, digits, a nested
// class, a file without a final newline, an empty file.
func oddTree(t *testing.T) *index.Index {
	dir := t.TempDir()
	files := map[string]string{
		"odd/__init__.py": "",
		"odd/crlf.py":     "def windows_line(a):\r\n    return a + 1\r\n\r\nclass Outer:\r\n    class Inner:\r\n        def deep(self):\r\n            return 'x'\r\n    def shallow(self):\r\n        return 2",
		"odd/uni.py":      "# Größe of a café\ndef größe(x):\n    \"\"\"naïve résumé — µs\"\"\"\n    return x_2 * 0x1F + 3e10\n\n\nvalue = größe(4)  # trailing\n",
		"odd/camel.py":    "class parseHTTPHeader_v2:\n    def __init__(self, maxRetries=3):\n        self.MAX_RETRIES = maxRetries\n    def __repr__(self):\n        return f\"<{self.MAX_RETRIES}>\"\n",
	}
	for p, text := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Build(context.Background(), dir, index.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestCorpusMatchesReference: tokenizing each file once and counting in
// arrays gives the same documents, lengths and postings as cutting each
// unit's text out and tokenizing it on its own.
func TestCorpusMatchesReference(t *testing.T) {
	for name, ix := range map[string]*index.Index{"shop": heurShop(t), "geo": geoRepo(t), "odd": oddTree(t)} {
		t.Run(name, func(t *testing.T) {
			if len(ix.Units()) == 0 {
				t.Fatal("no units")
			}
			c := newCorpus(ix)
			sameBM25(t, "units", c.bm, refUnitDocs(ix))
			if c.fileBM != nil {
				t.Error("the file ranking was built before its first use")
			}
			c.fileScores(map[string]float64{"x": 1})
			sameBM25(t, "files", c.fileBM, refFileDocs(ix))
		})
	}
}

// TestLineTokens: a text's lines split where strings.Split splits them,
// and each line holds the tokens identTokens finds in it.
func TestLineTokens(t *testing.T) {
	for _, text := range []string{"", "\n", "a", "a\n", "a\n\nb_c d\r\nÉtéX2 3\n", "x\n\n\n"} {
		tt := newTermTable()
		lt := tt.lines(text)
		want := strings.Split(text, "\n")
		if lt.count() != len(want) {
			t.Errorf("%q: %d lines, want %d", text, lt.count(), len(want))
			continue
		}
		for i, w := range want {
			var got []string
			for _, id := range lt.line(i + 1) {
				got = append(got, termOf(tt, id))
			}
			if !slices.Equal(got, identTokens(w)) {
				t.Errorf("%q line %d: %v, want %v", text, i+1, got, identTokens(w))
			}
		}
	}
}

func termOf(tt *termTable, id int32) string {
	for t, i := range tt.ids {
		if i == id {
			return t
		}
	}
	return ""
}
