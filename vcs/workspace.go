package vcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// Mode chooses where a run works.
type Mode struct {
	// InPlace works in the engineer's checkout itself. Their uncommitted
	// changes are set aside on a private ref and restored exactly, with their
	// branch and HEAD, by Close. Without it the run gets its own linked
	// worktree and the checkout is never touched.
	InPlace bool
}

// Workspace is where one run edits, commits and branches.
//
// Both modes start from the engineer's current state including uncommitted
// and untracked (not ignored) files: Original is a commit of that state (HEAD
// itself when the checkout is clean), so the final patch is always the diff
// Original → solution and applies on top of the engineer's checkout.
type Workspace struct {
	RunID    string
	Dir      string // working directory for the run's commands
	Original string // commit of the engineer's state when the run started
	InPlace  bool
	Repo     *Repo // the repository at Dir; all hypothesis work goes through it

	checkout *Repo // the engineer's checkout
	mu       sync.Mutex
	st       runState
	detached bool // in place: HEAD was moved off the engineer's branch
	locked   bool // in place: this process holds the checkout's lock
}

// runState is what survives the process: enough for ListRuns, GC and a
// manual recovery after a crash.
type runState struct {
	ID       string    `json:"id"`
	InPlace  bool      `json:"in_place"`
	Dir      string    `json:"dir"`
	Original string    `json:"original"`
	Started  time.Time `json:"started"`
	Finished bool      `json:"finished"`
	// In-place runs: the engineer's HEAD and whether their uncommitted
	// changes sit on StashRefPrefix+<id>/checkout awaiting restore.
	Branch   string `json:"branch,omitempty"`
	Head     string `json:"head,omitempty"`
	Stashed  bool   `json:"stashed,omitempty"`
	Restored bool   `json:"restored,omitempty"`
	// Detaching is set before HEAD leaves the engineer's state: from then
	// on a crash leaves the checkout in the run's hands.
	Detaching bool `json:"detaching,omitempty"`
	// Resumed: a resume set the engineer's work aside (which, unlike a
	// first start, cleans the tree), so HEAD alone cannot show who holds it.
	Resumed bool `json:"resumed,omitempty"`
	// Manual: a session of the hypothesis tools run by hand (manual.go); it
	// holds the checkout between commands and is not a crash.
	Manual bool `json:"manual,omitempty"`
	// Crashed is the run's own state, saved when its checkout was given
	// back after a crash; --resume starts from it.
	Crashed *crashState `json:"crashed,omitempty"`
	// Recorded: the record of the checkout (StashRefPrefix+<id>/record:
	// untracked and ignored files byte for byte, file modes, ORIG_HEAD)
	// was written before anything was touched.
	Recorded bool `json:"recorded,omitempty"`
	// Left is where the run stood when the give-back began, its own
	// uncommitted work saved; Returning is set once the give-back starts
	// changing the checkout, so a half-done give-back is never taken for
	// the engineer's own state.
	Left      *crashState `json:"left,omitempty"`
	Returning bool        `json:"returning,omitempty"`
}

// crashState is where an in-place run stood when it was found crashed.
type crashState struct {
	Branch string `json:"branch,omitempty"` // a hypothesis branch it had checked out
	Head   string `json:"head"`
	Saved  bool   `json:"saved"` // its uncommitted work is on StashRefPrefix+<run>/<Name>
	Name   string `json:"name,omitempty"`
}

// savedName is the StashName holding the run's own uncommitted work.
func (c *crashState) savedName(w *Workspace) string {
	if c.Name != "" {
		return c.Name
	}
	return w.StashName("crashed")
}

const (
	branchPrefix  = "swe-adept/"           // hypothesis branches: swe-adept/<run>/<name>
	runRefPrefix  = "refs/swe-adept/runs/" // refs/swe-adept/runs/<run>/original
	checkoutStash = "checkout"             // StashRefPrefix+<run>/checkout: the engineer's changes (in-place)
	worktreesDir  = "swe-adept/worktrees"  // under the common git dir
	stateDir      = "swe-adept/vcs"        // under the common git dir
	closeTimeout  = 2 * time.Minute        // Close runs even after cancellation
)

// testHookAfterDetach lets a test cancel an in-place open at its most
// delicate point.
var testHookAfterDetach func()

var untrackedCache = []string{"-c", "core.untrackedCache=true"}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func validRunID(id string) error {
	if !runIDPattern.MatchString(id) || strings.Contains(id, "..") || strings.HasSuffix(id, ".lock") {
		return fmt.Errorf("invalid run id %q: use up to 64 letters, digits, '.', '_' or '-'", id)
	}
	return nil
}

// BranchName is the full name of a hypothesis branch of this run.
func (w *Workspace) BranchName(name string) string { return branchPrefix + w.RunID + "/" + name }

// StashName is the PutAside/Restore name for set-aside changes of this run,
// so that GC finds them ("<run>-<name>" is recognised too).
func (w *Workspace) StashName(name string) string { return w.RunID + "/" + name }

// OpenWorkspace prepares a run in the repository containing repo. See Mode.
func OpenWorkspace(ctx context.Context, repo, runID string, mode Mode) (*Workspace, error) {
	if err := validRunID(runID); err != nil {
		return nil, err
	}
	co, err := Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	if err := checkNewRun(ctx, co, runID); err != nil {
		return nil, err
	}
	w := &Workspace{RunID: runID, InPlace: mode.InPlace, checkout: co}
	if mode.InPlace {
		err = w.openInPlace(ctx)
	} else {
		err = w.openWorktree(ctx)
	}
	if err != nil {
		if aerr := w.abortOpen(ctx); aerr != nil {
			err = errors.Join(err, aerr)
		}
		return nil, fmt.Errorf("open workspace for run %s: %w", runID, err)
	}
	return w, nil
}

// abortOpen undoes a half-opened workspace, even on a cancelled context: an
// in-place checkout whose HEAD was already moved is put back, and the run is
// marked finished so GC can clear what was created.
func (w *Workspace) abortOpen(ctx context.Context) error {
	if w.st.ID == "" {
		w.unlock()
		return nil // failed before anything was recorded
	}
	defer w.unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	var err error
	if w.detached {
		err = w.restoreCheckout(ctx)
	} else {
		w.st.Restored = true // the checkout was never changed
	}
	w.st.Finished = err == nil
	return errors.Join(err, w.save())
}

func checkNewRun(ctx context.Context, co *Repo, runID string) error {
	if _, err := os.Stat(statePath(co, runID)); err == nil {
		return fmt.Errorf("run %s already exists; choose another run id or remove it with gc", runID)
	}
	if ok, err := co.refExists(ctx, runRefPrefix+runID+"/original"); err != nil || ok {
		if err == nil {
			err = fmt.Errorf("run %s already exists; choose another run id or remove it with gc", runID)
		}
		return err
	}
	return nil
}

func (w *Workspace) openWorktree(ctx context.Context) error {
	co := w.checkout
	snap, err := co.Snapshot(ctx)
	if err != nil {
		return err
	}
	dir := filepath.Join(co.commonDir, filepath.FromSlash(worktreesDir), w.RunID)
	w.st = runState{ID: w.RunID, Dir: dir, Original: snap, Started: time.Now().UTC()}
	if err := w.save(); err != nil {
		return err
	}
	if err := w.pinOriginal(ctx, snap); err != nil {
		return err
	}
	if _, err := co.git(ctx, "worktree", "add", "--detach", dir, snap); err != nil {
		return fmt.Errorf("create worktree: %w", err)
	}
	if w.Repo, err = co.OpenWorktree(ctx, dir); err != nil {
		return err
	}
	if err := w.Repo.checkIncludes(); err != nil {
		return err
	}
	w.Repo.config = untrackedCache
	w.Dir, w.Original = w.Repo.dir, snap
	w.st.Dir = w.Dir
	return w.save()
}

// openInPlace detaches HEAD at a commit of the engineer's state so the run
// can never move their branch, after saving their exact index and working
// tree on a private ref.
func (w *Workspace) openInPlace(ctx context.Context) error {
	co := w.checkout
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	if head.Hash == "" {
		return errors.New("the repository has no commits yet: make a first commit, or run without --in-place")
	}
	if err := co.checkExact(ctx); err != nil {
		return err
	}
	if err := co.checkIncludes(); err != nil {
		return err
	}
	if err := acquireLock(co, w.RunID); err != nil {
		return err
	}
	w.locked = true
	w.Repo, w.Dir, w.Original = co, co.dir, head.Hash
	w.st = runState{ID: w.RunID, InPlace: true, Dir: co.dir, Original: head.Hash,
		Started: time.Now().UTC(), Branch: head.Branch, Head: head.Hash}
	if err := w.save(); err != nil {
		return err
	}
	if err := w.record(ctx); err != nil {
		return err
	}
	dirty, err := co.IsDirty(ctx)
	if err != nil {
		return err
	}
	if dirty {
		if _, _, err := co.saveState(ctx, StashRefPrefix+w.StashName(checkoutStash)); err != nil {
			return fmt.Errorf("save uncommitted changes: %w", err)
		}
		w.st.Stashed = true
		if err := w.save(); err != nil {
			return err
		}
		if w.Original, err = co.Snapshot(ctx); err != nil {
			return err
		}
		w.st.Original = w.Original
	}
	if err := w.pinOriginal(ctx, w.Original); err != nil {
		return err
	}
	// The working tree already holds Original's content: move HEAD and the
	// index only. Record first that HEAD may have moved.
	w.st.Detaching = true
	if err := w.save(); err != nil {
		return err
	}
	if _, err := co.git(ctx, "update-ref", "--no-deref", "-m", "swe-adept: start run "+w.RunID, "HEAD", w.Original); err != nil {
		return fmt.Errorf("detach HEAD: %w", err)
	}
	w.detached = true
	if testHookAfterDetach != nil {
		testHookAfterDetach()
	}
	if _, err := co.git(ctx, "reset", "-q", "--mixed", w.Original); err != nil {
		return fmt.Errorf("stage the starting state: %w", err)
	}
	return w.save()
}

// ReopenWorkspace continues an earlier run that worked in its own worktree
// (after a crash or a stop). The run counts as unfinished until Close again,
// so GC of finished runs leaves it alone.
func ReopenWorkspace(ctx context.Context, repo, runID string) (*Workspace, error) {
	if err := validRunID(runID); err != nil {
		return nil, err
	}
	co, err := Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(statePath(co, runID))
	if err != nil {
		return nil, fmt.Errorf("reopen run %s: no such run in %s", runID, co.dir)
	}
	w := &Workspace{RunID: runID, checkout: co}
	if err := json.Unmarshal(data, &w.st); err != nil {
		return nil, fmt.Errorf("reopen run %s: %w", runID, err)
	}
	if w.st.InPlace {
		w.InPlace = true
		return w, w.reopenInPlace(ctx)
	}
	if w.Repo, err = co.OpenWorktree(ctx, w.st.Dir); err != nil {
		return nil, fmt.Errorf("reopen run %s: its worktree %s is gone (removed by gc?): %w", runID, w.st.Dir, err)
	}
	if err := w.Repo.checkIncludes(); err != nil {
		return nil, err
	}
	w.Repo.config = untrackedCache
	w.Dir, w.Original = w.Repo.dir, w.st.Original
	w.st.Finished = false
	return w, w.save()
}

// reopenInPlace takes the checkout again for a run that crashed and was
// restored: the engineer's current state is set aside as at a first start,
// and the run's own state (its branch or HEAD, its uncommitted work) is put
// in its place. The same ordering keeps a kill at any point recoverable.
func (w *Workspace) reopenInPlace(ctx context.Context) error {
	co := w.checkout
	if !w.st.Restored || w.st.Crashed == nil {
		return fmt.Errorf("reopen run %s: it worked in the checkout itself and did not stop by crashing; start a new run", w.RunID)
	}
	if err := co.checkIncludes(); err != nil {
		return err
	}
	if err := acquireLock(co, w.RunID); err != nil {
		return err
	}
	w.locked = true
	head, err := co.Head(ctx)
	if err != nil {
		return err
	}
	w.Repo, w.Dir, w.Original = co, co.dir, w.st.Original
	w.st.Branch, w.st.Head, w.st.Stashed, w.st.Restored, w.st.Finished = head.Branch, head.Hash, false, false, false
	w.st.Left, w.st.Returning = nil, false
	if err := w.record(ctx); err != nil {
		return err
	}
	dirty, err := co.IsDirty(ctx)
	if err != nil {
		return err
	}
	// Recorded before anything moves: a kill from here on is recovered.
	w.st.Detaching, w.st.Resumed, w.st.Stashed = true, true, dirty
	if err := w.save(); err != nil {
		return err
	}
	if _, err := co.PutAside(ctx, w.StashName(checkoutStash)); err != nil {
		return fmt.Errorf("reopen run %s: set your changes aside: %w", w.RunID, err)
	}
	return w.enterCrashedState(ctx)
}

// enterCrashedState checks out where the crashed run stood and brings its
// uncommitted work back.
func (w *Workspace) enterCrashedState(ctx context.Context) error {
	c := w.st.Crashed
	args := []string{"checkout", "-q", "--detach", c.Head}
	if c.Branch != "" {
		args = []string{"checkout", "-q", c.Branch, "--"}
	}
	if _, err := w.checkout.git(ctx, args...); err != nil {
		return fmt.Errorf("reopen run %s: check out its state: %w", w.RunID, err)
	}
	w.detached = true
	if c.Saved {
		if err := w.checkout.Restore(ctx, c.savedName(w)); err != nil {
			return fmt.Errorf("reopen run %s: bring back its uncommitted work: %w", w.RunID, err)
		}
	}
	w.st.Crashed = nil
	return w.save()
}

// pinOriginal keeps the starting commit reachable (snapshots have no branch).
func (w *Workspace) pinOriginal(ctx context.Context, hash string) error {
	_, err := w.checkout.git(ctx, "update-ref", "-m", "swe-adept: run "+w.RunID,
		runRefPrefix+w.RunID+"/original", hash, "") // "": must not exist yet
	if err != nil {
		return fmt.Errorf("record the original state: %w", err)
	}
	return nil
}

func statePath(co *Repo, runID string) string {
	return filepath.Join(co.commonDir, filepath.FromSlash(stateDir), runID+".json")
}

// save writes the run state durably: a kill or a power cut leaves the
// old state or the new one, never a torn or empty file.
func (w *Workspace) save() error {
	path := statePath(w.checkout, w.RunID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save run state: %w", err)
	}
	if err := atomicfile.WriteJSON(path, w.st); err != nil {
		return fmt.Errorf("save run state: %w", err)
	}
	return nil
}

// ApplyToCheckout applies a patch (from Patch) to the engineer's checkout as
// uncommitted changes. It changes nothing unless the whole patch applies.
func ApplyToCheckout(ctx context.Context, repo, patch string) error {
	co, err := Open(ctx, repo)
	if err != nil {
		return err
	}
	if strings.TrimSpace(patch) == "" {
		return errors.New("apply: the patch is empty; nothing to apply")
	}
	base := []string{"apply", "--binary", "--whitespace=nowarn"}
	check := co.cmd(append(append([]string{}, base...), "--check")...).withStdin([]byte(patch))
	if _, err := check.run(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &detailErr{
			msg:  fmt.Sprintf("patch does not apply to %s (the checkout changed since the run started?); nothing was changed: %v", co.dir, err),
			base: ErrPatchDoesNotApply,
		}
	}
	if _, err := co.cmd(base...).withStdin([]byte(patch)).run(ctx); err != nil {
		return fmt.Errorf("apply patch to %s: %w", co.dir, err)
	}
	return nil
}
