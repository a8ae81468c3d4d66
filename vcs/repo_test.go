package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenNotRepository(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(context.Background(), dir)
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Open(%s) = %v, want ErrNotRepository", dir, err)
	}
	want := "not a git repository: " + dir + " (run git init, or pass --repo)"
	if err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
}

func TestHeadMatchesCLI(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	h, err := r.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := gitT(t, dir, "rev-parse", "HEAD"); h.Hash != strings.TrimSpace(want) || h.Branch != "main" || h.Detached {
		t.Errorf("Head = %+v, want %s on main", h, want)
	}
	gitT(t, dir, "checkout", "-q", "--detach")
	h, err = r.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Detached || h.Branch != "" {
		t.Errorf("Head after detach = %+v, want detached", h)
	}
}

func TestCommitBranchCheckout(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	base := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))

	if err := r.CreateBranchAt(ctx, "swe-adept/r1/h1", base); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "symbolic-ref", "--short", "HEAD")); got != "swe-adept/r1/h1" {
		t.Fatalf("checked out %q, want swe-adept/r1/h1", got)
	}
	write(t, dir, "app.py", "def main():\n    return 42\n")
	write(t, dir, "new/mod.py", "A = 1\n")
	write(t, dir, "trace.log", "ignored by .gitignore\n")
	c1, err := r.CommitAll(ctx, "step 1: return 42\n\nbody")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", "swe-adept/r1/h1")); got != c1 {
		t.Errorf("branch at %s, want the new commit %s", got, c1)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", c1+"^")); got != base {
		t.Errorf("parent %s, want %s", got, base)
	}
	files := gitT(t, dir, "ls-tree", "-r", "--name-only", c1)
	if !strings.Contains(files, "new/mod.py") || strings.Contains(files, "trace.log") {
		t.Errorf("commit tree = %q: want new/mod.py and no ignored trace.log", files)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("status after CommitAll = %q, want clean", st)
	}
	if got := gitT(t, dir, "log", "-1", "--format=%s|%an|%cn", c1); strings.TrimSpace(got) != "step 1: return 42|Test Author|Test Committer" {
		t.Errorf("log = %q", got)
	}
	if reflog := gitT(t, dir, "reflog", "-1", "--format=%gs", "swe-adept/r1/h1"); !strings.Contains(reflog, "step 1") {
		t.Errorf("reflog = %q, want the commit subject", reflog)
	}

	if err := r.CheckoutDetached(ctx, base); err != nil {
		t.Fatal(err)
	}
	h, err := r.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Detached || h.Hash != base || read(t, dir, "app.py") != "def main():\n    return 1\n" {
		t.Errorf("after CheckoutDetached: head %+v, app.py %q", h, read(t, dir, "app.py"))
	}
	// A commit on a detached HEAD moves HEAD only.
	write(t, dir, "app.py", "detached\n")
	c2, err := r.CommitAll(ctx, "detached work")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD")); got != c2 {
		t.Errorf("HEAD %s, want %s", got, c2)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", "main")); got != base {
		t.Errorf("main moved to %s", got)
	}
}

func TestCommitAllNothingToCommit(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	write(t, dir, "only.log", "ignored files are not changes\n")
	if _, err := r.CommitAll(ctx, "nothing"); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("CommitAll on a clean tree = %v, want ErrNothingToCommit", err)
	}
	if _, err := r.CommitAll(ctx, "  "); err == nil || errors.Is(err, ErrNothingToCommit) {
		t.Errorf("empty message: err = %v, want a message error", err)
	}
}

func TestCommitAllUnbornBranch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "trunk")
	r := openT(t, dir)
	if _, err := r.CommitAll(ctx, "empty"); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("CommitAll on an empty repo = %v, want ErrNothingToCommit", err)
	}
	write(t, dir, "a.txt", "a\n")
	c, err := r.CommitAll(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", "trunk")); got != c {
		t.Errorf("trunk = %s, want %s", got, c)
	}
}

func TestBranchAndCheckoutErrors(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	gitT(t, dir, "branch", "swe-adept/r1/h2")
	tests := []struct {
		name    string
		do      func() error
		is      error
		message string
	}{
		{"exists", func() error { return r.CreateBranchAt(ctx, "swe-adept/r1/h2", "HEAD") },
			ErrBranchExists, "branch swe-adept/r1/h2 already exists; choose another name"},
		{"unknown", func() error { return r.CreateBranchAt(ctx, "swe-adept/r1/h3", "deadbeef") },
			ErrUnknownRevision, `unknown commit or branch "deadbeef"`},
		{"invalid", func() error { return r.CreateBranchAt(ctx, "bad name..", "HEAD") },
			nil, "invalid branch name"},
		{"dirty", func() error {
			write(t, dir, "scratch.py", "print(1)\n")
			return r.CreateBranchAt(ctx, "swe-adept/r1/h4", "HEAD")
		}, ErrDirty, "working tree has uncommitted changes: commit them with commit_todo or revert first (?? scratch.py)"},
		{"dirty detached", func() error { return r.CheckoutDetached(ctx, "HEAD") },
			ErrDirty, "uncommitted changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("err = %q, want it to contain %q", err, tt.message)
			}
		})
	}
	if got := strings.TrimSpace(gitT(t, dir, "symbolic-ref", "--short", "HEAD")); got != "main" {
		t.Errorf("a refused operation moved HEAD to %s", got)
	}
}

func TestStatusAndResolve(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	if dirty, err := r.IsDirty(ctx); err != nil || dirty {
		t.Fatalf("IsDirty on a clean tree = %v, %v", dirty, err)
	}
	makeDirty(t, dir)
	if dirty, err := r.IsDirty(ctx); err != nil || !dirty {
		t.Fatalf("IsDirty on a dirty tree = %v, %v", dirty, err)
	}
	cs, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, string([]byte{c.X, c.Y})+" "+c.Path)
	}
	want := gitT(t, dir, "status", "--porcelain", "--untracked-files=all", "--no-renames")
	if strings.Join(got, "\n")+"\n" != want {
		t.Errorf("Status =\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	full := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	for _, rev := range []string{"HEAD", "main", full, full[:8], "HEAD~0"} {
		if h, err := r.Resolve(ctx, rev); err != nil || h != full {
			t.Errorf("Resolve(%q) = %q, %v; want %s", rev, h, err, full)
		}
	}
}

// The engineer may run `git gc` while a run holds the repository open; reads
// through go-git must still find the objects once they are packed.
func TestReadsSurviveRepack(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	gitT(t, dir, "gc", "-q") // go-git's first read below lists this pack
	r := openT(t, dir)
	write(t, dir, "app.py", "before gc\n")
	c1, err := r.CommitAll(ctx, "loose")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "app.py", "after gc\n")
	gitT(t, dir, "commit", "-q", "-am", "made by the engineer")
	gitT(t, dir, "gc", "-q", "--prune=now")
	c2, err := r.CommitAll(ctx, "") // empty message: refused before any read
	if err == nil {
		t.Fatalf("empty message committed %s", c2)
	}
	write(t, dir, "app.py", "after gc, again\n")
	c3, err := r.CommitAll(ctx, "after repack")
	if err != nil {
		t.Fatal(err)
	}
	if parent := strings.TrimSpace(gitT(t, dir, "rev-parse", c3+"^^")); parent != c1 {
		t.Errorf("grandparent %s, want %s", parent, c1)
	}
}

// Branch names come from the model. Whatever validBranchName accepts, git
// must accept too, or the tool would fail with git's less helpful message.
func FuzzBranchName(f *testing.F) {
	for _, s := range []string{"swe-adept/r1/h1", "fix-tokenizer", "a..b", "-x", "x.lock", "a/.b", "a b", "ü/ok",
		"a@{1}", "a//b", "x/", "HEAD", "@", "a\\b", "v1.2", "a/b.", "ok_name-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if validBranchName(name) != nil {
			return
		}
		if out, err := gitRaw(t.TempDir(), nil, "check-ref-format", "--branch", name); err != nil {
			t.Errorf("validBranchName accepted %q, git refuses: %s", name, out)
		}
	})
}

// CommitAll and the workspace snapshot honour every ignore source git does:
// nested .gitignore files and .git/info/exclude.
func TestIgnoreSources(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, ".git/info/exclude", "secret.env\n")
	write(t, dir, "sub/.gitignore", "*.tmp\n")
	write(t, dir, "sub/keep.py", "k = 1\n")
	write(t, dir, "sub/scratch.tmp", "ignored\n")
	write(t, dir, "secret.env", "TOKEN=x\n")
	ws, err := OpenWorkspace(ctx, dir, "ign", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"secret.env", "sub/scratch.tmp"} {
		if _, err := os.Stat(filepath.Join(ws.Dir, f)); !os.IsNotExist(err) {
			t.Errorf("ignored %s reached the run's worktree", f)
		}
	}
	c, err := openT(t, dir).CommitAll(ctx, "with ignores")
	if err != nil {
		t.Fatal(err)
	}
	files := gitT(t, dir, "ls-tree", "-r", "--name-only", c)
	if !strings.Contains(files, "sub/keep.py") || strings.Contains(files, "secret.env") || strings.Contains(files, "scratch.tmp") {
		t.Errorf("committed files:\n%s", files)
	}
}

func TestDetachKeepsIndexAndWorkingTree(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	r := openT(t, dir)
	if err := r.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	after := stateOf(t, dir)
	if after.Branch != "HEAD" || after.Head != before.Head {
		t.Errorf("after Detach: HEAD %s on %q, want %s detached", after.Head, after.Branch, before.Head)
	}
	after.Branch = before.Branch
	diffState(t, before, after)
	write(t, dir, "later.py", "x\n")
	if _, err := r.CommitAll(ctx, "on the detached HEAD"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "rev-parse", "main")); got != before.Head {
		t.Errorf("main moved to %s", got)
	}
}

func TestValidBranchNameMatchesGit(t *testing.T) {
	for _, name := range []string{"swe-adept/r1/fix", "a..b", "x.lock", "-x", "a b", "a/.b", "ok_2"} {
		_, gitErr := gitRaw(t.TempDir(), nil, "check-ref-format", "--branch", name)
		if err := ValidBranchName(name); (err == nil) != (gitErr == nil) {
			t.Errorf("ValidBranchName(%q) = %v, git check-ref-format says %v", name, err, gitErr)
		}
	}
}
