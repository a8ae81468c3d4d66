package swebench

// AllIn reports whether every gold location is among the first k
// predictions: LocAgent's definition of a hit at k.
func AllIn(gold, preds []string, k int) bool {
	if len(gold) == 0 {
		return false
	}
	top := map[string]bool{}
	for i, p := range preds {
		if i >= k {
			break
		}
		top[p] = true
	}
	for _, g := range gold {
		if !top[g] {
			return false
		}
	}
	return true
}

// Score is one instance's hits.
type Score struct {
	InstanceID string `json:"instance_id"`
	File1      bool   `json:"file_acc@1"`
	File3      bool   `json:"file_acc@3"`
	File5      bool   `json:"file_acc@5"`
	// HasFunc is false when the instance has no gold function: it is left
	// out of the function scores.
	HasFunc bool `json:"has_gold_function"`
	Func5   bool `json:"func_acc@5"`
	Func10  bool `json:"func_acc@10"`
}

// ScoreOne scores predictions (functions already normalized) against gold.
func ScoreOne(id string, g Gold, files, funcs []string) Score {
	s := Score{InstanceID: id, HasFunc: len(g.Functions) > 0}
	s.File1, s.File3, s.File5 = AllIn(g.Files, files, 1), AllIn(g.Files, files, 3), AllIn(g.Files, files, 5)
	if s.HasFunc {
		s.Func5, s.Func10 = AllIn(g.Functions, funcs, 5), AllIn(g.Functions, funcs, 10)
	}
	return s
}

// Summary is Acc@k over many instances, as fractions.
type Summary struct {
	Instances int     `json:"instances"`
	Failed    int     `json:"failed"` // instances that could not be localized (missing repo or commit)
	WithFuncs int     `json:"instances_with_gold_functions"`
	FileAcc1  float64 `json:"file_acc@1"`
	FileAcc3  float64 `json:"file_acc@3"`
	FileAcc5  float64 `json:"file_acc@5"`
	FuncAcc5  float64 `json:"func_acc@5"`
	FuncAcc10 float64 `json:"func_acc@10"`
}

// Summarize averages scores. Failed instances count as misses in the file
// scores (and in the function scores when their gold is known to have a
// function), so a broken checkout never flatters the figures.
func Summarize(scores []Score, failed []Score) Summary {
	s := Summary{Instances: len(scores) + len(failed), Failed: len(failed)}
	var f1, f3, f5, g5, g10 int
	for _, sc := range scores {
		f1, f3, f5 = f1+b2i(sc.File1), f3+b2i(sc.File3), f5+b2i(sc.File5)
		if sc.HasFunc {
			s.WithFuncs++
			g5, g10 = g5+b2i(sc.Func5), g10+b2i(sc.Func10)
		}
	}
	for _, sc := range failed {
		if sc.HasFunc {
			s.WithFuncs++
		}
	}
	s.FileAcc1, s.FileAcc3, s.FileAcc5 = frac(f1, s.Instances), frac(f3, s.Instances), frac(f5, s.Instances)
	s.FuncAcc5, s.FuncAcc10 = frac(g5, s.WithFuncs), frac(g10, s.WithFuncs)
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func frac(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
