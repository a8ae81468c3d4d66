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
)

// An in-place run that is killed (kill -9, an OOM kill, a closed lid)
// leaves the checkout in its own state: a detached HEAD or a hypothesis
// branch, its edits in the working tree. Recover gives the checkout back.
//
// The order of steps, and why a kill at any instant is safe:
//
//  1. Save the run's uncommitted work on StashRefPrefix+<run>/crashed and
//     clean the tree to the run's HEAD (PutAside). The ref is written
//     before anything is cleaned; a kill after it leaves a tree the next
//     Recover saves again (the ref's reflog keeps both).
//  2. Record where the run stood (its branch and HEAD) in the run state:
//     --resume starts from there.
//  3. Put the engineer's branch back where it was if the run moved it, and
//     check it (or their detached HEAD) out: only HEAD moves, the tree is
//     clean, so a kill leaves a clean checkout of their commit, and the
//     next Recover goes on from step 3.
//  4. Restore their uncommitted work from StashRefPrefix+<run>/checkout:
//     tracked files, untracked files, then the index. A kill here leaves a
//     partial restore; the next Recover saves it aside (step 1, as run
//     state it is harmless) and restores again, from the same ref.
//  5. Check that the index, the working tree and the untracked files are
//     exactly what was saved, and only then mark the run restored.
//
// The engineer's work lives on its ref from before the run touched the
// checkout until after step 5, and refs are never removed by any step.

// Restored is what Recover did for one run.
type Restored struct {
	Run       string
	Branch    string // the engineer's branch checked out again ("" when they were detached)
	Head      string
	RunState  string // the ref holding the run's uncommitted work, "" when it had none
	Untouched bool   // the run had not yet taken the checkout: nothing was moved
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
	return line + " (swe-adept run --resume " + r.Run + " continues it)"
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
	res := Restored{Run: st.ID, Branch: st.Branch, Head: st.Head}
	head, err := co.Head(ctx)
	if err != nil {
		return res, err
	}
	if w.untouched(head) {
		w.st.Restored, w.st.Finished, res.Untouched = true, true, true
		releaseLock(co, st.ID)
		return res, w.save()
	}
	if err := w.foreign(head); err != nil {
		return res, err
	}
	if st.Crashed == nil {
		saved, err := co.PutAside(ctx, w.StashName("crashed"))
		if err != nil {
			return res, fmt.Errorf("restore run %s: save the run's own work: %w", st.ID, err)
		}
		w.st.Crashed = &crashState{Branch: head.Branch, Head: head.Hash, Saved: saved != ""}
		if err := w.save(); err != nil {
			return res, err
		}
	} else if _, err := co.PutAside(ctx, w.StashName("crashed-partial")); err != nil {
		return res, fmt.Errorf("restore run %s: %w", st.ID, err)
	}
	if w.st.Crashed.Saved {
		res.RunState = StashRefPrefix + w.StashName("crashed")
	}
	if err := w.restoreCheckout(ctx); err != nil {
		return res, fmt.Errorf("restore run %s: %w\n%s", st.ID, err, w.byHand())
	}
	releaseLock(co, st.ID)
	return res, w.save()
}

// untouched: HEAD is still the engineer's, so the run never took the
// checkout (it died while setting their work aside, which copies only).
func (w *Workspace) untouched(head Head) bool {
	if w.st.Resumed || w.st.Crashed != nil {
		return false // a resume or an earlier restore moved HEAD itself
	}
	if !w.st.Detaching {
		return true
	}
	if w.st.Branch != "" {
		return head.Branch == w.st.Branch
	}
	return head.Branch == "" && head.Hash == w.st.Head && w.st.Head != w.st.Original
}

// foreign refuses a checkout someone changed after the crash: on a branch
// that is neither the engineer's nor the run's.
func (w *Workspace) foreign(head Head) error {
	if head.Branch == "" || strings.HasPrefix(head.Branch, branchPrefix+w.RunID+"/") {
		return nil
	}
	if head.Branch == w.st.Branch && w.st.Crashed != nil {
		return nil // an earlier restore got as far as checking it out
	}
	return fmt.Errorf("run %s crashed working in this checkout, and the checkout was changed since (HEAD is on %s): nothing was touched\n%s",
		w.RunID, head.Branch, w.byHand())
}

// byHand is the exact command sequence that puts the engineer's state
// back, for when Recover cannot.
func (w *Workspace) byHand() string {
	var b strings.Builder
	b.WriteString("To put your checkout back by hand:\n")
	b.WriteString("  git stash push --include-untracked -m 'state after swe-adept run " + w.RunID + "'   # keeps what is there now\n")
	if w.st.Branch != "" {
		fmt.Fprintf(&b, "  git checkout %s\n", w.st.Branch)
	} else {
		fmt.Fprintf(&b, "  git checkout --detach %s\n", w.st.Head)
	}
	if w.st.Stashed {
		fmt.Fprintf(&b, "  git stash apply --index %s%s   # your uncommitted changes\n", StashRefPrefix, w.StashName(checkoutStash))
	}
	return strings.TrimRight(b.String(), "\n")
}

// verifyRestored checks the checkout against what was saved: HEAD, the
// index, the tracked files and the untracked files.
func (w *Workspace) verifyRestored(ctx context.Context) error {
	co := w.checkout
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	if head.Branch != w.st.Branch || (w.st.Branch == "" && head.Hash != w.st.Head) {
		return fmt.Errorf("the checkout is on %s, not on your %s", nonEmpty(head.Branch, short(head.Hash)), nonEmpty(w.st.Branch, short(w.st.Head)))
	}
	if !w.st.Stashed {
		dirty, err := co.IsDirty(ctx)
		if err == nil && dirty {
			err = errors.New("the checkout has changes it did not have before the run")
		}
		return err
	}
	want := StashRefPrefix + w.StashName(checkoutStash)
	wt, it, ut, err := co.stashTrees(ctx, want)
	if err != nil {
		return err
	}
	return co.matchesState(ctx, wt, it, ut)
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
