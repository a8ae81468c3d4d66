package vcs

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// identity returns -c user.* defaults for the identities git cannot find, so
// checkpoints work on a machine where nobody ran `git config user.name`.
func (r *Repo) identity(ctx context.Context) []string {
	r.identOnce.Do(func() {
		need := func(envs []string, key, def string) {
			for _, e := range envs {
				if os.Getenv(e) == "" {
					if v, err := r.git(ctx, "config", "--get", key); err != nil || v == "" {
						r.ident = append(r.ident, "-c", key+"="+def)
					}
					return
				}
			}
		}
		need([]string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"}, "user.name", "swe-adept")
		need([]string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"}, "user.email", "swe-adept@localhost")
	})
	return r.ident
}

// writeTree writes the index (or the index file in env) as a tree.
func (r *Repo) writeTree(ctx context.Context, env ...string) (string, error) {
	out, err := r.cmd("write-tree").withEnv(env).run(ctx)
	if err != nil {
		return "", fmt.Errorf("write tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTree makes a commit object without touching HEAD, the index or hooks.
func (r *Repo) commitTree(ctx context.Context, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign", tree}
	for _, p := range parents {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	args = append(args, "-F", "-")
	// As `git commit --cleanup=whitespace` would store it.
	msg = strings.TrimSpace(msg) + "\n"
	c := r.cmd(args...).withStdin([]byte(msg))
	c.config = r.identity(ctx)
	out, err := c.run(ctx)
	if err != nil {
		return "", fmt.Errorf("commit tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitAll stages everything (`git add -A`: new, modified and deleted files,
// honouring .gitignore) and commits it on the current branch, or on the
// detached HEAD. It returns the new commit hash, or ErrNothingToCommit.
//
// The commit is made with plumbing (write-tree, commit-tree, update-ref)
// rather than `git commit`: checkpoints of half-done work must not run the
// engineer's pre-commit hooks, open an editor or ask for a signing key, and
// it skips the summary diff `git commit` prints.
func (r *Repo) CommitAll(ctx context.Context, msg string) (string, error) {
	if strings.TrimSpace(msg) == "" {
		return "", fmt.Errorf("commit in %s: empty commit message", r.dir)
	}
	add, err := r.addAllArgs(ctx)
	if err != nil {
		return "", fmt.Errorf("commit %q: %w", firstLine(msg), err)
	}
	if _, err := r.git(ctx, append([]string{"add"}, add...)...); err != nil {
		return "", fmt.Errorf("commit %q: stage changes: %w", firstLine(msg), err)
	}
	tree, err := r.writeTree(ctx)
	if err != nil {
		return "", fmt.Errorf("commit %q: %w", firstLine(msg), err)
	}
	head, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	var parentTree string
	if head.Hash != "" {
		parentTree, err = r.treeOf(ctx, head.Hash)
	} else {
		parentTree, err = r.emptyTree(ctx) // unborn: nothing staged means nothing to commit
	}
	if err != nil {
		return "", err
	}
	if tree == parentTree {
		return "", ErrNothingToCommit
	}
	c, err := r.commitTree(ctx, tree, msg, head.Hash)
	if err != nil {
		return "", fmt.Errorf("commit %q: %w", firstLine(msg), err)
	}
	// An empty old value means HEAD's branch must not exist yet.
	if _, err := r.git(ctx, "update-ref", "-m", "commit: "+firstLine(msg), "HEAD", c, head.Hash); err != nil {
		return "", fmt.Errorf("commit %q: move HEAD: %w", firstLine(msg), err)
	}
	return c, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// CreateBranchAt creates branch name at the commit hash names and checks it
// out. It refuses when the branch exists or the working tree is dirty (put
// the changes aside first with PutAside).
func (r *Repo) CreateBranchAt(ctx context.Context, name, hash string) error {
	if err := validBranchName(name); err != nil {
		return err
	}
	exists, err := r.BranchExists(ctx, name)
	if err != nil {
		return err
	}
	if exists {
		return &detailErr{msg: fmt.Sprintf("branch %s already exists; choose another name", name), base: ErrBranchExists}
	}
	c, err := r.Resolve(ctx, hash)
	if err != nil {
		return fmt.Errorf("create branch %s: %w", name, err)
	}
	if err := r.requireClean(ctx); err != nil {
		return fmt.Errorf("create branch %s: %w", name, err)
	}
	if _, err := r.git(ctx, "checkout", "-q", "--no-guess", "-b", name, c); err != nil {
		return fmt.Errorf("create branch %s at %s: %w", name, short(c), err)
	}
	return nil
}

// CheckoutDetached checks out a commit with a detached HEAD. It refuses when
// the working tree is dirty.
func (r *Repo) CheckoutDetached(ctx context.Context, hash string) error {
	c, err := r.Resolve(ctx, hash)
	if err != nil {
		return fmt.Errorf("check out: %w", err)
	}
	if err := r.requireClean(ctx); err != nil {
		return fmt.Errorf("check out %s: %w", short(c), err)
	}
	if _, err := r.git(ctx, "checkout", "-q", "--detach", c); err != nil {
		return fmt.Errorf("check out %s: %w", short(c), err)
	}
	return nil
}

// validBranchName rejects names git would refuse or misread as options, with
// a message the model can act on.
func validBranchName(name string) error {
	bad := name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") ||
		strings.HasSuffix(name, ".") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.Contains(name, "@{") || name == "HEAD"
	for _, c := range name {
		if c <= ' ' || c == 0x7f || strings.ContainsRune("~^:?*[\\", c) {
			bad = true
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("invalid branch name %q: use letters, digits, '-', '_', '.' and '/'", name)
	}
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// emptyTree is the hash of the tree with no entries, in this repository's
// object format (SHA-1 or SHA-256).
func (r *Repo) emptyTree(ctx context.Context) (string, error) {
	out, err := r.cmd("hash-object", "-t", "tree", "--stdin").run(ctx)
	if err != nil {
		return "", fmt.Errorf("hash the empty tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
