package vcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// A manual session: the hypothesis tools run by hand in the engineer's checkout
// (`swe-adept hyp`). Such a session treats the checkout as an in-place run
// does: uncommitted work is set aside exactly (not folded into the common
// base), HEAD is detached so the engineer's branch never moves, and
// FinishHand puts branch, HEAD, index and files back, with the merged
// solution on top as uncommitted changes. The session is recorded like a
// run (GC keeps its set-aside work until it is restored) and holds the
// checkout's lock between commands, so no in-place run starts meanwhile.

// handPID marks a lock held by a hand session rather than a process.
const handPID = -1

// ErrNoHandSession: no hypothesis session by hand is open.
var ErrNoHandSession = errors.New("no hypothesis session by hand is open")

// OpenHand starts a session by hand: it sets the engineer's uncommitted
// work aside and detaches HEAD at their commit.
func OpenHand(ctx context.Context, repo, runID string) error {
	if err := validRunID(runID); err != nil {
		return err
	}
	co, err := Open(ctx, repo)
	if err != nil {
		return err
	}
	if st, err := readState(co, runID); err == nil && !st.Finished {
		return nil // already open
	}
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	if head.Hash == "" {
		return errors.New("the repository has no commits yet: make a first commit")
	}
	if err := co.checkExact(ctx); err != nil {
		return err
	}
	if err := acquireLock(co, runID); err != nil {
		return err
	}
	if err := writeLockPID(co, runID, handPID); err != nil {
		return err
	}
	w := &Workspace{RunID: runID, InPlace: true, checkout: co, Repo: co, Dir: co.dir, Original: head.Hash}
	w.st = runState{ID: runID, InPlace: true, Manual: true, Dir: co.dir, Original: head.Hash, Branch: head.Branch, Head: head.Hash}
	if err := w.record(ctx); err != nil {
		return err
	}
	dirty, err := co.IsDirty(ctx)
	if err != nil {
		return err
	}
	w.st.Stashed, w.st.Detaching = dirty, true
	if err := w.save(); err != nil {
		return err
	}
	if _, err := co.PutAside(ctx, w.StashName(checkoutStash)); err != nil {
		return fmt.Errorf("set your uncommitted work aside: %w", err)
	}
	if _, err := co.git(ctx, "checkout", "-q", "--detach", head.Hash); err != nil {
		return fmt.Errorf("detach HEAD: %w", err)
	}
	return nil
}

// FinishHand ends the session: the engineer's branch (or detached HEAD),
// index and files come back exactly, and the merged solution, when one was
// merged, is applied on top as uncommitted changes. patch is that
// solution's diff against the state the session started from ("" when
// nothing was merged).
func FinishHand(ctx context.Context, repo, runID, patch string) (Restored, error) {
	co, err := Open(ctx, repo)
	if err != nil {
		return Restored{}, err
	}
	st, err := readState(co, runID)
	if err != nil || !st.Manual || st.Finished {
		return Restored{}, fmt.Errorf("hyp session %s: %w", runID, ErrNoHandSession)
	}
	w := &Workspace{RunID: runID, InPlace: true, checkout: co, Repo: co, Dir: co.dir, Original: st.Original, st: st}
	res := Restored{Run: runID, Branch: st.Branch, Head: st.Head}
	if err := w.restoreCheckout(ctx); err != nil {
		return res, err
	}
	if patch != "" {
		if err := ApplyToCheckout(ctx, co.dir, patch); err != nil {
			return res, fmt.Errorf("your checkout is back, but the merged solution did not apply on top: %w", err)
		}
	}
	w.st.Finished = true
	releaseLock(co, runID)
	return res, w.save()
}

func readState(co *Repo, runID string) (runState, error) {
	var st runState
	data, err := os.ReadFile(statePath(co, runID))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

func writeLockPID(co *Repo, runID string, pid int) error {
	data, err := json.Marshal(Owner{Run: runID, PID: pid})
	if err != nil {
		return err
	}
	// Replaced, not rewritten in place: a crash mid-write must not leave a
	// lock nobody can read, since this one outlives the process.
	return atomicfile.Write(lockPath(co), data)
}
