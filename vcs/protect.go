package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GitPaths are what whatever runs in the work tree must not be able to
// write: this work tree's git directory and the common one, the .git entry
// that names them, and the .git entries of its submodules (a rewritten one
// would point git, ours or the engineer's, at a directory of the writer's
// choosing when it looks into the submodule). Paths that do not exist are
// left out. Nested submodules' .git entries are not listed.
func (r *Repo) GitPaths(ctx context.Context) ([]string, error) {
	paths := []string{r.gitDir}
	if r.commonDir != r.gitDir {
		paths = append(paths, r.commonDir)
	}
	subs, err := r.gitlinks(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range append([]string{"."}, subs...) {
		dotgit := filepath.Join(r.dir, filepath.FromSlash(p), ".git")
		if _, err := os.Lstat(dotgit); err == nil && !slices.Contains(paths, dotgit) {
			paths = append(paths, dotgit)
		}
	}
	return paths, nil
}

// gitlinks lists the paths of the submodules in the index.
func (r *Repo) gitlinks(ctx context.Context) ([]string, error) {
	out, err := r.cmd("ls-files", "--stage", "-z").run(ctx)
	if err != nil {
		return nil, fmt.Errorf("list submodules of %s: %w", r.dir, err)
	}
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if meta, path, ok := strings.Cut(rec, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
			paths = append(paths, path)
		}
	}
	return paths, nil
}
