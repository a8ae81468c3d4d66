package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(p, []byte("old and longer content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("content = %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteJSON(p, func() {}); err == nil {
		t.Error("an unencodable value must fail")
	}
	if err := Write(filepath.Join(dir, "no", "such", "dir", "x"), nil); err == nil {
		t.Error("a missing folder must fail")
	}
}

// TestWriteRefusesWhatItWouldDestroy: a symlink, a device or a folder at
// the target is refused and left as it was; a regular file keeps its mode.
func TestWriteRefusesWhatItWouldDestroy(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, "/dev/null", dir} {
		if err := Write(p, []byte("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Write(%s) = %v, want ErrNotRegular", p, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Error("the symlink's target was written")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if err := Write(target, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old 0600", fi.Mode().Perm())
	}
}

// TestWriteFuncKeepsTheOldFileWhenWritingFails: content streamed by the
// caller replaces the file only when the caller finishes without error.
func TestWriteFuncKeepsTheOldFileWhenWritingFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache.bin")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("encoder broke")
	err := WriteFunc(p, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half of the new"); err != nil {
			return err
		}
		return broken
	})
	if !errors.Is(err, broken) {
		t.Fatalf("WriteFunc = %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	err = WriteFunc(p, func(w io.Writer) error {
		for _, piece := range []string{"new ", "in ", "pieces"} {
			if _, err := io.WriteString(w, piece); err != nil {
				return err
			}
		}
		return nil
	})
	if b, _ := os.ReadFile(p); err != nil || string(b) != "new in pieces" {
		t.Errorf("streamed write: %q, %v", b, err)
	}
}

// TestCreateShowsNothingUntilCommit: a file written over a long time (a
// prediction a line at a time) is invisible at its name until Commit, an
// Abort leaves the old file, and a special file put at the name meanwhile
// is refused at Commit, not replaced.
func TestCreateShowsNothingUntilCommit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "preds.jsonl")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "{}\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file is visible before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing to undo
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Errorf("committed %q", b)
	}

	f, err = Create(p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "discarded")
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Errorf("after Abort the file holds %q", b)
	}

	f, err = Create(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), p); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Commit over a symlink put there meanwhile = %v, want ErrNotRegular", err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if _, err := Create(filepath.Join(dir, "no", "such", "x")); err == nil {
		t.Error("Create in a missing folder must fail at once")
	}
}

// TestRenamePublishesAFolder: a folder written in full takes its final
// name; a missing source is an error and creates nothing.
func TestRenamePublishesAFolder(t *testing.T) {
	dir := t.TempDir()
	stage, final := filepath.Join(dir, ".x.partial"), filepath.Join(dir, "x")
	if err := os.Mkdir(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "done.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Rename(stage, final); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(final, "done.json")); err != nil {
		t.Errorf("the folder was not published: %v", err)
	}
	if err := Rename(stage, filepath.Join(dir, "y")); err == nil {
		t.Error("renaming a missing folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "y")); !os.IsNotExist(err) {
		t.Errorf("a failed rename left %s: %v", filepath.Join(dir, "y"), err)
	}
}
