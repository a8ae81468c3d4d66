package memory

import (
	"sort"
	"strings"
	"unicode"
)

// How a re-sent list keeps identities. The model re-sends its whole list, edited; each new item is
// matched to at most one existing item, in passes, each taking only items still free:
//  1. the id the model copied back from a rendered annotation ("(t2, checkpoint …)");
//  2. the same text, ignoring case and spacing (nearest old position wins among duplicates);
//  3. the most similar text: Jaccard similarity of normalized word sets at or above
//     FuzzyThreshold, best pairs first, nearer positions breaking ties;
//  4. the same place: an item whose neighbours both matched the old item's neighbours (or that
//     sits at the same end of the list) takes the old item between them, so rewording one step in
//     place keeps it.
//
// A matched item keeps its id, checkpoint, branch, insights and to-dos and takes the new text and
// status; an unmatched one gets a new id. An old item the new list leaves out is deleted unless
// deleting it would lose work: a to-do with a checkpoint, or a hypothesis with a branch, insights
// or a checkpointed to-do. Those are kept, marked Dropped, after the listed ones; listing them
// again (by id, text or similarity) revives them.

type oldItem struct {
	id, content string
	pos         int // index among the listed (not dropped) items; -1 when dropped
	nActive     int // how many items were listed
}

// matchItems returns, for each new item, the index of the old item it continues, or -1.
func matchItems(old []oldItem, items []Item) []int {
	res := make([]int, len(items))
	for i := range res {
		res[i] = -1
	}
	taken := make([]bool, len(old))
	take := func(i, j int) { res[i], taken[j] = j, true }

	for i, it := range items { // 1: ids copied back
		if it.Ref == "" {
			continue
		}
		for j, o := range old {
			if !taken[j] && o.id == it.Ref {
				take(i, j)
				break
			}
		}
	}
	oldKeys := make([]string, len(old))
	for j, o := range old {
		oldKeys[j] = normKey(o.content)
	}
	for i, it := range items { // 2: same text
		if res[i] >= 0 {
			continue
		}
		key, best := normKey(it.Content), -1
		for j, o := range old {
			if !taken[j] && oldKeys[j] == key && (best < 0 || posDist(i, o) < posDist(i, old[best])) {
				best = j
			}
		}
		if best >= 0 {
			take(i, best)
		}
	}
	matchSimilar(old, items, res, taken)
	matchInPlace(old, items, res, taken)
	return res
}

func posDist(i int, o oldItem) int {
	if o.pos < 0 {
		return 1 << 30
	}
	if i > o.pos {
		return i - o.pos
	}
	return o.pos - i
}

func matchSimilar(old []oldItem, items []Item, res []int, taken []bool) {
	type pair struct {
		i, j  int
		score float64
	}
	var pairs []pair
	oldToks := make([]map[string]bool, len(old))
	for j, o := range old {
		oldToks[j] = tokens(o.content)
	}
	for i, it := range items {
		if res[i] >= 0 {
			continue
		}
		nt := tokens(it.Content)
		for j := range old {
			if taken[j] {
				continue
			}
			if s := jaccard(nt, oldToks[j]); s >= FuzzyThreshold {
				pairs = append(pairs, pair{i, j, s})
			}
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool {
		pa, pb := pairs[a], pairs[b]
		if pa.score != pb.score {
			return pa.score > pb.score
		}
		return posDist(pa.i, old[pa.j]) < posDist(pb.i, old[pb.j])
	})
	for _, p := range pairs {
		if res[p.i] < 0 && !taken[p.j] {
			res[p.i], taken[p.j] = p.j, true
		}
	}
}

func matchInPlace(old []oldItem, items []Item, res []int, taken []bool) {
	byPos := map[int]int{}
	nActive := 0
	for j, o := range old {
		if o.pos >= 0 {
			byPos[o.pos] = j
			nActive = o.nActive
		}
	}
	for i := range items {
		if res[i] >= 0 {
			continue
		}
		want := 0
		if i > 0 {
			if res[i-1] < 0 || old[res[i-1]].pos < 0 {
				continue
			}
			want = old[res[i-1]].pos + 1
		}
		if i == len(items)-1 {
			if want != nActive-1 {
				continue
			}
		} else if res[i+1] < 0 || old[res[i+1]].pos != want+1 {
			continue
		}
		if j, ok := byPos[want]; ok && !taken[j] {
			res[i], taken[j] = j, true
		}
	}
}

// normKey is text compared for sameness: lower case, single spaces.
func normKey(s string) string { return strings.ToLower(normSpace(s)) }

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// trimBlock trims a multi-line text and its trailing spaces per line, keeping its lines.
func trimBlock(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// maxTokens caps the words compared per item: a plan step is a sentence, and comparing all pairs
// of two long lists must stay cheap.
const maxTokens = 64

// tokens is the set of lower-cased words and numbers in s, up to maxTokens of them.
func tokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
		if len(out) == maxTokens {
			break
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
