package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/demo"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/tui"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "watch both agents fix a bug in a bundled sample repository (scripted model: no API key, no network)",
		usage: "[--speed 1.0] [--approve ask|auto|deny] [--headless] [--dir DIR | --repo DIR [--issue FILE|-]]\n" +
			"         [--sandbox auto|strict|off] [--allow-net] [--allow-write PATH]... [--allow-read PATH]... [--pass-env NAME]...\n" +
			"         [--max-memory SIZE] [--max-procs N] [--max-tmp SIZE] [--max-file SIZE] [--max-disk SIZE] [--max-output SIZE]",
		noRepo: true,
		flags:  withFlags(declareDemoFlags, runDemo),
	})
}

// demoTurn is the pause before each scripted model turn at speed 1: slow
// enough to follow the search tree and the hypotheses as they change.
const demoTurn = 1200 * time.Millisecond

type demoFlags struct {
	speed    float64
	approve  string
	chosen   bool // the engineer gave --approve
	headless bool
	dir      string
	repo     string // the engineer's own repository, searched live
	issue    string // its issue text (a file, or - for stdin)
	sandbox  *sandboxFlags
}

// declareDemoFlags puts the flags of demo on fs, bound to f.
func declareDemoFlags(fs *flag.FlagSet, f *demoFlags) {
	fs.Float64Var(&f.speed, "speed", 1, "playback speed of the scripted model: 2 is twice as fast, 0 as fast as possible")
	fs.StringVar(&f.approve, "approve", "", "reverts, merges and shell commands: ask (the screen asks you), auto or deny; default ask with the screen, auto headless")
	fs.BoolVar(&f.headless, "headless", false, "no screen: print the events as JSON lines and a summary line")
	f.sandbox = addSandboxFlags(fs)
	fs.StringVar(&f.repo, "repo", "", "your own repository `dir`: the offline localizer searches it live; resolution runs when a model is configured")
	fs.StringVar(&f.issue, "issue", "", "with --repo: the issue text `file`, or - for standard input; without it the workbench asks")
	fs.StringVar(&f.dir, "dir", "", "where to create the sample repository (an empty or new `dir`); default a new temporary directory")
}

// checkDemoFlags checks the parsed flags together.
func checkDemoFlags(f demoFlags, pos []string) (demoFlags, error) {
	if len(pos) > 0 {
		return f, usagef("unexpected argument %q", pos[0])
	}
	if f.repo == "" && f.issue != "" {
		return f, usagef("--issue goes with --repo: the sample brings its own issue")
	}
	if f.repo != "" && f.issue == "" && f.headless {
		return f, usagef("--repo without the screen needs --issue FILE (or - for standard input)")
	}
	if f.repo != "" && f.dir != "" {
		return f, usagef("--dir makes the sample repository; --repo uses yours: give one")
	}
	if f.speed < 0 || math.IsNaN(f.speed) || math.IsInf(f.speed, 0) {
		return f, usagef("--speed %v: want 0 (as fast as possible) or more", f.speed)
	}
	f.chosen = f.approve != ""
	if f.approve == "" {
		f.approve = "ask"
		if f.headless {
			f.approve = "auto"
		}
	}
	switch f.approve {
	case "ask":
		if f.headless {
			return f, usagef("--headless has no screen to ask on: use --approve auto or deny")
		}
	case "auto", "deny":
	default:
		return f, usagef("--approve %q: want ask, auto or deny", f.approve)
	}
	return f, nil
}

// turnDelay is the pause before each scripted turn at the given speed.
func turnDelay(speed float64) time.Duration {
	if speed == 0 {
		return 0
	}
	return time.Duration(float64(demoTurn) / speed)
}

func runDemo(ctx context.Context, parsed *demoFlags, pos []string, std streams) error {
	f, err := checkDemoFlags(*parsed, pos)
	if err != nil {
		return err
	}
	stdout, stderr := std.out, std.err
	var tty *os.File
	if !f.headless {
		ok := false
		if tty, ok = workbenchTerminal(); !ok {
			if err := noScreen("demo", f.approve, stderr); err != nil {
				return err
			}
			if f.repo != "" && f.issue == "" {
				return usagef("--repo without a terminal needs --issue FILE (or - for standard input)")
			}
			f.headless = true
		}
	}
	if tty != nil {
		defer tty.Close()
	}
	if f.repo != "" {
		return demoOnRepo(ctx, f, tty, std)
	}
	dir, err := demoDir(f.dir)
	if err != nil {
		return err
	}
	if err := demo.Setup(ctx, dir); err != nil {
		return err
	}
	notices := demoNotices(dir)
	if f.headless {
		for _, n := range notices {
			fmt.Fprintln(textOut(stderr), n)
		}
	}
	r, err := startDemo(ctx, f, dir, stderr)
	if err != nil {
		return err
	}
	if f.headless {
		return runHeadless(r, stdout, nil)
	}
	return demoScreen(ctx, r, tty, notices, dir, stderr)
}

// demoScripted is shown in every approval dialog of the demo: its script
// branches on the answers about locations, reverts and merges, not on
// shell commands.
const demoScripted = "demo: the script follows your answers on the locations, the revert and the merge; refusing a shell command takes it off its script"

func demoDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := os.MkdirTemp("", "swe-adept-demo-")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	return d, nil
}

// demoNotices is what the engineer should know before the run starts.
func demoNotices(dir string) []string {
	out := []string{"demo: sample repository at " + dir}
	if _, ok := demo.Python(); !ok {
		out = append(out, "demo: python3 was not found, so the sample's tests cannot run: the demo goes on, and its test steps report that python3 is missing")
	}
	return out
}

func startDemo(ctx context.Context, f demoFlags, dir string, stderr io.Writer) (*run.Run, error) {
	loc, res, err := demo.Scripts()
	if err != nil {
		return nil, err
	}
	d := turnDelay(f.speed)
	box, err := f.sandbox.options()
	if err != nil {
		return nil, err
	}
	opts := run.Options{
		Sandbox:       box,
		Repo:          dir,
		Issue:         demo.Issue(),
		LocalizeModel: llm.NewScripted(loc, llm.WithDelay(d)),
		ResolveModel:  llm.NewScripted(res, llm.WithDelay(d)),
		Approve:       f.approve,
		CommandOutput: int(f.sandbox.output),
		// The sample's commands are the demo's own script, built into the
		// binary: an unconfined shell need not ask for each of them.
		ApproveChosen: true,
	}
	r, err := run.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	warnUnconfined(stderr, r, opts)
	return r, nil
}

// demoScreen shows the run in the workbench, then says where to look.
func demoScreen(ctx context.Context, r *run.Run, tty *os.File, notices []string, dir string, stderr io.Writer) error {
	sum, err, werr := showRun(ctx, r, onTerminal(tui.Options{Title: "swe-adept demo", Notices: notices, ScriptedNote: demoScripted}, tty))
	fmt.Fprintf(textOut(stderr), "demo run %s: %s%s\nthe sample repository is at %s\n", sum.ID, sum.Status, patchNote(sum), dir)
	return errors.Join(err, werr, statusError(sum))
}

// demoOnRepo is the workbench on the engineer's own repository: the
// offline localizer searches it live, paced by --speed, and resolution
// follows when a model is configured; without one the run stops after the
// ranking, keeping it, and says how to go on.
func demoOnRepo(ctx context.Context, f demoFlags, tty *os.File, std streams) error {
	stdout, stderr := std.out, std.err
	if err := checkDir("--repo", f.repo); err != nil {
		return err
	}
	var issue string
	var err error
	if f.issue == "" {
		// The workbench asks for it.
		issue, err = tui.AskIssue(ctx, "swe-adept demo · issue for "+f.repo, tty)
	} else {
		issue, err = readIssue(f.issue, std.in)
	}
	if errors.Is(err, tui.ErrNoIssue) {
		return usagef("no issue given: type one in the box, or pass --issue FILE")
	}
	if err != nil {
		return err
	}
	set, err := (&modelFlags{}).settings()
	if err != nil {
		return err
	}
	box, err := f.sandbox.options()
	if err != nil {
		return err
	}
	opts := run.Options{Repo: f.repo, Issue: issue, Approve: f.approve, ApproveChosen: f.chosen, Sandbox: box, CommandOutput: int(f.sandbox.output)}
	if err := hideModelSecrets(&opts, set); err != nil {
		return err
	}
	opts.Localizer = func(ix *index.Index) (llm.Model, string, error) {
		return paced{heuristic.New(ix, nil), turnDelay(f.speed)}, "", nil
	}
	if opts.ResolveModel, err = set.ResolutionModel(); err != nil {
		opts.ResolveModel, opts.LocalizeOnly = nil, true
	}
	r, err := run.Start(ctx, opts)
	if err != nil {
		return runStartError(err)
	}
	warnUnconfined(stderr, r, opts)
	if f.headless {
		return runHeadless(r, stdout, opts.Confidential.Values)
	}
	return runScreen(ctx, r, tty, stderr)
}

// paced slows a model down to the demo's speed, so a search that takes
// milliseconds can be watched.
type paced struct {
	llm.Model
	delay time.Duration
}

func (p paced) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	t := time.NewTimer(p.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	case <-t.C:
	}
	return p.Model.Complete(ctx, req)
}
