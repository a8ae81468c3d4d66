package index

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// Benchmarks run on real code: the Python standard library and, when the
// Debian packages python3-django and python3-sympy are installed, Django
// and SymPy. A missing corpus skips its benchmarks.
//
//	go test ./index -run '^$' -bench . -benchtime 3x
type corpus struct{ name, dir string }

func corpora() []corpus {
	var cs []corpus
	if dir, err := pythonStdlib(); err == nil {
		cs = append(cs, corpus{"stdlib", dir})
	}
	cs = append(cs,
		corpus{"django", "/usr/lib/python3/dist-packages/django"},
		corpus{"sympy", "/usr/lib/python3/dist-packages/sympy"})
	return cs
}

// pythonStdlib is where python3's standard library lives.
func pythonStdlib() (string, error) {
	out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		return "", fmt.Errorf("no python3 to find the standard library: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// stdlibOrSkip is pythonStdlib for tests, which skip without it.
func stdlibOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the Python standard library")
	}
	dir, err := pythonStdlib()
	if err != nil {
		t.Skip(err)
	}
	return dir
}

func eachCorpus(b *testing.B, fn func(b *testing.B, c corpus)) {
	for _, c := range corpora() {
		b.Run(c.name, func(b *testing.B) {
			if info, err := os.Stat(c.dir); err != nil || !info.IsDir() {
				b.Skipf("corpus %s not found at %s (stdlib: python3; others: apt-get install python3-%s)", c.name, c.dir, c.name)
			}
			fn(b, c)
		})
	}
}

// BenchmarkParseOnly is the baseline: tree-sitter parsing, nothing else,
// of the files Build parses, on one goroutine per CPU.
func BenchmarkParseOnly(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		srcs := parsedSources(b, c.dir)
		var total int64
		for _, s := range srcs {
			total += int64(len(s))
		}
		b.SetBytes(total)
		b.ResetTimer()
		cpu := processCPU()
		for i := 0; i < b.N; i++ {
			parseAll(srcs)
		}
		reportCPU(b, cpu)
	})
}

func parsedSources(b *testing.B, dir string) [][]byte {
	cands, _, err := walk(context.Background(), dir, nil, discard())
	if err != nil {
		b.Fatal(err)
	}
	var srcs [][]byte
	for _, c := range cands {
		src, err := os.ReadFile(c.abs)
		if err != nil || sniff(src, nil) != "" || len(src) > DefaultMaxFileSize || c.lang != pythonLang {
			continue
		}
		srcs = append(srcs, src)
	}
	return srcs
}

func parseAll(srcs [][]byte) {
	eachSource(srcs, func() (func([]byte), func()) {
		p := sitter.NewParser()
		p.SetLanguage(pythonLang.grammar())
		return func(s []byte) {
			if t, err := p.ParseCtx(context.Background(), nil, s); err == nil {
				t.Close()
			}
		}, p.Close
	})
}

// eachSource hands the sources out to one goroutine per CPU, each running
// the worker start makes and then its cleanup.
func eachSource(srcs [][]byte, start func() (work func([]byte), done func())) {
	next := make(chan []byte, len(srcs))
	for _, s := range srcs {
		next <- s
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work, done := start()
			defer done()
			for s := range next {
				work(s)
			}
		}()
	}
	wg.Wait()
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// benchOpts keeps each benchmark's cache in its own directory.
func benchOpts(b *testing.B) Options {
	return Options{CacheDir: b.TempDir(), Logger: discard()}
}

func BenchmarkBuildCold(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		opts := benchOpts(b)
		var peak uint64
		cpu := processCPU()
		for i := 0; i < b.N; i++ {
			os.RemoveAll(opts.CacheDir)
			ix := buildOrFail(b, c.dir, opts)
			peak = max(peak, heapPeak())
			reportIndex(b, ix)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(peak)/1e6, "MB-sys")
	})
}

func BenchmarkBuildWarm(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		opts := benchOpts(b)
		buildOrFail(b, c.dir, opts)
		b.ResetTimer()
		cpu := processCPU()
		for i := 0; i < b.N; i++ {
			ix := buildOrFail(b, c.dir, opts)
			if ix.Stats().Cache != "warm" {
				b.Fatalf("cache %s, want warm", ix.Stats().Cache)
			}
		}
		reportCPU(b, cpu)
	})
}

// BenchmarkBuildIncremental edits one file of a copy of the corpus before
// every build, as an engineer saving a file would.
func BenchmarkBuildIncremental(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		dir := copyTree(b, c.dir)
		opts := benchOpts(b)
		ix := buildOrFail(b, dir, opts)
		target := filepath.Join(dir, filepath.FromSlash(ix.Files()[len(ix.Files())/2].Path))
		b.ResetTimer()
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "\n# edit %d\n", i)
			f.Close()
			b.StartTimer()
			c0 := processCPU()
			ix := buildOrFail(b, dir, opts)
			cpu += processCPU() - c0
			if st := ix.Stats(); st.Cache != "incremental" || st.Parsed != 1 {
				b.Fatalf("cache %s with %d parsed, want incremental with 1", st.Cache, st.Parsed)
			}
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
}

func buildOrFail(b *testing.B, dir string, opts Options) *Index {
	ix, err := Build(context.Background(), dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// reportCPU reports the CPU seconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((processCPU()-start).Seconds()/float64(b.N), "cpu-s/op")
}

func reportIndex(b *testing.B, ix *Index) {
	st := ix.Stats()
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(st.Lines), "lines")
	b.ReportMetric(float64(st.Units), "units")
}

// heapPeak is the memory the Go runtime has taken from the OS, an upper
// bound on the Go heap's peak. Tree-sitter's C memory is not in it; the
// RSS of `swe-adept index` (e.g. /usr/bin/time -v) includes both.
func heapPeak() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}

// BenchmarkParseArena parses as Build does (each tree in an arena that is
// rewound rather than freed) without walking the trees, on one goroutine
// per CPU: the index's own parse, to set beside BenchmarkParseOnly.
func BenchmarkParseArena(b *testing.B) {
	benchScan(b, true)
}

// BenchmarkScan is the Python scan alone: parse and walk in C, no Go
// extraction, on one goroutine per CPU.
func BenchmarkScan(b *testing.B) {
	benchScan(b, false)
}

func benchScan(b *testing.B, parseOnly bool) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		srcs := parsedSources(b, c.dir)
		b.ResetTimer()
		cpu := processCPU()
		for i := 0; i < b.N; i++ {
			eachSource(srcs, func() (func([]byte), func()) {
				p := newPyScanner()
				p.parseOnly(parseOnly)
				return func(s []byte) {
					if _, _, err := p.scan(context.Background(), s); err != nil {
						b.Error(err)
					}
				}, p.close
			})
		}
		reportCPU(b, cpu)
	})
}
