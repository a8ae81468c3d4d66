package evalloc

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/index/search"
)

// LOOResult is a leave-one-repository-out evaluation of the offline
// localizer: each repository is scored with the weights that did best on
// all the others, so no repository is scored with weights chosen on it.
type LOOResult struct {
	// Heldout is every instance scored as its repository's fold did.
	Heldout swebench.Summary `json:"leave_one_out"`
	// Tuned is every instance scored with the weights that do best on all
	// of them: optimistic, an upper bound for these weights.
	Tuned        swebench.Summary `json:"tuned_on_all"`
	TunedWeights string           `json:"tuned_weights"`
	// Default is the shipped weights on every instance.
	Default swebench.Summary `json:"default_weights"`
	BM25    swebench.Summary `json:"bm25_baseline"`
	Folds   []Fold           `json:"folds"`
	// Spread is how much the folds differ: what a new repository may
	// expect around the held-out figure.
	Spread    FoldSpread `json:"spread_across_folds"`
	Ablations []Ablation `json:"ablations,omitempty"`
	Grid      int        `json:"weights_tried"`
	Timing    Timing     `json:"timing"`
	Seconds   float64    `json:"seconds"`
}

// Fold is one held-out repository.
type Fold struct {
	Repo    string           `json:"repo"`
	Weights string           `json:"weights"` // chosen on the other repositories
	Heldout swebench.Summary `json:"heldout"`
	// Tuned is this repository under the weights chosen on all of them.
	Tuned swebench.Summary `json:"tuned"`
	BM25  swebench.Summary `json:"bm25"`
	// Gains are the held-out score minus BM25's on the same instances;
	// a repository where BM25 is already perfect can only tie.
	FileGain1 float64 `json:"file_acc@1_gain_over_bm25"`
	FileGain3 float64 `json:"file_acc@3_gain_over_bm25"`
}

// FoldSpread summarises the held-out folds: the range of their file
// Acc@3 and function Acc@5, and how many folds chose each weights.
type FoldSpread struct {
	FileAcc3Min float64        `json:"file_acc@3_min"`
	FileAcc3Max float64        `json:"file_acc@3_max"`
	FileAcc3SD  float64        `json:"file_acc@3_sd"`
	FuncAcc5Min float64        `json:"func_acc@5_min"`
	FuncAcc5Max float64        `json:"func_acc@5_max"`
	Chosen      map[string]int `json:"weights_chosen"`
}

// looInstance is one instance's scores under every weight of the grid
// and every ablation.
type looInstance struct {
	repo   string
	failed bool
	byW    []swebench.Score
	byAbl  []swebench.Score
	bm25   swebench.Score
	timing Instance
}

// LeaveOneOut scores the heuristic localizer with every weight of grid on
// every instance (each tree exported, indexed and given its history
// once), then, for each repository, chooses the weights best on the other
// repositories and scores the held-out one with them. grid[0] should be
// the defaults: ties go to the earlier weights. Each ablation is the
// defaults with one rule turned off, scored per repository.
func LeaveOneOut(ctx context.Context, cfg Config, grid []heuristic.Params, ablations []heuristic.Rule) (*LOOResult, error) {
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
		li := looOne(ctx, cfg, in, work, grid, ablations)
		all = append(all, li)
		if cfg.Progress != nil {
			t := li.timing
			fmt.Fprintf(cfg.Progress, "[%d/%d] %s: %d weights scored, index %.1fs, history %.1fs (%d commits), localize %.2fs each, %.0fs in all\n",
				i+1, len(cfg.Instances), in.InstanceID, len(li.byW), t.IndexSeconds, t.HistorySeconds, t.HistoryCommits, t.LocalizeSeconds, time.Since(start).Seconds())
		}
	}
	res := foldAll(all, grid)
	res.Ablations = ablate(all, ablations)
	var times []Instance
	for _, li := range all {
		times = append(times, li.timing)
	}
	res.Timing = timingOf(times)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func looOne(ctx context.Context, cfg Config, in swebench.Instance, work string, grid []heuristic.Params, ablations []heuristic.Rule) looInstance {
	li := looInstance{repo: in.Repo, timing: Instance{ID: in.InstanceID, Repo: in.Repo}}
	miss := swebench.Score{InstanceID: in.InstanceID, HasFunc: len(in.GoldFunctions) > 0}
	p, err := prepare(ctx, cfg, in, work, nil)
	if err != nil {
		li.failed, li.bm25, li.timing.Error = true, miss, err.Error()
		for range grid {
			li.byW = append(li.byW, miss)
		}
		for range ablations {
			li.byAbl = append(li.byAbl, miss)
		}
		return li
	}
	defer p.release()
	ix := p.ix
	li.timing.IndexSeconds, li.timing.HistorySeconds = p.indexSec, p.historySec
	if p.hist != nil {
		li.timing.HistoryCommits = len(p.hist.Commits)
	}
	gold := swebench.GoldOf(in, ix)
	issue := in.Task().ProblemStatement
	files, fns := heuristic.BM25Ranking(ix, issue, 10)
	li.bm25 = swebench.ScoreOne(in.InstanceID, gold, files, swebench.Normalize(ix, fns))
	s := search.NewSearcher(ix)
	base := heuristic.New(ix, s).WithHistory(p.hist)
	run := func(w heuristic.Params) swebench.Score {
		loc, err := localize.Run(ctx, localize.Config{Index: ix, Searcher: s, Model: base.WithParams(w), Issue: issue, MaxIterations: cfg.MaxIter})
		if err != nil && loc == nil {
			return miss
		}
		return swebench.ScoreOne(in.InstanceID, gold, loc.Files, swebench.Normalize(ix, loc.Functions))
	}
	t := time.Now()
	li.byW = append(li.byW, run(grid[0]))
	// The first run builds the corpus and the history model, as a
	// localization on its own does: it is the one timed.
	li.timing.LocalizeSeconds = time.Since(t).Seconds()
	for _, w := range grid[1:] {
		li.byW = append(li.byW, run(w))
	}
	for _, r := range ablations {
		li.byAbl = append(li.byAbl, run(r.Off(grid[0])))
	}
	return li
}

// foldAll chooses each fold's weights and gathers the held-out scores.
func foldAll(all []looInstance, grid []heuristic.Params) *LOOResult {
	res := &LOOResult{Grid: len(grid), Spread: FoldSpread{Chosen: map[string]int{}}}
	var repos []string
	for _, li := range all {
		if !slices.Contains(repos, li.repo) {
			repos = append(repos, li.repo)
		}
	}
	tuned := bestWeights(all, len(grid), func(looInstance) bool { return true })
	res.TunedWeights = grid[tuned].String()
	var held, tun, def, bm scoreSet
	for _, repo := range repos {
		w := bestWeights(all, len(grid), func(li looInstance) bool { return li.repo != repo })
		var fh, ft, fb scoreSet
		for _, li := range all {
			if li.repo != repo {
				continue
			}
			fh.add(li.byW[w], li.failed)
			ft.add(li.byW[tuned], li.failed)
			fb.add(li.bm25, li.failed)
			def.add(li.byW[0], li.failed)
		}
		f := Fold{Repo: repo, Weights: grid[w].String(), Heldout: fh.summary(), Tuned: ft.summary(), BM25: fb.summary()}
		f.FileGain1 = f.Heldout.FileAcc1 - f.BM25.FileAcc1
		f.FileGain3 = f.Heldout.FileAcc3 - f.BM25.FileAcc3
		res.Folds = append(res.Folds, f)
		res.Spread.Chosen[f.Weights]++
		held.merge(fh)
		tun.merge(ft)
		bm.merge(fb)
	}
	res.Heldout, res.Tuned, res.Default, res.BM25 = held.summary(), tun.summary(), def.summary(), bm.summary()
	res.Spread.fill(res.Folds)
	return res
}

func (s *FoldSpread) fill(folds []Fold) {
	if len(folds) == 0 {
		return
	}
	s.FileAcc3Min, s.FuncAcc5Min = 1, 1
	mean := 0.0
	for _, f := range folds {
		s.FileAcc3Min = min(s.FileAcc3Min, f.Heldout.FileAcc3)
		s.FileAcc3Max = max(s.FileAcc3Max, f.Heldout.FileAcc3)
		s.FuncAcc5Min = min(s.FuncAcc5Min, f.Heldout.FuncAcc5)
		s.FuncAcc5Max = max(s.FuncAcc5Max, f.Heldout.FuncAcc5)
		mean += f.Heldout.FileAcc3 / float64(len(folds))
	}
	v := 0.0
	for _, f := range folds {
		v += (f.Heldout.FileAcc3 - mean) * (f.Heldout.FileAcc3 - mean) / float64(len(folds))
	}
	s.FileAcc3SD = math.Round(math.Sqrt(v)*1000) / 1000
}

// scoreSet gathers scores, failed ones apart, for Summarize.
type scoreSet struct{ ok, failed []swebench.Score }

func (s *scoreSet) add(sc swebench.Score, failed bool) {
	s.ok, s.failed = appendScore(s.ok, s.failed, sc, failed)
}

func (s *scoreSet) merge(o scoreSet) {
	s.ok = append(s.ok, o.ok...)
	s.failed = append(s.failed, o.failed...)
}

func (s scoreSet) summary() swebench.Summary { return swebench.Summarize(s.ok, s.failed) }

func appendScore(ok, failed []swebench.Score, s swebench.Score, isFailed bool) ([]swebench.Score, []swebench.Score) {
	if isFailed {
		return ok, append(failed, s)
	}
	return append(ok, s), failed
}

// bestWeights is the grid index that does best on the training instances:
// most file@1, file@3 and function@5 hits, then most file@5 and
// function@10 hits; ties go to the earlier weights.
func bestWeights(all []looInstance, n int, train func(looInstance) bool) int {
	best, bestKey := 0, [2]int{-1, -1}
	for w := range n {
		var key [2]int
		for _, li := range all {
			if !train(li) {
				continue
			}
			key = addKey(key, li.byW[w])
		}
		if key[0] > bestKey[0] || (key[0] == bestKey[0] && key[1] > bestKey[1]) {
			best, bestKey = w, key
		}
	}
	return best
}

func addKey(key [2]int, s swebench.Score) [2]int {
	key[0] += b2i(s.File1) + b2i(s.File3) + b2i(s.Func5)
	key[1] += b2i(s.File5) + b2i(s.Func10)
	return key
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
