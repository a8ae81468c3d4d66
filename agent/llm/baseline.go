package llm

import "github.com/swe-adept/swe-adept/index"

// BM25Ranking ranks a repository's code units against an issue with plain
// BM25 over the units' text: no entry points, no traversal, no filtering.
// It is the baseline the heuristic localizer is measured against, built on
// the same corpus so the comparison isolates the search strategy.
func BM25Ranking(ix *index.Index, issue string, k int) (files, functions []string) {
	c := newCorpus(ix)
	seen := map[string]bool{}
	for _, s := range c.bm.top(queryBag(identTokens(issue)), 0) {
		u := c.units[s.doc]
		if !seen[u.Path] && len(files) < k {
			seen[u.Path] = true
			files = append(files, u.Path)
		}
		if (u.Kind == index.KindFunction || u.Kind == index.KindMethod) && len(functions) < k {
			functions = append(functions, u.ID)
		}
		if len(files) >= k && len(functions) >= k {
			break
		}
	}
	return files, functions
}
