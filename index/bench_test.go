package index

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/index/internal/corpus"
	"github.com/swe-adept/swe-adept/internal/cputime"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// The build benchmarks run on the real code index/internal/corpus names;
// parsing alone is measured in index/parse:
//
//	go test ./index ./index/parse -run '^$' -bench . -benchtime 3x

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// benchOpts keeps each benchmark's cache in its own directory.
func benchOpts(b *testing.B) Options {
	return Options{CacheDir: b.TempDir(), Logger: discard()}
}

func BenchmarkBuildCold(b *testing.B) {
	corpus.Each(b, func(b *testing.B, c corpus.Corpus) {
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
			ix := buildOrFail(b, c.Dir, opts)
			peak = max(peak, heapPeak())
			reportIndex(b, ix)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(peak)/1e6, "MB-sys")
	})
}

func BenchmarkBuildWarm(b *testing.B) {
	corpus.Each(b, func(b *testing.B, c corpus.Corpus) {
		opts := benchOpts(b)
		buildOrFail(b, c.Dir, opts)
		b.ResetTimer()
		cpu := cputime.Process()
		for i := 0; i < b.N; i++ {
			ix := buildOrFail(b, c.Dir, opts)
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
	corpus.Each(b, func(b *testing.B, c corpus.Corpus) {
		dir := b.TempDir()
		testtree.Copy(b, c.Dir, dir)
		backdate(b, dir, time.Now().Add(-time.Hour))
		opts := benchOpts(b)
		ix := buildOrFail(b, dir, opts)
		target := filepath.Join(dir, filepath.FromSlash(ix.Files()[len(ix.Files())/2].Path))
		comment := "#"
		if c.Script {
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
