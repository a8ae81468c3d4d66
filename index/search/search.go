// Package search answers the localization agent's search tools
// (find_file, find_code_def, find_code_content, find_child_unit) over an
// index.Index: it builds name tables, identifier postings and line tables
// once, and renders each answer as the bounded observation the model reads.
package search

import (
	"bytes"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index"
)

// Budgets of what one tool call shows the model. The paper's point is
// context efficiency: the localization agent makes up to 20 calls in one
// context window, so each observation is held to about 1,000 tokens
// (4,000 characters) and a unit's preview to 12 lines. Twenty calls then cost
// about 20k tokens, and the model sees skeletons and previews, not bodies;
// full code is loaded only for the stage-2 re-ranking (FullCode).
const (
	ObservationBudget = 4000 // bytes of one observation, notices included
	PreviewLines      = 12   // lines of one unit preview, signature included
	MaxHits           = 10   // ranked results shown before "N more"
	maxLineWidth      = 160  // a longer source line is cut with "…"
	maxQueryLen       = 256  // longer names and regexes are refused
	maxChildrenShown  = 25   // child ids listed under one result
)

// Modes of a Result: how the query was answered.
const (
	ModeExact     = "exact"
	ModeRegex     = "regex" // also glob patterns in find_file
	ModeFuzzy     = "fuzzy"
	ModeEnumerate = "enumerate"
	ModeVariant   = "variant" // identifier and its case/separator variants
	ModeSnippet   = "snippet"
	ModeSpan      = "span"
	ModeError     = "error"
)

// KindFile marks a find_file hit, which is a file rather than a unit.
const KindFile index.Kind = "file"

// Result is one tool call's answer: the structured hits and the exact text
// the model sees.
type Result struct {
	Tool        string `json:"tool"`
	Query       string `json:"query"`
	Mode        string `json:"mode"`
	Hits        []Hit  `json:"hits,omitempty"`
	More        int    `json:"more,omitempty"` // matches found but not shown
	Observation string `json:"observation"`
	Err         string `json:"err,omitempty"` // a wrong argument; same text as Observation
}

// Hit is one shown result: a unit (or a file for find_file).
type Hit struct {
	UnitID   string     `json:"unit_id,omitempty"`
	Path     string     `json:"path"`
	Kind     index.Kind `json:"kind"`
	Start    int        `json:"start,omitempty"`
	End      int        `json:"end,omitempty"`
	Score    float64    `json:"score,omitempty"`
	Children []string   `json:"children,omitempty"`
	Preview  string     `json:"preview,omitempty"`
	Skeleton string     `json:"skeleton,omitempty"` // find_file
	Lines    []int      `json:"lines,omitempty"`    // find_code_content: matched lines
}

// Searcher answers the localization tools over one Index. It is built once
// (name tables, trigram index, line tables) and is safe for concurrent use;
// the identifier postings for find_code_content are built in the
// background and awaited on first use.
type Searcher struct {
	ix      *index.Index
	files   []*index.File
	fileIdx map[string]int32
	dirs    map[string]int // folder -> files under it, at any depth
	lines   [][]int32      // per file: byte offset of each line start
	owner   [][]int32      // per file, per line (index 1..n): innermost unit, -1 for none
	isTest  []bool         // per file

	units    []*index.Unit
	unitIdx  map[string]int32
	unitFile []int32
	inDeg    []int32  // invokes edges pointing at the unit
	dotted   []string // module.dotted.path.QualName
	names    nameTable

	postOnce sync.Once
	post     map[string][]posting

	aliasOnce sync.Once
	alias     map[string][]aliasSite
}

// NewSearcher builds the in-memory search structures over ix.
func NewSearcher(ix *index.Index) *Searcher {
	s := &Searcher{
		ix:      ix,
		files:   ix.Files(),
		fileIdx: make(map[string]int32, len(ix.Files())),
		dirs:    map[string]int{},
		units:   ix.Units(),
	}
	for i, f := range s.files {
		s.fileIdx[f.Path] = int32(i)
		for d := path.Dir(f.Path); d != "." && d != "/"; d = path.Dir(d) {
			s.dirs[d]++
		}
	}
	s.buildLines()
	s.buildUnits()
	s.names = buildNameTable(s.units)
	// The postings take a while on a large repo (about half a second per
	// 30 MB); build them now so the first content search need not wait.
	go s.postings()
	return s
}

// Index is the index the searcher answers over.
func (s *Searcher) Index() *index.Index { return s.ix }

func (s *Searcher) buildLines() {
	s.lines = make([][]int32, len(s.files))
	s.isTest = make([]bool, len(s.files))
	for i, f := range s.files {
		s.isTest[i] = IsTestPath(f.Path)
		src, _ := s.ix.Source(f.Path)
		offs := make([]int32, 1, len(src)/32+1)
		for p := 0; p < len(src); {
			k := bytes.IndexByte(src[p:], '\n')
			if k < 0 {
				break
			}
			p += k + 1
			if p < len(src) {
				offs = append(offs, int32(p))
			}
		}
		if len(src) == 0 {
			offs = offs[:0]
		}
		s.lines[i] = offs
	}
}

func (s *Searcher) buildUnits() {
	n := len(s.units)
	s.unitFile = make([]int32, n)
	s.inDeg = make([]int32, n)
	s.dotted = make([]string, n)
	s.owner = make([][]int32, len(s.files))
	byID := make(map[string]int32, n)
	for i, u := range s.units {
		byID[u.ID] = int32(i)
	}
	s.unitIdx = byID
	for i, u := range s.units {
		fi, ok := s.fileIdx[u.Path]
		if !ok {
			fi = -1
		}
		s.unitFile[i] = fi
		s.dotted[i] = modulePath(u.Path) + "." + u.QualName
		for _, e := range u.Children {
			if e.Rel == index.Invokes {
				if k, ok := byID[e.ID]; ok {
					s.inDeg[k]++
				}
			}
		}
	}
	for fi, f := range s.files {
		s.owner[fi] = s.paintOwners(int32(fi), f, byID)
	}
}

// paintOwners maps each line of a file to its innermost unit. Units come
// parents first, so painting in order leaves the innermost owner; painting
// by span size as well keeps that true if a builder orders them otherwise.
func (s *Searcher) paintOwners(fi int32, f *index.File, byID map[string]int32) []int32 {
	n := len(s.lines[fi])
	own := make([]int32, n+1)
	for i := range own {
		own[i] = -1
	}
	ids := make([]int32, 0, len(f.Units))
	for _, id := range f.Units {
		if k, ok := byID[id]; ok {
			ids = append(ids, k)
		}
	}
	sort.SliceStable(ids, func(a, b int) bool {
		ua, ub := s.units[ids[a]], s.units[ids[b]]
		return ua.End-ua.Start > ub.End-ub.Start
	})
	for _, k := range ids {
		u := s.units[k]
		for l := max(u.Start, 1); l <= min(u.End, n); l++ {
			own[l] = k
		}
	}
	return own
}

// modulePath turns "pkg/sub/mod.py" into "pkg.sub.mod" and a package's
// "__init__.py" into the package itself.
func modulePath(p string) string {
	p = strings.TrimSuffix(p, path.Ext(p))
	p = strings.TrimSuffix(p, "/__init__")
	return strings.ReplaceAll(p, "/", ".")
}

// IsTestPath tells test code from the code under test, by the
// conventions of the languages the index reads: test_x.py, x_test.go,
// x.test.ts, x.spec.js, and test, tests, __tests__ or testdata folders.
func IsTestPath(p string) bool {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	if strings.HasPrefix(base, "test_") || strings.HasPrefix(base, "tests.") || base == "conftest.py" ||
		strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") {
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "test", "tests", "testing", "__tests__", "__mocks__", "testdata":
			return true
		}
	}
	return false
}
