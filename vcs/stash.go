package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// StashRefPrefix is where PutAside keeps uncommitted changes. go-git has no
// stash and refs/stash is shared with the engineer's own `git stash list`, so
// each set-aside state is a private ref instead.
const StashRefPrefix = "refs/swe-adept/stash/"

// tempIndex creates a private index file seeded from this worktree's index,
// so `git add` under GIT_INDEX_FILE reuses its stat data (fast) and never
// writes the real index. The caller runs the returned cleanup.
func (r *Repo) tempIndex(seed bool) (env []string, cleanup func(), err error) {
	f, err := os.CreateTemp(r.gitDir, "swe-adept-index-*")
	if err != nil {
		return nil, nil, fmt.Errorf("temporary index: %w", err)
	}
	path := f.Name()
	cleanup = func() { os.Remove(path); os.Remove(path + ".lock") }
	seeded := false
	if seed {
		if data, rerr := os.ReadFile(filepath.Join(r.gitDir, "index")); rerr == nil {
			_, err = f.Write(data)
			seeded = true
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if !seeded {
		os.Remove(path) // an empty file is not a valid index; git creates it
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("temporary index: %w", err)
	}
	return []string{"GIT_INDEX_FILE=" + path}, cleanup, nil
}

// snapshotTree writes the tree of the working tree as `git add <args>` would
// stage it, without touching the real index.
func (r *Repo) snapshotTree(ctx context.Context, addArgs ...string) (string, error) {
	env, cleanup, err := r.tempIndex(true)
	if err != nil {
		return "", err
	}
	defer cleanup()
	args := append([]string{"add"}, addArgs...)
	if _, err := r.cmd(args...).withEnv(env).run(ctx); err != nil {
		return "", fmt.Errorf("snapshot working tree: %w", err)
	}
	return r.writeTree(ctx, env...)
}

// Snapshot records the working tree, including untracked files that are not
// ignored, as a commit whose parent is HEAD, touching neither the index, the
// working tree nor any ref. With nothing uncommitted it returns HEAD itself.
// Diff a commit against the snapshot for "the working tree vs a commit".
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	args, err := r.addAllArgs(ctx)
	if err != nil {
		return "", err
	}
	tree, err := r.snapshotTree(ctx, args...)
	if err != nil {
		return "", err
	}
	if head.Hash != "" {
		ht, err := r.treeOf(ctx, head.Hash)
		if err != nil {
			return "", err
		}
		if ht == tree {
			return head.Hash, nil
		}
	}
	return r.commitTree(ctx, tree, "swe-adept: snapshot of the working tree", head.Hash)
}

// PutAside saves all uncommitted changes (staged, unstaged, deletions and
// untracked files that are not ignored) on refs/swe-adept/stash/<name> and
// leaves a clean working tree at HEAD. It returns the saved commit, or ""
// when there was nothing to save. Restore brings the exact state back.
// Putting aside twice under one name keeps both, as git stash does: the ref
// names the newest, its reflog the earlier ones.
//
// The commit has git stash's layout (tree = tracked files; parents HEAD, the
// index, the untracked files), so `git stash apply refs/swe-adept/stash/<name>`
// also works by hand.
func (r *Repo) PutAside(ctx context.Context, name string) (string, error) {
	ref, err := stashRef(name)
	if err != nil {
		return "", err
	}
	dirty, err := r.IsDirty(ctx)
	if err != nil || !dirty {
		return "", err
	}
	saved, untracked, err := r.saveState(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("put changes aside as %q: %w", name, err)
	}
	if err := r.cleanTo(ctx, untracked); err != nil {
		return "", fmt.Errorf("put changes aside as %q (saved on %s): %w", name, ref, err)
	}
	return saved, nil
}

// saveState writes the stash-layout commit for the current state on ref.
func (r *Repo) saveState(ctx context.Context, ref string) (string, []string, error) {
	untracked, err := r.untracked(ctx)
	if err != nil {
		return "", nil, err
	}
	w, err := r.saveStateOf(ctx, ref, untracked)
	return w, untracked, err
}

// saveAside saves the current state on StashRefPrefix+name like PutAside,
// without cleaning anything: untracked files in keep are left out (they
// are the engineer's, recorded elsewhere), the paths in extra are saved
// with the untracked files even if ignored. It returns "" when there was
// nothing to save.
func (r *Repo) saveAside(ctx context.Context, name string, keep map[string]bool, extra []string) (string, error) {
	ref, err := stashRef(name)
	if err != nil {
		return "", err
	}
	cs, err := r.changes(ctx)
	if err != nil {
		return "", err
	}
	untracked := append([]string(nil), extra...)
	tracked := false
	for _, c := range cs {
		switch {
		case c.X != '?':
			tracked = true
		case !keep[c.Path]:
			untracked = append(untracked, c.Path)
		}
	}
	if !tracked && len(untracked) == 0 {
		return "", nil
	}
	return r.saveStateOf(ctx, ref, untracked)
}

// saveStateOf writes the stash-layout commit of the index, the tracked
// files and the given untracked files on ref.
func (r *Repo) saveStateOf(ctx context.Context, ref string, untracked []string) (string, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	if head.Hash == "" {
		return "", fmt.Errorf("no commits yet on %s: make a first commit", head.Branch)
	}
	label := fmt.Sprintf("%s: %s", nonEmpty(head.Branch, "(no branch)"), short(head.Hash))
	itree, err := r.writeTree(ctx)
	if err != nil {
		return "", fmt.Errorf("save the index (resolve merge conflicts first): %w", err)
	}
	icommit, err := r.commitTree(ctx, itree, "index on "+label, head.Hash)
	if err != nil {
		return "", err
	}
	wtree, err := r.snapshotTree(ctx, "-u")
	if err != nil {
		return "", err
	}
	parents := []string{head.Hash, icommit}
	if len(untracked) > 0 {
		ucommit, err := r.untrackedCommit(ctx, untracked, label)
		if err != nil {
			return "", err
		}
		parents = append(parents, ucommit)
	}
	modes, err := r.fileModes(ctx, untracked)
	if err != nil {
		return "", err
	}
	w, err := r.commitTree(ctx, wtree, "WIP on "+label+modes, parents...)
	if err != nil {
		return "", err
	}
	// Like refs/stash, the ref's reflog keeps earlier states put aside under
	// the same name (ref@{1}, …); Restore takes the newest.
	if _, err := r.git(ctx, "update-ref", "--create-reflog", "-m", "swe-adept: put aside", ref, w); err != nil {
		return "", err
	}
	return w, nil
}

// untracked lists untracked files that are not ignored. An untracked
// nested repository shows as "dir/": it is the engineer's own and is left
// where it is, neither saved nor removed.
func (r *Repo) untracked(ctx context.Context) ([]string, error) {
	out, err := r.cmd("ls-files", "-z", "--others", "--exclude-standard").run(ctx)
	if err != nil {
		return nil, fmt.Errorf("list untracked files: %w", err)
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !strings.HasSuffix(p, "/") {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// untrackedCommit stores the given untracked files as a parentless commit.
func (r *Repo) untrackedCommit(ctx context.Context, paths []string, label string) (string, error) {
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return "", err
	}
	defer cleanup()
	stdin := []byte(strings.Join(paths, "\x00") + "\x00")
	if _, err := r.cmd("update-index", "--add", "-z", "--stdin").withEnv(env).withStdin(stdin).run(ctx); err != nil {
		return "", fmt.Errorf("save untracked files: %w", err)
	}
	tree, err := r.writeTree(ctx, env...)
	if err != nil {
		return "", err
	}
	return r.commitTree(ctx, tree, "untracked files on "+label)
}

// cleanTo resets index and tracked files to HEAD and removes exactly the
// listed untracked files (already saved), never ignored ones.
func (r *Repo) cleanTo(ctx context.Context, untracked []string) error {
	if _, err := r.git(ctx, "reset", "-q", "--hard", "HEAD"); err != nil {
		return err
	}
	for _, p := range untracked {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove saved untracked file: %w", err)
		}
		for d := filepath.Dir(full); d != r.dir && strings.HasPrefix(d, r.dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil { // stops at the first non-empty directory
				break
			}
		}
	}
	return nil
}

// Restore brings back the state saved by PutAside exactly: working-tree
// bytes (including untracked files and deletions) and the index (what was
// staged stays staged). HEAD does not move. The working tree must be clean.
// The ref is kept; GC removes it with the run.
func (r *Repo) Restore(ctx context.Context, name string) error {
	ref, err := stashRef(name)
	if err != nil {
		return err
	}
	w, itree, utree, err := r.stashTrees(ctx, ref)
	if err != nil {
		return fmt.Errorf("restore %q: %w", name, err)
	}
	if err := r.requireClean(ctx); err != nil {
		return fmt.Errorf("restore %q: %w", name, err)
	}
	if _, err := r.git(ctx, "read-tree", "--reset", "-u", w); err != nil {
		return fmt.Errorf("restore %q: tracked files: %w", name, err)
	}
	if utree != "" {
		if err := r.checkoutTreeFiles(ctx, utree); err != nil {
			return fmt.Errorf("restore %q: untracked files: %w", name, err)
		}
	}
	if err := r.restoreModes(ctx, ref); err != nil {
		return fmt.Errorf("restore %q: file modes: %w", name, err)
	}
	if _, err := r.git(ctx, "read-tree", itree); err != nil {
		return fmt.Errorf("restore %q: index: %w", name, err)
	}
	// Exit status 1 only means some files differ from the index, as they should.
	if _, err := r.git(ctx, "update-index", "-q", "--refresh"); err != nil && exitCode(err) != 1 {
		return fmt.Errorf("restore %q: refresh index: %w", name, err)
	}
	return nil
}

// stashTrees reads the worktree, index and untracked trees of a stash commit
// (the untracked one is optional). Restore is rare: the CLI is fine here.
func (r *Repo) stashTrees(ctx context.Context, ref string) (w, itree, utree string, err error) {
	if ok, err := r.refExists(ctx, ref); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("nothing set aside on %s", ref)
		}
		return "", "", "", err
	}
	out, err := r.git(ctx, "rev-parse", ref+"^{tree}", ref+"^2^{tree}")
	if err != nil {
		return "", "", "", fmt.Errorf("%s is not a set-aside state: %w", ref, err)
	}
	w, itree, _ = strings.Cut(out, "\n")
	if u, err := r.git(ctx, "rev-parse", "--verify", "--quiet", ref+"^3^{tree}"); err == nil {
		utree = u
	}
	return w, itree, utree, nil
}

// checkoutTreeFiles writes every file of tree into the working tree through a
// private index, leaving the real index alone.
func (r *Repo) checkoutTreeFiles(ctx context.Context, tree string) error {
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return err
	}
	defer cleanup()
	if _, err := r.cmd("read-tree", tree).withEnv(env).run(ctx); err != nil {
		return err
	}
	_, err = r.cmd("checkout-index", "-a", "-f").withEnv(env).run(ctx)
	return err
}

func stashRef(name string) (string, error) {
	if err := validBranchName(name); err != nil {
		return "", fmt.Errorf("invalid name for set-aside changes %q: use letters, digits, '-', '_', '.' and '/'", name)
	}
	return StashRefPrefix + name, nil
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fileModes records, for the set-aside commit's message, the exact
// permissions of the changed and untracked files that git would not bring
// back.
func (r *Repo) fileModes(ctx context.Context, untracked []string) (string, error) {
	changed, err := r.cmd("diff", "-z", "--name-only", "HEAD").run(ctx)
	if err != nil {
		return "", fmt.Errorf("list changed files: %w", err)
	}
	paths := append(strings.Split(string(changed), "\x00"), untracked...)
	return encodeModes(r.modesOf(paths))
}

// restoreModes applies the modes recorded in a set-aside commit.
func (r *Repo) restoreModes(ctx context.Context, ref string) error {
	msg, err := r.git(ctx, "log", "-1", "--format=%B", ref)
	if err != nil {
		return err
	}
	modes, err := decodeModes(msg)
	if err != nil {
		return err
	}
	return r.applyModes(modes)
}

// addAllArgs is `git add -A` leaving out untracked nested repositories:
// they are the engineer's own, and git would add them as gitlinks (or
// fail on one without commits).
func (r *Repo) addAllArgs(ctx context.Context) ([]string, error) {
	out, err := r.cmd("ls-files", "-z", "--others", "--exclude-standard", "--directory").run(ctx)
	if err != nil {
		return nil, fmt.Errorf("list untracked files: %w", err)
	}
	args := []string{"-A"}
	for _, p := range strings.Split(string(out), "\x00") {
		if !strings.HasSuffix(p, "/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(p), ".git")); err == nil {
			if len(args) == 1 {
				args = append(args, "--", ".")
			}
			args = append(args, ":(exclude)"+strings.TrimSuffix(p, "/"))
		}
	}
	return args, nil
}

// RefClash names an existing ref that makes ref impossible to create: one
// ref cannot be both a file and a folder of refs.
func (r *Repo) RefClash(ctx context.Context, ref string) string {
	if out, err := r.git(ctx, "for-each-ref", "--count=1", "--format=%(refname)", ref+"/"); err == nil && out != "" {
		return out
	}
	for dir := ref; ; {
		i := strings.LastIndexByte(dir, '/')
		if i <= len("refs/heads") {
			return ""
		}
		dir = dir[:i]
		if ok, _ := r.refExists(ctx, dir); ok {
			return dir
		}
	}
}

// WorkTree is the tree of the working tree as `git add -A` would stage it,
// untracked files included, without touching the index: two equal values
// mean nothing changed in between.
func (r *Repo) WorkTree(ctx context.Context) (string, error) {
	args, err := r.addAllArgs(ctx)
	if err != nil {
		return "", err
	}
	return r.snapshotTree(ctx, args...)
}
