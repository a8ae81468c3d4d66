package vcs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Repo is one git working tree: the engineer's checkout or a run's linked
// worktree. Reads of refs and objects go through go-git (in-process, ~0.1 ms);
// anything that scans or writes the working tree or index goes through the git
// CLI (see doc.go for the figures behind that split). Methods are safe for
// concurrent use, but the working tree itself is one: callers serialise
// operations that change it.
type Repo struct {
	dir       string // top of the working tree
	gitDir    string // this worktree's git dir (…/.git or …/.git/worktrees/x)
	commonDir string // shared objects and refs

	mu sync.Mutex // guards gg: go-git's object cache is not goroutine-safe
	gg *gogit.Repository

	// conf is what the configuration said when the repository was opened,
	// and guard the settings that pin its drivers (guard.go).
	conf  repoConfig
	guard []string

	identOnce sync.Once
	ident     []string

	// config is passed to every scanning command. A run's own worktree
	// keeps git's untracked cache (core.untrackedCache), which halves the
	// cost of status and add -A there; the engineer's checkout is left as
	// they configured it.
	config []string
}

// Head is the checked-out commit.
type Head struct {
	Hash     string // empty on an unborn branch (no commits yet)
	Branch   string // short branch name, e.g. "main"; empty when detached
	Detached bool
}

// Change is one entry of `git status --porcelain`: X is the index column,
// Y the working-tree column ('?' for both on untracked files).
type Change struct {
	Path string
	X, Y byte
}

// detailErr gives a sentinel error an actionable message while keeping
// errors.Is working.
type detailErr struct {
	msg  string
	base error
}

func (e *detailErr) Error() string { return e.msg }
func (e *detailErr) Unwrap() error { return e.base }

// Open opens the git working tree containing dir. This is the one place
// the work tree names its git directory (through its .git): every command
// after it names the directory it found, so call Open before anything
// untrusted runs in the work tree.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, notRepo(abs)
	}
	out, err := git(ctx, abs, "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, notRepo(abs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		return nil, notRepo(abs)
	}
	return openAt(ctx, lines[0], lines[1], lines[2])
}

// openAt opens a work tree whose git directories are known.
func openAt(ctx context.Context, top, gitDir, commonDir string) (*Repo, error) {
	r := &Repo{dir: top, gitDir: gitDir, commonDir: commonDir}
	var err error
	if r.conf, err = r.readConfig(ctx); err != nil {
		return nil, err
	}
	r.guard = r.conf.guardEnv()
	if r.gg, err = r.openGoGit(); err != nil {
		// e.g. extensions.worktreeConfig, which sparse-checkout turns on:
		// go-git refuses such repositories, the CLI reads them fine.
		slog.Debug("go-git cannot open the repository; reading through the git CLI", "dir", r.dir, "err", err)
		r.gg = nil
	}
	return r, nil
}

// openGoGit opens the recorded git directories with go-git, never the work
// tree's .git.
func (r *Repo) openGoGit() (*gogit.Repository, error) {
	var fs billy.Filesystem = osfs.New(r.gitDir)
	if r.commonDir != r.gitDir {
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(r.commonDir))
	}
	return gogit.Open(filesystem.NewStorage(fs, cache.NewObjectLRUDefault()), osfs.New(r.dir))
}

// OpenWorktree opens dir, a linked worktree of this repository, through the
// repository's own record of it (<common dir>/worktrees/<name>), not
// through the .git file in dir, which whoever works in dir could rewrite.
func (r *Repo) OpenWorktree(ctx context.Context, dir string) (*Repo, error) {
	top := realPath(dir)
	admin := filepath.Join(r.commonDir, "worktrees")
	ents, err := os.ReadDir(admin)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("open worktree %s: %w", dir, err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
		if err != nil || realPath(filepath.Dir(strings.TrimSpace(string(b)))) != top {
			continue
		}
		if _, err := os.Stat(top); err != nil {
			return nil, fmt.Errorf("open worktree %s: %w", dir, err)
		}
		return openAt(ctx, top, filepath.Join(admin, e.Name()), r.commonDir)
	}
	return nil, &detailErr{msg: fmt.Sprintf("%s is not a worktree of the repository %s", dir, r.dir), base: ErrNotRepository}
}

func notRepo(dir string) error {
	return &detailErr{
		msg:  fmt.Sprintf("not a git repository: %s (run git init, or pass --repo)", dir),
		base: ErrNotRepository,
	}
}

// Dir is the top of the working tree.
func (r *Repo) Dir() string { return r.dir }

// CommonDir is the git directory shared by all worktrees (usually <repo>/.git).
func (r *Repo) CommonDir() string { return r.commonDir }

// GitDir is this work tree's own git directory (…/.git or …/.git/worktrees/x).
func (r *Repo) GitDir() string { return r.gitDir }

// cmd is a git command on this repository, naming its directories.
func (r *Repo) cmd(args ...string) gitCmd {
	return gitCmd{dir: r.dir, gitDir: r.gitDir, guard: r.guard, args: args, config: r.config}
}

func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	out, err := r.cmd(args...).run(ctx)
	return strings.TrimSpace(string(out)), err
}

// Head reports the checked-out commit and branch.
func (r *Repo) Head(ctx context.Context) (Head, error) {
	if err := ctx.Err(); err != nil {
		return Head{}, err
	}
	if r.gg == nil {
		return r.headCLI(ctx)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ref, err := r.gg.Reference(plumbing.HEAD, false)
	if err != nil {
		return Head{}, fmt.Errorf("read HEAD in %s: %w", r.dir, err)
	}
	if ref.Type() == plumbing.HashReference {
		return Head{Hash: ref.Hash().String(), Detached: true}, nil
	}
	h := Head{Branch: ref.Target().Short()}
	target, err := r.gg.Reference(ref.Target(), true)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return h, nil // unborn branch
	case err != nil:
		return Head{}, fmt.Errorf("read %s in %s: %w", ref.Target(), r.dir, err)
	}
	h.Hash = target.Hash().String()
	return h, nil
}

// Resolve turns a branch name, tag, full or abbreviated hash into a commit hash.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", unknownRev(rev)
	}
	if r.gg != nil {
		r.mu.Lock()
		h, err := r.gg.ResolveRevision(plumbing.Revision(rev))
		r.mu.Unlock()
		if err == nil {
			return h.String(), nil
		}
	}
	// go-git lacks some revision syntax; the CLI is the authority.
	out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || out == "" {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", unknownRev(rev)
	}
	return out, nil
}

func unknownRev(rev string) error {
	return &detailErr{msg: fmt.Sprintf("unknown commit or branch %q", rev), base: ErrUnknownRevision}
}

// BranchExists reports whether refs/heads/<name> exists.
func (r *Repo) BranchExists(ctx context.Context, name string) (bool, error) {
	return r.refExists(ctx, "refs/heads/"+name)
}

func (r *Repo) refExists(ctx context.Context, ref string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if r.gg == nil {
		return r.refExistsCLI(ctx, ref)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.gg.Reference(plumbing.ReferenceName(ref), false)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", ref, err)
	}
	return true, nil
}

// treeOf returns the tree hash of a commit.
func (r *Repo) treeOf(ctx context.Context, hash string) (string, error) {
	if r.gg == nil {
		return r.git(ctx, "rev-parse", "--verify", "--end-of-options", hash+"^{tree}")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.commitObject(plumbing.NewHash(hash))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", hash, err)
	}
	return c.TreeHash.String(), nil
}

// commitObject reads a commit through go-git. go-git lists pack files once,
// so after the engineer's `git gc` packs objects behind our back it may miss
// one: reopen and look again before giving up. Callers hold r.mu.
func (r *Repo) commitObject(h plumbing.Hash) (*object.Commit, error) {
	c, err := r.gg.CommitObject(h)
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return c, err
	}
	gg, oerr := r.openGoGit()
	if oerr != nil {
		return nil, err
	}
	r.gg = gg
	return r.gg.CommitObject(h)
}

// Status lists changed paths: staged, unstaged and untracked (not ignored),
// one entry per file, renames shown as a deletion plus an addition. An
// untracked nested repository is not listed: no operation here touches it.
func (r *Repo) Status(ctx context.Context) ([]Change, error) {
	out, err := r.cmd("status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all").run(ctx)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", r.dir, err)
	}
	var cs []Change
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 {
			continue
		}
		c := Change{X: e[0], Y: e[1], Path: e[3:]}
		if c.X == '?' && strings.HasSuffix(c.Path, "/") {
			continue // an untracked nested repository: the engineer's, not a change
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// IsDirty reports whether the working tree or index differs from HEAD, or
// holds untracked files that are not ignored (untracked nested repositories
// aside, as in Status).
func (r *Repo) IsDirty(ctx context.Context) (bool, error) {
	cs, err := r.changes(ctx)
	return len(cs) > 0, err
}

// changes is Status behind a cheaper first look (untracked directories not
// listed file by file): a clean tree is the common case before a checkout.
func (r *Repo) changes(ctx context.Context) ([]Change, error) {
	out, err := r.cmd("status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=normal").run(ctx)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", r.dir, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return r.Status(ctx)
}

// requireClean returns ErrDirty, naming a few changed paths, unless the
// working tree is clean.
func (r *Repo) requireClean(ctx context.Context) error {
	cs, err := r.changes(ctx)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return nil
	}
	var names []string
	for i, c := range cs {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(cs)-5))
			break
		}
		names = append(names, strings.TrimSpace(string([]byte{c.X, c.Y}))+" "+c.Path)
	}
	return &detailErr{msg: fmt.Sprintf("%s (%s)", ErrDirty.Error(), strings.Join(names, ", ")), base: ErrDirty}
}
