package index

import (
	"cmp"
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
	"github.com/swe-adept/swe-adept/internal/cputime"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// Benchmarks run on real code: the Python standard library and, when the
// Debian packages python3-django and python3-sympy are installed, Django
// and SymPy; and TypeScript and JavaScript from npm packages that ship
// their sources, unpacked under $SWE_ADEPT_NPM (see scripts/npm-corpora.sh).
// A missing corpus skips its benchmarks.
//
//	go test ./index -run '^$' -bench . -benchtime 3x
type corpus struct {
	name, dir string
	script    bool   // JavaScript and TypeScript rather than Python
	hint      string // how to install it
}

func corpora() []corpus {
	var cs []corpus
	if dir, err := pythonStdlib(); err == nil {
		cs = append(cs, corpus{name: "stdlib", dir: dir})
	}
	cs = append(cs,
		corpus{name: "django", dir: "/usr/lib/python3/dist-packages/django", hint: "apt-get install python3-django"},
		corpus{name: "sympy", dir: "/usr/lib/python3/dist-packages/sympy", hint: "apt-get install python3-sympy"})
	npm := os.Getenv("SWE_ADEPT_NPM")
	if npm == "" {
		npm = filepath.Join(os.TempDir(), "swe-adept-npm")
	}
	hint := "scripts/npm-corpora.sh " + npm
	cs = append(cs,
		corpus{name: "rxjs", dir: filepath.Join(npm, "rxjs", "package", "src"), script: true, hint: hint},
		corpus{name: "effect", dir: filepath.Join(npm, "effect", "package", "src"), script: true, hint: hint},
		corpus{name: "webpack", dir: filepath.Join(npm, "webpack", "package", "lib"), script: true, hint: hint})
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
				b.Skipf("corpus %s not found at %s (install it: %s)", c.name, c.dir, cmp.Or(c.hint, "python3"))
			}
			fn(b, c)
		})
	}
}

// BenchmarkParseOnly is the baseline: tree-sitter parsing, nothing else,
// of the files Build parses, on one goroutine per CPU.
func BenchmarkParseOnly(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		srcs := parsedSources(b, c)
		var total int64
		for _, s := range srcs {
			total += int64(len(s.src))
		}
		b.SetBytes(total)
		b.ResetTimer()
		cpu := cputime.Process()
		for i := 0; i < b.N; i++ {
			parseAll(srcs)
		}
		reportCPU(b, cpu)
	})
}

// source is one file to parse and its language.
type source struct {
	src  []byte
	lang *language
}

func parsedSources(b *testing.B, c corpus) []source {
	cands, _, err := walk(context.Background(), c.dir, nil, discard())
	if err != nil {
		b.Fatal(err)
	}
	var srcs []source
	for _, cd := range cands {
		src, err := os.ReadFile(cd.abs)
		if err != nil || sniff(src, cd.lang) != "" || len(src) > DefaultMaxFileSize {
			continue
		}
		if c.script && isScript(cd.lang.name) || !c.script && cd.lang == pythonLang {
			srcs = append(srcs, source{src, cd.lang})
		}
	}
	return srcs
}

func parseAll(srcs []source) {
	eachSource(srcs, func() (func(source), func()) {
		ps := map[*language]*sitter.Parser{}
		return func(s source) {
				p := ps[s.lang]
				if p == nil {
					p = sitter.NewParser()
					p.SetLanguage(s.lang.grammar())
					ps[s.lang] = p
				}
				if t, err := p.ParseCtx(context.Background(), nil, s.src); err == nil {
					t.Close()
				}
			}, func() {
				for _, p := range ps {
					p.Close()
				}
			}
	})
}

// eachSource hands the sources out to one goroutine per CPU, each running
// the worker start makes and then its cleanup.
func eachSource(srcs []source, start func() (work func(source), done func())) {
	next := make(chan source, len(srcs))
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
		cpu := cputime.Process()
		for i := 0; i < b.N; i++ {
			// Removing the last build's cache is not part of a cold build,
			// nor is collecting the last build's garbage: a cold build
			// runs first in its process.
			b.StopTimer()
			os.RemoveAll(opts.CacheDir)
			runtime.GC()
			b.StartTimer()
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
		cpu := cputime.Process()
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
// every build, as an engineer saving a file would. The copy is dated an
// hour back, as a checkout being worked in is: a directory changed in the
// last two seconds is listed afresh by every walk (see racyWindow), which
// no real edit in place causes.
func BenchmarkBuildIncremental(b *testing.B) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		dir := b.TempDir()
		testtree.Copy(b, c.dir, dir)
		backdate(b, dir, time.Now().Add(-time.Hour))
		opts := benchOpts(b)
		ix := buildOrFail(b, dir, opts)
		target := filepath.Join(dir, filepath.FromSlash(ix.Files()[len(ix.Files())/2].Path))
		comment := "#"
		if c.script {
			comment = "//"
		}
		b.ResetTimer()
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "\n%s edit %d\n", comment, i)
			f.Close()
			b.StartTimer()
			c0 := cputime.Process()
			ix := buildOrFail(b, dir, opts)
			cpu += cputime.Process() - c0
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
	b.ReportMetric((cputime.Process()-start).Seconds()/float64(b.N), "cpu-s/op")
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

// BenchmarkScan is the C scan alone: parse and walk, no Go extraction, on
// one goroutine per CPU.
func BenchmarkScan(b *testing.B) {
	benchScan(b, false)
}

func benchScan(b *testing.B, parseOnly bool) {
	eachCorpus(b, func(b *testing.B, c corpus) {
		srcs := parsedSources(b, c)
		b.ResetTimer()
		cpu := cputime.Process()
		for i := 0; i < b.N; i++ {
			eachSource(srcs, func() (func(source), func()) {
				p := newScanner()
				p.parseOnly(parseOnly)
				return func(s source) {
					if _, _, err := p.scan(context.Background(), s.lang.scan, s.src); err != nil {
						b.Error(err)
					}
				}, p.close
			})
		}
		reportCPU(b, cpu)
	})
}
