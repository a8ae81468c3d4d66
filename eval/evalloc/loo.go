package evalloc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// LOOResult is a leave-one-repository-out evaluation of the offline
// localizer: each repository is scored with the weights that did best on
// all the others, so no repository is scored with weights chosen on it.
type LOOResult struct {
	// Heldout is every instance scored as its repository's fold did.
	Heldout swebench.Summary `json:"leave_one_out"`
	// Default is the shipped weights on every instance (chosen with all of
	// them in view, so optimistic).
	Default swebench.Summary `json:"default_weights"`
	BM25    swebench.Summary `json:"bm25_baseline"`
	Folds   []Fold           `json:"folds"`
	Grid    int              `json:"weights_tried"`
	Seconds float64          `json:"seconds"`
}

// Fold is one held-out repository.
type Fold struct {
	Repo    string           `json:"repo"`
	Weights string           `json:"weights"` // chosen on the other repositories
	Heldout swebench.Summary `json:"heldout"`
	BM25    swebench.Summary `json:"bm25"`
	// Gains are the held-out score minus BM25's on the same instances;
	// a repository where BM25 is already perfect can only tie.
	FileGain1 float64 `json:"file_acc@1_gain_over_bm25"`
	FileGain3 float64 `json:"file_acc@3_gain_over_bm25"`
}

// looInstance is one instance's scores under every weight of the grid.
type looInstance struct {
	repo   string
	failed bool
	byW    []swebench.Score
	bm25   swebench.Score
}

// LeaveOneOut scores the heuristic localizer with every weight of grid on
// every instance (each repository exported and indexed once), then, for
// each repository, chooses the weights best on the other repositories and
// scores the held-out one with them. grid[0] should be the defaults: ties
// go to the earlier weights.
func LeaveOneOut(ctx context.Context, cfg Config, grid []heuristic.Params) (*LOOResult, error) {
	if len(grid) == 0 {
		return nil, fmt.Errorf("leave one out: no weights to try")
	}
	start := time.Now()
	work, cleanup, err := workDir(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var all []looInstance
	for i, in := range cfg.Instances {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		li := looOne(ctx, cfg, in, filepath.Join(work, in.InstanceID), grid)
		all = append(all, li)
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "[%d/%d] %s: %d weights scored, %.1fs\n", i+1, len(cfg.Instances), in.InstanceID, len(li.byW), time.Since(start).Seconds())
		}
	}
	res := foldAll(all, grid)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func looOne(ctx context.Context, cfg Config, in swebench.Instance, dest string, grid []heuristic.Params) looInstance {
	li := looInstance{repo: in.Repo}
	fail := func() looInstance {
		li.failed = true
		miss := swebench.Score{InstanceID: in.InstanceID, HasFunc: len(in.GoldFunctions) > 0}
		li.bm25 = miss
		for range grid {
			li.byW = append(li.byW, miss)
		}
		return li
	}
	if _, err := swebench.Export(ctx, swebench.RepoDir(cfg.ReposDir, in.Repo), in.BaseCommit, dest); err != nil {
		return fail()
	}
	defer os.RemoveAll(dest)
	ix, err := index.Build(ctx, dest, index.Options{NoCache: true})
	if err != nil {
		return fail()
	}
	gold := swebench.GoldOf(in, ix)
	issue := in.Task().ProblemStatement
	files, fns := heuristic.BM25Ranking(ix, issue, 10)
	li.bm25 = swebench.ScoreOne(in.InstanceID, gold, files, swebench.Normalize(ix, fns))
	s := search.NewSearcher(ix)
	base := heuristic.New(ix, s)
	for _, w := range grid {
		loc, err := localize.Run(ctx, localize.Config{Index: ix, Searcher: s, Model: base.WithParams(w), Issue: issue, MaxIterations: cfg.MaxIter})
		if err != nil && loc == nil {
			li.byW = append(li.byW, swebench.Score{InstanceID: in.InstanceID, HasFunc: len(in.GoldFunctions) > 0})
			continue
		}
		li.byW = append(li.byW, swebench.ScoreOne(in.InstanceID, gold, loc.Files, swebench.Normalize(ix, loc.Functions)))
	}
	return li
}

// foldAll chooses each fold's weights and gathers the held-out scores.
func foldAll(all []looInstance, grid []heuristic.Params) *LOOResult {
	res := &LOOResult{Grid: len(grid)}
	var repos []string
	for _, li := range all {
		if !slices.Contains(repos, li.repo) {
			repos = append(repos, li.repo)
		}
	}
	var held, heldFailed, def, defFailed, bm, bmFailed []swebench.Score
	for _, repo := range repos {
		w := bestWeights(all, len(grid), func(li looInstance) bool { return li.repo != repo })
		var fh, fhf, fb, fbf []swebench.Score
		for _, li := range all {
			if li.repo != repo {
				continue
			}
			fh, fhf = appendScore(fh, fhf, li.byW[w], li.failed)
			fb, fbf = appendScore(fb, fbf, li.bm25, li.failed)
			def, defFailed = appendScore(def, defFailed, li.byW[0], li.failed)
		}
		f := Fold{Repo: repo, Weights: grid[w].String(), Heldout: swebench.Summarize(fh, fhf), BM25: swebench.Summarize(fb, fbf)}
		f.FileGain1 = f.Heldout.FileAcc1 - f.BM25.FileAcc1
		f.FileGain3 = f.Heldout.FileAcc3 - f.BM25.FileAcc3
		res.Folds = append(res.Folds, f)
		held, heldFailed = append(held, fh...), append(heldFailed, fhf...)
		bm, bmFailed = append(bm, fb...), append(bmFailed, fbf...)
	}
	res.Heldout = swebench.Summarize(held, heldFailed)
	res.Default = swebench.Summarize(def, defFailed)
	res.BM25 = swebench.Summarize(bm, bmFailed)
	return res
}

func appendScore(ok, failed []swebench.Score, s swebench.Score, isFailed bool) ([]swebench.Score, []swebench.Score) {
	if isFailed {
		return ok, append(failed, s)
	}
	return append(ok, s), failed
}

// bestWeights is the grid index that does best on the training instances:
// most file@3 and function@5 hits, then most file@1, file@5 and
// function@10 hits; ties go to the earlier weights.
func bestWeights(all []looInstance, n int, train func(looInstance) bool) int {
	best, bestKey := 0, [2]int{-1, -1}
	for w := range n {
		var key [2]int
		for _, li := range all {
			if !train(li) {
				continue
			}
			s := li.byW[w]
			key[0] += b2i(s.File3) + b2i(s.Func5)
			key[1] += b2i(s.File1) + b2i(s.File5) + b2i(s.Func10)
		}
		if key[0] > bestKey[0] || (key[0] == bestKey[0] && key[1] > bestKey[1]) {
			best, bestKey = w, key
		}
	}
	return best
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Grid is the weights LeaveOneOut tries by default: the shipped weights
// first, then each combination of the weights that move the ranking most.
func Grid() []heuristic.Params {
	grid := []heuristic.Params{heuristic.DefaultParams()}
	for _, lexical := range []float64{0, 0.1, 0.25, 0.5} {
		for _, aside := range []float64{0.2, 0.3, 0.5} {
			for _, fileText := range []float64{0.15, 0.3, 0.6} {
				for _, callee := range []float64{0, 0.15, 0.3} {
					for _, pathWord := range []float64{0, 0.15, 0.3} {
						p := heuristic.DefaultParams()
						p.Lexical, p.Aside, p.FileText, p.Callee, p.PathWord = lexical, aside, fileText, callee, pathWord
						if p != grid[0] {
							grid = append(grid, p)
						}
					}
				}
			}
		}
	}
	return grid
}
