package tui

import (
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
)

// treeNode is one unit in the localization DFS.
type treeNode struct {
	event.Node
	children []string
}

// treePane draws the search tree as it grows: roots are the entry-point
// searches, children the units followed from them.
type treePane struct {
	nodes     map[string]*treeNode
	roots     []string
	current   string         // the unit the agent entered last
	rank      map[string]int // final ranking, 1-based
	unvisited []string       // ranked units the DFS never entered
	collapsed map[string]bool
	pruned    map[string]bool // units the engineer asked the search to prune
	// sel is the selected unit and cursor its row: the selection follows the
	// unit, not the row, while the search inserts units above it.
	sel    string
	cursor int
	offset int
	follow bool // the selection tracks the current node until the engineer moves it
}

func newTreePane() treePane {
	return treePane{nodes: map[string]*treeNode{}, rank: map[string]int{}, collapsed: map[string]bool{}, pruned: map[string]bool{}, follow: true}
}

// add records a node; a node seen again (a revisit or a dead-end mark)
// is updated in place.
func (t *treePane) add(n event.Node) {
	if old, ok := t.nodes[n.ID]; ok {
		dead := n.DeadEnd // the newest mark wins: a unit the search comes back to is live again
		if n.Preview == "" {
			n.Preview = old.Preview
		}
		if n.Kind == "" {
			n.Kind = old.Kind
		}
		n.Parent, n.Depth, n.Query = old.Parent, old.Depth, old.Query
		old.Node = n
		old.DeadEnd = dead
	} else {
		// The parent must exist before the child, so the tree has no cycles.
		if p, ok := t.nodes[n.Parent]; ok && n.Parent != "" {
			p.children = append(p.children, n.ID)
		} else {
			t.roots = append(t.roots, n.ID)
		}
		t.nodes[n.ID] = &treeNode{Node: n}
	}
	if !n.DeadEnd {
		t.current = n.ID
	}
	if t.follow {
		t.sel = t.current
	}
	t.place()
}

// place puts the cursor on the selected unit's row, wherever the tree has
// grown; a unit folded out of sight leaves the cursor where it was.
func (t *treePane) place() {
	if t.sel != "" {
		t.cursor = t.indexOf(t.sel)
	}
}

// setRanking marks the final ranking on the tree.
func (t *treePane) setRanking(r *event.Ranking) {
	t.rank = map[string]int{}
	t.unvisited = nil
	for i, id := range r.Functions {
		t.rank[id] = i + 1
		if _, ok := t.nodes[id]; !ok {
			t.unvisited = append(t.unvisited, id)
		}
	}
}

// row is one visible line of the tree.
type treeRow struct {
	id    string
	depth int
}

func (t *treePane) rows() []treeRow {
	var out []treeRow
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		out = append(out, treeRow{id, depth})
		if t.collapsed[id] {
			return
		}
		for _, c := range t.nodes[id].children {
			walk(c, depth+1)
		}
	}
	for _, r := range t.roots {
		walk(r, 0)
	}
	return out
}

func (t *treePane) indexOf(id string) int {
	for i, r := range t.rows() {
		if r.id == id {
			return i
		}
	}
	return t.cursor
}

func (t *treePane) move(delta int) {
	rows := t.rows()
	if len(rows) == 0 {
		return
	}
	t.cursor = max(min(t.cursor+delta, len(rows)-1), 0)
	t.sel = rows[t.cursor].id
	t.follow = false
}

// followCurrent selects the unit the search stands on again and keeps
// doing so.
func (t *treePane) followCurrent() {
	t.follow, t.sel = true, t.current
	t.place()
}

// selected is the node under the cursor, or nil.
func (t *treePane) selected() *treeNode {
	rows := t.rows()
	if t.cursor < 0 || t.cursor >= len(rows) {
		return nil
	}
	return t.nodes[rows[t.cursor].id]
}

// toggle folds or unfolds the node under the cursor.
func (t *treePane) toggle() {
	if n := t.selected(); n != nil && len(n.children) > 0 {
		t.collapsed[n.ID] = !t.collapsed[n.ID]
	}
}

func (t *treePane) view(st Styles, r rect, focused bool) []string {
	rows := t.rows()
	if len(rows) == 0 {
		return []string{st.Dim.Render("waiting for the localization agent's first search…")}
	}
	foot := t.footer(st)
	h := max(r.h-len(foot)-1, 1)
	t.offset = window(t.offset, t.cursor, len(rows), h)
	out := []string{fit(st.Dim.Render(t.summary()), r.w)}
	for i := t.offset; i < len(rows) && len(out) < h+1; i++ {
		out = append(out, t.line(st, rows[i], i == t.cursor && focused, r.w))
	}
	for len(out) < h+1 && len(foot) > 0 {
		out = append(out, "")
	}
	return append(out, foot...)
}

func (t *treePane) line(st Styles, row treeRow, cursor bool, w int) string {
	n := t.nodes[row.id]
	mark := "  "
	if cursor {
		mark = st.Cursor.Render("› ")
	}
	glyph := "• "
	if len(n.children) > 0 {
		glyph = "▾ "
		if t.collapsed[n.ID] {
			glyph = "▸ "
		}
	}
	id := n.ID
	switch {
	case n.ID == t.current:
		id = st.Current.Render(id + " ◀")
	case n.DeadEnd || t.pruned[n.ID]:
		id = st.Dim.Render(id)
	}
	parts := []string{mark + strings.Repeat("  ", row.depth) + glyph + id, st.Dim.Render(n.Kind)}
	if k := t.rank[n.ID]; k > 0 {
		parts = append(parts, st.Rank.Render(fmt.Sprintf("★%d", k)))
	}
	switch {
	case t.pruned[n.ID]: // the engineer's doing, not the search's
		parts = append(parts, st.Note.Render("✂ pruned by you"))
	case n.DeadEnd:
		parts = append(parts, st.Dim.Render("✗ dead end"))
	}
	if p := firstLine(n.Preview); p != "" {
		parts = append(parts, st.Dim.Render("— "+p))
	}
	if row.depth == 0 && n.Query != "" {
		parts = append(parts, st.Dim.Render("⌕ "+n.Query))
	}
	return fit(strings.Join(parts, " "), w)
}

// summary is the search at a glance: entry points, units, depth, dead ends.
func (t *treePane) summary() string {
	depth, dead := 0, 0
	for _, n := range t.nodes {
		depth = max(depth, n.Depth)
		if n.DeadEnd && !t.pruned[n.ID] {
			dead++
		}
	}
	s := fmt.Sprintf("%d entry %s · %d %s · %d %s · %d dead %s",
		len(t.roots), plural(len(t.roots), "point", "points"), len(t.nodes), plural(len(t.nodes), "unit", "units"),
		depth+1, plural(depth+1, "level", "levels"), dead, plural(dead, "end", "ends"))
	if len(t.pruned) > 0 {
		s += fmt.Sprintf(" · %d pruned", len(t.pruned))
	}
	if len(t.rank) > 0 {
		s += fmt.Sprintf(" · %d ranked", len(t.rank))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// footer lists ranked units the search never entered, so the ranking is
// complete even when the re-rank pulled in something new.
func (t *treePane) footer(st Styles) []string {
	if len(t.unvisited) == 0 {
		return nil
	}
	out := []string{st.Dim.Render("ranked, not in the tree:")}
	for _, id := range t.unvisited {
		out = append(out, "  "+st.Rank.Render(fmt.Sprintf("★%d", t.rank[id]))+" "+id)
	}
	return out
}

// detail is the markdown the diff pane shows for the selected node.
func (n *treeNode) detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n*%s*, depth %d", n.ID, n.Kind, n.Depth)
	if n.Query != "" {
		fmt.Fprintf(&b, ", found by `%s`", n.Query)
	}
	if n.DeadEnd {
		b.WriteString(" — **dead end**")
	}
	fmt.Fprintf(&b, "\n\n```\n%s\n```\n", strings.TrimSpace(n.Preview))
	return b.String()
}
