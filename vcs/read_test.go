package vcs

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// withWorktreeConfig turns on an extension go-git refuses (sparse-checkout
// sets it), so every read must go through the CLI.
func withWorktreeConfig(t *testing.T, dir string) {
	t.Helper()
	gitT(t, dir, "config", "core.repositoryformatversion", "1")
	gitT(t, dir, "config", "extensions.worktreeConfig", "true")
	if openT(t, dir).gg != nil {
		t.Fatal("go-git opened a repository with extensions.worktreeConfig; this test no longer covers the CLI reads")
	}
}

// Repositories go-git cannot open: the whole flow must still work through
// the CLI, including SHA-256 object names.
func TestReadsWithoutGoGit(t *testing.T) {
	for _, tc := range []struct {
		name string
		repo func(t *testing.T) string
	}{
		{"worktreeConfig", func(t *testing.T) string {
			dir := newRepo(t)
			withWorktreeConfig(t, dir)
			return dir
		}},
		{"sha256", func(t *testing.T) string {
			dir := newRepoWith(t, "--object-format=sha256")
			if openT(t, dir).gg != nil {
				t.Skip("this go-git opens SHA-256 repositories")
			}
			return dir
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { flowWithoutGoGit(t, tc.repo(t)) })
	}
}

func flowWithoutGoGit(t *testing.T, dir string) {
	ctx := context.Background()
	r := openT(t, dir)
	base := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))

	if h, err := r.Head(ctx); err != nil || h != (Head{Hash: base, Branch: "main"}) {
		t.Errorf("Head = %+v, %v", h, err)
	}
	if _, err := r.CommitAll(ctx, "none"); !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("CommitAll on a clean tree = %v", err)
	}
	if err := r.CreateBranchAt(ctx, "swe-adept/r1/h1", base); err != nil {
		t.Fatal(err)
	}
	if err := r.CreateBranchAt(ctx, "swe-adept/r1/h1", base); !errors.Is(err, ErrBranchExists) {
		t.Errorf("second CreateBranchAt = %v, want ErrBranchExists", err)
	}
	if ok, err := r.BranchExists(ctx, "nope"); err != nil || ok {
		t.Errorf("BranchExists(nope) = %v, %v", ok, err)
	}
	if err := r.CheckoutDetached(ctx, base); err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(ctx); err != nil || !h.Detached || h.Hash != base {
		t.Errorf("detached Head = %+v, %v", h, err)
	}

	makeDirty(t, dir)
	before := stateOf(t, dir)
	if _, err := r.PutAside(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if err := r.Restore(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))

	for _, mode := range []Mode{{}, {InPlace: true}} {
		id := map[bool]string{false: "wt", true: "inplace"}[mode.InPlace]
		ws, err := OpenWorkspace(ctx, dir, id, mode)
		if err != nil {
			t.Fatal(err)
		}
		agentWork(t, ws)
		if err := ws.Close(ctx); err != nil {
			t.Fatal(err)
		}
		diffState(t, before, stateOf(t, dir))
	}
	if _, err := GC(ctx, dir, "", false); err != nil {
		t.Fatal(err)
	}
}

func TestHeadCLIUnborn(t *testing.T) {
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "trunk")
	withWorktreeConfig(t, dir)
	h, err := openT(t, dir).Head(context.Background())
	if err != nil || h != (Head{Branch: "trunk"}) {
		t.Errorf("Head of an unborn branch = %+v, %v", h, err)
	}
}
