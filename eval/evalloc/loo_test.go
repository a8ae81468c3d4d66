package evalloc

import (
	"testing"

	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/eval/swebench"
)

func hit(id string, file3, func5 bool) swebench.Score {
	return swebench.Score{InstanceID: id, File1: file3, File3: file3, File5: file3, HasFunc: true, Func5: func5, Func10: func5}
}

// TestFoldsNeverScoreWithTheirOwnChoice: weights that only help the
// held-out repository cannot be chosen for it.
func TestFoldsNeverScoreWithTheirOwnChoice(t *testing.T) {
	grid := []heuristic.Params{heuristic.DefaultParams(), heuristic.DefaultParams()}
	grid[1].Lexical = 1
	all := []looInstance{
		// Repository a does better with weights 1, b and c with weights 0.
		{repo: "a", byW: []swebench.Score{hit("a1", false, false), hit("a1", true, true)}, bm25: hit("a1", false, false)},
		{repo: "b", byW: []swebench.Score{hit("b1", true, true), hit("b1", false, false)}, bm25: hit("b1", false, false)},
		{repo: "c", byW: []swebench.Score{hit("c1", true, false), hit("c1", false, false)}, bm25: hit("c1", true, false)},
		{repo: "d", failed: true, byW: []swebench.Score{{InstanceID: "d1", HasFunc: true}, {InstanceID: "d1", HasFunc: true}}, bm25: swebench.Score{InstanceID: "d1", HasFunc: true}},
	}
	res := foldAll(all, grid)
	if len(res.Folds) != 4 {
		t.Fatalf("folds %+v", res.Folds)
	}
	if a := res.Folds[0]; a.Weights != grid[0].String() || a.Heldout.FileAcc3 != 0 {
		t.Errorf("repository a was scored with weights chosen on itself: %+v", a)
	}
	// Without b, weights 1 do best (on a), so b is scored with them.
	if b := res.Folds[1]; b.Weights != grid[1].String() || b.Heldout.FileAcc3 != 0 {
		t.Errorf("repository b: %+v", b)
	}
	if c := res.Folds[2]; c.FileGain3 != 0 {
		t.Errorf("repository c: gain %v over an equal BM25", c.FileGain3)
	}
	if res.Heldout.Instances != 4 || res.Heldout.Failed != 1 || res.Heldout.FileAcc3 != 0.25 {
		t.Errorf("held out %+v", res.Heldout)
	}
	if res.Default.FileAcc3 != 0.5 || res.Default.FuncAcc5 != 0.25 {
		t.Errorf("default %+v", res.Default)
	}
}

// TestGridStartsWithTheDefaults: the grid tries only the few weights
// that fuse rankings and the one for quoted text, each combination once,
// the defaults first.
func TestGridStartsWithTheDefaults(t *testing.T) {
	g := Grid()
	def := heuristic.DefaultParams()
	if g[0] != def || len(g) < 2 || len(g) > 128 {
		t.Fatalf("grid of %d starting %v", len(g), g[0])
	}
	seen := map[heuristic.Params]bool{}
	for _, p := range g {
		if seen[p] {
			t.Fatalf("%v tried twice", p)
		}
		seen[p] = true
		q := p
		q.Raises, q.Lexical, q.History, q.Recent, q.CoChange = def.Raises, def.Lexical, def.History, def.Recent, def.CoChange
		if q != def {
			t.Errorf("%v moves a weight other than the fusion weights", p)
		}
	}
}

func TestByRepo(t *testing.T) {
	b := hit("x", false, false)
	got := byRepo([]Instance{
		{ID: "x1", Repo: "o/x", Score: hit("x1", true, true), BM25: &b},
		{ID: "y1", Repo: "o/y", Error: "missing", Score: swebench.Score{InstanceID: "y1"}},
		{ID: "x2", Repo: "o/x", Score: hit("x2", false, true), BM25: &b},
	})
	if len(got) != 2 || got[0].Repo != "o/x" || got[0].Localizer.FileAcc3 != 0.5 || got[0].BM25.FileAcc3 != 0 {
		t.Fatalf("%+v", got)
	}
	if got[1].Localizer.Failed != 1 || got[1].BM25 == nil || got[1].BM25.Failed != 1 {
		t.Errorf("a failed repository: %+v", got[1])
	}
}

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{3}, Spread{P50: 3, P95: 3, Max: 3}},
		{[]float64{5, 1, 4, 2, 3}, Spread{P50: 3, P95: 5, Max: 5}},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, Spread{P50: 11, P95: 20, Max: 21}},
	}
	for _, tc := range tests {
		if got := spreadOf(tc.in); got != tc.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestAblateCountsReposHelpedAndHurt: a rule that helps one repository
// and hurts two is reported as such.
func TestAblateCountsReposHelpedAndHurt(t *testing.T) {
	mk := func(repo string, on, off bool) looInstance {
		return looInstance{repo: repo, byW: []swebench.Score{hit(repo, on, on)}, byAbl: []swebench.Score{hit(repo, off, off)}}
	}
	all := []looInstance{mk("a", true, false), mk("b", false, true), mk("c", false, true), mk("d", true, true)}
	got := ablate(all, []heuristic.Rule{{Name: "r"}})
	if len(got) != 1 || got[0].Helps != 1 || got[0].Hurts != 2 || got[0].Gain["a"] != 3 || got[0].Gain["b"] != -3 || got[0].Total != -3 {
		t.Fatalf("%+v", got)
	}
}
