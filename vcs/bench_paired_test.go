package vcs

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Paired benchmarks run each contender once per iteration, in turn, so that
// the load of a shared machine hits all of them alike; ratios of medians are
// then meaningful even when absolute times are not.

// contender is one way of doing an operation: prep (untimed) then run.
type contender struct {
	name      string
	prep, run func(i int)
}

// paired times the contenders in turn each iteration, rotating the order,
// and reports each median and its ratio to the baseline's.
func paired(b *testing.B, baseline string, cs ...contender) {
	ts := make([]timings, len(cs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range cs {
			j := (i + k) % len(cs) // rotate who goes first: no fixed warm-up advantage
			c := cs[j]
			if c.prep != nil {
				c.prep(i)
			}
			ts[j].time(func() { c.run(i) })
		}
	}
	b.StopTimer()
	var base float64
	for j, c := range cs {
		if c.name == baseline {
			base = ts[j].medianMS()
		}
	}
	for j, c := range cs {
		ts[j].report(b, c.name+"-ms")
		if c.name != baseline && base > 0 {
			b.ReportMetric(ts[j].medianMS()/base, c.name+"/"+baseline)
		}
	}
}

// BenchmarkCheckpointVsCLI is the target check: a checkpoint (CommitAll of a
// two-file change) against `git add -A && git commit`, in a clone and in a
// run's worktree.
func BenchmarkCheckpointVsCLI(b *testing.B) {
	ctx := context.Background()
	cliDir, vcsDir := corpusRepo(b), corpusRepo(b)
	r := openT(b, vcsDir)
	ws := benchWorkspace(b)
	commit := func(r *Repo) func(int) {
		return func(int) {
			if _, err := r.CommitAll(ctx, "step"); err != nil {
				b.Fatal(err)
			}
		}
	}
	paired(b, "cli",
		contender{"cli", func(i int) { touch(b, cliDir, i) }, func(int) {
			gitT(b, cliDir, "add", "-A")
			gitT(b, cliDir, "commit", "-q", "-m", "step")
		}},
		contender{"vcs", func(i int) { touch(b, vcsDir, i) }, commit(r)},
		contender{"vcs-worktree", func(i int) { touch(b, ws.Dir, i) }, commit(ws.Repo)},
	)
}

// BenchmarkCheckoutVsCLI: a new branch at one of two commits, checked out.
// CreateBranchAt also refuses a dirty tree, so "cli-status" (status, then
// checkout -b) is the like-for-like CLI sequence.
func BenchmarkCheckoutVsCLI(b *testing.B) {
	ctx := context.Background()
	twoCommits := func(r *Repo) [2]string {
		first, err := r.Resolve(ctx, "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		touch(b, r.Dir(), 0)
		second, err := r.CommitAll(ctx, "second")
		if err != nil {
			b.Fatal(err)
		}
		return [2]string{first, second}
	}
	cli, safe, ours := openT(b, corpusRepo(b)), openT(b, corpusRepo(b)), openT(b, corpusRepo(b))
	wt := benchWorkspace(b).Repo
	atCLI, atSafe, atOurs, atWT := twoCommits(cli), twoCommits(safe), twoCommits(ours), twoCommits(wt)
	create := func(r *Repo, at [2]string) func(int) {
		return func(i int) {
			if err := r.CreateBranchAt(ctx, fmt.Sprintf("b%d", i), at[i%2]); err != nil {
				b.Fatal(err)
			}
		}
	}
	paired(b, "cli",
		contender{"cli", nil, func(i int) { gitT(b, cli.Dir(), "checkout", "-q", "-b", fmt.Sprintf("b%d", i), atCLI[i%2]) }},
		contender{"cli-status", nil, func(i int) {
			gitT(b, safe.Dir(), "status", "--porcelain")
			gitT(b, safe.Dir(), "checkout", "-q", "-b", fmt.Sprintf("b%d", i), atSafe[i%2])
		}},
		contender{"vcs", nil, create(ours, atOurs)},
		contender{"vcs-worktree", nil, create(wt, atWT)},
	)
}

// BenchmarkStatusVsCLI: is the working tree dirty.
func BenchmarkStatusVsCLI(b *testing.B) {
	ctx := context.Background()
	dir := corpusRepo(b)
	r := openT(b, dir)
	wt := benchWorkspace(b).Repo
	dirty := func(r *Repo) func(int) {
		return func(int) {
			if _, err := r.IsDirty(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	paired(b, "cli",
		contender{"cli", nil, func(int) { gitT(b, dir, "status", "--porcelain") }},
		contender{"vcs", nil, dirty(r)},
		contender{"vcs-worktree", nil, dirty(wt)},
	)
}

// benchWorkspace opens a run's worktree on a fresh corpus clone, the place
// where a run's checkpoints and checkouts actually happen.
func benchWorkspace(b *testing.B) *Workspace {
	b.Helper()
	ws, err := OpenWorkspace(context.Background(), corpusRepo(b), fmt.Sprintf("bench%d", benchRun.Add(1)), Mode{})
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // settle the new index, as corpusRepo does
	gitT(b, ws.Dir, "update-index", "-q", "--refresh")
	if _, err := ws.Repo.IsDirty(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ws
}
