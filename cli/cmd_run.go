package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/vcs"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/tui"
)

func init() {
	register(&command{
		name:    "run",
		summary: "resolve an issue: localize it, fix it with hypotheses and checkpoints, save the patch",
		usage: "--repo DIR --issue FILE|- [--headless] [--approve ask|auto|deny] [--model NAME] [--localize-model heuristic|NAME]\n" +
			"         [--script-localize FILE --script-resolve FILE] [--locations FILE] [--in-place] [--apply]\n" +
			"         [--max-iterations N] [--max-cost DOLLARS] [--max-tokens N] [--allow PREFIX]... [--resume ID]",
		flags: withFlags(declareRunFlags, runRun),
	})
}

type runFlags struct {
	repo, issue, approve                     string
	scriptLocalize, scriptResolve, locations string
	resume                                   string
	models                                   *modelFlags
	sandbox                                  *sandboxFlags
	headless, inPlace, apply                 bool
	approveChosen                            bool
	maxIter, maxTokens                       int
	maxCost                                  float64
	cmdTimeout, cmdBudget, scriptDelay       time.Duration
	allow                                    listFlag
}

// declareRunFlags puts the flags of run on fs, bound to f.
func declareRunFlags(fs *flag.FlagSet, f *runFlags) {
	fs.StringVar(&f.repo, "repo", ".", "the git repository `dir`")
	fs.StringVar(&f.issue, "issue", "", "the issue text: a `file`, or - for stdin")
	fs.BoolVar(&f.headless, "headless", false, "no screen: print events as JSON lines and a summary line")
	fs.StringVar(&f.approve, "approve", "", "shell commands off the allow-list, reverts and merges: ask (the screen asks), auto or deny; default ask with the screen, auto headless")
	f.models = addModelFlags(fs, false)
	f.sandbox = addSandboxFlags(fs)
	fs.StringVar(&f.scriptLocalize, "script-localize", "", "play the localization agent's transcript `file` instead of a model")
	fs.StringVar(&f.scriptResolve, "script-resolve", "", "play the resolution agent's transcript `file` instead of a model")
	fs.StringVar(&f.locations, "locations", "", "skip localization: ranked locations from a locations.json or a list `file`")
	fs.BoolVar(&f.inPlace, "in-place", false, "work in the checkout itself (its uncommitted changes are set aside and restored) instead of a linked worktree")
	fs.BoolVar(&f.apply, "apply", false, "apply a submitted patch to the checkout as uncommitted changes")
	fs.IntVar(&f.maxIter, "max-iterations", resolve.DefaultMaxIterations, "resolution model calls")
	fs.Float64Var(&f.maxCost, "max-cost", 5, "dollars for the whole run (0: no limit; unpriced models are not limited)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "tokens for the whole run (0: no limit)")
	fs.DurationVar(&f.cmdTimeout, "command-timeout", resolve.DefaultTimeout, "time-out of one shell command")
	fs.DurationVar(&f.cmdBudget, "command-budget", time.Hour, "time all shell commands of the run may take together (0: no limit)")
	fs.DurationVar(&f.scriptDelay, "script-delay", 0, "pause before each scripted turn, for demos")
	fs.Var(&f.allow, "allow", "shell command `prefix` that runs without asking, e.g. \"make test\" (repeatable)")
	fs.StringVar(&f.resume, "resume", "", "continue the interrupted run `id`")
}

// checkRunFlags checks the parsed flags together.
func checkRunFlags(f runFlags, pos []string) (runFlags, error) {
	if len(pos) > 0 {
		return f, usagef("unexpected argument %q", pos[0])
	}
	f.approveChosen = f.approve != ""
	if f.approve == "" {
		f.approve = map[bool]string{true: "auto", false: "ask"}[f.headless]
	}
	if _, err := resolve.ParseApprovalMode(f.approve); err != nil {
		return f, usagef("--approve: %v", err)
	}
	switch {
	case f.issue == "" && f.resume == "":
		return f, usagef("--issue is required: a file with the issue text, or - for stdin")
	case f.headless && f.approve == "ask":
		return f, usagef("--approve ask needs the screen; headless runs use --approve auto or deny")
	}
	return f, nil
}

func runRun(ctx context.Context, parsed *runFlags, pos []string, std streams) error {
	f, err := checkRunFlags(*parsed, pos)
	if err != nil {
		return err
	}
	stdin, stdout, stderr := std.in, std.out, std.err
	var tty *os.File
	screen := false
	if !f.headless {
		if tty, screen = workbenchTerminal(); !screen {
			if err := noScreen("run", f.approve, stderr); err != nil {
				return err
			}
		}
	}
	if tty != nil {
		defer tty.Close()
	}
	opts, err := runOptions(f, stdin)
	if err != nil {
		return err
	}
	r, err := run.Start(ctx, opts)
	if err != nil {
		return runStartError(err)
	}
	warnUnconfined(stderr, r, opts)
	if screen {
		return runScreen(ctx, r, tty, stderr)
	}
	return runHeadless(r, stdout, opts.Confidential.Values)
}

func runStartError(err error) error {
	if errors.Is(err, run.ErrEmptyIssue) || errors.Is(err, run.ErrNoModel) {
		return usagef("%v", err)
	}
	return err
}

// runOptions turns flags into run options: the issue, the locations and the
// models.
func runOptions(f runFlags, stdin io.Reader) (run.Options, error) {
	opts := run.Options{Repo: f.repo, Approve: f.approve, ApproveChosen: f.approveChosen, Allow: f.allow, InPlace: f.inPlace, Apply: f.apply,
		MaxIterations: f.maxIter, MaxCost: f.maxCost, MaxTokens: f.maxTokens, CommandTimeout: f.cmdTimeout, CommandBudget: f.cmdBudget, Resume: f.resume,
		CommandOutput: int(f.sandbox.output)}
	var err error
	if opts.Sandbox, err = f.sandbox.options(); err != nil {
		return opts, err
	}
	if f.issue != "" && f.resume == "" {
		issue, err := readIssue(f.issue, stdin)
		if err != nil {
			return opts, err
		}
		opts.Issue = issue
	}
	if f.locations != "" {
		locs, err := run.LoadLocations(f.locations)
		if err != nil {
			return opts, usagef("--locations: %v", err)
		}
		opts.Locations = locs
	}
	if f.resume != "" {
		if err := knownRun(f.repo, f.resume); err != nil {
			return opts, err
		}
	}
	set, err := f.models.settings()
	if err != nil {
		return opts, err
	}
	set.Localize.Script, set.Resolve.Script, set.ScriptDelay = f.scriptLocalize, f.scriptResolve, f.scriptDelay
	if err := hideModelSecrets(&opts, set); err != nil {
		return opts, err
	}
	if err := explicitModel(set, f.models.localizeModel); err != nil {
		return opts, usagef("%s", strings.Replace(err.Error(), "--model", "--localize-model", 2))
	}
	if opts.ResolveModel, err = set.ResolutionModel(); err != nil {
		return opts, scriptOrModelError("--script-resolve", f.scriptResolve, err)
	}
	switch {
	case opts.Locations != nil:
	case f.scriptLocalize != "":
		// A script needs no index: load it now so a bad file fails at once.
		if opts.LocalizeModel, _, err = set.LocalizationModel(nil, nil); err != nil {
			return opts, scriptOrModelError("--script-localize", f.scriptLocalize, err)
		}
	default: // a resumed run localizes again when its ranking was refused
		opts.Localizer = func(ix *index.Index) (llm.Model, string, error) {
			return set.LocalizationModel(ix, nil)
		}
	}
	return opts, nil
}

// runScreen draws the run in the workbench until it ends or the engineer
// quits (which cancels it), then reports where the patch is. tty, when
// set, is the terminal to draw on instead of standard input and output.
func runScreen(ctx context.Context, r *run.Run, tty *os.File, stderr io.Writer) error {
	sum, err, werr := showRun(ctx, r, onTerminal(tui.Options{Title: "swe-adept " + r.ID}, tty))
	if sum.CheckoutError != "" {
		return errors.Join(notPutBack(sum), err, werr) // what matters most comes first
	}
	fmt.Fprintf(textOut(stderr), "run %s: %s, %d tokens, %s%s\n", sum.ID, sum.Status, sum.Tokens, sum.Cost, patchNote(sum))
	if err != nil || werr != nil {
		return errors.Join(err, werr)
	}
	return statusError(sum)
}

// onTerminal has the workbench draw on tty and read its keys there, when
// it is set.
func onTerminal(o tui.Options, tty *os.File) tui.Options {
	if tty != nil {
		o.Input, o.Output = tty, tty
	}
	return o
}

func writeEvent(w io.Writer, e event.Event, secrets []string) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, resolve.Scrub(string(b), secrets)+"\n")
	return err
}

func patchNote(s runfolder.Summary) string {
	switch {
	case s.Patch == "":
		return "; no patch"
	case s.Applied:
		return "; patch " + s.Patch + " (applied to your checkout)"
	case s.Status == runfolder.SubmittedUnmerged:
		return "; patch " + s.Patch + " (the agent's unmerged work, to read: not a solution)"
	}
	return "; patch " + s.Patch
}

// knownRun checks that --resume names a run of the repository, before
// anything else is asked of the engineer.
func knownRun(repo, id string) error {
	r, err := vcs.Open(context.Background(), repo)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(runfolder.RunsDir(r.CommonDir()), id)); err != nil {
		return usagef("--resume %s: no such run in %s ('swe-adept runs' lists them)", id, r.Dir())
	}
	return nil
}
