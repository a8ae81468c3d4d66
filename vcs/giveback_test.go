package vcs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What git alone would not give back comes back exactly after an in-place
// run that rewrote a 0600 file, un-ignored and changed an ignored file,
// and put a link to a folder outside where a folder of ignored files was:
// the bytes and modes of every file, ORIG_HEAD, and nothing written
// outside the checkout.
func TestGiveBackRestoresWhatGitDoesNot(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "private.cfg", "secret=1\n")
	gitT(t, dir, "add", "private.cfg")
	gitT(t, dir, "commit", "-q", "-m", "private")
	chmod(t, dir, "private.cfg", 0o600)
	makeDirty(t, dir)
	write(t, dir, "build/cache/x.o", "\x00ignored object\r\n")
	chmod(t, dir, "debug.log", 0o640)
	origHead := filepath.Join(dir, ".git", "ORIG_HEAD")
	if err := os.WriteFile(origHead, []byte("1111111111111111111111111111111111111111\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, dir)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.o"), []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}

	ws, err := OpenWorkspace(ctx, dir, "r1", Mode{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "private.cfg")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "private.cfg", "secret=2\n") // a new file: 0644
	write(t, dir, ".gitignore", "build/\n")    // debug.log is visible now
	write(t, dir, "debug.log", "the run's own log\n")
	if err := os.RemoveAll(filepath.Join(dir, "build", "cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "build", "cache")); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Repo.CommitAll(ctx, "the run commits everything, debug.log included"); err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(ctx); err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))
	if fi, err := os.Lstat(filepath.Join(dir, "private.cfg")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("private.cfg came back %v, %v; want 0600", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(origHead); !strings.HasPrefix(string(b), "1111") {
		t.Errorf("ORIG_HEAD = %q, want it as it was", b)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "x.o")); err != nil || string(b) != "not yours" {
		t.Errorf("the give-back wrote outside the checkout: %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the give-back wrote outside the checkout: %v", ents)
	}
}

func chmod(t *testing.T, dir, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), mode); err != nil {
		t.Fatal(err)
	}
}
