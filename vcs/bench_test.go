package vcs

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Benchmarks compare go-git, the plain git CLI and this package's path on a
// Django-sized tree. Run: go test -run '^$' -bench . -benchtime 20x ./vcs/
// The corpus is Debian's python3-django (apt-get install python3-django), or
// the directory in SWE_ADEPT_DJANGO.

var benchSig = &object.Signature{Name: "Bench", Email: "bench@example.com", When: time.Unix(0, 0)}

// BenchmarkCommit: one checkpoint of a two-file change.
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	b.Run("cli-add-commit", func(b *testing.B) {
		dir := corpusRepo(b)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			touch(b, dir, i)
			ts.time(func() {
				gitT(b, dir, "add", "-A")
				gitT(b, dir, "commit", "-q", "-m", "step")
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("vcs-CommitAll", func(b *testing.B) {
		dir := corpusRepo(b)
		r := openT(b, dir)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			touch(b, dir, i)
			ts.time(func() {
				if _, err := r.CommitAll(ctx, "step"); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("go-git", func(b *testing.B) {
		dir := corpusRepo(b)
		_, wt := ggOpen(b, dir)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			touch(b, dir, i)
			ts.time(func() {
				if err := wt.AddWithOptions(&gogit.AddOptions{All: true}); err != nil {
					b.Fatal(err)
				}
				if _, err := wt.Commit("step", &gogit.CommitOptions{Author: benchSig}); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
}

// BenchmarkCheckout: create a branch at another commit and check it out,
// alternating between two commits so files really change.
func BenchmarkCheckout(b *testing.B) {
	ctx := context.Background()
	setup := func(b *testing.B) (string, [2]string) {
		dir := corpusRepo(b)
		first := gitT(b, dir, "rev-parse", "HEAD")
		touch(b, dir, 0)
		gitT(b, dir, "commit", "-q", "-am", "second")
		second := gitT(b, dir, "rev-parse", "HEAD")
		return dir, [2]string{first[:40], second[:40]}
	}
	b.Run("cli-checkout-b", func(b *testing.B) {
		dir, at := setup(b)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ts.time(func() { gitT(b, dir, "checkout", "-q", "-b", fmt.Sprintf("b%d", i), at[i%2]) })
		}
		ts.report(b, "median-ms")
	})
	b.Run("vcs-CreateBranchAt", func(b *testing.B) {
		dir, at := setup(b)
		r := openT(b, dir)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if err := r.CreateBranchAt(ctx, fmt.Sprintf("b%d", i), at[i%2]); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("go-git", func(b *testing.B) {
		dir, at := setup(b)
		_, wt := ggOpen(b, dir)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				err := wt.Checkout(&gogit.CheckoutOptions{
					Branch: plumbing.NewBranchReferenceName(fmt.Sprintf("b%d", i)),
					Hash:   plumbing.NewHash(at[i%2]), Create: true,
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("go-git-ref-only", func(b *testing.B) {
		dir, at := setup(b)
		repo, _ := ggOpen(b, dir)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(fmt.Sprintf("r%d", i)), plumbing.NewHash(at[i%2]))
			ts.time(func() {
				if err := repo.Storer.SetReference(ref); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
}

// BenchmarkDiffStat: compare_hypotheses' statistics between two commits.
func BenchmarkDiffStat(b *testing.B) {
	ctx := context.Background()
	dir := corpusRepo(b)
	from := gitT(b, dir, "rev-parse", "HEAD")[:40]
	touch(b, dir, 0)
	gitT(b, dir, "commit", "-q", "-am", "second")
	to := gitT(b, dir, "rev-parse", "HEAD")[:40]
	b.Run("cli-shortstat+numstat", func(b *testing.B) {
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				gitT(b, dir, "diff", "--shortstat", from, to)
				gitT(b, dir, "diff", "--numstat", from, to)
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("vcs-DiffStat", func(b *testing.B) {
		r := openT(b, dir)
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if _, err := r.DiffStat(ctx, from, to); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("go-git", func(b *testing.B) {
		repo, _ := ggOpen(b, dir)
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() { ggDiffStat(b, repo, from, to) })
		}
		ts.report(b, "median-ms")
	})
}

func ggDiffStat(b *testing.B, repo *gogit.Repository, from, to string) {
	a, err := repo.CommitObject(plumbing.NewHash(from))
	if err != nil {
		b.Fatal(err)
	}
	c, err := repo.CommitObject(plumbing.NewHash(to))
	if err != nil {
		b.Fatal(err)
	}
	p, err := a.Patch(c)
	if err != nil {
		b.Fatal(err)
	}
	_ = p.Stats()
}

// BenchmarkStatus: is the working tree dirty (every checkout checks it).
func BenchmarkStatus(b *testing.B) {
	ctx := context.Background()
	dir := corpusRepo(b)
	b.Run("cli", func(b *testing.B) {
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() { gitT(b, dir, "status", "--porcelain") })
		}
		ts.report(b, "median-ms")
	})
	b.Run("vcs-IsDirty", func(b *testing.B) {
		r := openT(b, dir)
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if _, err := r.IsDirty(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("go-git", func(b *testing.B) {
		_, wt := ggOpen(b, dir)
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if _, err := wt.Status(); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
}

var benchRun atomic.Int64

// BenchmarkWorkspace: starting a run from a dirty checkout (snapshot into a
// commit through a private index, then a linked worktree).
func BenchmarkWorkspace(b *testing.B) {
	ctx := context.Background()
	dir := corpusRepo(b)
	touch(b, dir, 0)
	write(b, dir, "django/new_untracked.py", "X = 1\n")
	r := openT(b, dir)
	b.Run("Snapshot", func(b *testing.B) {
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if _, err := r.Snapshot(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
	b.Run("OpenWorkspace", func(b *testing.B) {
		var ts timings
		for i := 0; i < b.N; i++ {
			id := fmt.Sprintf("bench%d", benchRun.Add(1))
			ts.time(func() {
				if _, err := OpenWorkspace(ctx, dir, id, Mode{}); err != nil {
					b.Fatal(err)
				}
			})
		}
		ts.report(b, "median-ms")
	})
}
