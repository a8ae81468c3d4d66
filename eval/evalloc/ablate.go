package evalloc

import (
	"slices"

	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
)

// Ablation is what one rule of the shipped weights is worth, repository
// by repository: the hits (file Acc@1, file Acc@3 and function Acc@5
// together) with the rule minus the hits without it. A rule that helps
// one repository and hurts two is not a general rule.
type Ablation struct {
	Rule  string         `json:"rule"`
	Gain  map[string]int `json:"gain_by_repo"`
	Helps int            `json:"repos_helped"`
	Hurts int            `json:"repos_hurt"`
	Total int            `json:"total_gain"`
}

func ablate(all []looInstance, rules []heuristic.Rule) []Ablation {
	var repos []string
	for _, li := range all {
		if !slices.Contains(repos, li.repo) {
			repos = append(repos, li.repo)
		}
	}
	var out []Ablation
	for i, r := range rules {
		a := Ablation{Rule: r.Name, Gain: map[string]int{}}
		for _, repo := range repos {
			on, off := [2]int{}, [2]int{}
			for _, li := range all {
				if li.repo == repo && i < len(li.byAbl) {
					on, off = addKey(on, li.byW[0]), addKey(off, li.byAbl[i])
				}
			}
			g := on[0] - off[0]
			if g != 0 {
				a.Gain[repo] = g
			}
			a.Total += g
			if g > 0 {
				a.Helps++
			} else if g < 0 {
				a.Hurts++
			}
		}
		out = append(out, a)
	}
	return out
}
