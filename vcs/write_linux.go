package vcs

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// writeBeneath puts a file (mode 100644 or 100755) or a link (120000) at
// rel beneath root, replacing what is there atomically (a temporary file
// renamed over it). Every folder on the way is reached with openat2
// without following links, so a link the run left where a folder was
// cannot send the bytes out of the working tree; missing folders are
// made.
func writeBeneath(root, rel string, data []byte, mode string) error {
	dirfd, err := openDirBeneath(root, path.Dir(rel))
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	name := path.Base(rel)
	tmp := ".swe-adept-put-back-" + name
	if len(tmp) > 255 {
		tmp = tmp[:255]
	}
	_ = unix.Unlinkat(dirfd, tmp, 0)
	if mode == "120000" {
		err = unix.Symlinkat(string(data), dirfd, tmp)
	} else {
		err = writeAt(dirfd, tmp, data, mode)
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	return nil
}

func writeAt(dirfd int, name string, data []byte, mode string) error {
	perm := uint32(0o666)
	if mode == "100755" {
		perm = 0o777
	}
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return err
	}
	for len(data) > 0 && err == nil {
		var n int
		n, err = unix.Write(fd, data)
		data = data[n:]
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	return err
}

// openDirBeneath opens the folder rel beneath root, making the folders
// that are missing, following no link.
func openDirBeneath(root, rel string) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if rel == "." || rel == "" {
		return fd, nil
	}
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for _, part := range strings.Split(rel, "/") {
		next, err := unix.Openat2(fd, part, how)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, part, 0o777); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat2(fd, part, how)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("folder %q: %w (a link or a file stands where a folder was?)", rel, err)
		}
		fd = next
	}
	return fd, nil
}
