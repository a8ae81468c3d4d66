package vcs

import (
	"context"
	"fmt"
	"strings"
)

// What the run uses to keep the engineer's own files and edits out of its
// patch and its branches: the paths they own, the changes between two
// trees, and a tree with some paths put back as they were.

// Entry is one path's mode and blob in a tree ("" when absent).
type Entry struct {
	Mode, Hash string
}

// Changed maps each path that differs between two trees (or commits) to
// its entry on either side.
type Changed map[string][2]Entry

// ChangedEntries compares two trees or commits, file by file.
func (r *Repo) ChangedEntries(ctx context.Context, from, to string) (Changed, error) {
	out, err := r.cmd("diff-tree", "-r", "-z", "--no-renames", "--raw", from, to).run(ctx)
	if err != nil {
		return nil, fmt.Errorf("compare %s and %s: %w", short(from), short(to), err)
	}
	ch := Changed{}
	recs := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if !strings.HasPrefix(recs[i], ":") || len(f) < 5 {
			i-- // not a raw record: go on from the next field
			continue
		}
		ch[recs[i+1]] = [2]Entry{entryOf(f[0], f[2]), entryOf(f[1], f[3])}
	}
	return ch, nil
}

func entryOf(mode, hash string) Entry {
	if strings.Trim(mode, "0") == "" {
		return Entry{}
	}
	return Entry{Mode: mode, Hash: hash}
}

// TreeWithout is the tree of `from` with each of paths as it is in base:
// changed back, or removed when base lacks it.
func (r *Repo) TreeWithout(ctx context.Context, base, from string, paths []string) (string, error) {
	if len(paths) == 0 {
		return r.treeOfRev(ctx, from)
	}
	baseEntries, err := r.entriesOf(ctx, base, paths)
	if err != nil {
		return "", err
	}
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return "", err
	}
	defer cleanup()
	if _, err := (gitCmd{dir: r.dir, args: []string{"read-tree", from}, env: env}).run(ctx); err != nil {
		return "", fmt.Errorf("read %s: %w", short(from), err)
	}
	zero := strings.Repeat("0", 40)
	if f, _ := r.git(ctx, "rev-parse", "--show-object-format"); f == "sha256" {
		zero = strings.Repeat("0", 64)
	}
	var in strings.Builder
	for _, p := range paths {
		if e, ok := baseEntries[p]; ok {
			fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.Hash, p)
		} else {
			fmt.Fprintf(&in, "0 %s\t%s\x00", zero, p)
		}
	}
	upd := gitCmd{dir: r.dir, args: []string{"update-index", "-z", "--index-info"}, env: env, stdin: []byte(in.String())}
	if _, err := upd.run(ctx); err != nil {
		return "", fmt.Errorf("leave out your files: %w", err)
	}
	return r.writeTree(ctx, env...)
}

// CommitWithout is TreeWithout as a commit whose parent is from (a commit).
func (r *Repo) CommitWithout(ctx context.Context, base, from string, paths []string) (string, error) {
	tree, err := r.TreeWithout(ctx, base, from, paths)
	if err != nil {
		return "", err
	}
	if ft, err := r.treeOfRev(ctx, from); err == nil && ft == tree {
		return from, nil
	}
	return r.commitTree(ctx, tree, "swe-adept: the run's work without your own files", from)
}

// CommitOfTree makes a commit of tree on parent, so a tree can be diffed
// and named like any state.
func (r *Repo) CommitOfTree(ctx context.Context, tree, parent, msg string) (string, error) {
	return r.commitTree(ctx, tree, msg, parent)
}

// entriesOf reads the entries of the given paths in a tree or commit.
func (r *Repo) entriesOf(ctx context.Context, rev string, paths []string) (map[string]Entry, error) {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	all, err := r.lsTree(ctx, rev, "")
	if err != nil {
		return nil, err
	}
	out := map[string]Entry{}
	for p, e := range all {
		if want[p] {
			out[p] = Entry(e)
		}
	}
	return out, nil
}

func (r *Repo) treeOfRev(ctx context.Context, rev string) (string, error) {
	return r.git(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{tree}")
}

// PathsPatch is the binary diff between two trees or commits, of the given
// paths only (taken literally, whatever characters they hold).
func (r *Repo) PathsPatch(ctx context.Context, from, to string, paths []string) (string, error) {
	args := append([]string{"diff", "--binary", "--full-index"}, diffArgs...)
	args = append(append(args, from, to, "--"), paths...)
	out, err := gitCmd{dir: r.dir, args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}, config: r.config}.run(ctx)
	if err != nil {
		return "", fmt.Errorf("patch %s..%s: %w", short(from), short(to), err)
	}
	return string(out), nil
}

// RecordedPaths are the untracked and the ignored files the checkout held
// when this in-place run started: the engineer's, never part of its patch.
// A run in its own worktree has none.
func (w *Workspace) RecordedPaths(ctx context.Context) (untracked, ignored []string, err error) {
	if !w.InPlace || !w.st.Recorded {
		return nil, nil, nil
	}
	rec, _, err := w.checkout.loadRecord(ctx, StashRefPrefix+w.StashName(recordName))
	if err != nil {
		return nil, nil, err
	}
	for _, e := range rec.Files {
		if e.Ignored {
			ignored = append(ignored, e.Path)
		} else {
			untracked = append(untracked, e.Path)
		}
	}
	return untracked, ignored, nil
}
