//go:build !linux

package resolve

import (
	"io/fs"
	"os"
	"path/filepath"
)

// openResolved opens resolved beneath the root with os.Root, which walks
// the path one component at a time and never leaves the root.
func (w *Workspace) openResolved(resolved string, flag int, perm fs.FileMode) (*os.File, error) {
	return w.root.OpenFile(filepath.FromSlash(resolved), flag, perm)
}

// recheck has no way to ask where an open file is here; os.Root kept it
// beneath the root, and resolve checked the way.
func (w *Workspace) recheck(string, *os.File) error { return nil }
