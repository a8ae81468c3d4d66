package localize

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
	"github.com/swe-adept/swe-adept/internal/cputime"
)

// sympyRoot is the large-tree corpus: Debian's python3-sympy (SymPy 1.11,
// 1,472 files, 753k lines; apt-get install -y python3-sympy).
const sympyRoot = "/usr/lib/python3/dist-packages/sympy"

// sympyIssues are made-up issues of the shapes real ones take: a
// traceback, names in backticks, a dotted path, a quoted error message,
// and prose that names no code.
var sympyIssues = []string{
	"`simplify` hangs on expressions with nested `Piecewise`\n\nCalling `simplify(Piecewise((x, x > 0), (Piecewise((1, y > 0), (2, True)), True)))` never returns; `piecewise_fold` seems to loop.",
	"Matrix.det fails for symbolic matrices\n\n```\nTraceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/sympy/matrices/matrices.py\", line 140, in det\n    return _det(self, method=method, iszerofunc=iszerofunc)\n  File \"/usr/lib/python3/dist-packages/sympy/matrices/determinant.py\", line 689, in _det\n    return M._eval_det_bareiss(iszerofunc=iszerofunc)\nZeroDivisionError: division by zero\n```",
	"sympy.printing.latex.LatexPrinter prints Subs wrongly\n\nThe LaTeX printer drops the parentheses around the expression in `Subs(x + y, x, 1)`, so `latex(3*Subs(-x+y, (x,),(1,)))` gives the wrong precedence.",
	"Error message 'Cannot convert expression to float' when lambdifying with mpmath\n\nUsing lambdify with the mpmath module on an expression that contains a Rational raises TypeError: Cannot convert expression to float.",
	"Integration of exponentials with trigonometric factors returns an unevaluated integral although the risch algorithm should find the antiderivative; the heuristic integrator gives up too early.",
}

// BenchmarkHeuristicSympy is one offline localization on SymPy from a
// cached index: everything eval-loc times as localization (the searcher,
// the heuristic's corpus, the search and both filter stages). It reports
// p50 and p95 wall time over the issues and the CPU time of one
// localization, in seconds (on a shared machine other work stretches
// wall time, not CPU time); the time per op covers all the issues. It
// skips when the corpus is absent.
func BenchmarkHeuristicSympy(b *testing.B) {
	if _, err := os.Stat(sympyRoot); err != nil {
		b.Skipf("corpus %s is absent: apt-get install -y python3-sympy", sympyRoot)
	}
	ix, err := index.Build(context.Background(), sympyRoot, index.Options{})
	if err != nil {
		b.Fatalf("index %s: %v", sympyRoot, err)
	}
	var secs []float64
	cpu := cputime.Process()
	for b.Loop() {
		for _, issue := range sympyIssues {
			start := time.Now()
			s := search.NewSearcher(ix)
			loc, err := Run(context.Background(), Config{Index: ix, Searcher: s, Model: heuristic.New(ix, s), Issue: issue})
			if err != nil {
				b.Fatal(err)
			}
			secs = append(secs, time.Since(start).Seconds())
			if len(loc.Files) == 0 {
				b.Fatalf("empty ranking for %.40q", issue)
			}
		}
	}
	if used := cputime.Process() - cpu; used > 0 {
		b.ReportMetric(used.Seconds()/float64(len(secs)), "cpu-s")
	}
	slices.Sort(secs)
	b.ReportMetric(secs[len(secs)/2], "p50-s")
	b.ReportMetric(secs[min(len(secs)-1, len(secs)*95/100)], "p95-s")
}
