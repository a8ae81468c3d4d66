package localize

import (
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
)

// Tree is the depth-first search as it happened: entry-point hits are roots,
// and each find_child_unit is an edge from the unit whose preview listed
// that child. It is the paper's Figure 1(b-1) and the data behind Figure 4
// (search depth, calls per tool).
type Tree struct {
	nodes  []*event.Node
	byID   map[string]*event.Node
	lister map[string][]string // child id -> ids of nodes whose previews listed it, oldest first
	// explored are the units the search went into: opened with
	// find_child_unit, followed below, or the one hit of an entry search.
	// Only they can be dead ends; the other hits of an entry search are
	// candidates the search has not looked into.
	explored map[string]bool
	emit     func(event.Node)
}

func newTree(emit func(event.Node)) *Tree {
	if emit == nil {
		emit = func(event.Node) {}
	}
	return &Tree{byID: map[string]*event.Node{}, lister: map[string][]string{}, explored: map[string]bool{}, emit: emit}
}

// addRoot enters a hit of an entry-point search; landed says the search
// found only this unit, so it stands on it. A unit already in the tree
// keeps its place.
func (t *Tree) addRoot(id, kind, preview, query string, children []string, landed bool) {
	if _, ok := t.byID[id]; !ok {
		t.add(&event.Node{ID: id, Kind: kind, Preview: oneLine(preview), Query: query})
	}
	if landed {
		t.explored[id] = true
	}
	t.listed(id, children)
	t.leave(id)
}

// addChild enters a unit reached by find_child_unit. Its parent is the most
// recently entered node whose preview listed it, which on a depth-first path
// is the unit the agent just came from. A unit no preview listed (the model
// typed an id it guessed) becomes a root. A root reached again as a child
// moves under its parent, unless that would make a cycle.
func (t *Tree) addChild(id, kind, preview, query string, children []string) {
	parent := t.parentOf(id)
	t.explored[id] = true
	if parent != nil {
		t.explored[parent.ID] = true
	}
	n, ok := t.byID[id]
	switch {
	case !ok:
		n = &event.Node{ID: id, Kind: kind, Preview: oneLine(preview)}
		if parent == nil {
			n.Query = query
		} else {
			n.Parent, n.Depth = parent.ID, parent.Depth+1
		}
		t.add(n)
	case n.Parent == "" && parent != nil && !t.isAncestor(id, parent.ID):
		t.reparent(n, parent)
	}
	t.listed(id, children)
	t.leave(id)
}

// leave marks, as the search moves to id, the units it left without
// following anything below them: dead ends for now. A unit the search
// comes back through is live again; the final ranking settles both
// (markDeadEnds).
func (t *Tree) leave(id string) {
	onPath := map[string]bool{}
	for cur := id; cur != "" && !onPath[cur]; {
		onPath[cur] = true
		n, ok := t.byID[cur]
		if !ok {
			break
		}
		cur = n.Parent
	}
	followed := map[string]bool{}
	for _, n := range t.nodes {
		if n.Parent != "" {
			followed[n.Parent] = true
		}
	}
	changed := false
	for _, n := range t.nodes {
		dead := n.DeadEnd
		switch {
		case onPath[n.ID]:
			dead = false
		case !followed[n.ID] && t.explored[n.ID]:
			dead = true
		}
		if dead != n.DeadEnd {
			n.DeadEnd, changed = dead, true
			t.emit(*n)
		}
	}
	if changed {
		t.emit(*t.byID[id]) // the search stands here: the panes follow it
	}
}

func (t *Tree) parentOf(id string) *event.Node {
	ls := t.lister[id]
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i] != id {
			return t.byID[ls[i]]
		}
	}
	return nil
}

// isAncestor reports whether a is b or an ancestor of b.
func (t *Tree) isAncestor(a, b string) bool {
	for cur := b; cur != ""; {
		if cur == a {
			return true
		}
		n, ok := t.byID[cur]
		if !ok {
			return false
		}
		cur = n.Parent
	}
	return false
}

func (t *Tree) reparent(n, parent *event.Node) {
	n.Parent, n.Query = parent.ID, ""
	t.fixDepths(n, parent.Depth+1)
}

// fixDepths sets n's depth and its descendants', re-announcing each node.
func (t *Tree) fixDepths(n *event.Node, depth int) {
	n.Depth = depth
	t.emit(*n)
	for _, c := range t.nodes {
		if c.Parent == n.ID {
			t.fixDepths(c, depth+1)
		}
	}
}

func (t *Tree) add(n *event.Node) {
	t.nodes = append(t.nodes, n)
	t.byID[n.ID] = n
	t.emit(*n)
}

func (t *Tree) listed(by string, children []string) {
	for _, c := range children {
		ls := t.lister[c]
		if len(ls) == 0 || ls[len(ls)-1] != by {
			t.lister[c] = append(ls, by)
		}
	}
}

// Has reports whether a unit or file is in the tree.
func (t *Tree) Has(id string) bool { _, ok := t.byID[id]; return ok }

// Nodes are copies of the nodes in the order they entered.
func (t *Tree) Nodes() []event.Node {
	out := make([]event.Node, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = *n
	}
	return out
}

// MaxDepth is the deepest edge chain followed (0: only entry points).
func (t *Tree) MaxDepth() int {
	d := 0
	for _, n := range t.nodes {
		d = max(d, n.Depth)
	}
	return d
}

// markDeadEnds flags every explored node with nothing kept below it or at
// it: the agent left that path without its units making the final ranking. Changed
// nodes are announced again so the panes can grey them.
func (t *Tree) markDeadEnds(kept func(id string) bool) {
	live := map[string]bool{}
	for _, n := range t.nodes {
		if !kept(n.ID) {
			continue
		}
		for cur := n.ID; cur != "" && !live[cur]; {
			live[cur] = true
			p, ok := t.byID[cur]
			if !ok {
				break
			}
			cur = p.Parent
		}
	}
	for _, n := range t.nodes {
		dead := !live[n.ID] && t.explored[n.ID]
		if dead != n.DeadEnd {
			n.DeadEnd = dead
			t.emit(*n)
		}
	}
}

// oneLine keeps a preview's first meaningful line, shortened for a tree row.
func oneLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if r := []rune(l); len(r) > 100 {
			l = string(r[:99]) + "…"
		}
		return l
	}
	return ""
}
