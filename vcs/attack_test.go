package vcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on our own git: settings that make git run a program, planted
// where a hostile run could plant them, must never run one.

// evilScript writes an executable that records every run in its marker
// file and then does what body says (e.g. pass stdin through, as a filter).
func evilScript(t *testing.T, body string) (script, marker string) {
	t.Helper()
	dir := t.TempDir()
	script, marker = filepath.Join(dir, "evil.sh"), filepath.Join(dir, "ran")
	text := fmt.Sprintf("#!/bin/sh\necho \"$0 $*\" >> '%s'\n%s\n", marker, body)
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// assertNotRun fails the test when the script left its marker.
func assertNotRun(t *testing.T, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("our git ran a configured program as the engineer:\n%s", b)
	}
}

// twoCommits makes a repository with app.py changed between commits A and
// B, and a .gitattributes naming the attacker's drivers for *.py.
func twoCommits(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = newRepo(t)
	write(t, dir, ".gitattributes", "*.py filter=evil diff=evil merge=evil\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "attributes")
	a = strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	write(t, dir, "app.py", "def main():\n    return 2\n")
	gitT(t, dir, "commit", "-q", "-am", "two")
	b = strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	return dir, a, b
}

func TestOurGitRunsNothingConfigured(t *testing.T) {
	ctx := context.Background()
	commit := func(r *Repo, dir, _, _ string) error {
		write(t, dir, "app.py", "def main():\n    return 3\n")
		_, err := r.CommitAll(ctx, "checkpoint")
		return err
	}
	checkout := func(r *Repo, _, a, _ string) error { return r.CheckoutDetached(ctx, a) }
	diff := func(r *Repo, _, a, b string) error {
		_, err1 := r.Patch(ctx, a, b)
		_, err2 := r.DiffStat(ctx, a, b)
		return errors.Join(err1, err2)
	}
	status := func(r *Repo, dir, _, _ string) error {
		write(t, dir, "app.py", "def main():\n    return 4\n")
		_, err := r.Status(ctx)
		return err
	}
	passThrough, fail := "exec cat", "exit 1"
	tests := []struct {
		name   string
		body   string
		config func(script, dir string) []string // key, value pairs
		op     func(r *Repo, dir, a, b string) error
	}{
		{"fsmonitor", fail, func(s, _ string) []string { return []string{"core.fsmonitor", s} }, status},
		{"clean filter", passThrough, func(s, _ string) []string { return []string{"filter.evil.clean", s} }, commit},
		{"smudge filter", passThrough, func(s, _ string) []string { return []string{"filter.evil.smudge", s} }, checkout},
		{"process filter", fail, func(s, _ string) []string { return []string{"filter.evil.process", s} }, commit},
		{"textconv", passThrough, func(s, _ string) []string { return []string{"diff.evil.textconv", s} }, diff},
		{"diff driver command", fail, func(s, _ string) []string { return []string{"diff.evil.command", s} }, diff},
		{"diff.external", fail, func(s, _ string) []string { return []string{"diff.external", s} }, diff},
		{"pager", fail, func(s, _ string) []string { return []string{"core.pager", s, "pager.diff", s, "pager.status", s} }, diff},
		{"editor", fail, func(s, _ string) []string { return []string{"core.editor", s, "sequence.editor", s} }, commit},
		{"signing", fail, func(s, _ string) []string {
			return []string{"commit.gpgSign", "true", "gpg.program", s, "gpg.ssh.defaultKeyCommand", s, "log.showSignature", "true"}
		}, commit},
		{"hooks path", fail, func(s, dir string) []string {
			hooks := filepath.Join(dir, ".git", "evil-hooks")
			for _, h := range []string{"post-checkout", "reference-transaction", "post-index-change", "pre-commit"} {
				write(t, hooks, h, "#!/bin/sh\nexec '"+s+"'\n")
				os.Chmod(filepath.Join(hooks, h), 0o755)
			}
			return []string{"core.hooksPath", hooks}
		}, func(r *Repo, dir, a, b string) error {
			return errors.Join(commit(r, dir, a, b), r.CheckoutDetached(ctx, a))
		}},
		{"lazy fetch through upload-pack", fail, func(s, dir string) []string {
			return []string{"core.repositoryformatversion", "1", "extensions.partialClone", "origin", "remote.origin.promisor", "true",
				"remote.origin.url", "file://" + dir, "remote.origin.uploadpack", s}
		}, missingBlob},
		{"lazy fetch through ssh", fail, func(s, _ string) []string {
			return []string{"core.repositoryformatversion", "1", "extensions.partialClone", "origin", "remote.origin.promisor", "true",
				"remote.origin.url", "ssh://git@example.invalid/x", "core.sshCommand", s, "credential.helper", s, "core.askPass", s}
		}, missingBlob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, a, b := twoCommits(t)
			script, marker := evilScript(t, tt.body)
			kv := tt.config(script, dir)
			for i := 0; i < len(kv); i += 2 {
				gitT(t, dir, "config", kv[i], kv[i+1])
			}
			r := openT(t, dir)
			tt.op(r, dir, a, b) // failing is fine; running the script is not
			assertNotRun(t, marker)
		})
	}
}

// missingBlob deletes the blob of app.py at commit a and checks a out: a
// partial clone fetches missing objects from its promisor remote.
func missingBlob(r *Repo, dir, a, _ string) error {
	ctx := context.Background()
	blob, err := r.git(ctx, "rev-parse", a+":app.py")
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		return err
	}
	return r.CheckoutDetached(ctx, a)
}

// fakeGitDir builds what a hostile command builds inside the workspace: a
// git directory of its own that borrows the real objects, with a copy of
// HEAD and the index, and config lines of its choosing.
func fakeGitDir(t *testing.T, ws *Workspace, config string) string {
	t.Helper()
	admin := ws.Repo.gitDir
	fake := filepath.Join(ws.Dir, ".evil")
	for _, d := range []string{"objects/info", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(fake, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, fake, "objects/info/alternates", filepath.Join(ws.Repo.commonDir, "objects")+"\n")
	write(t, fake, "HEAD", read(t, admin, "HEAD"))
	write(t, fake, "index", read(t, admin, "index"))
	write(t, fake, "config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"+config)
	return fake
}

// TestRewrittenGitPointerIsNotFollowed: a hostile command points the
// worktree's .git file at a git directory of its own whose config names a
// monitor and a filter. Our git keeps using the real git directory: nothing
// runs, and checkpoints land in the real repository.
func TestRewrittenGitPointerIsNotFollowed(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	ws, err := OpenWorkspace(ctx, dir, "r1", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	script, marker := evilScript(t, "exec cat")
	fake := fakeGitDir(t, ws, fmt.Sprintf("\tfsmonitor = %s\n[filter \"evil\"]\n\tclean = %s\n\tsmudge = %s\n", script, script, script))
	write(t, ws.Dir, ".gitattributes", "* filter=evil\n")
	write(t, ws.Dir, ".git", "gitdir: "+fake+"\n")

	write(t, ws.Dir, "app.py", "def main():\n    return 5\n")
	if _, err := ws.Repo.Status(ctx); err != nil {
		t.Error(err)
	}
	c, err := ws.Repo.CommitAll(ctx, "checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.TrimSpace(gitT(t, dir, "--git-dir", ws.Repo.gitDir, "rev-parse", "HEAD")); head != c {
		t.Errorf("the checkpoint %s is not the real worktree's HEAD %s: our git followed the rewritten .git file", c, head)
	}
	if _, err := ws.Repo.Patch(ctx, ws.Original, c); err != nil {
		t.Error(err)
	}
	if err := ws.Repo.CheckoutDetached(ctx, ws.Original); err != nil {
		t.Error(err)
	}
	if _, err := ws.Repo.Snapshot(ctx); err != nil {
		t.Error(err)
	}
	if err := ws.Close(ctx); err != nil {
		t.Error(err)
	}
	assertNotRun(t, marker)
}

// TestIncludeInsideWorkspaceRefused: a repository config that includes a
// file inside the working tree lets whoever edits the tree configure our
// git; an in-place run refuses to start on it, and says why.
func TestIncludeInsideWorkspaceRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ key, value string }{
		{"include.path", "../.gitconfig.local"},
		{"includeIf.gitdir:/.path", "../tools/git.cfg"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			dir := newRepo(t)
			gitT(t, dir, "config", tc.key, tc.value) // the target need not exist yet
			before := stateOf(t, dir)
			_, err := OpenWorkspace(ctx, dir, "r1", Mode{InPlace: true})
			if err == nil || !strings.Contains(err.Error(), "include") || !strings.Contains(err.Error(), filepath.Base(tc.value)) {
				t.Fatalf("OpenWorkspace in place = %v; want a refusal naming the include", err)
			}
			diffState(t, before, stateOf(t, dir))
			// A linked worktree is out of the include's reach: allowed.
			ws, err := OpenWorkspace(ctx, dir, "r2", Mode{})
			if err != nil {
				t.Fatalf("OpenWorkspace in a worktree: %v", err)
			}
			ws.Close(ctx)
		})
	}
}

// TestInPlaceStillRefusesFilters: neutralising filters must not hide them
// from the check that refuses to set aside what a filter would rewrite.
func TestInPlaceStillRefusesFilters(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, ".gitattributes", "*.py filter=upper\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "attributes")
	gitT(t, dir, "config", "filter.upper.clean", "cat")
	_, err := OpenWorkspace(context.Background(), dir, "r1", Mode{InPlace: true})
	if !errors.Is(err, ErrInexact) || !strings.Contains(err.Error(), "filter") {
		t.Fatalf("OpenWorkspace in place with a filter = %v, want ErrInexact naming the filter", err)
	}
}
