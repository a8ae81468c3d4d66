package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/eval/evalloc"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

func init() {
	register(&command{
		name:    "eval-loc",
		summary: "score localization (file Acc@1/3/5, function Acc@5/10) on SWE-bench-style instances",
		usage:   "--instances FILE.jsonl --repos DIR [--model heuristic|NAME] [--out preds.jsonl] [--only ID,...] [--limit N] [--per-instance] [--weights K=V,...] [--leave-one-out] [--no-history] [--work DIR --keep]",
		flags:   evalLocFlags(),
		noRepo:  true,
	})
}

// evalLocFlags declares the flags of eval-loc and returns the command.
func evalLocFlags() declare {
	return func(fs *flag.FlagSet) func(context.Context, []string, streams) error {
		instances := fs.String("instances", "", "SWE-bench-style instances, one JSON object a line")
		repos := fs.String("repos", "", "folder holding each repository as OWNER/NAME (a clone or a bare mirror)")
		mf := addModelFlags(fs, true)
		script := fs.String("script", "", "a scripted localization transcript (tests)")
		out := fs.String("out", "", "write per-instance predictions in LocAgent's format (JSONL)")
		only := fs.String("only", "", "comma-separated instance ids to run")
		limit := fs.Int("limit", 0, "run at most N instances")
		work := fs.String("work", "", "export repositories here (default: a temp dir)")
		keep := fs.Bool("keep", false, "keep the exported repositories, their index and history caches in --work, and reuse them next time")
		noHistory := fs.Bool("no-history", false, "do not give the offline localizer the repository's history")
		maxIter := fs.Int("max-iterations", localize.DefaultMaxIterations, "search turns per instance")
		perInstance := fs.Bool("per-instance", false, "include every instance's scores in the summary")
		weights := fs.String("weights", "", "the offline localizer's weights, as name=value,... (see --leave-one-out's output)")
		loo := fs.Bool("leave-one-out", false, "tune the offline localizer's weights on all repositories but one and score that one, for each")
		return func(ctx context.Context, _ []string, _ streams) error {
			if *instances == "" || *repos == "" {
				return usagef("--instances and --repos are required")
			}
			list, _, err := loadInstances(*instances, *only, *limit)
			if err != nil {
				return err
			}
			if *loo {
				return leaveOneOut(ctx, evalloc.Config{Instances: list, ReposDir: *repos, WorkDir: *work, Keep: *keep, NoHistory: *noHistory, MaxIter: *maxIter, Progress: os.Stderr})
			}
			set, err := mf.settings()
			if err != nil {
				return err
			}
			set.Localize.Script = *script
			if !set.UsesServer() && *script == "" && set.For(models.Localization).Model != models.Heuristic {
				fmt.Fprintln(os.Stderr, models.NoServerNotice)
			}
			cfg := evalloc.Config{Instances: list, ReposDir: *repos, WorkDir: *work, Keep: *keep, NoHistory: *noHistory, Models: set,
				MaxIter: *maxIter, Baseline: true, Progress: os.Stderr}
			if *weights != "" {
				w := heuristic.DefaultParams()
				if err := w.Set(*weights); err != nil {
					return usagef("--weights: %v", err)
				}
				cfg.Weights = &w
			}
			savePreds := func() error { return nil }
			if *out != "" {
				if savePreds, err = predictionWriter(&cfg, *out); err != nil {
					return err
				}
			}
			res, err := evalloc.Run(ctx, cfg)
			if err := errors.Join(err, savePreds()); err != nil {
				return err
			}
			if !*perInstance {
				res.Instances = nil
			}
			enc := json.NewEncoder(jsonOut(os.Stdout))
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
	}
}

// leaveOneOut prints the offline localizer's leave-one-repository-out
// figures.
func leaveOneOut(ctx context.Context, cfg evalloc.Config) error {
	res, err := evalloc.LeaveOneOut(ctx, cfg, evalloc.Grid(), heuristic.Rules())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(jsonOut(os.Stdout))
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// predictionWriter makes cfg collect its predictions for path and returns
// what puts them there, atomically: those made before a failure too.
func predictionWriter(cfg *evalloc.Config, path string) (func() error, error) {
	f, err := atomicfile.Create(path)
	if errors.Is(err, atomicfile.ErrNotRegular) {
		return nil, usagef("--out %s is not a regular file: name a file to write", path)
	}
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	cfg.Predict = func(o swebench.LocAgentOutput) error { return enc.Encode(o) }
	return func() error {
		if err := bw.Flush(); err != nil {
			f.Abort()
			return fmt.Errorf("save %s: %w", path, err)
		}
		return f.Commit()
	}, nil
}
