package evalloc

import (
	"math"
	"slices"
)

// Timing is how long the steps of an evaluation took per instance, so
// indexing (paid once per tree, then cached) and reading history (paid
// once per repository, then incremental) are not mistaken for the cost of
// localizing.
type Timing struct {
	Index    Spread `json:"index_seconds"`
	History  Spread `json:"history_seconds"`
	Localize Spread `json:"localize_seconds"`
	// WithHistory is history plus localization: what a localization costs
	// once the tree is indexed.
	WithHistory Spread `json:"localize_with_history_seconds"`
}

// Spread is the median and the 95th percentile of a duration.
type Spread struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

func timingOf(all []Instance) Timing {
	var ix, hist, loc, both []float64
	for _, in := range all {
		if in.Error != "" {
			continue
		}
		ix = append(ix, in.IndexSeconds)
		hist = append(hist, in.HistorySeconds)
		loc = append(loc, in.LocalizeSeconds)
		both = append(both, in.HistorySeconds+in.LocalizeSeconds)
	}
	return Timing{Index: spreadOf(ix), History: spreadOf(hist), Localize: spreadOf(loc), WithHistory: spreadOf(both)}
}

// spreadOf takes the nearest-rank percentiles.
func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return round2(s[max(0, min(i, len(s)-1))])
	}
	return Spread{P50: at(0.5), P95: at(0.95), Max: round2(s[len(s)-1])}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
