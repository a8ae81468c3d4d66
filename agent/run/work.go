package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/hypothesis"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
	"github.com/swe-adept/swe-adept/internal/shellquote"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

// workspace is where the agents work: a fresh vcs.Workspace, or a resumed
// run's worktree.
type workspace struct {
	Dir      string
	Original string
	Repo     *vcs.Repo
	close    func(ctx context.Context) error
	// recorded lists the engineer's untracked and ignored files of an
	// in-place checkout, never part of the patch; nil for a worktree.
	recorded func(ctx context.Context) (untracked, ignored []string, err error)
}

// state is what one run carries from phase to phase.
type state struct {
	ws           *workspace
	locs         *localize.Locations
	out          resolve.Outcome
	merged       string
	branched     bool // a hypothesis got a branch
	mergeRefused bool // the engineer refused a merge
	// localizedOnly: the run stopped after localization (LocalizeOnly).
	localizedOnly bool
	locsEdited    bool         // the engineer edited the ranked locations
	ix            *index.Index // the index localization built; nil when none was
	history       []llm.Message
	// ownState: the engineer's edits stopped the run, and this commit is
	// its own state without them; its patch is taken from here.
	ownState  string
	mem       *memory.Memory
	transcrpt runfolder.Transcript
	sum       runfolder.Summary
}

func (r *Run) work(ctx context.Context) {
	defer close(r.done)
	defer r.log.Close()
	defer r.bus.Close()
	st := &state{sum: runfolder.Summary{ID: r.ID, RunDir: r.Dir, Started: r.opts.Now().UTC(), Resumed: r.meta != nil, Unconfined: r.unconfined}}
	err := r.phases(ctx, st)
	r.finish(ctx, st, err)
	os.Remove(filepath.Join(r.Dir, ownerFile)) // no longer running
}

func (r *Run) phases(ctx context.Context, st *state) error {
	var err error
	if st.ws, err = r.openWorkspace(ctx); err != nil {
		return err
	}
	st.sum.Workdir = st.ws.Dir
	if r.meta != nil {
		if err := r.loadResumed(st); err != nil {
			return err
		}
	}
	r.emitStarted(st)
	if err := r.saveMeta(st); err != nil {
		return err
	}
	if err := r.settleLocations(ctx, st); err != nil {
		return err
	}
	if r.opts.LocalizeOnly {
		st.localizedOnly = true
		return nil
	}
	return r.resolveIssue(ctx, st)
}

func (r *Run) openWorkspace(ctx context.Context) (*workspace, error) {
	if r.meta != nil {
		return r.reopen(ctx)
	}
	ws, err := vcs.OpenWorkspace(ctx, r.repo.Dir(), r.ID, vcs.Mode{InPlace: r.opts.InPlace})
	if err != nil {
		return nil, err
	}
	return &workspace{Dir: ws.Dir, Original: ws.Original, Repo: ws.Repo, close: ws.Close, recorded: ws.RecordedPaths}, nil
}

func (r *Run) emitStarted(st *state) {
	info := &event.RunInfo{ID: r.ID, Repo: r.repo.Dir(), Workdir: st.ws.Dir, Issue: r.issue(), Model: r.resolveName(), Unconfined: r.unconfined}
	if m := r.localizeModel(); m != nil {
		info.Localize = m.Name()
	}
	r.emit(event.Event{Type: event.RunStarted, Run: info})
	if note := r.costGuard(); note != "" {
		r.emit(event.Event{Type: event.Message, Text: note})
	}
	if r.meta != nil {
		r.emit(event.Event{Type: event.Message, Text: "resumed run " + r.ID + " in " + st.ws.Dir})
	}
	if r.tornBytes > 0 {
		r.emit(event.Event{Type: event.Message, Text: fmt.Sprintf("%s ended in a partial line (%d bytes, cut off when the run stopped): "+
			"it was removed before this resume's events were added", runfolder.EventsFile, r.tornBytes)})
	}
}

func (r *Run) issue() string {
	if r.meta != nil {
		return r.meta.Issue
	}
	return r.opts.Issue
}

func (r *Run) saveMeta(st *state) error {
	if r.meta != nil {
		return nil
	}
	m := runfolder.Meta{ID: r.ID, Repo: r.repo.Dir(), Issue: r.opts.Issue, InPlace: r.opts.InPlace, Approve: string(r.mode),
		Model: r.resolveName(), Started: st.sum.Started, Workdir: st.ws.Dir, Original: st.ws.Original}
	if lm := r.localizeModel(); lm != nil {
		m.Localize = lm.Name()
	}
	return atomicfile.WriteJSON(filepath.Join(r.Dir, runfolder.MetaFile), m)
}

// locate indexes and localizes, or takes the given or saved locations.
func (r *Run) locate(ctx context.Context, st *state) error {
	path := filepath.Join(r.Dir, runfolder.LocationsFile)
	switch {
	case st.locs != nil: // resumed
		return nil
	case r.opts.Locations != nil:
		given := *r.opts.Locations
		given.Files, given.Functions = r.checkLocations(st.ws.Dir, given.Files, given.Functions)
		st.locs = &given
		r.emit(event.Event{Type: event.Ranked, Agent: event.Localizer, Ranking: &event.Ranking{Files: st.locs.Files, Functions: st.locs.Functions}})
		return st.locs.Save(path)
	}
	ix, err := r.index(ctx, st.ws.Dir)
	if err != nil {
		return err
	}
	st.ix = ix
	model, err := r.localizerFor(ix)
	if err != nil {
		return err
	}
	locs, err := localize.Run(ctx, localize.Config{Index: ix, Model: model, Bus: r.bus, Gate: r.gate, Issue: r.issue() + r.locationNotes(),
		MaxIterations: r.opts.LocalizeMaxIterations, MaxTokens: r.opts.MaxTokens, MaxCost: r.opts.MaxCost})
	if locs != nil {
		st.locs = locs
		st.sum.Localize = sumUsage(st.sum.Localize, locs.Usage)
		if serr := locs.Save(path); serr != nil && err == nil {
			err = serr
		}
	}
	st.transcrpt.Localize = localizeMessages(filepath.Join(r.Dir, runfolder.EventsFile))
	if err != nil {
		return fmt.Errorf("localization: %w", err)
	}
	return nil
}

// localizerFor is the localization model: given, or picked with the index.
func (r *Run) localizerFor(ix *index.Index) (llm.Model, error) {
	if m := r.localizeModel(); m != nil {
		return m, nil
	}
	if r.opts.Localizer == nil {
		return nil, fmt.Errorf("%w to localize again: give a localization model, or --locations FILE naming where to work", ErrNoModel)
	}
	m, notice, err := r.opts.Localizer(ix)
	if err != nil {
		return nil, fmt.Errorf("localization model: %w", err)
	}
	if notice != "" {
		r.emit(event.Event{Type: event.Message, Text: notice})
	}
	return m, nil
}

func (r *Run) index(ctx context.Context, dir string) (*index.Index, error) {
	r.emit(event.Event{Type: event.PhaseChanged, Phase: "index"})
	last := -1
	ix, err := index.Build(ctx, dir, index.Options{Logger: slog.Default(), Progress: func(done, total int) {
		pct := done * 20 / max(total, 1) // at most ~20 events
		if pct != last || done == total {
			last = pct
			r.emit(event.Event{Type: event.IndexProgress, Progress: &event.Progress{Done: done, Total: total, What: "files"}})
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	if ix.Stats().Units == 0 {
		return nil, fmt.Errorf("index %s: no source files the index reads (%s): nothing to localize in", dir, strings.Join(index.Languages(), ", "))
	}
	return ix, nil
}

// resolveIssue runs the resolution agent with the hypothesis tools.
func (r *Run) resolveIssue(ctx context.Context, st *state) error {
	r.emit(event.Event{Type: event.PhaseChanged, Phase: "resolve"})
	store := memory.NewStore(filepath.Join(r.Dir, runfolder.MemoryFile))
	tracker := hypothesis.New(hypothesis.Config{Repo: st.ws.Repo, Store: store, Memory: st.mem, RunID: r.ID, Approver: r.approver(), Bus: r.bus,
		Exclude: func() []string { return r.scratch(ctx, st.ws) }})
	usage := st.sum.Resolve
	if usage.Calls == 0 {
		usage.Priced = true
	}
	maxTok, maxCost := r.remaining(st)
	gitPaths, err := st.ws.Repo.GitPaths(ctx)
	if err != nil {
		return err
	}
	box, err := r.sandbox(st.ws.Dir, gitPaths)
	if err != nil {
		return err
	}
	if box != nil {
		defer box.Close()
	}
	var guard *liveEdits
	if r.opts.InPlace {
		guard = newLiveEdits(ctx, st.ws, r.Dir, box != nil)
		if note := guard.attribution(); note != "" {
			r.emit(event.Event{Type: event.Message, Text: note})
		}
	}
	if sub, ok := r.submittedOnRefusal(st); ok {
		return r.reaskMerge(ctx, st, tracker, sub)
	}
	ag, err := resolve.New(resolve.Config{
		Model: r.resolveModel(), Workdir: st.ws.Dir, Issue: r.issue(), Files: st.locs.Files, Functions: st.locs.Functions, LocationsEdited: st.locsEdited,
		Extra: tracker.Tools(), Bus: r.bus, Gate: r.gate, Approver: r.approver(), Mode: r.mode, Allow: r.opts.Allow,
		MaxIterations: r.opts.MaxIterations, MaxTokens: maxTok, MaxCost: maxCost, Usage: &usage,
		CommandTimeout: r.opts.CommandTimeout, CommandBudget: r.opts.CommandBudget, Sandbox: box, GitDirs: gitPaths,
		Unconfined: r.unconfinedPolicy(), Env: r.commandEnv(), Secrets: r.secrets, MaxOutput: r.opts.CommandOutput,
		History: st.history, Rerun: r.asked.pending, Memo: tracker.Memo, Guard: guard.checkFunc(), Watch: guard.watchFunc(),
		OnStep: func(msgs []llm.Message) { r.saveTranscript(st, msgs) },
	})
	if err != nil {
		return err
	}
	st.out, err = ag.Run(ctx)
	if guard != nil {
		// Edits made after the agent's last call would otherwise reach the patch.
		if gerr := guard.check(context.WithoutCancel(ctx)); gerr != nil && err == nil {
			err = gerr
		}
		st.ownState = guard.ownState()
	}
	st.sum.Resolve = st.out.Usage
	st.merged = tracker.Memory().Merged
	st.branched, st.mergeRefused = tracker.Branched(), tracker.MergeRefused()
	return err
}

// remaining splits the run's token and cost limits: what localization
// spent is gone. A spent limit stays positive so the loop stops at once.
func (r *Run) remaining(st *state) (int, float64) {
	tok, cost := 0, 0.0
	spent := st.sum.Localize
	if r.opts.MaxTokens > 0 {
		tok = max(r.opts.MaxTokens-spent.PromptTokens-spent.CompletionTokens, 1)
	}
	if r.opts.MaxCost > 0 {
		cost = max(r.opts.MaxCost-spent.Cost, 1e-9)
	}
	return tok, cost
}

// scratch lists the reproduction scripts and scratch files the agent added,
// which merge_solution leaves out.
func (r *Run) scratch(ctx context.Context, ws *workspace) []string {
	p, err := ws.Repo.PatchWorkTree(ctx, ws.Original)
	if err != nil {
		slog.Warn("list scratch files", "run", r.ID, "err", err)
		return nil
	}
	return scratchOf(p, nil)
}

func (r *Run) saveTranscript(st *state, msgs []llm.Message) {
	st.transcrpt.Resolve = scrubMessages(msgs, r.secrets)
	if err := atomicfile.WriteJSON(filepath.Join(r.Dir, runfolder.TranscriptFile), st.transcrpt); err != nil {
		slog.Warn("save transcript", "run", r.ID, "err", err)
	}
}

func scrubMessages(msgs []llm.Message, secrets []string) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		m.Content = resolve.Scrub(m.Content, secrets)
		if len(m.ToolCalls) > 0 {
			calls := append([]llm.ToolCall(nil), m.ToolCalls...)
			for j := range calls {
				calls[j].Arguments = resolve.Scrub(calls[j].Arguments, secrets)
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}

// status names how a run ended (see runfolder.Summary.Status).
func status(st *state, err error) string {
	var werr *tool.WindowError
	switch {
	case errors.Is(err, context.Canceled):
		return string(tool.Cancelled)
	case errors.As(err, &werr):
		return string(tool.ExitTokens)
	case st.localizedOnly && err == nil:
		return runfolder.Localized
	case st.out.Status == tool.Submitted && unmerged(st):
		return runfolder.SubmittedUnmerged
	case st.out.Status == tool.Submitted && st.sum.Patch == "":
		return runfolder.SubmittedEmpty
	case st.out.Status != "":
		return string(st.out.Status)
	}
	return "failed"
}

// unmerged: the run worked with hypotheses but merged none.
func unmerged(st *state) bool { return st.branched && st.merged == "" }

// explain is the summary's message: what the status means for the engineer.
func explain(st *state, err error, repo string) string {
	var werr *tool.WindowError
	switch {
	case errors.As(err, &werr):
		return werr.Error() + "; the patch holds the work so far"
	case err != nil && !errors.Is(err, context.Canceled):
		return err.Error()
	case st.localizedOnly && err == nil:
		return "localized; no resolution model is configured, so the run stops here with the ranking saved in " + filepath.Join(st.sum.RunDir, runfolder.LocationsFile) +
			". Configure a model (OPENAI_API_KEY or a base URL, and a model name) to resolve, or work on the ranking by hand with 'swe-adept hyp'."
	case st.out.Status == tool.Submitted && unmerged(st) && st.mergeRefused:
		return "submitted without a merged solution: you refused the merge, so nothing was merged; patch.diff holds the agent's work as it left it, " +
			"to read, not a solution (it is neither applied nor exported as a prediction). " + strings.TrimSpace(submissionSummary(st))
	case st.out.Status == tool.Submitted && unmerged(st):
		return "submitted without a merged solution: no merge_solution succeeded, so patch.diff is the workspace as the agent left it, " +
			"to read, not a solution (it is neither applied nor exported as a prediction). " + strings.TrimSpace(submissionSummary(st))
	case st.out.Status == tool.Submitted && st.sum.Patch == "":
		return "the agent submitted no changes: the patch is empty. " + strings.TrimSpace(submissionSummary(st))
	case st.out.Status == tool.ExitNoTool:
		return "the model kept answering without calling a tool; it may not support tool calls (try another --model)"
	case st.out.Status == tool.ExitFormat:
		return "the model kept sending malformed tool calls"
	case st.out.Status == tool.ExitIterations, st.out.Status == tool.ExitCost, st.out.Status == tool.ExitTokens:
		return "stopped at a limit (" + string(st.out.Status) + "); the patch holds the work so far; raise --max-iterations, --max-cost or --max-tokens, or resume the run"
	case errors.Is(err, context.Canceled) && st.sum.InPlace:
		return "cancelled; your checkout was put back (an in-place run that was stopped cannot be resumed: start a new one)"
	case errors.Is(err, context.Canceled):
		return "cancelled; resume with: swe-adept run --repo " + shellquote.Quote(repo) + " --resume " + st.sum.ID
	}
	return strings.TrimSpace(submissionSummary(st))
}

func submissionSummary(st *state) string {
	if st.out.Submission != nil {
		return st.out.Submission.Summary
	}
	return ""
}

// resolveName is the resolution model's name, or "none" for a run that
// only localizes.
func (r *Run) resolveName() string {
	if m := r.resolveModel(); m != nil {
		return m.Name()
	}
	return "none"
}
