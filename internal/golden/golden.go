// Package golden compares test output with a golden file, rewrites the
// file when the tests run with -update, and shows a mismatch as a unified
// diff. It is for tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	// x/exp/golden defines -update, and teatest brings it into the UI's
	// tests; a second definition would panic. Importing it here makes it
	// initialise first, so every test binary has the one flag.
	_ "github.com/charmbracelet/x/exp/golden"
)

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

// Updating reports whether the tests run with -update.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Check compares got with testdata/<name>.golden; name may have folders
// (t.Name() of a subtest does).
func Check(t testing.TB, name, got string) {
	t.Helper()
	CheckFile(t, filepath.Join("testdata", filepath.FromSlash(name)+".golden"), got)
}

// CheckFile compares got with the file at path, for a golden shared
// between packages or not named .golden. Under -update it writes got
// there instead, making the folder if need be.
func CheckFile(t testing.TB, path, got string) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
		return
	}
	if string(want) != got {
		t.Errorf("output differs from %s (run with -update to accept it, then review the diff):\n%s",
			path, udiff.Unified(path, "got", string(want), got))
	}
}
