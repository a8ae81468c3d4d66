package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// spaceMargin covers what the estimate does not count: lock files, git's
// temporary files, the run state, ORIG_HEAD.
const spaceMargin = 64 << 10

// spaceNeed is what a give-back will write.
type spaceNeed struct {
	bytes int64 // file contents, rounded up to whole blocks
	files int64 // files created
	index int64 // the new index and its lock
}

// checkSpace refuses to start changing the checkout when the file system
// cannot hold everything the give-back writes: a give-back cut short by a
// full disk leaves files truncated and the index half written. The
// estimate is generous (every file written counts whole, nothing freed is
// subtracted).
func (w *Workspace) checkSpace(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) error {
	need, err := w.spaceNeeded(ctx, rec, blobs)
	if err != nil {
		return fmt.Errorf("estimate the space the restore needs: %w", err)
	}
	co := w.checkout
	free, inodes, block, ok := freeSpace(co.dir)
	if !ok {
		return nil // the system cannot tell: go on, as git itself would
	}
	total := need.bytes + need.files*block + need.index + spaceMargin
	if sameFS(co.dir, co.gitDir) {
		if free < total || (inodes >= 0 && inodes < need.files+8) {
			return spaceError(co.dir, total, free)
		}
		return nil
	}
	if free < total-need.index || (inodes >= 0 && inodes < need.files+8) {
		return spaceError(co.dir, total-need.index, free)
	}
	if gfree, _, _, ok := freeSpace(co.gitDir); ok && gfree < need.index+spaceMargin {
		return spaceError(co.gitDir, need.index+spaceMargin, gfree)
	}
	return nil
}

func spaceError(dir string, need, free int64) error {
	return fmt.Errorf("not enough free space to put your checkout back: it needs about %d KiB in %s and %d KiB is free; "+
		"your checkout is as the run left it, nothing was changed", (need+1023)/1024, dir, free/1024)
}

// spaceNeeded adds up the blobs the give-back checks out: the tracked
// files that differ between the run's HEAD and the engineer's commit, the
// engineer's uncommitted and untracked files, and the recorded untracked
// and ignored files that differ now.
func (w *Workspace) spaceNeeded(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) (spaceNeed, error) {
	co := w.checkout
	var hashes []string
	head, err := co.Head(ctx)
	if err != nil {
		return spaceNeed{}, err
	}
	for _, pair := range w.treePairs(ctx, head.Hash) {
		hs, err := co.changedBlobs(ctx, pair[0], pair[1])
		if err != nil {
			return spaceNeed{}, err
		}
		hashes = append(hashes, hs...)
	}
	if rec != nil {
		bad, err := co.recordDiffers(ctx, rec, blobs)
		if err != nil {
			return spaceNeed{}, err
		}
		for _, p := range bad {
			hashes = append(hashes, blobs[p].Hash)
		}
	}
	n := spaceNeed{files: int64(len(hashes))}
	if n.bytes, err = co.blobSizes(ctx, hashes); err != nil {
		return n, err
	}
	if fi, err := os.Stat(filepath.Join(co.gitDir, "index")); err == nil {
		n.index = 2 * fi.Size()
	}
	return n, nil
}

// treePairs are the (from, to) trees the give-back checks out in turn:
// the working tree back to the run's HEAD (reset --hard rewrites what the
// run changed), the run's HEAD to the engineer's commit, and that to
// their uncommitted and untracked files.
func (w *Workspace) treePairs(ctx context.Context, runHead string) [][2]string {
	co := w.checkout
	pairs := [][2]string{}
	if wt, err := co.WorkTree(ctx); err == nil {
		pairs = append(pairs, [2]string{wt, runHead})
	}
	pairs = append(pairs, [2]string{runHead, w.st.Head})
	if w.st.Stashed {
		ref := StashRefPrefix + w.StashName(checkoutStash)
		if wt, _, ut, err := co.stashTrees(ctx, ref); err == nil {
			pairs = append(pairs, [2]string{w.st.Head, wt})
			if ut != "" {
				pairs = append(pairs, [2]string{"", ut})
			}
		}
	}
	return pairs
}

// changedBlobs lists the blobs of to that differ from from ("" from: all
// of to's).
func (r *Repo) changedBlobs(ctx context.Context, from, to string) ([]string, error) {
	if from == "" {
		entries, err := r.lsTree(ctx, to, "")
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Hash)
		}
		return out, nil
	}
	out, err := r.cmd("diff-tree", "-r", "-z", "--no-renames", from, to).run(ctx)
	if err != nil {
		return nil, fmt.Errorf("compare %s and %s: %w", short(from), short(to), err)
	}
	var hashes []string
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.Fields(strings.TrimPrefix(rec, ":"))
		if !strings.HasPrefix(rec, ":") || len(f) < 5 || f[4] == "D" || f[1] == "160000" {
			continue
		}
		hashes = append(hashes, f[3])
	}
	return hashes, nil
}

// blobSizes adds up the sizes of the given objects.
func (r *Repo) blobSizes(ctx context.Context, hashes []string) (int64, error) {
	if len(hashes) == 0 {
		return 0, nil
	}
	c := r.cmd("cat-file", "--batch-check=%(objectsize)")
	c.stdin = []byte(strings.Join(hashes, "\n") + "\n")
	out, err := c.run(ctx)
	if err != nil {
		return 0, fmt.Errorf("read object sizes: %w", err)
	}
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		n, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read object sizes: %q", line)
		}
		total += n
	}
	return total, nil
}
