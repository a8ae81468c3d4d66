package vcs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
)

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
