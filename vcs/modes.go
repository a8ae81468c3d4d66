package vcs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// git keeps only a file's executable bit: a 0600 file it writes back comes
// out 0644 (0666 less the umask). What it would lose is recorded as JSON,
// never as lines of names: a file name may hold a newline, and a list split
// on newlines lets a name forge entries. Modes are applied only to paths
// that were regular files when recorded and are regular files still,
// reached without following any symbolic link.

// fileMode is the exact permission bits of one regular file.
type fileMode struct {
	Path string      `json:"path"` // slash-separated, relative to the top of the working tree
	Perm fs.FileMode `json:"perm"`
}

// modesTag starts the line of a set-aside commit's message that holds its
// file modes as JSON.
const modesTag = "swe-adept modes: "

var (
	umaskOnce sync.Once
	umaskVal  fs.FileMode = 0o022
)

// umask is this process's file mode creation mask, read without changing
// it (Linux 4.7+); 022 where it cannot be read.
func umask() fs.FileMode {
	umaskOnce.Do(func() {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					umaskVal = fs.FileMode(n)
				}
			}
		}
	})
	return umaskVal
}

// gitPerm is the permission git gives a file it writes.
func gitPerm(perm fs.FileMode) fs.FileMode {
	if perm&0o100 != 0 {
		return 0o777 &^ umask()
	}
	return 0o666 &^ umask()
}

// modesOf lists the regular files among paths whose permissions git would
// not bring back.
func (r *Repo) modesOf(paths []string) []fileMode {
	var out []fileMode
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if perm := fi.Mode().Perm(); perm != gitPerm(perm) {
			out = append(out, fileMode{Path: p, Perm: perm})
		}
	}
	return out
}

func encodeModes(modes []fileMode) (string, error) {
	if len(modes) == 0 {
		return "", nil
	}
	b, err := json.Marshal(modes)
	if err != nil {
		return "", fmt.Errorf("record file modes: %w", err)
	}
	return "\n\n" + modesTag + string(b), nil
}

// decodeModes reads the modes line of a commit message; a message without
// one (or with the older newline-separated list, which is not trusted)
// gives none.
func decodeModes(msg string) ([]fileMode, error) {
	for _, line := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(line, modesTag); ok {
			var modes []fileMode
			if err := json.Unmarshal([]byte(v), &modes); err != nil {
				return nil, fmt.Errorf("read the recorded file modes: %w", err)
			}
			return modes, nil
		}
	}
	return nil, nil
}

// applyModes gives each recorded file its permissions back, where it is
// still a regular file beneath the working tree. A path that is gone or is
// no longer a regular file is left alone.
func (r *Repo) applyModes(modes []fileMode) error {
	var errs []error
	for _, m := range modes {
		if err := validRel(m.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := chmodBeneath(r.dir, m.Path, m.Perm.Perm()); err != nil {
			errs = append(errs, fmt.Errorf("restore the mode of %q: %w", m.Path, err))
		}
	}
	return errors.Join(errs...)
}

// validRel refuses a recorded path that could leave the working tree.
func validRel(p string) error {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if p == "" || filepath.IsAbs(p) || clean != p || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("recorded path %q is not inside the working tree", p)
	}
	return nil
}

// modesDiffer lists the recorded files whose permissions differ now.
func (r *Repo) modesDiffer(modes []fileMode) []string {
	var bad []string
	for _, m := range modes {
		fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(m.Path)))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != m.Perm.Perm() {
			bad = append(bad, m.Path)
		}
	}
	return bad
}
