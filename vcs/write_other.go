//go:build !linux

package vcs

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeBeneath puts a file (mode 100644 or 100755) or a link (120000) at
// rel beneath root, replacing what is there, after checking that no folder
// on the way is a link out of root.
func writeBeneath(root, rel string, data []byte, mode string) error {
	full := filepath.Join(root, filepath.FromSlash(rel))
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if realPath(dir) != filepath.Join(realPath(root), filepath.Dir(filepath.FromSlash(rel))) {
		return fmt.Errorf("a link leads from %q out of the working tree", rel)
	}
	tmp := filepath.Join(dir, ".swe-adept-put-back-"+filepath.Base(full))
	os.Remove(tmp)
	var err error
	if mode == "120000" {
		err = os.Symlink(string(data), tmp)
	} else {
		perm := os.FileMode(0o666)
		if mode == "100755" {
			perm = 0o777
		}
		err = os.WriteFile(tmp, data, perm)
	}
	if err == nil {
		err = os.Rename(tmp, full)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
