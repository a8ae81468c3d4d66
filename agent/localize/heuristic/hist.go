package heuristic

import (
	"context"
	"log/slog"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/agent/localize/history"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/vcs"
)

// How the history's evidence is weighed, fixed rather than tuned: what
// they express is the age at which a change is worth half as much, and
// how many past changes may speak for an issue.
const (
	// similarHalfLife: a similar change made this long before the
	// checked-out commit counts half as much as one made just before it.
	similarHalfLife = 2 * 365.0
	// recentHalfLife is the same for recency: what changed in the last
	// months is what is being worked on.
	recentHalfLife = 120.0
	// similarTop is how many of the most similar past changes lift the
	// files and functions they touched.
	similarTop = 20
	// msgBoost repeats a commit message's words: the message says what
	// the change was about, the diff's identifiers only where.
	msgBoost = 2
	// wideChange is the number of files beyond which a change is a sweep
	// (a rename, a reformatting) and says little about any one file.
	wideChange = 30
	// minShare is the share of the best score below which a file's or a
	// unit's evidence from history is not ranked at all.
	minShare = 0.1
)

// histSource is where a heuristic gets its history: given, or found
// beside the index on first use.
type histSource struct {
	once  sync.Once
	given bool
	h     *history.History
	model *histModel
}

// WithHistory is the localizer with the given history (nil: none) rather
// than the one it would find in the index's repository; an evaluation
// gives each instance the history up to its base commit this way.
func (h *Heuristic) WithHistory(hist *history.History) *Heuristic {
	c := h.WithParams(h.p)
	c.hist = &histSource{given: true, h: hist}
	return c
}

// history is the localizer's history model, nil when there is none.
func (h *Heuristic) historyModel(ctx context.Context) *histModel {
	src := h.hist
	src.once.Do(func() {
		if !src.given {
			src.h = discoverHistory(ctx, h.ix)
		}
		if src.h != nil && len(src.h.Commits) > 0 {
			src.model = newHistModel(src.h, h.ix)
		}
	})
	return src.model
}

// discoverHistory reads the history of the repository the index was built
// from, up to its checked-out commit, caching it beside the index. A
// folder that is not the top of a repository's work tree (a plain folder,
// or a sample tree kept inside another project) has no history of its
// own; a history that cannot be read is logged and left out.
func discoverHistory(ctx context.Context, ix *index.Index) *history.History {
	root := ix.Root()
	repo, err := vcs.Open(ctx, root)
	if err != nil || !sameDir(repo.Dir(), root) {
		return nil
	}
	head, err := repo.Head(ctx)
	if err != nil || head.Hash == "" {
		return nil
	}
	h, err := history.Load(ctx, history.Options{
		GitDir: repo.CommonDir(), Rev: head.Hash, Paths: SourcePathspec(ix),
		CacheDir: filepath.Join(repo.CommonDir(), "swe-adept", "history"), Logger: slog.Default(),
	})
	if err != nil {
		slog.Warn("heuristic: repository history left out", "repo", root, "err", err)
		return nil
	}
	return h
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// SourcePathspec is the pathspec of the code an index mostly holds: one
// glob per file extension that a tenth of its files or more have. A
// history reads changes to that code and passes over data, docs, binaries
// and the odd bundled script (a Python project's minified JavaScript),
// and the pathspec stays the same from one commit of a repository to the
// next, so its cache stays valid.
func SourcePathspec(ix *index.Index) []string {
	n := map[string]int{}
	files := ix.Files()
	for _, f := range files {
		n[path.Ext(f.Path)]++
	}
	var out []string
	for ext, c := range n {
		if ext == "" || strings.ContainsAny(ext, "*?[\\:") || 10*c < len(files) {
			continue
		}
		out = append(out, "*"+ext)
	}
	slices.Sort(out)
	return out
}

// histModel is the history arranged for scoring: BM25 over past changes,
// each a document of its message and the identifiers its diff touched,
// and for each change the files and the units it touched, as they are
// named at the checked-out commit.
type histModel struct {
	h       *history.History
	bm      *bm25
	similar []float64 // per commit: the similarity discount by age
	recent  []float64 // per commit: the recency discount by age
	files   [][]string
	units   [][]string // units of the index the change's hunks span
}

func newHistModel(h *history.History, ix *index.Index) *histModel {
	m := &histModel{h: h}
	docs := make([][]string, len(h.Commits))
	memo := map[string][]string{}
	byName := unitsByFileAndName(ix)
	for i, c := range h.Commits {
		docs[i] = commitTokens(c, memo)
		age := h.AgeDays(c)
		m.similar = append(m.similar, math.Exp2(-age/similarHalfLife))
		m.recent = append(m.recent, math.Exp2(-age/recentHalfLife))
		var files, units []string
		for _, t := range c.Files {
			if t.Path == "" {
				continue
			}
			p := h.PathAtHead(t.Path)
			if _, ok := ix.File(p); !ok {
				continue
			}
			files = append(files, p)
			for _, fn := range t.Funcs {
				units = append(units, byName[p+"\x00"+fn]...)
			}
		}
		m.files = append(m.files, files)
		m.units = append(m.units, units)
	}
	m.bm = newBM25(docs)
	return m
}

// unitsByFileAndName maps "path\0name" to the functions, methods and
// classes of that name in that file.
func unitsByFileAndName(ix *index.Index) map[string][]string {
	out := map[string][]string{}
	for _, u := range ix.Units() {
		if u.Kind == index.KindChunk {
			continue
		}
		k := u.Path + "\x00" + u.Name
		out[k] = append(out[k], u.ID)
	}
	return out
}

// commitTokens are a commit's document: its message's words (twice) and
// its diff's identifiers.
func commitTokens(c *history.Commit, memo map[string][]string) []string {
	msg := identTokens(c.Message)
	toks := make([]string, 0, msgBoost*len(msg)+len(c.Idents))
	for range msgBoost {
		toks = append(toks, msg...)
	}
	for _, id := range c.Idents {
		t, ok := memo[id.Name]
		if !ok {
			t = identTokens(id.Name)
			memo[id.Name] = t
		}
		for range min(int(id.Count), 3) {
			toks = append(toks, t...)
		}
	}
	return toks
}

// histEvidence is what the history says about one issue.
type histEvidence struct {
	files  []string          // files the most similar past changes touched, best first
	units  []string          // likewise units
	recent []string          // files by recent activity, most active first
	why    map[string]string // the similar past change that lifted a file or unit
	model  *histModel
}

// evidence scores the past changes against the words and lifts
// what the most similar ones touched, discounted by age and by how wide
// the change was.
func (m *histModel) evidence(query map[string]float64, lib func(string) bool) *histEvidence {
	ev := &histEvidence{why: map[string]string{}, model: m}
	fileScore, unitScore := map[string]float64{}, map[string]float64{}
	for _, s := range m.bm.top(query, similarTop) {
		c := m.h.Commits[s.doc]
		n := len(m.files[s.doc])
		if n == 0 || n > wideChange {
			continue
		}
		w := s.score * m.similar[s.doc] / math.Sqrt(float64(n))
		for _, f := range m.files[s.doc] {
			if fileScore[f] == 0 {
				ev.why[f] = "changed by a similar past change (" + short(c.Hash) + ")"
			}
			fileScore[f] += w
		}
		for _, u := range m.units[s.doc] {
			if unitScore[u] == 0 {
				ev.why[u] = "changed by a similar past change (" + short(c.Hash) + ")"
			}
			unitScore[u] += w
		}
	}
	ev.files = libraryOnly(rankedKeys(fileScore), lib)
	ev.units = libraryOnly(rankedKeys(unitScore), lib)
	ev.recent = libraryOnly(m.recentFiles(), lib)
	return ev
}

// libraryOnly keeps the ids of library code: a past fix touches its tests
// as often as its code, and the tests would take the first places of a
// ranking whose places are all that counts.
func libraryOnly(ids []string, lib func(string) bool) []string {
	if lib == nil {
		return ids
	}
	out := ids[:0:0]
	for _, id := range ids {
		if p, _ := splitUnitID(id); (p != "" && lib(p)) || (p == "" && lib(id)) {
			out = append(out, id)
		}
	}
	return out
}

// recentFiles ranks files by how much they changed lately.
func (m *histModel) recentFiles() []string {
	act := map[string]float64{}
	for i, files := range m.files {
		if len(files) > wideChange {
			continue
		}
		for _, f := range files {
			act[f] += m.recent[i]
		}
	}
	return rankedKeys(act)
}

// coChanged ranks the files that changed together with the given ones,
// each co-change discounted by age and by the change's width. One of the
// given files may rank too, for changing with the others.
func (m *histModel) coChanged(with []string) []string {
	if len(with) == 0 {
		return nil
	}
	score := map[string]float64{}
	for i, files := range m.files {
		n := len(files)
		if n < 2 || n > wideChange {
			continue
		}
		hit := 0
		for _, f := range files {
			if slices.Contains(with, f) {
				hit++
			}
		}
		for _, f := range files {
			h := hit
			if slices.Contains(with, f) {
				h--
			}
			if h > 0 {
				score[f] += m.similar[i] * float64(h) / float64(n-1)
			}
		}
	}
	return rankedKeys(score)
}

// rankedKeys are a score map's keys, best first, ties by name. Keys
// scoring under minShare of the best are left out: fused by rank, a long
// tail of faint evidence (every file an initial import touched) would
// lift all files alike.
func rankedKeys(m map[string]float64) []string {
	best := 0.0
	for _, v := range m {
		best = max(best, v)
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 && v >= minShare*best {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

func short(h string) string { return h[:min(len(h), 10)] }
