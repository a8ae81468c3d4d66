package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/swe-adept/swe-adept/internal/atomicfile"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

// prepareResume checks that a run can be continued: its folder and worktree
// exist, it did not already submit, and a resolution model is given.
func (r *Run) prepareResume() error {
	r.ID = r.opts.Resume
	r.Dir = filepath.Join(runfolder.RunsDir(r.repo.CommonDir()), r.ID)
	if _, err := os.Stat(r.Dir); err != nil {
		return fmt.Errorf("no run %s in %s (swe-adept runs lists them)", r.ID, runfolder.RunsDir(r.repo.CommonDir()))
	}
	meta, err := runfolder.LoadMeta(r.Dir)
	if err != nil {
		return err
	}
	r.opts.InPlace = meta.InPlace
	if o, err := readOwner(r.Dir); err == nil && o.Alive() {
		return fmt.Errorf("run %s is still running (pid %d): two processes cannot share its workspace; stop it first", r.ID, o.PID)
	}
	if s, err := runfolder.LoadSummary(r.Dir); err == nil && s.Status == string(tool.Submitted) {
		return fmt.Errorf("run %s already ended with a submitted solution (patch: %s); there is nothing to resume", r.ID, nonEmpty(s.Patch, "none"))
	}
	if r.resolveModel() == nil {
		return fmt.Errorf("%w to resume run %s: set OPENAI_API_KEY and --model NAME, or pass --script-resolve FILE", ErrNoModel, r.ID)
	}
	r.meta = meta
	return nil
}

// reopen finds the run's linked worktree again, or, for a run that worked
// in place and crashed, takes the checkout again from where it stood.
func (r *Run) reopen(ctx context.Context) (*workspace, error) {
	if r.meta.InPlace {
		return r.reopenInPlace(ctx)
	}
	runs, err := vcs.ListRuns(ctx, r.repo.Dir())
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", r.ID, err)
	}
	for _, info := range runs {
		if info.ID != r.ID {
			continue
		}
		if info.Worktree == "" {
			return nil, fmt.Errorf("resume %s: its worktree is gone (removed by gc?), so it cannot be resumed", r.ID)
		}
		repo, err := r.repo.OpenWorktree(ctx, info.Worktree)
		if err != nil {
			return nil, fmt.Errorf("resume %s: %w", r.ID, err)
		}
		orig := nonEmpty(r.meta.Original, info.Original)
		return &workspace{Dir: repo.Dir(), Original: orig, Repo: repo, close: func(context.Context) error { return nil }}, nil
	}
	return nil, fmt.Errorf("resume %s: the repository has no git state for this run (removed by gc?)", r.ID)
}

// recallQuestions reads what the run asked before it stopped: its questions
// go on numbering from there, the refused rankings go back to the localizer
// if it searches again, and the prefixes the engineer allowed stay allowed.
func (r *Run) recallQuestions() {
	r.asked = readAsked(r.Dir)
	r.bus.ContinueQuestions(r.asked.last)
	r.refusedLocs = r.asked.refused
	r.opts.Allow = append(r.opts.Allow, r.asked.allow...)
}

// loadResumed brings back the locations, working memory, transcript and
// usage of a run being resumed. A run that stopped before its ranking was
// saved localizes again.
func (r *Run) loadResumed(st *state) error {
	locs, err := localize.LoadLocations(filepath.Join(r.Dir, runfolder.LocationsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("resume %s: %w", r.ID, err)
	}
	st.locs = locs
	st.mem, err = memory.NewStore(filepath.Join(r.Dir, runfolder.MemoryFile)).Load()
	if errors.Is(err, fs.ErrNotExist) {
		st.mem, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("resume %s: %w", r.ID, err)
	}
	var t runfolder.Transcript
	if err := runfolder.ReadJSON(filepath.Join(r.Dir, runfolder.TranscriptFile), &t); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("resume %s: %w", r.ID, err)
	}
	st.transcrpt, st.history = t, t.Resolve
	if prev, err := runfolder.LoadSummary(r.Dir); err == nil {
		st.sum.Localize, st.sum.Resolve = prev.Localize, prev.Resolve
	} else if locs != nil {
		st.sum.Localize = locs.Usage
	}
	return nil
}

// resolving reports whether resolution had started before the run stopped:
// its ranking was then settled, and is not asked about again.
func resolving(st *state) bool { return st.mem != nil || len(st.history) > 0 }

// reasking reports whether a resumed run puts its ranking to the engineer
// again: resolution never started, and no ranking was approved.
func (r *Run) reasking(st *state) bool {
	return r.meta != nil && !resolving(st) && !r.asked.locations
}

// lastSubmission is the agent's submission, when the conversation ended
// with one.
func lastSubmission(history []llm.Message) (resolve.Submission, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role != llm.Assistant {
			continue
		}
		for _, c := range history[i].ToolCalls {
			var s resolve.Submission
			if c.Name == "submit" && json.Unmarshal([]byte(c.Arguments), &s) == nil {
				return s, true
			}
		}
		return resolve.Submission{}, false
	}
	return resolve.Submission{}, false
}

// submittedOnRefusal reports whether a resumed run's agent had submitted
// after the engineer refused its merge: the run ended on that refusal, and
// the model has nothing to continue.
func (r *Run) submittedOnRefusal(st *state) (resolve.Submission, bool) {
	if r.meta == nil || r.asked.merge == "" {
		return resolve.Submission{}, false
	}
	return lastSubmission(st.history)
}

// reaskMerge ends a run that stopped on a refused merge: in ask mode the
// merge is put to the engineer again, whose answer decides how it ends;
// otherwise it ends as it was. The agent's submission stands either way.
func (r *Run) reaskMerge(ctx context.Context, st *state, tracker *hypothesis.Tracker, sub resolve.Submission) error {
	st.out = resolve.Outcome{Result: tool.Result{Status: tool.Submitted, Usage: st.sum.Resolve}, Submission: &sub}
	if r.mode != resolve.ModeAsk {
		r.emit(event.Event{Type: event.Message, Text: "you refused merging " + r.asked.merge + " and the agent submitted without it; " +
			"nothing is merged now (resume with the screen, in ask mode, to be asked about that merge again)"})
		st.mergeRefused = true
		return nil
	}
	r.emit(event.Event{Type: event.Message, Text: "you refused merging " + r.asked.merge + " before the run stopped: asking again"})
	out, err := tracker.MergeSolution(ctx, r.asked.merge)
	if err != nil {
		return fmt.Errorf("merge %s again: %w", r.asked.merge, err)
	}
	r.emit(event.Event{Type: event.Message, Agent: event.Resolver, Text: firstLineOf(out.Text)})
	st.merged, st.branched, st.mergeRefused = tracker.Memory().Merged, tracker.Branched(), tracker.MergeRefused() || out.Failed
	return nil
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func (r *Run) reopenInPlace(ctx context.Context) (*workspace, error) {
	if _, err := vcs.Recover(ctx, r.repo.Dir(), r.ID); err != nil && !errors.Is(err, vcs.ErrNothingToRestore) {
		return nil, fmt.Errorf("resume %s: %w", r.ID, err)
	}
	ws, err := vcs.ReopenWorkspace(ctx, r.repo.Dir(), r.ID)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", r.ID, err)
	}
	return &workspace{Dir: ws.Dir, Original: ws.Original, Repo: ws.Repo, close: ws.Close, recorded: ws.RecordedPaths}, nil
}

// ownerFile names the process working on a run, so a resume can tell a
// live run from a crashed one.
const ownerFile = "owner.json"

func writeOwner(dir, id string) error {
	return atomicfile.WriteJSON(filepath.Join(dir, ownerFile), vcs.CurrentOwner(id))
}

func readOwner(dir string) (vcs.Owner, error) {
	var o vcs.Owner
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return o, err
	}
	return o, json.Unmarshal(b, &o)
}
