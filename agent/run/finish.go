package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
	"github.com/swe-adept/swe-adept/vcs"
)

// finish saves the patch and the summary and puts the checkout back. It
// runs on a context that outlives cancellation: a cancelled run still
// saves what it has.
func (r *Run) finish(parent context.Context, st *state, runErr error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), 2*time.Minute)
	defer cancel()
	if parent.Err() != nil && runErr == nil {
		runErr = parent.Err()
	}
	sum := &st.sum
	sum.InPlace = r.opts.InPlace
	if st.locs != nil {
		sum.Files, sum.Functions = st.locs.Files, st.locs.Functions
	}
	var patchErr error
	if st.ws != nil {
		// The patch first: whether it is empty decides the status.
		if patchErr = r.savePatch(ctx, st); patchErr != nil {
			r.emit(event.Event{Type: event.Error, Text: patchErr.Error()})
		}
	}
	sum.Status, sum.Message = status(st, runErr), explain(st, runErr, r.repo.Dir())
	if patchErr != nil {
		sum.Message = join(sum.Message, patchErr.Error())
	}
	if st.ws != nil {
		if err := st.ws.close(ctx); err != nil {
			text := err.Error()
			var npb *vcs.NotPutBackError
			if !errors.As(err, &npb) {
				text = "your checkout was NOT put back: " + text
			}
			r.emit(event.Event{Type: event.Error, Text: text})
			sum.Message = join(sum.Message, text)
			sum.CheckoutError = text
		}
		r.apply(ctx, st)
	}
	if failed(runErr) {
		r.emit(event.Event{Type: event.Error, Text: resolve.Scrub(runErr.Error(), r.secrets)})
	}
	priced := r.total(sum)
	if err := atomicfile.WriteJSON(filepath.Join(r.Dir, runfolder.SummaryFile), sum); err != nil {
		slog.Error("save summary", "run", r.ID, "err", err)
	}
	r.emit(event.Event{Type: event.PhaseChanged, Phase: "done"})
	r.emit(event.Event{Type: event.Done, Done: &event.DoneInfo{Status: sum.Status, Patch: sum.Patch, RunDir: r.Dir,
		Seconds: sum.Seconds, Tokens: sum.Tokens, Cost: sum.Localize.Cost + sum.Resolve.Cost, Priced: priced,
		Report: sum.Message, FilesFound: len(sum.Files)}})
	r.mu.Lock()
	r.summary = *sum
	if failed(runErr) {
		r.err = scrubErr(runErr, r.secrets)
	}
	r.mu.Unlock()
}

// failed reports whether err is a failure of the run, not a way for it
// to end: a cancellation, or a context window too small for the task
// (exit_context, whose advice the summary carries).
func failed(err error) bool {
	var werr *tool.WindowError
	return err != nil && !errors.Is(err, context.Canceled) && !errors.As(err, &werr)
}

// total fills in the summary's totals and reports whether the cost is known.
func (r *Run) total(sum *runfolder.Summary) bool {
	sum.Ended = r.opts.Now().UTC()
	sum.Seconds = sum.Ended.Sub(sum.Started).Seconds()
	l, s := sum.Localize, sum.Resolve
	sum.Tokens = l.PromptTokens + l.CompletionTokens + s.PromptTokens + s.CompletionTokens
	priced := (l.Calls == 0 || l.Priced) && (s.Calls == 0 || s.Priced)
	sum.Cost = llm.FormatCost(l.Cost+s.Cost, priced)
	sum.Message = resolve.Scrub(sum.Message, r.secrets)
	return priced
}

// savePatch writes patch.diff: the workspace (the merged solution, or the
// current state when nothing was merged) against the original state, without
// scratch files unless the agent kept them.
func (r *Run) savePatch(ctx context.Context, st *state) error {
	wt, err := r.workPatch(ctx, st)
	if err != nil {
		return fmt.Errorf("final patch: %w", err)
	}
	var keep []string
	if st.out.Submission != nil {
		keep = st.out.Submission.KeepFiles
	}
	extra := ""
	if st.merged != "" {
		if extra, err = r.patchWithout(ctx, st, st.merged); err != nil {
			return fmt.Errorf("final patch: the merged branch: %w", err)
		}
	}
	patch, dropped := finalPatch(wt, extra, keep)
	for _, p := range scratchOf(extra, keep) {
		if !slices.Contains(dropped, p) {
			dropped = append(dropped, p)
		}
	}
	path := filepath.Join(r.Dir, runfolder.PatchFile)
	if err := atomicfile.Write(path, []byte(patch)); err != nil {
		return err
	}
	st.sum.Dropped, st.sum.Merged, st.sum.Stat = dropped, st.merged, patchStat(patch)
	if patch != "" {
		st.sum.Patch = path
	}
	label := "final patch"
	if st.merged == "" {
		label = "final patch (nothing merged: the workspace as it is)"
	}
	r.emit(event.Event{Type: event.Diff, Agent: event.Resolver, Diff: &event.DiffInfo{From: st.ws.Original, To: "final", Label: label, Patch: patch, Stat: st.sum.Stat}})
	return nil
}

// workPatch is the workspace's state against the original one: as it is,
// or as the run left it when the engineer's edits stopped it.
func (r *Run) workPatch(ctx context.Context, st *state) (string, error) {
	state := st.ownState
	if state == "" {
		snap, err := st.ws.Repo.Snapshot(ctx)
		if err != nil {
			return "", err
		}
		state = snap
	}
	return r.patchWithout(ctx, st, state)
}

// patchWithout is the diff from the original state to state, leaving out
// the untracked and ignored files the checkout held when an in-place run
// started: they are the engineer's, whatever .gitignore says now.
func (r *Run) patchWithout(ctx context.Context, st *state, state string) (string, error) {
	if st.ws.recorded != nil {
		untracked, ignored, err := st.ws.recorded(ctx)
		if err != nil {
			return "", err
		}
		if paths := append(untracked, ignored...); len(paths) > 0 {
			if state, err = st.ws.Repo.CommitWithout(ctx, st.ws.Original, state, paths); err != nil {
				return "", err
			}
		}
	}
	return st.ws.Repo.Patch(ctx, st.ws.Original, state)
}

// apply puts a submitted solution on the engineer's checkout as
// uncommitted changes, when they asked for it. Only a run that ends
// "submitted" has one: after a refused merge, an empty patch or any other
// end, nothing is applied, and the run says so.
func (r *Run) apply(ctx context.Context, st *state) {
	if !r.opts.Apply {
		return
	}
	if !runfolder.HasSolution(st.sum.Status) {
		note := "--apply: nothing applied to your checkout: the run ended " + st.sum.Status + ", not with a submitted solution"
		st.sum.Message = join(st.sum.Message, note)
		r.emit(event.Event{Type: event.Message, Text: note})
		return
	}
	patch, err := os.ReadFile(st.sum.Patch)
	if err == nil {
		err = vcs.ApplyToCheckout(ctx, r.repo.Dir(), string(patch))
	}
	if err != nil {
		r.emit(event.Event{Type: event.Error, Text: "apply the patch: " + err.Error()})
		st.sum.Message = join(st.sum.Message, "apply the patch: "+err.Error())
		return
	}
	st.sum.Applied = true
	r.emit(event.Event{Type: event.Message, Text: "applied the patch to " + r.repo.Dir() + " as uncommitted changes"})
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
