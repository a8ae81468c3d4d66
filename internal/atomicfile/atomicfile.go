// Package atomicfile writes run artifacts so that a reader, or a run killed
// mid-write, never sees half a file: the data goes to a temporary file with
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
	mode := os.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("save %s: %w (it is a %s); name a file to write", path, ErrNotRegular, kind(fi.Mode()))
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", path, err)
	}
	werr := write(tmp)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save %s: sync its folder: %w", path, err)
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
