package vcs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Giving an in-place checkout back, in an order where a failure or a kill
// at any point leaves every byte of the engineer's work on a ref:
//
//  1. Save what the run left in the checkout on a leftover ref (objects and
//     a ref only: the checkout does not change).
//  2. Check that the file system has room for everything that follows
//     (the estimate is in space.go); if not, stop here, the checkout as
//     the run left it.
//  3. Record Returning: from now on the checkout is half given back, and
//     the next attempt knows it.
//  4. Clean the checkout to the run's HEAD, put the engineer's branch back
//     and check it out, restore their uncommitted changes, then their
//     untracked and ignored files byte for byte, file modes and ORIG_HEAD.
//  5. Compare the whole result with what was saved, and only then mark the
//     run restored. Until then GC keeps every ref of the run.

// Close ends the run. A worktree is left for inspection (GC removes it). In
// place, anything the run left uncommitted is set aside, the engineer's
// branch or detached HEAD is checked out again, and their uncommitted changes
// are restored byte for byte. Close works on a cancelled context, so a
// cancelled run still puts the checkout back; calling it again is harmless.
// When the checkout cannot be given back the error is a *NotPutBackError.
func (w *Workspace) Close(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.st.Finished {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	if w.InPlace {
		if err := w.restoreCheckout(ctx); err != nil {
			return err
		}
	}
	w.st.Finished = true
	err := w.save()
	w.unlock()
	return err
}

func (w *Workspace) unlock() {
	if w.locked {
		releaseLock(w.checkout, w.RunID)
		w.locked = false
	}
}

// record writes the record of the checkout, before anything is touched.
func (w *Workspace) record(ctx context.Context) error {
	if err := w.checkout.recordCheckout(ctx, StashRefPrefix+w.StashName(recordName)); err != nil {
		if errors.Is(err, ErrTooMuchToRecord) {
			return fmt.Errorf("%w: %w; or work without --in-place (a linked worktree never touches your checkout)", ErrInexact, err)
		}
		return err
	}
	w.st.Recorded = true
	return w.save()
}

// restoreCheckout gives the checkout back; see the steps above.
func (w *Workspace) restoreCheckout(ctx context.Context) error {
	if err := w.giveBack(ctx); err != nil {
		return w.notPutBack(err)
	}
	return nil
}

func (w *Workspace) giveBack(ctx context.Context) error {
	co := w.checkout
	rec, blobs, err := w.loadRecord(ctx)
	if err != nil {
		return err
	}
	if err := w.saveLeftover(ctx, rec, blobs); err != nil {
		return err
	}
	if err := w.checkSpace(ctx, rec, blobs); err != nil {
		return err
	}
	if !w.st.Returning {
		w.st.Returning = true
		if err := w.save(); err != nil {
			return err
		}
	}
	if err := co.cleanTo(ctx, w.untrackedToRemove(ctx, rec)); err != nil {
		return fmt.Errorf("clean the checkout to the run's last commit: %w", err)
	}
	if err := w.putBranchBack(ctx); err != nil {
		return err
	}
	args := []string{"checkout", "-q", "--detach", w.st.Head}
	if w.st.Branch != "" {
		args = []string{"checkout", "-q", w.st.Branch, "--"}
	}
	if _, err := co.git(ctx, args...); err != nil {
		return fmt.Errorf("check out your %s again: %w", nonEmpty(w.st.Branch, "commit "+short(w.st.Head)), err)
	}
	if w.st.Stashed {
		if cs, err := co.changes(ctx); err != nil || len(cs) > 0 {
			if err == nil {
				err = fmt.Errorf("after checking out your %s the checkout still shows changes (%s), so your uncommitted changes were not applied over them",
					nonEmpty(w.st.Branch, "commit "+short(w.st.Head)), names(changePaths(cs)))
			}
			return err
		}
		if err := co.Restore(ctx, w.StashName(checkoutStash)); err != nil {
			return fmt.Errorf("restore your uncommitted changes: %w", err)
		}
	}
	if rec != nil {
		if err := co.restoreRecordFiles(ctx, rec, blobs); err != nil {
			return fmt.Errorf("restore your untracked and ignored files and file modes: %w", err)
		}
	}
	if err := w.verifyRestored(ctx, rec, blobs); err != nil {
		return err
	}
	w.st.Restored = true
	return nil
}

func (w *Workspace) loadRecord(ctx context.Context) (*checkoutRecord, map[string]treeEntry, error) {
	if !w.st.Recorded {
		return nil, nil, nil // a run from before records were kept
	}
	return w.checkout.loadRecord(ctx, StashRefPrefix+w.StashName(recordName))
}

// saveLeftover saves whatever is in the checkout now (the run's work, or a
// half-done earlier give-back) on a ref of its own, untracked files and
// changed ignored ones included, before anything is cleaned. Files ignored
// when the run started are left where they are (the record has them). The first
// time, it also records where the run stood, for --resume.
func (w *Workspace) saveLeftover(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) error {
	co := w.checkout
	if w.st.Returning {
		co.repairIndex(ctx)
	}
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	extra := w.changedRecordFiles(ctx, rec, blobs)
	kind := "leftover"
	if w.st.Returning {
		kind = "partial"
	}
	name := w.StashName(fmt.Sprintf("%s-%d", kind, time.Now().UnixNano()))
	saved, err := co.saveAside(ctx, name, ignoredPaths(rec), extra)
	if err != nil {
		if w.st.Returning {
			// What is there came from refs in an earlier attempt: going on
			// loses nothing.
			slog.Warn("save a half-done give-back", "run", w.RunID, "err", err)
			return nil
		}
		return fmt.Errorf("set aside the run's uncommitted work: %w", err)
	}
	if w.st.Left == nil && !w.st.Returning {
		w.st.Left = &crashState{Branch: head.Branch, Head: head.Hash, Saved: saved != "", Name: name}
		return w.save()
	}
	return nil
}

// changedRecordFiles lists the recorded untracked and ignored files that
// differ from the record and exist, and what stands where their folders
// were: the leftover keeps their current bytes before the record's are
// written back.
func (w *Workspace) changedRecordFiles(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) []string {
	if rec == nil {
		return nil
	}
	bad, err := w.checkout.recordDiffers(ctx, rec, blobs)
	if err != nil {
		return nil
	}
	obstacles := w.checkout.obstacles(rec)
	var out []string
	for _, p := range bad {
		beneath := false
		for _, o := range obstacles {
			beneath = beneath || strings.HasPrefix(p, o+"/")
		}
		if beneath {
			continue // behind a link: not a file of the checkout
		}
		if fi, err := os.Lstat(filepath.Join(w.checkout.dir, filepath.FromSlash(p))); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return append(out, obstacles...)
}

// untrackedToRemove lists the untracked files to clean away: everything
// untracked now except what was ignored before the run (an agent may have
// un-ignored it; it stays where it is). The engineer's own untracked files
// come back from their set-aside state and the record.
func (w *Workspace) untrackedToRemove(ctx context.Context, rec *checkoutRecord) []string {
	now, err := w.checkout.untracked(ctx)
	if err != nil {
		return nil
	}
	keep := ignoredPaths(rec)
	var out []string
	for _, p := range now {
		if !keep[p] {
			out = append(out, p)
		}
	}
	return out
}

// repairIndex replaces an index that git can no longer read (a give-back
// cut short by a full disk can leave it truncated) with one of HEAD. The
// index of a half-done give-back is the run's own, written from refs.
func (r *Repo) repairIndex(ctx context.Context) {
	if _, err := r.git(ctx, "ls-files", "--stage", "--", ":(top)nonexistent-path"); err == nil {
		return
	}
	index := filepath.Join(r.gitDir, "index")
	if err := os.Rename(index, fmt.Sprintf("%s.broken-%d", index, time.Now().UnixNano())); err != nil {
		return
	}
	if _, err := r.git(ctx, "read-tree", "HEAD"); err != nil {
		slog.Warn("rebuild the index", "err", err)
	}
}

// putBranchBack undoes a move of the engineer's branch during an in-place
// run (raw git in the agent's shell can do that). The commits it gained are
// kept on refs/swe-adept/runs/<run>/moved/<branch>.
func (w *Workspace) putBranchBack(ctx context.Context) error {
	if w.st.Branch == "" {
		return nil
	}
	ref := "refs/heads/" + w.st.Branch
	tip, err := w.checkout.Resolve(ctx, ref)
	if err != nil || tip == w.st.Head {
		return nil // deleted or untouched: nothing to put back
	}
	keep := runRefPrefix + w.RunID + "/moved/" + w.st.Branch
	// Step off the branch first (no file changes) so that moving it does not
	// leave the working tree looking modified.
	if _, err := w.checkout.git(ctx, "checkout", "-q", "--detach"); err != nil {
		return fmt.Errorf("detach from %s: %w", w.st.Branch, err)
	}
	if _, err := w.checkout.git(ctx, "update-ref", "-m", "swe-adept: keep commits made on "+w.st.Branch, keep, tip); err != nil {
		return fmt.Errorf("keep the commits made on %s: %w", w.st.Branch, err)
	}
	if _, err := w.checkout.git(ctx, "update-ref", "-m", "swe-adept: put "+w.st.Branch+" back", ref, w.st.Head, tip); err != nil {
		return fmt.Errorf("put %s back at %s: %w", w.st.Branch, short(w.st.Head), err)
	}
	slog.Warn("the run moved the engineer's branch; put it back", "branch", w.st.Branch,
		"was", short(w.st.Head), "moved_to", short(tip), "kept_on", keep)
	return nil
}

// verifyRestored checks the checkout against what was saved: HEAD, the
// index, the tracked files, the untracked files, and from the record the
// untracked and ignored files' bytes, every file's mode and ORIG_HEAD.
func (w *Workspace) verifyRestored(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) error {
	co := w.checkout
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	if head.Branch != w.st.Branch || (w.st.Branch == "" && head.Hash != w.st.Head) {
		return fmt.Errorf("the checkout is on %s, not on your %s", nonEmpty(head.Branch, short(head.Hash)), nonEmpty(w.st.Branch, short(w.st.Head)))
	}
	if err := w.verifyTrees(ctx); err != nil {
		return err
	}
	if rec == nil {
		return nil
	}
	bad, err := co.recordDiffers(ctx, rec, blobs)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("these untracked or ignored files differ from before the run: %s", names(bad))
	}
	if bad := co.modesDiffer(rec.Modes); len(bad) > 0 {
		return fmt.Errorf("these files have other permissions than before the run: %s", names(bad))
	}
	if co.origHeadDiffers(rec) {
		return errors.New("ORIG_HEAD is not as it was before the run")
	}
	return nil
}

func (w *Workspace) verifyTrees(ctx context.Context) error {
	co := w.checkout
	if !w.st.Stashed {
		cs, err := co.changes(ctx)
		if err == nil && len(cs) > 0 {
			err = fmt.Errorf("the checkout has changes it did not have before the run: %s", names(changePaths(cs)))
		}
		return err
	}
	wt, it, ut, err := co.stashTrees(ctx, StashRefPrefix+w.StashName(checkoutStash))
	if err != nil {
		return err
	}
	return co.matchesState(ctx, wt, it, ut)
}

func changePaths(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// names lists a few paths for a message.
func names(paths []string) string {
	if len(paths) > 5 {
		return fmt.Sprintf("%s and %d more", strings.Join(quoteAll(paths[:5]), ", "), len(paths)-5)
	}
	return strings.Join(quoteAll(paths), ", ")
}

func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = fmt.Sprintf("%q", p)
	}
	return out
}
