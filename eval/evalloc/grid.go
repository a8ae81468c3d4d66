package evalloc

import "github.com/swe-adept/swe-adept/agent/localize/heuristic"

// Grid is the weights LeaveOneOut tries by default: the shipped weights
// first, then each combination of the few weights that fuse the rankings
// (the words, similar past changes, recent activity, co-change)
// and of what holding the text the issue quotes is worth. The rest of the
// ranking's weights are fixed: they were not chosen on these instances'
// repositories' folds and are not re-chosen per fold.
func Grid() []heuristic.Params {
	grid := []heuristic.Params{heuristic.DefaultParams()}
	for _, raises := range []float64{0.6, 1.2} {
		for _, lexical := range []float64{0.1, 0.25, 0.5} {
			for _, hist := range []float64{0, 0.15, 0.3, 0.6} {
				for _, recent := range []float64{0, 0.1} {
					for _, co := range []float64{0, 0.1} {
						p := heuristic.DefaultParams()
						p.Raises, p.Lexical, p.History, p.Recent, p.CoChange = raises, lexical, hist, recent, co
						if p != grid[0] {
							grid = append(grid, p)
						}
					}
				}
			}
		}
	}
	return grid
}
