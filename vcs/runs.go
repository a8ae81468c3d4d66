package vcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/internal/shellquote"
)

// RunInfo is what a repository holds of one run.
type RunInfo struct {
	ID       string
	InPlace  bool
	Worktree string // the run's linked worktree, if it still exists
	Original string
	Finished bool // Close ran
	// Interrupted: an in-place run crashed and its checkout was given back;
	// --resume continues it.
	Interrupted bool
	Branches    []string // hypothesis branches, short names (swe-adept/<run>/…)
	Refs        []string // private refs: original state, set-aside changes
	// Pending names the ref holding an in-place engineer's uncommitted
	// changes that were never restored (a crash); GC keeps it.
	Pending string
	// Unrestored: an in-place run whose give-back of the checkout was never
	// verified (or whose state cannot be read): its refs may hold the only
	// copy of the engineer's work, and GC keeps them all.
	Unrestored bool

	st *runState // nil when the run's state is missing or unreadable
}

// ListRuns lists the runs in the repository containing repo: their state
// files, worktrees under <git dir>/swe-adept/worktrees and refs under our
// namespaces.
func ListRuns(ctx context.Context, repo string) ([]RunInfo, error) {
	co, err := Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	return listRuns(ctx, co)
}

func listRuns(ctx context.Context, co *Repo) ([]RunInfo, error) {
	runs := map[string]*RunInfo{}
	get := func(id string) *RunInfo {
		if runs[id] == nil {
			runs[id] = &RunInfo{ID: id}
		}
		return runs[id]
	}
	if err := readStates(co, get); err != nil {
		return nil, err
	}
	wts, _, err := worktrees(ctx, co)
	if err != nil {
		return nil, err
	}
	for id, dir := range wts {
		get(id).Worktree = dir
	}
	known := func(id string) bool { return runs[id] != nil }
	if err := readRefs(ctx, co, get, known); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.st == nil && holdsStash(*r) {
			r.Unrestored = true // no state says the checkout came back
		}
	}
	out := make([]RunInfo, 0, len(runs))
	for _, r := range runs {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func readStates(co *Repo, get func(string) *RunInfo) error {
	dir := filepath.Join(co.commonDir, filepath.FromSlash(stateDir))
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("list runs: %w", err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || validRunID(id) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("list runs: %w", err)
		}
		var st runState
		if err := json.Unmarshal(data, &st); err != nil {
			// Whatever it said, the set-aside work of the checkout may be
			// the only copy: keep it.
			slog.Warn("unreadable run state", "file", e.Name(), "err", err)
			get(id).Pending = StashRefPrefix + id + "/" + checkoutStash
			get(id).Unrestored = true
			continue
		}
		r := get(id)
		r.st = &st
		r.InPlace, r.Original, r.Finished = st.InPlace, st.Original, st.Finished
		r.Unrestored = st.InPlace && !st.Restored
		r.Interrupted = st.InPlace && !st.Finished && st.Restored && st.Crashed != nil
		if st.InPlace && st.Stashed && !st.Restored {
			r.Pending = StashRefPrefix + id + "/" + checkoutStash
		}
	}
	return nil
}

// worktrees returns our run worktrees by run id, and every branch checked
// out in any worktree (those must not be deleted).
func worktrees(ctx context.Context, co *Repo) (map[string]string, map[string]bool, error) {
	out, err := co.cmd("worktree", "list", "--porcelain", "-z").run(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list worktrees: %w", err)
	}
	ours := realPath(filepath.Join(co.commonDir, filepath.FromSlash(worktreesDir))) + string(filepath.Separator)
	runs, checkedOut := map[string]string{}, map[string]bool{}
	for _, line := range strings.Split(string(out), "\x00") {
		if dir, ok := strings.CutPrefix(line, "worktree "); ok {
			if rest, ok := strings.CutPrefix(realPath(dir), ours); ok && validRunID(rest) == nil {
				runs[rest] = dir
			}
		}
		if b, ok := strings.CutPrefix(line, "branch "); ok {
			checkedOut[b] = true
		}
	}
	return runs, checkedOut, nil
}

func readRefs(ctx context.Context, co *Repo, get func(string) *RunInfo, known func(string) bool) error {
	out, err := co.git(ctx, "for-each-ref", "--format=%(refname)", "refs/heads/"+branchPrefix, "refs/swe-adept/")
	if err != nil {
		return fmt.Errorf("list run refs: %w", err)
	}
	var flat []string
	for _, ref := range strings.Split(out, "\n") {
		id, isBranch := refRun(ref)
		if id == "" {
			if rest, ok := strings.CutPrefix(ref, StashRefPrefix); ok && !strings.Contains(rest, "/") {
				flat = append(flat, ref)
			}
			continue
		}
		r := get(id)
		if isBranch {
			r.Branches = append(r.Branches, strings.TrimPrefix(ref, "refs/heads/"))
		} else {
			r.Refs = append(r.Refs, ref)
		}
	}
	// Set-aside names of the form "<run>-<name>" belong to the longest
	// known run id they start with.
	for _, ref := range flat {
		rest := strings.TrimPrefix(ref, StashRefPrefix)
		best := ""
		for i := strings.IndexByte(rest, '-'); i > 0; i = nextDash(rest, i) {
			if known(rest[:i]) {
				best = rest[:i]
			}
		}
		if best != "" {
			get(best).Refs = append(get(best).Refs, ref)
		}
	}
	return nil
}

func nextDash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '-')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// refRun maps one of our refs to its run id: refs/heads/swe-adept/<run>/…,
// refs/swe-adept/runs/<run>/…, refs/swe-adept/stash/<run>/….
func refRun(ref string) (id string, branch bool) {
	for _, p := range []string{"refs/heads/" + branchPrefix, runRefPrefix, StashRefPrefix} {
		if rest, ok := strings.CutPrefix(ref, p); ok {
			id, _, nested := strings.Cut(rest, "/")
			if !nested || validRunID(id) != nil {
				return "", false
			}
			return id, p == "refs/heads/"+branchPrefix
		}
	}
	return "", false
}

// GC removes a run's worktree (only ours, under <git dir>/swe-adept/worktrees),
// its hypothesis branches and private refs, and its state. With runID "" it
// removes every finished run. Branches checked out somewhere are kept, and
// so is every ref of an in-place run whose checkout was not put back and
// verified (the error says how to put it back), unless force is set: then
// they go too (WhatGCWouldLose lists what they hold). It returns what it
// removed.
func GC(ctx context.Context, repo, runID string, force bool) ([]string, error) {
	co, targets, err := gcTargets(ctx, repo, runID)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, r := range targets {
		rm, err := gcRun(ctx, co, r, force && r.ID == runID)
		removed = append(removed, rm...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

func gcTargets(ctx context.Context, repo, runID string) (*Repo, []RunInfo, error) {
	co, err := Open(ctx, repo)
	if err != nil {
		return nil, nil, err
	}
	runs, err := listRuns(ctx, co)
	if err != nil {
		return nil, nil, err
	}
	var targets []RunInfo
	for _, r := range runs {
		if (runID == "" && r.Finished) || r.ID == runID {
			targets = append(targets, r)
		}
	}
	if o, err := readLock(co); err == nil && runID != "" && o.Run == runID && o.Alive() {
		return nil, nil, fmt.Errorf("gc: run %s is still working in this checkout (or its session by hand is open): %w", runID, ErrCheckoutBusy)
	}
	if runID != "" && len(targets) == 0 {
		return nil, nil, fmt.Errorf("gc: no run %q in %s", runID, co.dir)
	}
	return co, targets, nil
}

func gcRun(ctx context.Context, co *Repo, r RunInfo, force bool) ([]string, error) {
	if r.Unrestored && !force {
		return nil, gcKeptError(co, r)
	}
	var removed []string
	if r.Worktree != "" {
		if err := removeWorktree(ctx, co, r.Worktree); err != nil {
			return removed, fmt.Errorf("gc run %s: remove worktree: %w", r.ID, err)
		}
		removed = append(removed, r.Worktree)
	}
	_, checkedOut, err := worktrees(ctx, co)
	if err != nil {
		return removed, err
	}
	var kept []string
	var del strings.Builder
	for _, ref := range runRefs(r) {
		if checkedOut[ref] {
			kept = append(kept, ref)
			continue
		}
		fmt.Fprintf(&del, "delete %s\n", ref)
		removed = append(removed, ref)
	}
	if del.Len() > 0 {
		if _, err := co.cmd("update-ref", "--stdin").withStdin([]byte(del.String())).run(ctx); err != nil {
			return nil, fmt.Errorf("gc run %s: delete refs: %w", r.ID, err)
		}
	}
	if len(kept) > 0 {
		return removed, fmt.Errorf("gc run %s: kept %s: checked out in a worktree; switch away and run gc again", r.ID, strings.Join(kept, ", "))
	}
	if force && r.InPlace {
		releaseLock(co, r.ID)
	}
	if err := os.Remove(statePath(co, r.ID)); err != nil && !os.IsNotExist(err) {
		return removed, fmt.Errorf("gc run %s: %w", r.ID, err)
	}
	return removed, nil
}

func runRefs(r RunInfo) []string {
	refs := append([]string(nil), r.Refs...)
	for _, b := range r.Branches {
		refs = append(refs, "refs/heads/"+b)
	}
	return refs
}

// holdsStash: some ref of the run is a set-aside state of it.
func holdsStash(r RunInfo) bool {
	for _, ref := range r.Refs {
		if strings.HasPrefix(ref, StashRefPrefix+r.ID+"/") {
			return true
		}
	}
	return false
}

// gcKeptError says why a run's refs stay and how to put the checkout back.
func gcKeptError(co *Repo, r RunInfo) error {
	var steps string
	if r.st != nil {
		w := &Workspace{RunID: r.ID, InPlace: true, checkout: co, st: *r.st}
		steps = w.byHand()
	} else {
		steps = "Its state is missing or unreadable; these refs hold what it set aside:\n  " + strings.Join(runRefs(r), "\n  ")
	}
	return fmt.Errorf("gc run %s: kept all of its refs: it worked in your checkout and the checkout was never put back and checked, "+
		"so they may hold the only copy of your work.\n%s\nThen run gc again, or delete them anyway with:\n  swe-adept gc --repo %s --force %s   # lists what would be lost first",
		r.ID, steps, shellquote.Quote(co.dir), shellquote.Quote(r.ID))
}

// removeWorktree removes one of our worktrees. If its directory is already
// gone, git refuses, so the administrative entry pointing at it is removed
// directly (`git worktree prune` would also prune the engineer's entries).
func removeWorktree(ctx context.Context, co *Repo, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		_, err := co.git(ctx, "worktree", "remove", "--force", dir)
		return err
	}
	admin := filepath.Join(co.commonDir, "worktrees")
	ents, err := os.ReadDir(admin)
	if err != nil {
		return err
	}
	for _, e := range ents {
		gitdir, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
		if err == nil && strings.TrimSpace(string(gitdir)) == filepath.Join(dir, ".git") {
			return os.RemoveAll(filepath.Join(admin, e.Name()))
		}
	}
	return fmt.Errorf("no worktree entry for %s", dir)
}

// realPath resolves symlinks (e.g. /tmp on macOS) so paths git prints and
// paths we compute compare equal; a missing path is compared as given.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
