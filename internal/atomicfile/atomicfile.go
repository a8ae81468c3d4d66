// Package atomicfile is the one way swe-adept replaces a file that must
// survive (run artifacts, memory, run state, caches, every --out), so that
// a reader, or a process killed mid-write, never sees half a file: the data goes to a temporary file with
// a name of its own beside the target, is synced, and is renamed over it;
// then the folder is synced, so that after a power cut the new name is
// there too, not only the data.
package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotRegular: the target exists and is not a regular file (a symlink,
// a device, a folder), which a rename would destroy.
var ErrNotRegular = errors.New("not a regular file")

// Write replaces path with data atomically. It refuses to replace anything
// but a regular file (or nothing), and the new file keeps the old one's
// mode.
func Write(path string, data []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path atomically with what write writes, as Write
// does, for content too large to build in memory first. Writes reach the
// file unbuffered: a caller that writes in small pieces buffers them. If
// write fails, path is left as it was.
func WriteFunc(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return f.Commit()
}

// File is the new content of a file, written over time and shown at its
// name only by Commit. A file abandoned without Commit (Abort) leaves the
// old one as it was.
type File struct {
	path string
	tmp  *os.File
	done bool
}

// Create starts replacing path. It fails at once where Commit would: the
// target is not a regular file, or its folder cannot hold a new file. The
// new file keeps the old one's mode (0644 if there is none).
func Create(path string) (*File, error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return nil, err
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	return &File{path: path, tmp: tmp}, nil
}

// Write adds p to the new content.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit syncs the new content, renames it over the target and syncs the
// folder. It refuses a target that became a special file since Create.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("save %s: already committed or abandoned", f.path)
	}
	f.done = true
	defer os.Remove(f.tmp.Name()) // after the rename: nothing there
	if err := errors.Join(f.tmp.Sync(), f.tmp.Close()); err != nil {
		return fmt.Errorf("save %s: %w", f.path, err)
	}
	if fi, err := os.Lstat(f.path); err == nil {
		if err := regular(f.path, fi); err != nil {
			return err
		}
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return fmt.Errorf("save %s: %w", f.path, err)
	}
	if err := syncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("save %s: sync its folder: %w", f.path, err)
	}
	return nil
}

// Abort abandons the new content; after Commit it does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

func regular(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("save %s: %w (it is a %s); name a file to write", path, ErrNotRegular, kind(fi.Mode()))
	}
	return nil
}

// Rename renames oldpath (a file, or a folder written in full) to
// newpath and makes the rename durable: a crash after Rename returns
// leaves newpath in place.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(newpath)); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(newpath), err)
	}
	return nil
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// folder (some network ones) say so with EINVAL; nothing more can be done
// there.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// WriteJSON replaces path with v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return Write(path, append(b, '\n'))
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "folder"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "device"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
