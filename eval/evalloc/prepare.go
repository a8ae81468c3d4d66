package evalloc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/localize/history"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/index"
)

// prepared is one instance ready to localize: its tree exported and
// indexed, and its repository's history up to its base commit.
type prepared struct {
	ix   *index.Index
	hist *history.History // nil when history is off or cannot be read
	// Seconds spent indexing and reading the history; the history is read
	// from the cache when an earlier instance of the repository read it.
	indexSec, historySec float64
	histErr              string
	release              func()
}

// completeMark is written beside an exported tree once it is whole, so a
// later evaluation with the same work folder indexes it again without
// exporting it again.
func completeMark(dest string) string { return dest + ".exported" }

// prepare exports the instance's tree (or reuses a whole earlier export in
// the work folder), indexes it, and loads the history behind its base
// commit. The mirror is only read.
func prepare(ctx context.Context, cfg Config, in swebench.Instance, work string, res *Result) (*prepared, error) {
	dest := filepath.Join(work, in.InstanceID)
	repo := swebench.RepoDir(cfg.ReposDir, in.Repo)
	p := &prepared{release: func() {}}
	if mark, err := os.ReadFile(completeMark(dest)); err != nil || strings.TrimSpace(string(mark)) != in.BaseCommit {
		_ = os.RemoveAll(dest)
		st, err := swebench.Export(ctx, repo, in.BaseCommit, dest)
		if res != nil {
			res.MissingBlobs += st.MissingBlobs
		}
		if err != nil {
			return nil, err
		}
		if cfg.Keep {
			if err := os.WriteFile(completeMark(dest), []byte(in.BaseCommit+"\n"), 0o644); err != nil {
				return nil, fmt.Errorf("mark export: %w", err)
			}
		}
	}
	if !cfg.Keep {
		p.release = func() { os.RemoveAll(dest) }
	}
	start := time.Now()
	opts := index.Options{NoCache: true}
	if cfg.Keep {
		opts = index.Options{CacheDir: filepath.Join(work, ".cache", "index")}
	}
	ix, err := index.Build(ctx, dest, opts)
	if err != nil {
		p.release()
		return nil, fmt.Errorf("index: %w", err)
	}
	p.ix, p.indexSec = ix, time.Since(start).Seconds()
	if !cfg.NoHistory {
		start = time.Now()
		p.hist, err = history.Load(ctx, history.Options{
			GitDir: gitDir(repo), Rev: in.BaseCommit, Paths: heuristic.SourcePathspec(ix),
			CacheDir: filepath.Join(work, ".cache", "history", strings.ReplaceAll(in.Repo, "/", "+")),
		})
		p.historySec = time.Since(start).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				p.release()
				return nil, ctx.Err()
			}
			p.histErr = err.Error()
		}
	}
	return p, nil
}

// gitDir is a clone's .git or a bare mirror itself.
func gitDir(repo string) string {
	if fi, err := os.Stat(filepath.Join(repo, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(repo, ".git")
	}
	return repo
}
