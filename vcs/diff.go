package vcs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FileStat is one line of `git diff --numstat`. Binary files have Binary set
// and zero line counts (git prints "-" for them).
type FileStat struct {
	Path       string
	Insertions int
	Deletions  int
	Binary     bool
}

// DiffStat summarises the changes between two commits.
type DiffStat struct {
	Files      []FileStat
	Insertions int
	Deletions  int
}

// Short is git's --shortstat line without the leading space, e.g.
// "2 files changed, 5 insertions(+), 1 deletion(-)".
func (d DiffStat) Short() string {
	n := len(d.Files)
	if n == 0 {
		return "0 files changed"
	}
	s := fmt.Sprintf("%d file%s changed", n, plural(n))
	// git shows insertions unless only deletions happened, and vice versa.
	if d.Insertions > 0 || d.Deletions == 0 {
		s += fmt.Sprintf(", %d insertion%s(+)", d.Insertions, plural(d.Insertions))
	}
	if d.Deletions > 0 || d.Insertions == 0 {
		s += fmt.Sprintf(", %d deletion%s(-)", d.Deletions, plural(d.Deletions))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// diffArgs are the flags every diff we produce uses: full, binary-safe,
// renames as delete+add so that path exclusion and `git apply` are simple.
var diffArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
	"--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=none"}

// pathspecs turns caller exclusions (paths, directories or globs) into git
// pathspec arguments.
func pathspecs(exclude []string) []string {
	args := []string{"--", "."}
	for _, e := range exclude {
		if e = strings.TrimPrefix(strings.TrimSpace(e), "./"); e != "" {
			args = append(args, ":(exclude)"+e)
		}
	}
	return args
}

// DiffStat compares two commits (hashes or branch names), leaving out the
// excluded paths. Binary files are counted as changed files.
func (r *Repo) DiffStat(ctx context.Context, from, to string, exclude ...string) (DiffStat, error) {
	a, b, err := r.resolvePair(ctx, from, to)
	if err != nil {
		return DiffStat{}, fmt.Errorf("diff stat: %w", err)
	}
	args := append([]string{"diff", "--numstat", "-z"}, diffArgs...)
	args = append(append(args, a, b), pathspecs(exclude)...)
	out, err := r.cmd(args...).run(ctx)
	if err != nil {
		return DiffStat{}, fmt.Errorf("diff stat %s..%s: %w", short(a), short(b), err)
	}
	return parseNumstat(string(out))
}

// parseNumstat reads `git diff --numstat -z` without renames:
// "added\tdeleted\tpath\0" per file.
func parseNumstat(out string) (DiffStat, error) {
	var d DiffStat
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		fields := strings.SplitN(rec, "\t", 3)
		if len(fields) != 3 {
			return DiffStat{}, fmt.Errorf("unexpected numstat record %q", rec)
		}
		f := FileStat{Path: fields[2]}
		if fields[0] == "-" && fields[1] == "-" {
			f.Binary = true
		} else {
			var err1, err2 error
			f.Insertions, err1 = strconv.Atoi(fields[0])
			f.Deletions, err2 = strconv.Atoi(fields[1])
			if err := errors.Join(err1, err2); err != nil {
				return DiffStat{}, fmt.Errorf("unexpected numstat record %q: %w", rec, err)
			}
		}
		d.Insertions += f.Insertions
		d.Deletions += f.Deletions
		d.Files = append(d.Files, f)
	}
	return d, nil
}

// Patch returns the unified diff from one commit to another, leaving out the
// excluded paths. Binary changes are included in git's binary format, so the
// text always goes through `git apply`.
func (r *Repo) Patch(ctx context.Context, from, to string, exclude ...string) (string, error) {
	a, b, err := r.resolvePair(ctx, from, to)
	if err != nil {
		return "", fmt.Errorf("patch: %w", err)
	}
	args := append([]string{"diff", "--binary", "--full-index"}, diffArgs...)
	args = append(append(args, a, b), pathspecs(exclude)...)
	out, err := r.cmd(args...).run(ctx)
	if err != nil {
		return "", fmt.Errorf("patch %s..%s: %w", short(a), short(b), err)
	}
	return string(out), nil
}

// PatchWorkTree returns the diff from a commit to the current working tree,
// untracked (not ignored) files included, without touching the index.
func (r *Repo) PatchWorkTree(ctx context.Context, from string, exclude ...string) (string, error) {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	return r.Patch(ctx, from, snap, exclude...)
}

func (r *Repo) resolvePair(ctx context.Context, from, to string) (string, string, error) {
	a, err := r.Resolve(ctx, from)
	if err != nil {
		return "", "", err
	}
	b, err := r.Resolve(ctx, to)
	return a, b, err
}

// ApplyBranchOntoOriginal is merge_solution: it squashes the changes of
// branch since original (the tree of the branch tip, minus excluded paths,
// which keep their original content) into one commit whose parent is
// original, and checks that commit out with a detached HEAD. The working tree
// is then clean and the final patch is Patch(original, solution). Giving the
// result a branch name is left to the caller (CreateBranchAt on the hash).
// A branch with no changes beyond the excluded paths gives ErrNothingToCommit.
func (r *Repo) ApplyBranchOntoOriginal(ctx context.Context, branch, original string, exclude ...string) (string, error) {
	tip, err := r.Resolve(ctx, branch)
	if err != nil {
		return "", fmt.Errorf("merge solution: %w", err)
	}
	base, err := r.Resolve(ctx, original)
	if err != nil {
		return "", fmt.Errorf("merge solution: original state: %w", err)
	}
	if err := r.requireClean(ctx); err != nil {
		return "", fmt.Errorf("merge solution %s: %w", branch, err)
	}
	patch, err := r.Patch(ctx, base, tip, exclude...)
	if err != nil {
		return "", fmt.Errorf("merge solution %s: %w", branch, err)
	}
	if patch == "" {
		return "", &detailErr{
			msg:  fmt.Sprintf("branch %s has no changes since the original state %s (excluding %v)", branch, short(base), exclude),
			base: ErrNothingToCommit,
		}
	}
	tree, err := r.applyToTree(ctx, base, patch)
	if err != nil {
		return "", fmt.Errorf("merge solution %s: %w", branch, err)
	}
	msg := fmt.Sprintf("swe-adept: solution from %s\n\nSquash of %s onto %s.", branch, short(tip), short(base))
	c, err := r.commitTree(ctx, tree, msg, base)
	if err != nil {
		return "", fmt.Errorf("merge solution %s: %w", branch, err)
	}
	if _, err := r.git(ctx, "checkout", "-q", "--detach", c); err != nil {
		return "", fmt.Errorf("merge solution %s: check out %s: %w", branch, short(c), err)
	}
	return c, nil
}

// applyToTree applies patch to the tree of base in a private index and
// returns the resulting tree.
func (r *Repo) applyToTree(ctx context.Context, base, patch string) (string, error) {
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return "", err
	}
	defer cleanup()
	if _, err := r.cmd("read-tree", base).withEnv(env).run(ctx); err != nil {
		return "", err
	}
	apply := r.cmd("apply", "--cached", "--binary", "--whitespace=nowarn").withEnv(env).withStdin([]byte(patch))
	if _, err := apply.run(ctx); err != nil {
		return "", fmt.Errorf("apply changes onto %s: %w", short(base), err)
	}
	return r.writeTree(ctx, env...)
}

// TreePatch is the binary diff between two trees.
func (r *Repo) TreePatch(ctx context.Context, from, to string) (string, error) {
	args := append([]string{"diff", "--binary", "--full-index"}, diffArgs...)
	out, err := r.cmd(append(args, from, to)...).run(ctx)
	if err != nil {
		return "", fmt.Errorf("patch %s..%s: %w", short(from), short(to), err)
	}
	return string(out), nil
}
