package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/tui"
)

func init() {
	register(&command{
		name:    "replay",
		summary: "play a saved run again in the workbench (or as JSON lines), with no model calls",
		usage:   "RUN [--repo DIR] [--speed 1] [--max-wait 2s] [--headless]",
		flags:   withFlags(declareReplayFlags, runReplay),
	})
}

type replayFlags struct {
	repo, run string
	opts      replay.Options
	headless  bool
}

// declareReplayFlags puts the flags of replay on fs, bound to f.
func declareReplayFlags(fs *flag.FlagSet, f *replayFlags) {
	fs.StringVar(&f.repo, "repo", ".", "repository `dir` whose runs folder holds RUN")
	fs.Float64Var(&f.opts.Speed, "speed", 1, "pace: 1 as recorded, 2 twice as fast, 0 as fast as possible")
	fs.DurationVar(&f.opts.MaxWait, "max-wait", replay.DefaultMaxWait, "longest pause between two events, before --speed")
	fs.BoolVar(&f.headless, "headless", false, "print the events as JSON lines instead of drawing the workbench")
}

// checkReplayFlags checks the parsed flags together.
func checkReplayFlags(f replayFlags, pos []string) (replayFlags, error) {
	switch {
	case len(pos) == 0:
		return f, usagef("which run? give a run id (see %s) or a run folder", filepath.Join(".git", "swe-adept", "runs"))
	case len(pos) > 1:
		return f, usagef("unexpected argument %q", pos[1])
	case f.opts.Speed < 0:
		return f, usagef("--speed must be 0 (as fast as possible) or more, not %g", f.opts.Speed)
	}
	f.run = pos[0]
	return f, nil
}

func runReplay(ctx context.Context, parsed *replayFlags, pos []string, std streams) error {
	f, err := checkReplayFlags(*parsed, pos)
	if err != nil {
		return err
	}
	dir, err := replay.FindRun(ctx, f.repo, f.run)
	if err != nil {
		return err
	}
	evs, loadErr := replay.Load(dir)
	var corrupt *runfolder.CorruptError
	if loadErr != nil && !errors.As(loadErr, &corrupt) {
		return loadErr
	}
	if len(evs) == 0 {
		return fmt.Errorf("%s has no events to replay", dir)
	}
	if f.headless {
		err = replay.WriteJSONL(ctx, jsonOut(std.out), evs, f.opts)
	} else {
		err = replayInTUI(ctx, dir, evs, f.opts)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if corrupt != nil {
		return fmt.Errorf("replayed what could be read: %w", corrupt)
	}
	return nil
}

// replayInTUI draws the run in the workbench. Its p and s keys drive the
// gate the player waits on, so a replay pauses and steps like a live run.
func replayInTUI(ctx context.Context, dir string, evs []event.Event, opts replay.Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Gate = event.NewGate()
	ch, wait := replay.Stream(ctx, evs, opts)
	title := "replay " + filepath.Base(dir)
	if opts.Speed != 1 {
		title += fmt.Sprintf(" (speed %g)", opts.Speed)
	}
	err := tui.Run(ctx, tui.Options{Events: ch, Gate: opts.Gate, Cancel: cancel, Title: title, Replay: true})
	cancel()
	if perr := wait(); err == nil && perr != nil && !errors.Is(perr, context.Canceled) {
		err = perr
	}
	return err
}
