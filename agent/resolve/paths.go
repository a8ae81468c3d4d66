package resolve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Workspace resolves the paths a model names to files inside one directory.
//
// The file tools run in this process, outside the sandbox that confines the
// shell, so the workspace is their confinement: every file is opened
// beneath the root without following a symlink out of it (openat2 with
// RESOLVE_BENEATH on Linux, a component-by-component walk elsewhere), read
// and written through that one descriptor, and refused when it lies in a
// git directory, whatever the directory is called (beneath.go).
type Workspace struct {
	Root string // absolute, cleaned
	real string // Root with symlinks resolved

	dir     *os.File // the root, for openat2
	root    *os.Root // the root, for the portable fallback
	gitDirs []string // known git directories inside the root, resolved
}

// NewWorkspace checks that root is a directory. gitDirs are the
// repository's git directories and .git entries as recorded when it was
// opened (vcs.Repo.GitPaths); those inside the root are refused by name,
// besides anything that looks like a git directory.
func NewWorkspace(root string, gitDirs ...string) (*Workspace, error) {
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
	w := &Workspace{Root: filepath.Clean(abs), real: real}
	if w.dir, err = os.Open(real); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if w.root, err = os.OpenRoot(real); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	for _, g := range gitDirs {
		if r, err := filepath.EvalSymlinks(g); err == nil {
			if rel, ok := within(real, r); ok && rel != "." {
				w.gitDirs = append(w.gitDirs, filepath.ToSlash(rel))
			}
		}
	}
	return w, nil
}

// PathError is a path the model must correct; its text says why.
type PathError struct{ Msg string }

func (e *PathError) Error() string { return e.Msg }

func pathErr(format string, args ...any) error { return &PathError{fmt.Sprintf(format, args...)} }

// Resolve turns a model's path (relative to the root, or absolute inside it)
// into an absolute path and the path relative to the root. It refuses
// paths that climb out with .., absolute paths elsewhere, paths that lead
// through a symlink to outside the root, and paths in a git directory. The
// file tools do not use abs to open anything: Workspace.Open resolves rel
// again, beneath the root, and opens what it checked.
func (w *Workspace) Resolve(p string) (abs, rel string, err error) {
	rel, err = w.lexical(p)
	if err != nil {
		return "", "", err
	}
	if _, err := w.resolve(p, rel); err != nil {
		return "", "", err
	}
	return filepath.Join(w.Root, rel), rel, nil
}

// lexical checks a model's path without looking at the disk and returns it
// relative to the root, cleaned.
func (w *Workspace) lexical(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", pathErr("the path is empty; give a path relative to the repository root, e.g. src/module.py")
	case strings.ContainsRune(p, 0):
		return "", pathErr("the path contains a NUL byte")
	case strings.HasPrefix(p, "~"):
		return "", pathErr("%s is in a home directory, outside the workspace; give a path relative to the repository root", p)
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
		if r, ok := within(w.real, abs); ok {
			abs = filepath.Join(w.Root, r) // the model used the resolved root
		} else if _, ok := within(w.Root, abs); !ok {
			return "", pathErr("%s is outside the workspace %s; give a path relative to the repository root", p, w.Root)
		}
	} else {
		abs = filepath.Join(w.Root, p)
	}
	rel, ok := within(w.Root, abs)
	if !ok {
		return "", pathErr("%s climbs out of the workspace with ..; give a path inside the repository", p)
	}
	if namesGitDir(rel) {
		return "", pathErr("%s is inside the repository's .git, which the run manages; use the hypothesis_git tools for version control", p)
	}
	return rel, nil
}

// within returns target relative to root if target is root or below it.
func within(root, target string) (string, bool) {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
