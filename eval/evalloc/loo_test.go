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

func TestGridStartsWithTheDefaults(t *testing.T) {
	g := Grid()
	if g[0] != heuristic.DefaultParams() || len(g) < 50 {
		t.Fatalf("grid of %d starting %v", len(g), g[0])
	}
	seen := map[heuristic.Params]bool{}
	for _, p := range g {
		if seen[p] {
			t.Fatalf("%v tried twice", p)
		}
		seen[p] = true
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
