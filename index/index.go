package index

import (
	"fmt"
	"sort"

	"github.com/swe-adept/swe-adept/index/parse"
)

// Index is a repository's code units and code-structure tree, with the file
// contents kept in memory so the search tools never go back to disk.
type Index struct {
	root    string
	files   []*File
	byPath  map[string]*File
	units   []*Unit
	byID    map[string]*Unit
	sources map[string][]byte
	stats   Stats
}

// New assembles an Index from already extracted files and units. Build uses
// it; tests use it to make small indexes by hand.
func New(root string, files []*File, units []*Unit, sources map[string][]byte) *Index {
	ix := &Index{
		root:    root,
		files:   files,
		byPath:  make(map[string]*File, len(files)),
		units:   units,
		byID:    make(map[string]*Unit, len(units)),
		sources: sources,
	}
	sort.Slice(ix.files, func(i, j int) bool { return ix.files[i].Path < ix.files[j].Path })
	for _, f := range files {
		ix.byPath[f.Path] = f
	}
	for _, u := range units {
		ix.byID[u.ID] = u
	}
	return ix
}

// Languages names the languages Build reads, for messages.
func Languages() []string { return parse.Names() }

// Root is the absolute path of the indexed repository.
func (ix *Index) Root() string { return ix.root }

// Files are the indexed files, sorted by path.
func (ix *Index) Files() []*File { return ix.files }

// File looks up one indexed file by its slash-separated relative path.
func (ix *Index) File(path string) (*File, bool) {
	f, ok := ix.byPath[path]
	return f, ok
}

// Units are all units, file by file in path order, in source order within a file.
func (ix *Index) Units() []*Unit { return ix.units }

// Unit looks up a unit by its ID ("path:Qualified.name").
func (ix *Index) Unit(id string) (*Unit, bool) {
	u, ok := ix.byID[id]
	return u, ok
}

// Source is the indexed content of a file.
func (ix *Index) Source(path string) ([]byte, error) {
	b, ok := ix.sources[path]
	if !ok {
		return nil, fmt.Errorf("source of %q: not indexed", path)
	}
	return b, nil
}

// Stats describe how the index was built.
func (ix *Index) Stats() Stats { return ix.stats }

// Stats is what `swe-adept index --json` prints.
type Stats struct {
	Files           int            `json:"files"`
	Units           int            `json:"units"`
	Edges           int            `json:"edges"`
	ResolvedCalls   int            `json:"resolved_calls"`
	UnresolvedCalls int            `json:"unresolved_calls"`
	Skipped         map[string]int `json:"skipped"` // reason -> count of files not indexed
	// Degraded counts files indexed despite a problem: a syntax error (what
	// parses is kept), non-UTF-8 text, or a size over the limit (plain chunks).
	Degraded  map[string]int `json:"degraded,omitempty"`
	Seconds   float64        `json:"seconds"`
	Cache     string         `json:"cache"` // cold, warm or incremental
	Languages map[string]int `json:"languages"`
	Lines     int            `json:"lines"`
	Parsed    int            `json:"parsed"` // files parsed this run (the rest came from cache)
}
