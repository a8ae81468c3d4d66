package search

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/internal/cputime"
)

// searchSympyRoot is the benchmark corpus: Debian's python3-sympy
// (apt-get install -y python3-sympy).
const searchSympyRoot = "/usr/lib/python3/dist-packages/sympy"

var (
	searchSympyOnce sync.Once
	searchSympy     *Searcher
	searchSympyErr  error
)

// sympySearcherFor is the corpus searcher for benchmarks.
func sympySearcherFor(b *testing.B) *Searcher { return sympyCorpus(b) }

// sympyCorpus indexes the corpus once per test binary (the on-disk cache
// makes later runs fast) and builds its searcher with the content postings.
func sympyCorpus(b testing.TB) *Searcher {
	b.Helper()
	if _, err := os.Stat(searchSympyRoot); err != nil {
		b.Skipf("corpus %s is absent: apt-get install -y python3-sympy", searchSympyRoot)
	}
	searchSympyOnce.Do(func() {
		ix, err := index.Build(context.Background(), searchSympyRoot, index.Options{})
		if err != nil {
			searchSympyErr = err
			return
		}
		searchSympy = NewSearcher(ix)
		searchSympy.postings()
		searchSympy.aliases()
	})
	if searchSympyErr != nil {
		b.Fatalf("index %s: %v", searchSympyRoot, searchSympyErr)
	}
	return searchSympy
}

func benchDef(b *testing.B, name, wantMode string) {
	s := sympySearcherFor(b)
	if r := s.FindCodeDef(FindCodeDefArgs{DefinitionName: name}); r.Mode != wantMode || len(r.Hits) == 0 {
		b.Fatalf("find_code_def %q: mode %s with %d hits, want %s with hits", name, r.Mode, len(r.Hits), wantMode)
	}
	start := cputime.Process()
	for b.Loop() {
		s.FindCodeDef(FindCodeDefArgs{DefinitionName: name})
	}
	reportSearchCPU(b, start)
}

// reportSearchCPU adds the CPU time per operation since start.
func reportSearchCPU(b *testing.B, start time.Duration) {
	if used := cputime.Process() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkFindCodeDefExact(b *testing.B)      { benchDef(b, "Symbol", ModeExact) }
func BenchmarkFindCodeDefQualified(b *testing.B)  { benchDef(b, "Basic.subs", ModeExact) }
func BenchmarkFindCodeDefAlias(b *testing.B)      { benchDef(b, "Matrix.col_insert", ModeExact) }
func BenchmarkFindCodeDefRegex(b *testing.B)      { benchDef(b, "_eval_.*_as_.*", ModeRegex) }
func BenchmarkFindCodeDefRegexSmart(b *testing.B) { benchDef(b, "is_.*zero", ModeRegex) }
func BenchmarkFindCodeDefRegexBroad(b *testing.B) { benchDef(b, ".*", ModeRegex) }
func BenchmarkFindCodeDefFuzzy(b *testing.B)      { benchDef(b, "Symbl_factry", ModeFuzzy) }

func BenchmarkFindFileGlob(b *testing.B) {
	s := sympySearcherFor(b)
	for b.Loop() {
		s.FindFile(FindFileArgs{FileName: "**/tests/test_*.py"})
	}
}

// BenchmarkNewSearcher builds the name tables, line tables, postings and
// alias table of the whole corpus, and reports the heap they keep.
func BenchmarkNewSearcher(b *testing.B) {
	s := sympySearcherFor(b)
	var keep *Searcher
	for b.Loop() {
		keep = NewSearcher(s.ix)
		keep.postings()
		keep.aliases()
	}
	b.StopTimer()
	var before, after runtime.MemStats
	keep = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep = NewSearcher(s.ix)
	keep.postings()
	keep.aliases()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-kept")
	runtime.KeepAlive(keep)
}

// BenchmarkContentVsGrep runs find_code_content over the whole corpus next
// to `grep -rn` of the same string in the same run: content search should
// stay within 2x of grep (it is far under, answering from postings and
// in-memory sources, while grep re-reads the tree).
func BenchmarkContentVsGrep(b *testing.B) {
	s := sympySearcherFor(b)
	grep, err := exec.LookPath("grep")
	if err != nil {
		b.Skip("grep not found")
	}
	for _, q := range []string{"self", "is_commutative", "_print_Mul", "expand(deep=False)", "def _eval_derivative(self, s):", "return self.args[0]", "self = self"} {
		b.Run("find_code_content/"+q, func(b *testing.B) {
			start := cputime.Process()
			for b.Loop() {
				s.FindCodeContent(FindCodeContentArgs{Content: q})
			}
			reportSearchCPU(b, start)
		})
		b.Run("grep/"+q, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(grep, "-rnF", "--include=*.py", "--", q, searchSympyRoot)
				var out bytes.Buffer
				cmd.Stdout = &out
				// Status 1 is grep's "no match", an answer like any other.
				var exit *exec.ExitError
				if err := cmd.Run(); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
					b.Fatalf("grep %q: %v", q, err)
				}
			}
		})
	}
}
