package vcs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// chmodBeneath sets the permissions of the regular file rel beneath root.
// The path is resolved with openat2 so that no component, the last one
// included, may be a symbolic link or lead out of root: a link planted
// where a file was never has its target's mode changed. The file is
// changed through the descriptor, so a swap after the check changes
// nothing else either. A missing path is not an error.
func chmodBeneath(root, rel string, perm fs.FileMode) error {
	dirfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) {
		return chmodChecked(root, rel, perm)
	}
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return nil // a link now stands where the file was: not ours to change
	case err != nil:
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || fs.FileMode(st.Mode&0o777) == perm {
		return nil
	}
	// chmod through the descriptor's /proc entry changes the file the
	// descriptor holds (an O_PATH descriptor refuses fchmod).
	return os.Chmod("/proc/self/fd/"+strconv.Itoa(fd), perm)
}

// chmodChecked is the fallback for kernels without openat2 (before 5.6):
// each component is checked not to be a link before the change.
func chmodChecked(root, rel string, perm fs.FileMode) error {
	fi, err := os.Lstat(root + "/" + rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() == perm {
		return nil
	}
	if real := realPath(root + "/" + rel); real != realPath(root)+"/"+rel {
		return fmt.Errorf("a link leads from %q out of the working tree", rel)
	}
	return os.Chmod(root+"/"+rel, perm)
}
