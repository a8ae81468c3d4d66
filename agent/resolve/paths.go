package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace resolves the paths a model names to files inside one directory.
type Workspace struct {
	Root string // absolute, cleaned
	real string // Root with symlinks resolved
}

// NewWorkspace checks that root is a directory.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workspace %s: not a directory", root)
	}
	return &Workspace{Root: filepath.Clean(abs), real: real}, nil
}

// PathError is a path the model must correct; its text says why.
type PathError struct{ Msg string }

func (e *PathError) Error() string { return e.Msg }

func pathErr(format string, args ...any) error { return &PathError{fmt.Sprintf(format, args...)} }

// Resolve turns a model's path (relative to the root, or absolute inside it)
// into an absolute path and the path relative to the root. It refuses
// paths that climb out with .., absolute paths elsewhere, the repository's
// .git, and paths that lead through a symlink to outside the root.
func (w *Workspace) Resolve(p string) (abs, rel string, err error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", "", pathErr("the path is empty; give a path relative to the repository root, e.g. src/module.py")
	case strings.ContainsRune(p, 0):
		return "", "", pathErr("the path contains a NUL byte")
	case strings.HasPrefix(p, "~"):
		return "", "", pathErr("%s is in a home directory, outside the workspace; give a path relative to the repository root", p)
	}
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
		if r, ok := within(w.real, abs); ok {
			abs = filepath.Join(w.Root, r) // the model used the resolved root
		} else if _, ok := within(w.Root, abs); !ok {
			return "", "", pathErr("%s is outside the workspace %s; give a path relative to the repository root", p, w.Root)
		}
	} else {
		abs = filepath.Join(w.Root, p)
	}
	rel, ok := within(w.Root, abs)
	if !ok {
		return "", "", pathErr("%s climbs out of the workspace with ..; give a path inside the repository", p)
	}
	if namesGitDir(rel) {
		return "", "", pathErr("%s is inside the repository's .git, which the run manages; use the hypothesis_git tools for version control", p)
	}
	if err := w.checkLinks(p, abs); err != nil {
		return "", "", err
	}
	return abs, rel, nil
}

// within returns target relative to root if target is root or below it.
func within(root, target string) (string, bool) {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// checkLinks resolves the deepest existing ancestor of abs (abs itself if it
// exists) and checks that it stays inside the root.
func (w *Workspace) checkLinks(p, abs string) error {
	cur := abs
	for {
		_, err := os.Lstat(cur)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return pathErr("%s: %v", p, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return nil
		}
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return pathErr("%s: a symlink on the way cannot be followed: %v", p, err)
	}
	if _, ok := within(w.real, real); !ok {
		return pathErr("%s leads through a symlink to %s, outside the workspace; only files inside the repository can be viewed or edited", p, real)
	}
	return nil
}
