package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openResolved opens resolved, a path with no symlinks left in it, beneath
// the root. RESOLVE_NO_SYMLINKS turns a symlink swapped in since resolve
// looked into an error rather than a way out; RESOLVE_BENEATH keeps ".."
// and absolute paths from leaving the root whatever happens. O_NONBLOCK
// keeps a FIFO from holding the tool forever (readText refuses it).
func (w *Workspace) openResolved(resolved string, flag int, perm fs.FileMode) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC | unix.O_NONBLOCK),
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_SYMLINKS,
	}
	for {
		fd, err := unix.Openat2(int(w.dir.Fd()), resolved, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(w.real, filepath.FromSlash(resolved))), nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			// No openat2 (Linux before 5.6, or a seccomp filter): walk.
			return w.root.OpenFile(filepath.FromSlash(resolved), flag, perm)
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return nil, pathErr("%s changed while it was being opened (a symlink appeared on the way); try again", resolved)
		}
		return nil, &fs.PathError{Op: "open", Path: resolved, Err: err}
	}
}

// recheck looks at where the open file really is, as the kernel names it,
// and refuses it if a rename moved a git directory onto the way after
// resolve checked it. Without /proc there is nothing more to learn.
func (w *Workspace) recheck(rel string, f *os.File) error {
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		return nil
	}
	r, ok := within(w.real, real)
	if !ok {
		return pathErr("%s is outside the workspace", rel)
	}
	return w.checkGit(rel, rel, filepath.ToSlash(r))
}
