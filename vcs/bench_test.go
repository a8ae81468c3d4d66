package vcs

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
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

func djangoCorpus(b *testing.B) string {
	src := os.Getenv("SWE_ADEPT_DJANGO")
	if src == "" {
		src = "/usr/lib/python3/dist-packages/django"
	}
	if _, err := os.Stat(filepath.Join(src, "__init__.py")); err != nil {
		b.Skipf("Django corpus absent at %s: apt-get install python3-django, or set SWE_ADEPT_DJANGO", src)
	}
	return src
}

// corpusMaster is a repository holding the corpus, built once per test
// binary; each benchmark clones it (objects hard-linked) instead of copying.
var (
	corpusOnce   sync.Once
	corpusMaster string
	corpusErr    error
)

func buildCorpus(src string) (string, error) {
	tmp, err := os.MkdirTemp("", "vcs-bench-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "master")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return filepath.SkipDir // build output, ignored in any real checkout
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(dir, "django", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, dst)
	})
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "corpus"}} {
		if out, err := gitRaw(dir, nil, args...); err != nil {
			return "", fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return dir, nil
}

// corpusRepo returns a fresh clone of the corpus whose index is settled (no
// racily-clean entries that would make every status re-read all files), as
// in a checkout an engineer has been working in.
func corpusRepo(b *testing.B) string {
	b.Helper()
	src := djangoCorpus(b)
	corpusOnce.Do(func() { corpusMaster, corpusErr = buildCorpus(src) })
	if corpusErr != nil {
		b.Fatal(corpusErr)
	}
	dir := filepath.Join(b.TempDir(), "repo")
	gitT(b, filepath.Dir(dir), "clone", "-q", "--local", corpusMaster, dir)
	time.Sleep(1100 * time.Millisecond)
	gitT(b, dir, "update-index", "-q", "--refresh")
	return dir
}

// timings collects per-operation durations; the median resists the noise of
// a shared machine better than the mean go test prints.
type timings []time.Duration

func (ts *timings) time(f func()) {
	t0 := time.Now()
	f()
	*ts = append(*ts, time.Since(t0))
}

func (ts timings) medianMS() float64 {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

func (ts timings) report(b *testing.B, unit string) {
	b.ReportMetric(ts.medianMS(), unit)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// touch makes a small change in two files, as one to-do step would.
func touch(b *testing.B, dir string, i int) {
	b.Helper()
	for _, f := range []string{"django/__init__.py", "django/utils/text.py"} {
		p := filepath.Join(dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		data = fmt.Appendf(data, "# step %d\n", i)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func ggOpen(b *testing.B, dir string) (*gogit.Repository, *gogit.Worktree) {
	b.Helper()
	repo, err := gogit.PlainOpen(dir)
	if err != nil {
		b.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	return repo, wt
}

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

// BenchmarkCheckpointVsCLI is the target check: CommitAll against
// `git add -A && git commit`, alternating on two clones in the same loop so
// that load on the machine hits both alike. vcs/cli is the ratio of medians.
func BenchmarkCheckpointVsCLI(b *testing.B) {
	ctx := context.Background()
	cliDir, vcsDir := corpusRepo(b), corpusRepo(b)
	r := openT(b, vcsDir)
	ws := benchWorkspace(b)
	var cli, ours, inWT timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		touch(b, cliDir, i)
		cli.time(func() {
			gitT(b, cliDir, "add", "-A")
			gitT(b, cliDir, "commit", "-q", "-m", "step")
		})
		touch(b, vcsDir, i)
		ours.time(func() {
			if _, err := r.CommitAll(ctx, "step"); err != nil {
				b.Fatal(err)
			}
		})
		touch(b, ws.Dir, i)
		inWT.time(func() {
			if _, err := ws.Repo.CommitAll(ctx, "step"); err != nil {
				b.Fatal(err)
			}
		})
	}
	cli.report(b, "cli-median-ms")
	ours.report(b, "vcs-median-ms")
	inWT.report(b, "vcs-worktree-median-ms")
	b.ReportMetric(ours.medianMS()/cli.medianMS(), "vcs/cli")
	b.ReportMetric(inWT.medianMS()/cli.medianMS(), "vcs-worktree/cli")
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
	b.Run("cli-status-checkout-b", func(b *testing.B) {
		dir, at := setup(b)
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				gitT(b, dir, "status", "--porcelain")
				gitT(b, dir, "checkout", "-q", "-b", fmt.Sprintf("b%d", i), at[i%2])
			})
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
	b.Run("vcs-worktree-CreateBranchAt", func(b *testing.B) {
		ws := benchWorkspace(b)
		first := ws.Original
		touch(b, ws.Dir, 0)
		second, err := ws.Repo.CommitAll(ctx, "second")
		if err != nil {
			b.Fatal(err)
		}
		at := [2]string{first, second}
		var ts timings
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if err := ws.Repo.CreateBranchAt(ctx, fmt.Sprintf("b%d", i), at[i%2]); err != nil {
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
	b.Run("vcs-worktree-IsDirty", func(b *testing.B) {
		ws := benchWorkspace(b)
		var ts timings
		for i := 0; i < b.N; i++ {
			ts.time(func() {
				if _, err := ws.Repo.IsDirty(ctx); err != nil {
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
