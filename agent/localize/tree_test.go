package localize

import (
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
)

func TestTreeEdges(t *testing.T) {
	var emitted []event.Node
	tr := newTree(func(n event.Node) { emitted = append(emitted, n) })
	tr.addRoot("a.py:A", "class", "class A:\n  body", "find_code_def A", []string{"a.py:A.run", "b.py:helper"}, true)
	tr.addRoot("b.py:helper", "function", "def helper():", "find_code_def helper", nil, true)
	tr.addChild("a.py:A.run", "method", "def run(self):", "a.py:A.run", []string{"c.py:deep"})
	tr.addChild("c.py:deep", "function", "def deep():", "c.py:deep", []string{"a.py:A"})
	// helper was a root hit; opened from A's preview it moves under A.
	tr.addChild("b.py:helper", "function", "def helper():", "b.py:helper", nil)
	// A is listed by deep, but moving A under its own descendant would be a cycle.
	tr.addChild("a.py:A", "class", "class A:", "a.py:A", nil)
	// An id no preview listed becomes a root.
	tr.addChild("d.py:guess", "function", "def guess():", "d.py:guess", nil)

	want := map[string]struct {
		parent string
		depth  int
	}{
		"a.py:A":      {"", 0},
		"a.py:A.run":  {"a.py:A", 1},
		"c.py:deep":   {"a.py:A.run", 2},
		"b.py:helper": {"a.py:A", 1},
		"d.py:guess":  {"", 0},
	}
	nodes := tr.Nodes()
	if len(nodes) != len(want) {
		t.Fatalf("%d nodes, want %d: %+v", len(nodes), len(want), nodes)
	}
	for _, n := range nodes {
		w := want[n.ID]
		if n.Parent != w.parent || n.Depth != w.depth {
			t.Errorf("%s: parent %q depth %d, want %q %d", n.ID, n.Parent, n.Depth, w.parent, w.depth)
		}
	}
	if nodes[0].Preview != "class A:" {
		t.Errorf("preview %q should be the first line", nodes[0].Preview)
	}
	if g := nodes[4]; g.Query != "d.py:guess" {
		t.Errorf("guessed root keeps its query: %+v", g)
	}
	if tr.MaxDepth() != 2 {
		t.Errorf("max depth %d", tr.MaxDepth())
	}
	before := len(emitted)
	tr.markDeadEnds(func(id string) bool { return id == "c.py:deep" })
	dead := map[string]bool{}
	for _, n := range tr.Nodes() {
		dead[n.ID] = n.DeadEnd
	}
	wantDead := map[string]bool{"a.py:A": false, "a.py:A.run": false, "c.py:deep": false, "b.py:helper": true, "d.py:guess": true}
	for id, d := range wantDead {
		if dead[id] != d {
			t.Errorf("%s dead %v, want %v", id, dead[id], d)
		}
	}
	if len(emitted)-before != 2 {
		t.Errorf("%d node updates for 2 dead ends", len(emitted)-before)
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("x", 150)
	tests := map[string]string{
		"\n\n  def f(a):\n    pass": "def f(a):",
		"":                          "",
		long:                        strings.Repeat("x", 99) + "…",
	}
	for in, want := range tests {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeadEndsAsTheSearchBacksOff: a unit left without following anything
// below it is a dead end at once; coming back through it revives it; the
// final ranking settles every mark.
func TestDeadEndsAsTheSearchBacksOff(t *testing.T) {
	dead := map[string]bool{}
	tr := newTree(func(n event.Node) { dead[n.ID] = n.DeadEnd })
	tr.addRoot("a.py:A", "class", "class A:", "find_code_def A", []string{"a.py:A.x", "a.py:A.y"}, true)
	tr.addChild("a.py:A.x", "method", "def x():", "a.py:A.x", []string{"b.py:deep"})
	if dead["a.py:A"] || dead["a.py:A.x"] {
		t.Fatalf("the path being followed is marked dead: %v", dead)
	}
	tr.addChild("a.py:A.y", "method", "def y():", "a.py:A.y", nil)
	if !dead["a.py:A.x"] || dead["a.py:A"] || dead["a.py:A.y"] {
		t.Fatalf("after backing off from A.x to A.y: %v", dead)
	}
	tr.addChild("b.py:deep", "function", "def deep():", "b.py:deep", nil)
	if dead["a.py:A.x"] || dead["b.py:deep"] || !dead["a.py:A.y"] {
		t.Fatalf("after coming back below A.x: %v", dead)
	}
	tr.markDeadEnds(func(id string) bool { return id == "a.py:A.y" })
	if dead["a.py:A.y"] || !dead["b.py:deep"] || !dead["a.py:A.x"] || dead["a.py:A"] {
		t.Fatalf("after the ranking kept A.y: %v", dead)
	}
}

// TestEntryPointsAreNotDeadEndsUnexplored: the hits of an entry search the
// agent never looked into are not dead ends, while it searches or after;
// a hit it went below, and left with nothing kept, is.
func TestEntryPointsAreNotDeadEndsUnexplored(t *testing.T) {
	dead := map[string]bool{}
	tr := newTree(func(n event.Node) { dead[n.ID] = n.DeadEnd })
	// One search, three hits: the agent goes into the second.
	tr.addRoot("a.py:one", "function", "def one():", "find_code_content total", nil, false)
	tr.addRoot("b.py:two", "function", "def two():", "find_code_content total", []string{"b.py:two_helper"}, false)
	tr.addRoot("c.py:three", "function", "def three():", "find_code_content total", nil, false)
	tr.addChild("b.py:two_helper", "function", "def two_helper():", "b.py:two_helper", nil)
	if dead["a.py:one"] || dead["c.py:three"] {
		t.Fatalf("entry points marked dead before they were explored: %v", dead)
	}
	tr.markDeadEnds(func(id string) bool { return id == "a.py:one" })
	if dead["c.py:three"] || !dead["b.py:two"] || !dead["b.py:two_helper"] || dead["a.py:one"] {
		t.Fatalf("after the ranking kept a.py:one: %v", dead)
	}
}
