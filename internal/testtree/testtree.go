// Package testtree makes the trees that the tests of several packages work
// on: sample repositories copied from testdata into a test's temporary
// folders, and throwaway git repositories with known commit times.
package testtree

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the tree at src into dst, leaving out __pycache__ folders
// that running a sample's tests may have left.
func Copy(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
