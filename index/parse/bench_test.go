package parse

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/swe-adept/swe-adept/index/internal/corpus"
	"github.com/swe-adept/swe-adept/internal/cputime"
)

// The parsing benchmarks run on the real code index/internal/corpus names:
//
//	go test ./index/parse -run '^$' -bench . -benchtime 3x

// BenchmarkParseOnly is the baseline: tree-sitter parsing, nothing else,
// of the files Build parses, on one goroutine per CPU.
func BenchmarkParseOnly(b *testing.B) {
	corpus.Each(b, func(b *testing.B, c corpus.Corpus) {
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

// parsedSources are the files of the corpus's language family that the
// index parses.
func parsedSources(b *testing.B, c corpus.Corpus) []source {
	return corpusSources(b, c.Dir, func(l *Language) bool {
		return c.Script && IsScript(l.Name()) || !c.Script && l == pythonLang
	})
}

func parseAll(srcs []source) {
	eachSource(srcs, func() (func(source), func()) {
		ps := map[*Language]*sitter.Parser{}
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
	corpus.Each(b, func(b *testing.B, c corpus.Corpus) {
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

// reportCPU reports the CPU seconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cputime.Process()-start).Seconds()/float64(b.N), "cpu-s/op")
}
