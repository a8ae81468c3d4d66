//go:build !linux

package vcs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// chmodBeneath sets the permissions of the regular file rel beneath root,
// after checking that no component of the path is a symbolic link.
func chmodBeneath(root, rel string, perm fs.FileMode) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() == perm {
		return nil
	}
	if realPath(p) != filepath.Join(realPath(root), filepath.FromSlash(rel)) {
		return fmt.Errorf("a link leads from %q out of the working tree", rel)
	}
	return os.Chmod(p, perm)
}
