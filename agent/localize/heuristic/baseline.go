package heuristic

import "github.com/swe-adept/swe-adept/index"

// BM25Ranking is the BM25Units baseline as locations: the first k files in
// the order their units rank, and the k best functions and methods.
func BM25Ranking(ix *index.Index, issue string, k int) (files, functions []string) {
	seen := map[string]bool{}
	for _, id := range BM25Units(ix, issue, 0) {
		u, ok := ix.Unit(id)
		if !ok {
			continue
		}
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
