package resolve

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed in one path, as the kernel does.
const maxLinks = 40

// resolve follows rel (relative to the root, as lexical returns it) one
// component at a time: a symlink is followed only while its target stays
// beneath the root (an absolute target counts if it names a place inside),
// and a missing tail is kept as named. It returns the resolved path, slash
// separated and relative to the root ("." for the root itself), after
// checking that it is not in a git directory. p is the model's path, for
// messages.
func (w *Workspace) resolve(p, rel string) (string, error) {
	todo := splitPath(rel)
	var done []string
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			if len(done) == 0 {
				return "", pathErr("%s leads through a symlink to outside the workspace; only files inside the repository can be viewed or edited", p)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := filepath.Join(w.real, filepath.FromSlash(path.Join(append(done, c)...)))
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			// A missing component is kept as named: create makes it, and
			// the other commands report it when they open the file.
			done = append(done, c)
			continue
		}
		if links++; links > maxLinks {
			return "", pathErr("%s: too many levels of symlinks", p)
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", pathErr("%s: a symlink on the way cannot be followed: %v", p, err)
		}
		if filepath.IsAbs(target) {
			r, ok := within(w.real, filepath.Clean(target))
			if !ok {
				if r, ok = within(w.Root, filepath.Clean(target)); !ok {
					return "", pathErr("%s leads through a symlink to %s, outside the workspace; only files inside the repository can be viewed or edited", p, target)
				}
			}
			done, target = nil, r
		}
		todo = append(splitPath(filepath.ToSlash(target)), todo...)
	}
	resolved := path.Join(append([]string{"."}, done...)...)
	return resolved, w.checkGit(p, rel, resolved)
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// checkGit refuses a resolved path in a git directory: one named .git
// (in any case: some file systems ignore it), one of the repository's, or
// any directory that holds a repository's HEAD with its objects and refs
// (or, for a linked worktree's, its commondir).
func (w *Workspace) checkGit(p, rel, resolved string) error {
	parts := splitPath(resolved)
	for i := range parts {
		prefix := path.Join(parts[:i+1]...)
		gitDir := strings.EqualFold(parts[i], ".git") || w.knownGitDir(prefix) ||
			isGitDir(filepath.Join(w.real, filepath.FromSlash(prefix)))
		if !gitDir {
			continue
		}
		if resolved == path.Clean(filepath.ToSlash(rel)) {
			return pathErr("%s is inside the git directory %s, which the run manages; use the hypothesis_git tools for version control", p, prefix)
		}
		return pathErr("%s leads into the git directory %s, which the run manages; the file tools never read or write git directories: use the hypothesis_git tools for version control", p, prefix)
	}
	return nil
}

func (w *Workspace) knownGitDir(rel string) bool {
	for _, g := range w.gitDirs {
		if g == rel {
			return true
		}
	}
	return false
}

// isGitDir reports whether dir looks like a git directory.
func isGitDir(dir string) bool {
	if fi, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil && fi.Mode().IsRegular() {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// Open opens the model's path rel (from Resolve) beneath the root, after
// checking where it leads; the caller reads and writes through the file it
// returns, never through a path looked up again. Errors the model can act
// on are *PathError; others wrap the system's error (fs.ErrNotExist, ...).
func (w *Workspace) Open(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	resolved, err := w.resolve(rel, rel)
	if err != nil {
		return nil, err
	}
	f, err := w.openResolved(resolved, flag, perm)
	if err != nil {
		return nil, err
	}
	if err := w.recheck(rel, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Create makes the file rel (and any missing folders above it) beneath the
// root; it fails with fs.ErrExist when something is there already, a
// dangling symlink included.
func (w *Workspace) Create(rel string, perm fs.FileMode) (*os.File, error) {
	resolved, err := w.resolve(rel, rel)
	if err != nil {
		return nil, err
	}
	if dir := path.Dir(resolved); dir != "." {
		if err := w.root.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return nil, err
		}
	}
	return w.Open(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// Remove deletes the file rel leads to, beneath the root.
func (w *Workspace) Remove(rel string) error {
	resolved, err := w.resolve(rel, rel)
	if err != nil {
		return err
	}
	return w.root.Remove(filepath.FromSlash(resolved))
}

// Exists reports whether rel names something (a symlink counts).
func (w *Workspace) Exists(rel string) bool {
	_, err := w.root.Lstat(filepath.FromSlash(rel))
	return err == nil
}
