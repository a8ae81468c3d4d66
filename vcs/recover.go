package vcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/internal/shellquote"
)

// An in-place run that is killed (kill -9, an OOM kill, a closed lid)
// leaves the checkout in its own state: a detached HEAD or a hypothesis
// branch, its edits in the working tree. Recover gives the checkout back.
//
// The order of steps, and why a kill at any instant is safe:
//
//  0. A run that never set Detaching never moved HEAD, the index or a
//     file (Detaching is saved before the first move): there is nothing
//     to give back. Nothing else is ever decided from HEAD alone.
//  1. Save the run's uncommitted work on StashRefPrefix+<run>/crashed,
//     without cleaning anything, and record where the run stood (its
//     branch and HEAD) in the run state: --resume starts from there. A
//     give-back that was under way (Returning) has saved it already.
//  2. Give the checkout back as Close does (giveback.go): save what is
//     there, check the free space, clean, check out the engineer's
//     branch or detached HEAD, restore their uncommitted work, their
//     untracked and ignored files byte for byte and every file's mode.
//     A kill here leaves a partial restore marked Returning; the next
//     Recover saves it aside and restores again, from the same refs.
//  3. Check that HEAD, the index, the working tree, the untracked and
//     ignored files and the modes are exactly what was saved, and only
//     then mark the run restored.
//
// The engineer's work lives on its refs from before the run touched the
// checkout until after step 3, no step removes a ref, and GC keeps them
// until the restore has been verified.

// Restored is what Recover did for one run.
type Restored struct {
	Run       string
	Branch    string // the engineer's branch checked out again ("" when they were detached)
	Head      string
	RunState  string // the ref holding the run's uncommitted work, "" when it had none
	Untouched bool   // the run had not yet taken the checkout: nothing was moved
	Resumable bool   // --resume can continue the run from where it stood
	Repo      string // the checkout, for the commands the message names
}

// String is the one line the commands print.
func (r Restored) String() string {
	if r.Untouched {
		return fmt.Sprintf("run %s had stopped before it changed your checkout; nothing to restore", r.Run)
	}
	where := "commit " + short(r.Head)
	if r.Branch != "" {
		where = r.Branch
	}
	line := fmt.Sprintf("run %s had crashed working in your checkout: put back %s and your uncommitted changes", r.Run, where)
	if r.RunState != "" {
		line += "; the run's own work is on " + r.RunState
	}
	if !r.Resumable {
		return line
	}
	return line + " (" + resumeCommand(r.Repo, r.Run) + " continues it)"
}

// resumeCommand is the command that continues run, working from any
// folder.
func resumeCommand(repo, run string) string {
	return "swe-adept run --repo " + shellquote.Quote(repo) + " --resume " + shellquote.Quote(run)
}

// ErrNothingToRestore: no crashed in-place run in the repository.
var ErrNothingToRestore = errors.New("no crashed in-place run to restore")

// Recover restores the checkout of the crashed in-place run runID, or of
// every crashed in-place run when runID is "". A live run is left alone.
func Recover(ctx context.Context, repo, runID string) ([]Restored, error) {
	co, err := Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	states, err := crashedStates(co, runID)
	if err != nil {
		return nil, err
	}
	if len(states) == 0 && runID != "" {
		return nil, fmt.Errorf("run %s: %w", runID, ErrNothingToRestore)
	}
	var done []Restored
	for _, st := range states {
		r, err := recoverRun(ctx, co, st)
		if err != nil {
			return done, err
		}
		done = append(done, r)
	}
	return done, nil
}

// crashedStates are the in-place runs that hold the checkout and whose
// process is gone.
func crashedStates(co *Repo, runID string) ([]runState, error) {
	files, _ := filepath.Glob(filepath.Join(co.commonDir, filepath.FromSlash(stateDir), "*.json"))
	sort.Strings(files)
	owner, lockErr := readLock(co)
	var out []runState
	for _, f := range files {
		var st runState
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &st) != nil {
			continue
		}
		if !st.InPlace || st.Manual || st.Finished || st.Restored || (runID != "" && st.ID != runID) {
			continue
		}
		if lockErr == nil && owner.Run == st.ID && owner.Alive() {
			if runID != "" {
				return nil, fmt.Errorf("%w: run %s (pid %d) is still running; stop it and it puts the checkout back itself", ErrCheckoutBusy, st.ID, owner.PID)
			}
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

func recoverRun(ctx context.Context, co *Repo, st runState) (Restored, error) {
	w := &Workspace{RunID: st.ID, InPlace: true, checkout: co, Repo: co, Dir: co.dir, Original: st.Original, st: st}
	res := Restored{Run: st.ID, Branch: st.Branch, Head: st.Head, Repo: co.dir}
	if w.untouched() {
		w.st.Restored, w.st.Finished, res.Untouched = true, true, true
		releaseLock(co, st.ID)
		return res, w.save()
	}
	head, err := co.Head(ctx)
	if err != nil {
		return res, w.notPutBack(err)
	}
	if err := w.foreign(head); err != nil {
		return res, w.notPutBack(err)
	}
	if err := w.saveCrashed(ctx, head); err != nil {
		return res, w.notPutBack(err)
	}
	if c := w.st.Crashed; c != nil && c.Saved {
		res.RunState = StashRefPrefix + c.savedName(w)
	}
	if err := w.restoreCheckout(ctx); err != nil {
		return res, err
	}
	res.Resumable = w.st.Crashed != nil
	releaseLock(co, st.ID)
	return res, w.save()
}

// saveCrashed puts the crashed run's own work aside and records where it
// stood, for --resume. A give-back that was under way has done so already.
func (w *Workspace) saveCrashed(ctx context.Context, head Head) error {
	co := w.checkout
	switch {
	case w.st.Crashed != nil:
		return nil
	case w.st.Returning && w.st.Left != nil:
		w.st.Crashed = w.st.Left
		return w.save()
	case w.st.Returning:
		return nil // the run's state was lost before it was saved: nothing to resume
	}
	rec, _, err := w.loadRecord(ctx)
	if err != nil {
		return err
	}
	name := w.StashName("crashed")
	saved, err := co.saveAside(ctx, name, ignoredPaths(rec), nil)
	if err != nil {
		return fmt.Errorf("save the run's own work: %w", err)
	}
	w.st.Crashed = &crashState{Branch: head.Branch, Head: head.Hash, Saved: saved != "", Name: name}
	return w.save()
}

// untouched: the run never moved HEAD, the index or a file. That is known
// from the state recorded before each step, never guessed from HEAD: the
// run sets Detaching (and saves it) before it moves anything.
func (w *Workspace) untouched() bool {
	return !w.st.Detaching && !w.st.Resumed && w.st.Crashed == nil && !w.st.Returning
}

// foreign refuses a checkout someone changed after the crash: on a branch
// that is neither the engineer's nor the run's.
func (w *Workspace) foreign(head Head) error {
	if head.Branch == "" || strings.HasPrefix(head.Branch, branchPrefix+w.RunID+"/") {
		return nil
	}
	if head.Branch == w.st.Branch {
		// A give-back got as far as checking it out, or the engineer did:
		// what is there now is saved before anything is cleaned.
		return nil
	}
	return &NotPutBackError{Run: w.RunID, Steps: w.byHandFrom(head.Branch),
		Reason: fmt.Errorf("run %s crashed working in this checkout, and the checkout was changed since (HEAD is on %s): nothing was touched",
			w.RunID, head.Branch)}
}

// matchesState compares the index, the working tree's tracked files and
// the untracked files with the given trees.
func (r *Repo) matchesState(ctx context.Context, wtree, itree, utree string) error {
	gotI, err := r.writeTree(ctx)
	if err != nil {
		return err
	}
	gotW, err := r.snapshotTree(ctx, "-u")
	if err != nil {
		return err
	}
	gotU := ""
	if paths, err := r.untracked(ctx); err != nil {
		return err
	} else if len(paths) > 0 {
		c, err := r.untrackedCommit(ctx, paths, "check")
		if err != nil {
			return err
		}
		if gotU, err = r.treeOf(ctx, c); err != nil {
			return err
		}
	}
	switch {
	case gotI != itree:
		return errors.New("the restored index differs from the saved one")
	case gotW != wtree:
		return errors.New("the restored tracked files differ from the saved ones")
	case gotU != utree:
		return errors.New("the restored untracked files differ from the saved ones")
	}
	return nil
}
