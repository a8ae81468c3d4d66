// Package history is a repository's past changes as evidence for
// localization: which commits changed which files and definitions, what
// their messages said and which identifiers their diffs touched. It reads
// the history once through vcs, keeps it in a cache beside the index, and
// adds only new commits on later reads. A view is always the ancestors of
// one commit: nothing later than the checked-out state is ever seen.
package history

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/swe-adept/swe-adept/vcs"
)

// Commit is one past change, reduced to what localization uses.
type Commit struct {
	Hash    string
	Time    int64  // committer time, Unix seconds
	Message string // cut at maxMessage
	// Idents are the identifiers on the changed lines, most frequent
	// first, at most maxIdents.
	Idents []Ident
	Files  []Touch
}

// Ident is an identifier and how often a commit's changed lines use it.
type Ident struct {
	Name  string
	Count int32
}

// Touch is what a commit changed in one file.
type Touch struct {
	Path    string // the path after the commit ("" for a deletion)
	OldPath string // the path before, when it differs
	Added   int32
	Removed int32
	// Funcs are the definitions the commit's hunks span: the one git
	// names in each hunk header, and those defined on changed lines.
	Funcs []string
}

// History is the commits behind one revision, newest first.
type History struct {
	Head     string // the revision's full hash
	HeadTime int64
	Commits  []*Commit
	// Read is how many commits this load read from git rather than from
	// the cache.
	Read int
	// rename maps a path at some past commit to its path at Head, for the
	// files renamed since.
	rename map[string]string
}

// PathAtHead is the path a file has at Head, following later renames; a
// file deleted since keeps its old path (which then matches nothing).
func (h *History) PathAtHead(p string) string {
	seen := 0
	for {
		q, ok := h.rename[p]
		if !ok || q == p || seen > 64 {
			return p
		}
		p, seen = q, seen+1
	}
}

// AgeDays is how long before Head the commit was made, in days (never
// negative).
func (h *History) AgeDays(c *Commit) float64 {
	return max(0, float64(h.HeadTime-c.Time)/86400)
}

// Options say which repository and revision to read.
type Options struct {
	// GitDir is the repository's git directory: a bare mirror or a
	// checkout's common git dir.
	GitDir string
	// Rev is the revision whose ancestors make the history ("HEAD" when
	// empty).
	Rev string
	// Paths are the pathspec globs whose changes count ("*.py", ...).
	Paths []string
	// CacheDir holds the cache; "" keeps none.
	CacheDir string
	Logger   *slog.Logger
}

// Load reads the history of o.Rev, from the cache where it can, and
// brings the cache up to date.
func Load(ctx context.Context, o Options) (*History, error) {
	start := time.Now()
	if o.Rev == "" {
		o.Rev = "HEAD"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	head, err := vcs.ResolveCommit(ctx, o.GitDir, o.Rev)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	st := loadStore(o.cachePath(), o.Paths, o.Logger)
	added, err := st.update(ctx, o.GitDir, head, o.Paths)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", short(head), err)
	}
	if added > 0 && o.CacheDir != "" {
		if err := st.save(o.cachePath()); err != nil {
			o.Logger.Warn("history: cache not saved", "err", err)
		}
	}
	h := st.view(head)
	h.Read = added
	o.Logger.Debug("history: loaded", "head", short(head), "commits", len(h.Commits), "new", added, "took", time.Since(start))
	return h, nil
}

func (o Options) cachePath() string {
	if o.CacheDir == "" {
		return ""
	}
	return filepath.Join(o.CacheDir, "history.gob")
}

// view is the history behind head: its ancestors that changed a file,
// newest first.
func (st *store) view(head string) *History {
	h := &History{Head: head, rename: map[string]string{}}
	var out []*Commit
	for _, n := range st.ancestors(head) {
		if c := st.Nodes[n].Commit; c >= 0 {
			out = append(out, &st.Commits[c])
		}
	}
	slices.SortStableFunc(out, func(a, b *Commit) int { return int(b.Time - a.Time) })
	if len(out) > 0 {
		h.HeadTime = out[0].Time
	}
	if i, ok := st.index[head]; ok && st.Nodes[i].Time > 0 {
		h.HeadTime = st.Nodes[i].Time
	}
	// Newest first, so a later rename is known when an earlier one is met.
	for _, c := range out {
		for _, t := range c.Files {
			if t.OldPath != "" && t.Path != "" && t.OldPath != t.Path {
				if _, later := h.rename[t.OldPath]; !later {
					h.rename[t.OldPath] = h.PathAtHead(t.Path)
				}
			}
		}
	}
	h.Commits = out
	return h
}

func short(h string) string { return h[:min(len(h), 10)] }
