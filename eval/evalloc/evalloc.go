// Package evalloc measures localization the way the paper does: for each
// SWE-bench-style instance it exports the repository at its base commit,
// localizes the issue without ever showing the gold, and scores file Acc@1/3/5
// and function Acc@5/10 beside a plain BM25-over-units baseline.
package evalloc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/index/search"
)

// Config is one evaluation.
type Config struct {
	Instances []swebench.Instance
	ReposDir  string // DIR/OWNER/NAME: clones or bare mirrors
	WorkDir   string // where repositories are exported; "" makes a temp dir
	// Keep keeps the exported trees and their index cache in the work
	// folder, so a later evaluation there neither exports nor parses
	// them again.
	Keep     bool
	Models   models.Settings // the localization agent's model (its Script plays a transcript)
	MaxIter  int
	Baseline bool // also score BM25 over units
	// NoHistory keeps the repository's history from the offline
	// localizer; by default it reads the history up to each base commit.
	NoHistory bool
	// Weights, when set, are the offline localizer's weights; the model
	// settings are then not consulted.
	Weights  *heuristic.Params
	Progress io.Writer // one line per instance; nil: silent
	// Predict receives each instance's LocAgent output as it is made.
	Predict func(swebench.LocAgentOutput) error
}

// Result is what eval-loc prints.
type Result struct {
	Model        string            `json:"model"`
	Localizer    swebench.Summary  `json:"localizer"`
	BM25         *swebench.Summary `json:"bm25_baseline,omitempty"`
	Seconds      float64           `json:"seconds"`
	Timing       Timing            `json:"timing"`
	Repos        []RepoScore       `json:"per_repository"`
	Instances    []Instance        `json:"per_instance,omitempty"`
	MissingBlobs int               `json:"missing_blobs"`
}

// Instance is one instance's outcome.
type Instance struct {
	ID      string          `json:"instance_id"`
	Repo    string          `json:"repo"`
	Score   swebench.Score  `json:"score"`
	BM25    *swebench.Score `json:"bm25,omitempty"`
	Error   string          `json:"error,omitempty"`
	Status  string          `json:"status,omitempty"`
	Seconds float64         `json:"seconds"`
	// The time spent indexing the tree, reading the history behind the
	// base commit (from the cache after the repository's first instance),
	// and localizing.
	IndexSeconds    float64 `json:"index_seconds"`
	HistorySeconds  float64 `json:"history_seconds"`
	LocalizeSeconds float64 `json:"localize_seconds"`
	HistoryCommits  int     `json:"history_commits"`
	HistoryError    string  `json:"history_error,omitempty"`
	Units           int     `json:"units,omitempty"`
	MaxDepth        int     `json:"max_depth,omitempty"`
}

// Run evaluates every instance in order. A missing repository or commit
// fails that instance only; cancellation stops after the current one.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	work, cleanup, err := workDir(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res := &Result{Model: cfg.Models.For(models.Localization).Model}
	var scores, failed, base, baseFailed []swebench.Score
	for i, in := range cfg.Instances {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		one := evalOne(ctx, cfg, in, work, res)
		res.Instances = append(res.Instances, one)
		if one.Error != "" {
			failed = append(failed, one.Score)
			baseFailed = append(baseFailed, one.Score)
		} else {
			scores = append(scores, one.Score)
			if one.BM25 != nil {
				base = append(base, *one.BM25)
			}
		}
		progress(cfg.Progress, i+1, len(cfg.Instances), one)
	}
	res.Localizer = swebench.Summarize(scores, failed)
	if cfg.Baseline {
		b := swebench.Summarize(base, baseFailed)
		res.BM25 = &b
	}
	res.Repos = byRepo(res.Instances)
	res.Timing = timingOf(res.Instances)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func evalOne(ctx context.Context, cfg Config, in swebench.Instance, work string, res *Result) Instance {
	start := time.Now()
	one := Instance{ID: in.InstanceID, Repo: in.Repo}
	fail := func(err error) Instance {
		one.Error = err.Error()
		// A failed instance still counts against the scores: its gold decides
		// whether it belongs to the function scores.
		one.Score = swebench.Score{InstanceID: in.InstanceID, HasFunc: len(in.GoldFunctions) > 0}
		one.Seconds = time.Since(start).Seconds()
		return one
	}
	p, err := prepare(ctx, cfg, in, work, res)
	if err != nil {
		return fail(err)
	}
	defer p.release()
	ix := p.ix
	one.IndexSeconds, one.HistorySeconds, one.HistoryError = p.indexSec, p.historySec, p.histErr
	if p.hist != nil {
		one.HistoryCommits = len(p.hist.Commits)
	}
	t := time.Now()
	loc, err := localizeOne(ctx, cfg, p, in.Task(), &res.Model)
	if err != nil {
		return fail(err)
	}
	one.LocalizeSeconds = time.Since(t).Seconds()
	gold := swebench.GoldOf(in, ix)
	funcs := swebench.Normalize(ix, loc.Functions)
	one.Score = swebench.ScoreOne(in.InstanceID, gold, loc.Files, funcs)
	one.Status, one.Units, one.MaxDepth = loc.Status, len(ix.Units()), loc.MaxDepth
	if cfg.Baseline {
		files, fns := heuristic.BM25Ranking(ix, in.Task().ProblemStatement, 10)
		s := swebench.ScoreOne(in.InstanceID, gold, files, swebench.Normalize(ix, fns))
		one.BM25 = &s
	}
	if cfg.Predict != nil {
		if err := cfg.Predict(swebench.NewLocAgentOutput(in.InstanceID, loc.Files, loc.Functions)); err != nil {
			return fail(fmt.Errorf("write prediction: %w", err))
		}
	}
	one.Seconds = time.Since(start).Seconds()
	return one
}

// localizeOne runs the localization agent on the task. Only the task (no
// gold, no patch) reaches the model.
func localizeOne(ctx context.Context, cfg Config, p *prepared, task swebench.Task, name *string) (*localize.Locations, error) {
	ix := p.ix
	s := search.NewSearcher(ix)
	var model llm.Model
	if cfg.Weights != nil {
		model = heuristic.NewWithParams(ix, s, *cfg.Weights).WithHistory(p.hist)
	} else {
		m, _, err := cfg.Models.LocalizationModel(ix, s)
		if err != nil {
			return nil, err
		}
		if h, ok := m.(*heuristic.Heuristic); ok {
			m = h.WithHistory(p.hist)
		}
		model = m
	}
	*name = model.Name()
	loc, err := localize.Run(ctx, localize.Config{Index: ix, Searcher: s, Model: model, Issue: task.ProblemStatement, MaxIterations: cfg.MaxIter})
	if err != nil && loc == nil {
		return nil, fmt.Errorf("localize: %w", err)
	}
	if errors.Is(err, context.Canceled) {
		return nil, err
	}
	return loc, nil
}

func workDir(cfg Config) (string, func(), error) {
	if cfg.WorkDir != "" {
		return cfg.WorkDir, func() {}, os.MkdirAll(cfg.WorkDir, 0o755)
	}
	dir, err := os.MkdirTemp("", "swe-adept-eval-")
	if err != nil {
		return "", nil, err
	}
	if cfg.Keep {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func progress(w io.Writer, n, total int, one Instance) {
	if w == nil {
		return
	}
	if one.Error != "" {
		fmt.Fprintf(w, "[%d/%d] %s: failed: %s\n", n, total, one.ID, one.Error)
		return
	}
	mark := func(b bool) string {
		if b {
			return "hit"
		}
		return "miss"
	}
	fn := "n/a"
	if one.Score.HasFunc {
		fn = mark(one.Score.Func5)
	}
	fmt.Fprintf(w, "[%d/%d] %s: file@3 %s, func@5 %s, depth %d, %.1fs (index %.1fs, history %.1fs of %d commits, localize %.1fs)\n",
		n, total, one.ID, mark(one.Score.File3), fn, one.MaxDepth, one.Seconds, one.IndexSeconds, one.HistorySeconds, one.HistoryCommits, one.LocalizeSeconds)
}

// RepoScore is one repository's share of an evaluation, so a gain that
// exists in one repository only is visible.
type RepoScore struct {
	Repo      string            `json:"repo"`
	Localizer swebench.Summary  `json:"localizer"`
	BM25      *swebench.Summary `json:"bm25_baseline,omitempty"`
}

func byRepo(all []Instance) []RepoScore {
	var out []RepoScore
	idx := map[string]int{}
	type acc struct{ ok, failed, bok, bfailed []swebench.Score }
	var accs []*acc
	for _, in := range all {
		i, seen := idx[in.Repo]
		if !seen {
			i = len(out)
			idx[in.Repo] = i
			out = append(out, RepoScore{Repo: in.Repo})
			accs = append(accs, &acc{})
		}
		a := accs[i]
		a.ok, a.failed = appendScore(a.ok, a.failed, in.Score, in.Error != "")
		if in.BM25 != nil {
			a.bok = append(a.bok, *in.BM25)
		} else if in.Error != "" {
			a.bfailed = append(a.bfailed, in.Score)
		}
	}
	for i, a := range accs {
		out[i].Localizer = swebench.Summarize(a.ok, a.failed)
		if len(a.bok)+len(a.bfailed) > 0 {
			b := swebench.Summarize(a.bok, a.bfailed)
			out[i].BM25 = &b
		}
	}
	return out
}
