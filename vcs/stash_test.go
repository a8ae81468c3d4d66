package vcs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPutAsideRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	r := openT(t, dir)
	before := stateOf(t, dir)
	clean := treeFiles(t, newRepo(t))
	clean["debug.log"] = before.Files["debug.log"] // ignored files stay where they are

	saved, err := r.PutAside(ctx, "r1/before-h1")
	if err != nil {
		t.Fatal(err)
	}
	if saved == "" {
		t.Fatal("PutAside saved nothing from a dirty tree")
	}
	if st := gitT(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("status after PutAside = %q, want clean", st)
	}
	diffState(t, repoState{Files: clean}, repoState{Files: treeFiles(t, dir)})
	if _, err := os.Stat(filepath.Join(dir, "notes")); !os.IsNotExist(err) {
		t.Errorf("emptied untracked directory notes/ left behind: %v", err)
	}
	if got := strings.TrimSpace(gitT(t, dir, "stash", "list")); got != "" {
		t.Errorf("the engineer's stash list changed: %q", got)
	}

	if err := r.Restore(ctx, "r1/before-h1"); err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))

	// The same name again: the newest wins, the first stays in the reflog.
	if _, err := r.PutAside(ctx, "r1/before-h1"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "app.py", "second state\n")
	second, err := r.PutAside(ctx, "r1/before-h1")
	if err != nil {
		t.Fatal(err)
	}
	if log := gitT(t, dir, "reflog", "show", "--format=%H", StashRefPrefix+"r1/before-h1"); !strings.Contains(log, saved) {
		t.Errorf("earlier state %s not kept in the reflog:\n%s", saved, log)
	}
	if err := r.Restore(ctx, "r1/before-h1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "app.py"); got != "second state\n" || second == saved {
		t.Errorf("restored app.py = %q, want the newest state", got)
	}
}

// The saved commit has git stash's layout, so the engineer can recover it by
// hand with the tool they know.
func TestPutAsideIsStashCompatible(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	r := openT(t, dir)
	if _, err := r.PutAside(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "stash", "apply", "--index", "-q", StashRefPrefix+"manual")
	after := stateOf(t, dir)
	if after.Staged != before.Staged || after.Unstaged != before.Unstaged {
		t.Errorf("git stash apply --index differs:\nstaged %q\nwant   %q\nunstaged %q\nwant     %q",
			after.Staged, before.Staged, after.Unstaged, before.Unstaged)
	}
	if after.Files["notes/todo.txt"] != before.Files["notes/todo.txt"] {
		t.Errorf("untracked file not restored by git stash apply")
	}
}

func TestPutAsideCleanAndRestoreRefusals(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	if saved, err := r.PutAside(ctx, "x"); err != nil || saved != "" {
		t.Errorf("PutAside on a clean tree = %q, %v; want nothing saved", saved, err)
	}
	if err := r.Restore(ctx, "x"); err == nil {
		t.Error("Restore of a name never saved succeeded")
	}
	write(t, dir, "app.py", "changed\n")
	if _, err := r.PutAside(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "other.py", "new work\n")
	if err := r.Restore(ctx, "y"); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("Restore over a dirty tree: err = %v, want a refusal", err)
	}
	if read(t, dir, "other.py") != "new work\n" {
		t.Error("refused Restore touched the working tree")
	}
}

func TestSnapshotLeavesCheckoutAlone(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	r := openT(t, dir)
	snap, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))
	files := gitT(t, dir, "ls-tree", "-r", "--name-only", snap)
	for _, want := range []string{"notes/todo.txt", "lib/staged_new.py", "exec.sh"} {
		if !strings.Contains(files, want) {
			t.Errorf("snapshot lacks %s: %s", want, files)
		}
	}
	for _, absent := range []string{"debug.log", "old.txt", "gone.txt"} {
		if strings.Contains(files, absent) {
			t.Errorf("snapshot holds %s: %s", absent, files)
		}
	}
	if got := gitT(t, dir, "show", snap+":app.py"); got != read(t, dir, "app.py") {
		t.Errorf("snapshot app.py = %q", got)
	}
	if mode := gitT(t, dir, "ls-tree", snap, "exec.sh"); !strings.HasPrefix(mode, "100755") {
		t.Errorf("exec bit lost: %q", mode)
	}
	clean := newRepo(t)
	head := strings.TrimSpace(gitT(t, clean, "rev-parse", "HEAD"))
	if s, err := openT(t, clean).Snapshot(ctx); err != nil || s != head {
		t.Errorf("Snapshot of a clean tree = %s, %v; want HEAD %s", s, err, head)
	}
}

// An untracked nested repository is the engineer's: PutAside neither saves
// nor removes it, and still puts the rest aside.
func TestPutAsideLeavesNestedRepository(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	nested := filepath.Join(dir, "vendor", "lib")
	gitT(t, dir, "init", "-q", nested)
	write(t, nested, "own.txt", "nested work\n")
	write(t, dir, "app.py", "changed\n")
	r := openT(t, dir)
	if _, err := r.PutAside(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	if read(t, nested, "own.txt") != "nested work\n" {
		t.Error("nested repository touched")
	}
	if read(t, dir, "app.py") == "changed\n" {
		t.Error("app.py not put aside")
	}
	if err := r.Restore(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "app.py") != "changed\n" {
		t.Error("app.py not restored")
	}
}

// A file name cannot rewrite the modes a restore applies: a 0600 file named
// "a\n0777 lnk" beside a symlink lnk pointing outside the repository must
// not make Restore chmod the link's target.
func TestRestoreModesCannotBeInjected(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("not yours\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "lnk")); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "a\n0777 lnk")
	if err := os.WriteFile(evil, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "app.py", "changed\n")
	r := openT(t, dir)
	if _, err := r.PutAside(ctx, "inject"); err != nil {
		t.Fatal(err)
	}
	if err := r.Restore(ctx, "inject"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the link's target outside the repository is now %v (%v); want 0644 untouched", fi.Mode(), err)
	}
	if fi, err := os.Lstat(evil); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the oddly named file came back %v (%v); want 0600", fi.Mode(), err)
	}
}
