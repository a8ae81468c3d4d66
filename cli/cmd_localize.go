package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swe-adept/swe-adept/vcs"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

func init() {
	register(&command{
		name:    "localize",
		summary: "find the files and functions an issue is about (localization agent only)",
		usage:   "--repo DIR --issue FILE|- [--model heuristic|NAME] [--script FILE] [--max-iterations 20] [--out locations.json] [--json]",
		flags:   withFlags(declareLocalizeFlags, runLocalize),
	})
}

type localizeFlags struct {
	repo, issue, script, out string
	iterations               int
	asJSON                   bool
	models                   *modelFlags
}

// declareLocalizeFlags puts the flags of localize on fs, bound to f.
func declareLocalizeFlags(fs *flag.FlagSet, f *localizeFlags) {
	fs.StringVar(&f.repo, "repo", ".", "repository `dir` to search")
	fs.StringVar(&f.issue, "issue", "", "issue text `file`, or - for standard input")
	f.models = addModelFlags(fs, true)
	fs.StringVar(&f.script, "script", "", "play a scripted transcript `file` instead of a model")
	fs.IntVar(&f.iterations, "max-iterations", localize.DefaultMaxIterations, "search turns before the agent must rank")
	fs.StringVar(&f.out, "out", "", "where to write the ranked locations (`file`; default a new folder under the repository's .git/swe-adept/runs/)")
	fs.BoolVar(&f.asJSON, "json", false, "print the locations as JSON instead of a numbered list")
}

// checkLocalizeFlags checks the parsed flags together.
func checkLocalizeFlags(f localizeFlags, pos []string) (localizeFlags, error) {
	switch {
	case len(pos) > 0:
		return f, usagef("unexpected argument %q", pos[0])
	case f.issue == "":
		return f, usagef("--issue is required (a file, or - for standard input)")
	case f.iterations <= 0:
		return f, usagef("--max-iterations must be positive, not %d", f.iterations)
	}
	return f, checkDir("--repo", f.repo)
}

// runLocalize ranks the locations and prints them to std.out.
func runLocalize(ctx context.Context, parsed *localizeFlags, pos []string, std streams) error {
	f, err := checkLocalizeFlags(*parsed, pos)
	if err != nil {
		return err
	}
	stdout := std.out
	issue, err := readIssue(f.issue, std.in)
	if err != nil {
		return err
	}
	set, err := f.models.settings()
	if err != nil {
		return err
	}
	set.Localize.Script = f.script
	if err := explicitModel(set, f.models.model); err != nil {
		return err
	}
	var kept *keptRun // set when the ranking is kept among the runs
	if f.out == "" {
		if f.out, err = localizeOut(ctx, f.repo); err != nil {
			return err
		}
		kept = &keptRun{dir: filepath.Dir(f.out), meta: runfolder.Meta{Repo: f.repo, Issue: issue, Started: time.Now().UTC()}}
	}
	ix, err := buildIndexWithProgress(ctx, f.repo, std.errFile())
	if err != nil {
		return err
	}
	s := search.NewSearcher(ix)
	model, notice, err := set.LocalizationModel(ix, s)
	if err != nil {
		return err
	}
	errOut := textOut(std.err)
	if notice != "" {
		fmt.Fprintln(errOut, notice)
	}
	fmt.Fprintf(errOut, "localizing with %s\n", model.Name())
	if err := kept.start(model.Name()); err != nil {
		return err
	}
	bus := event.NewBus(nil)
	done := printSteps(bus.Subscribe(), errOut)
	loc, runErr := localize.Run(ctx, localize.Config{Index: ix, Searcher: s, Model: model, Bus: bus, Issue: issue, MaxIterations: f.iterations})
	bus.Close()
	done.Wait()
	kept.finish(loc, runErr)
	if loc == nil || (runErr != nil && len(loc.Files) == 0 && len(loc.Functions) == 0) {
		// Nothing was found: keep whatever an earlier run left at --out.
		return runErr
	}
	if err := loc.Save(f.out); err != nil {
		return err
	}
	if err := printLocations(stdout, loc, f.asJSON); err != nil {
		return err
	}
	fmt.Fprintf(errOut, "wrote %s (%s)\n", f.out, loc.Status)
	return runErr
}

// buildIndexWithProgress indexes the repository, drawing a progress line
// on w when it is a terminal.
func buildIndexWithProgress(ctx context.Context, repo string, w *os.File) (*index.Index, error) {
	start := time.Now()
	opts := index.Options{Logger: slog.Default()}
	var prog *progressLine
	if isTerminal(w) {
		prog = &progressLine{w: w, label: "indexing " + repo}
		opts.Progress = prog.update
	}
	ix, err := index.Build(ctx, repo, opts)
	prog.clear()
	if err != nil {
		return nil, err
	}
	st := ix.Stats()
	if st.Units == 0 {
		return nil, fmt.Errorf("%s has no source files the index reads (%s): nothing to localize in", ix.Root(), strings.Join(index.Languages(), ", "))
	}
	fmt.Fprintf(textOut(w), "indexed %s: %d files, %d units in %.1fs\n", ix.Root(), st.Files, st.Units, time.Since(start).Seconds())
	return ix, nil
}

// printSteps shows each tool call's one-line summary as the agent works.
func printSteps(ch <-chan event.Event, w io.Writer) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for e := range ch {
			switch {
			case e.Type == event.ToolResult && e.Tool != nil:
				mark := " "
				if e.Tool.Failed {
					mark = "!"
				}
				fmt.Fprintf(w, "%s[%d] %s\n", mark, e.Tool.Iteration, e.Tool.Summary)
			case e.Type == event.PhaseChanged:
				fmt.Fprintf(w, "-- %s\n", e.Phase)
			}
		}
	}()
	return &wg
}

func printLocations(w io.Writer, loc *localize.Locations, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(loc, "", "  ")
		if err != nil {
			return fmt.Errorf("encode locations: %w", err)
		}
		_, err = fmt.Fprintln(jsonOut(w), string(b))
		return err
	}
	w = textOut(w)
	fmt.Fprint(w, loc.Format(0))
	fmt.Fprintf(w, "search: %d nodes, depth %d, %s\n", len(loc.Tree), loc.MaxDepth, formatCalls(loc.ToolCalls))
	return nil
}

func formatCalls(calls map[string]int) string {
	var parts []string
	for _, name := range []string{search.FindFile.Name, search.FindCodeDef.Name, search.FindCodeContent.Name, search.FindChildUnit.Name} {
		if n := calls[name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s×%d", name, n))
		}
	}
	if len(parts) == 0 {
		return "no searches"
	}
	return strings.Join(parts, " ")
}

// localizeOut is where localize saves its locations by default: a new
// folder among the repository's runs, never the engineer's checkout.
func localizeOut(ctx context.Context, repo string) (string, error) {
	r, err := vcs.Open(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("--out not given, and %s is not a git repository to keep the locations in: %w", repo, err)
	}
	dir := filepath.Join(runfolder.RunsDir(r.CommonDir()), "localize-"+runfolder.NewID(time.Now()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("locations folder: %w", err)
	}
	return filepath.Join(dir, "locations.json"), nil
}

// keptRun is a localize whose ranking is kept among the repository's runs:
// it gets the run.json and summary.json of a run that stopped after
// localization, so 'swe-adept runs' lists it as such, with its start time.
type keptRun struct {
	dir  string
	meta runfolder.Meta
}

func (k *keptRun) start(model string) error {
	if k == nil {
		return nil
	}
	k.meta.ID, k.meta.Localize, k.meta.Model = filepath.Base(k.dir), model, "none"
	if abs, err := filepath.Abs(k.meta.Repo); err == nil {
		k.meta.Repo = abs
	}
	return atomicfile.WriteJSON(filepath.Join(k.dir, runfolder.MetaFile), k.meta)
}

// finish writes the summary: localized with the ranking, or failed.
func (k *keptRun) finish(loc *localize.Locations, runErr error) {
	if k == nil {
		return
	}
	end := time.Now().UTC()
	sum := runfolder.Summary{ID: k.meta.ID, Status: runfolder.Localized, RunDir: k.dir, Started: k.meta.Started, Ended: end,
		Seconds: end.Sub(k.meta.Started).Seconds()}
	if loc != nil {
		sum.Files, sum.Functions, sum.Localize = loc.Files, loc.Functions, loc.Usage
	}
	if runErr != nil {
		sum.Status, sum.Message = "failed", runErr.Error()
	}
	if err := atomicfile.WriteJSON(filepath.Join(k.dir, runfolder.SummaryFile), sum); err != nil {
		slog.Warn("save the localize summary", "dir", k.dir, "err", err)
	}
}
