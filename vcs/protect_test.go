package vcs

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestGitPaths(t *testing.T) {
	ctx := context.Background()
	sub := newRepo(t)
	dir := newRepo(t)
	gitT(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub")
	gitT(t, dir, "commit", "-q", "-m", "submodule")
	co := openT(t, dir)
	got, err := co.GitPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dotgit := filepath.Join(co.dir, ".git")
	want := []string{dotgit, filepath.Join(co.dir, "vendor", "sub", ".git")}
	if !slices.Equal(got, want) {
		t.Errorf("GitPaths of the checkout = %v, want %v", got, want)
	}

	ws, err := OpenWorkspace(ctx, dir, "r1", Mode{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close(ctx)
	got, err = ws.Repo.GitPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A new worktree's submodules are not checked out: no .git to list.
	want = []string{filepath.Join(dotgit, "worktrees", "r1"), dotgit, filepath.Join(ws.Dir, ".git")}
	if !slices.Equal(got, want) {
		t.Errorf("GitPaths of the run's worktree = %v, want %v", got, want)
	}
}
