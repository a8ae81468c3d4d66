package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// TestSecondQuestionIsShown: a request is never dropped because it looks
// like one already answered, even when an older run reused its id.
func TestSecondQuestionIsShown(t *testing.T) {
	m := testModel(120, 40, Options{})
	first := event.NewApproval("locations-1", "edit_locations", "ranked locations")
	first.Options = []string{"a.py:f"}
	feed(m, event.Event{Type: event.Approval, Agent: event.Runtime, Approval: first})
	m.Update(press("r"))
	typeText(m, "look at b.py")
	m.Update(press("enter"))
	if rep := answerOf(t, first); rep.Decision != event.Refuse {
		t.Fatalf("first answer %+v", rep)
	}
	done := *first
	done.Reply = &event.Reply{Decision: event.Refuse, Reason: "look at b.py"}
	feed(m, event.Event{Type: event.ApprovalDone, Agent: event.Runtime, Approval: &done})

	second := event.NewApproval("locations-1", "edit_locations", "ranked locations")
	second.Options = []string{"b.py:g"}
	feed(m, event.Event{Type: event.Approval, Agent: event.Runtime, Approval: second})
	if m.dialog == nil || !m.dialog.req.Same(second) {
		t.Fatal("the second question was dropped: the run would wait on a question the screen does not show")
	}
	m.Update(press("a"))
	if rep := answerOf(t, second); rep.Decision != event.Approve {
		t.Fatalf("second answer %+v", rep)
	}
}

// TestStatusBarClaimsOnlyASolution: "done: submitted" only for a run that
// submitted a patch; an empty or unmerged submission says what it is.
func TestStatusBarClaimsOnlyASolution(t *testing.T) {
	tests := []struct {
		status, patch, want string
	}{
		{"submitted", "/runs/r/patch.diff", "done: submitted"},
		{"submitted", "", "ended: submitted, empty patch"},
		{"submitted_empty", "", "ended: submitted_empty"},
		{"submitted_unmerged", "/runs/r/patch.diff", "ended: submitted_unmerged"},
	}
	for _, tc := range tests {
		t.Run(tc.status+tc.patch, func(t *testing.T) {
			m := testModel(120, 40, Options{})
			feed(m, event.Event{Type: event.Done, Done: &event.DoneInfo{Status: tc.status, Patch: tc.patch}})
			if got := m.state(); !strings.Contains(got, tc.want) {
				t.Errorf("status bar says %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDialogAnswersStayOnScreen: at every size, an open dialog shows its
// whole headline and every answer key, in its footer and the status bar.
func TestDialogAnswersStayOnScreen(t *testing.T) {
	merge := event.NewApproval("merge-9", "merge_solution", "swe-adept/20261126-0540-2e0f/round-half-up")
	merge.Summary, merge.Options = "Apply the changes of round-half-up onto the original state.", []string{"swe-adept/20261126-0540-2e0f/total-from-list-prices"}
	revert := event.NewApproval("revert-8", "revert_to", "h1/t1")
	revert.Summary, revert.Options = "Check out checkpoint e5c8393 of h1, step t1, on the new branch round-half-up.", []string{"h1/t2 b20dadb Compute Cart.total"}
	bash := event.NewApproval("bash-7", "bash", "md5sum shop/money.py")
	bash.Options = []string{"always: md5sum"}
	for _, tc := range []struct {
		req      *event.ApprovalRequest
		headline string
		keys     []string
	}{
		{merge, "Merge round-half-up as the solution?", []string{"a approve", "c choose", "r refuse"}},
		{revert, "Revert to checkpoint h1/t1?", []string{"a approve", "c choose", "r refuse"}},
		{bash, "Run this command?", []string{"a approve", "A don't ask again", "e edit", "r refuse"}},
	} {
		for _, sz := range sizes {
			t.Run(tc.req.Action+"/"+fmt.Sprint(sz.w), func(t *testing.T) {
				m := testModel(sz.w, sz.h, Options{ScriptedNote: "demo: the script follows your answers on the locations, the revert and the merge"})
				feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "20261126-0540-2e0f"}},
					event.Event{Type: event.PhaseChanged, Phase: "resolve"}, event.Event{Type: event.Approval, Agent: event.Resolver, Approval: tc.req})
				view := ansi.Strip(m.View())
				lines := strings.Split(view, "\n")
				bar := lines[len(lines)-1]
				if !strings.Contains(strings.Join(strings.Fields(view), " "), tc.headline) {
					t.Errorf("the headline %q is cut:\n%s", tc.headline, view)
				}
				for _, k := range tc.keys {
					if !strings.Contains(bar, k) {
						t.Errorf("the status bar lacks %q: %q", k, bar)
					}
				}
			})
		}
	}
}

// TestAddedLocationIsChecked: a location the run says names nothing is
// not added; the dialog says why, and takes one that exists.
func TestAddedLocationIsChecked(t *testing.T) {
	m := testModel(120, 40, Options{})
	req := event.NewApproval("locations-1", "edit_locations", "ranked locations")
	req.Options = []string{"a.py:f"}
	req.SetCheck(func(loc string) error {
		if loc != "b.py:g" {
			return fmt.Errorf("no such file in the repository: %s", loc)
		}
		return nil
	})
	feed(m, event.Event{Type: event.Approval, Agent: event.Runtime, Approval: req})
	add := func(loc string) {
		m.Update(press("+"))
		typeText(m, loc)
		_, cmd := m.Update(press("enter"))
		for _, msg := range runCmd(cmd) {
			m.Update(msg)
		}
	}
	add("nope.py:h")
	if view := ansi.Strip(m.View()); len(m.dialog.locs) != 1 || !strings.Contains(view, "not added: no such file in the repository: nope.py:h") {
		t.Fatalf("a location that does not exist was taken, or silently: %v\n%s", m.dialog.locs, view)
	}
	add("b.py:g")
	m.Update(press("a"))
	if rep := answerOf(t, req); rep.Decision != event.Choose || rep.Choice != "a.py:f\nb.py:g" {
		t.Fatalf("reply %+v", rep)
	}
}

// TestRefusalAsksWhatToDoInstead: refusing asks what the agent should do
// instead, in every dialog.
func TestRefusalAsksWhatToDoInstead(t *testing.T) {
	for _, action := range []string{"bash", "revert_to", "merge_solution", "edit_locations"} {
		m := testModel(120, 40, Options{})
		feed(m, event.Event{Type: event.Approval, Agent: event.Resolver, Approval: event.NewApproval("q-1", action, "x")})
		m.Update(press("r"))
		if view := ansi.Strip(m.View()); !strings.Contains(view, "Refuse, and tell it what to do instead") {
			t.Errorf("%s: refusing does not ask what to do instead:\n%s", action, view)
		}
	}
}

// TestTreeSelectionFollowsTheUnit: while the live search grows the tree
// above the selection, the selection stays on its unit; x names that
// unit before it acts, and acts on it.
func TestTreeSelectionFollowsTheUnit(t *testing.T) {
	g := event.NewGate()
	m := testModel(120, 40, Options{Gate: g})
	node := func(id, parent string) event.Event {
		return event.Event{Type: event.SearchNode, Agent: event.Localizer, Node: &event.Node{ID: id, Parent: parent, Kind: "function"}}
	}
	feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}}, node("a.py:root", ""), node("a.py:child", "a.py:root"), node("c.py:other", ""))
	m.Update(press("k"))
	m.Update(press("j")) // the engineer picks c.py:other, the last row
	if n := m.tree.selected(); n == nil || n.ID != "c.py:other" {
		t.Fatalf("selected %v", n)
	}
	// The search inserts units above it.
	feed(m, node("a.py:first", "a.py:root"), node("a.py:deeper", "a.py:first"))
	if n := m.tree.selected(); n == nil || n.ID != "c.py:other" {
		t.Fatalf("the selection slid to %v while the tree grew", n)
	}
	if line := lineWith(ansi.Strip(m.View()), "› "); !strings.Contains(line, "c.py:other") {
		t.Errorf("the marker is on %q, not on c.py:other", line)
	}
	m.Update(press("x"))
	if len(g.Notes()) != 0 || !strings.Contains(ansi.Strip(m.statusBar()), "c.py:other") {
		t.Fatalf("x acted before naming the unit: status %q", ansi.Strip(m.statusBar()))
	}
	feed(m, node("a.py:later", "a.py:root")) // more growth before the engineer confirms
	m.Update(press("x"))
	if notes := g.Notes(); len(notes) != 1 || notes[0] != "prune c.py:other" {
		t.Fatalf("notes %q, want the named unit pruned", notes)
	}
	m.Update(press("t"))
	m.Update(press("k")) // another key: the unit is not ranked first
	m.Update(press("t"))
	if len(g.Notes()) != 0 {
		t.Fatal("t acted without being confirmed")
	}
}

func lineWith(view, s string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestPrunedUnitsAreNotDeadEnds: a unit the engineer pruned reads as
// pruned, even once the search marks it a dead end; a replay knows it
// from the delivered note.
func TestPrunedUnitsAreNotDeadEnds(t *testing.T) {
	for _, replay := range []bool{false, true} {
		g := event.NewGate()
		m := testModel(120, 40, Options{Gate: g, Replay: replay})
		feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}},
			event.Event{Type: event.SearchNode, Node: &event.Node{ID: "a.py:f", Kind: "function"}},
			event.Event{Type: event.SearchNode, Node: &event.Node{ID: "b.py:g", Kind: "function"}})
		if replay {
			feed(m, event.Event{Type: event.Message, Agent: event.Localizer, Text: "note delivered: prune a.py:f"})
		} else {
			m.Update(press("k"))
			m.Update(press("x"))
			m.Update(press("x"))
		}
		feed(m, event.Event{Type: event.SearchNode, Node: &event.Node{ID: "a.py:f", Kind: "function", DeadEnd: true}},
			event.Event{Type: event.SearchNode, Node: &event.Node{ID: "b.py:g", Kind: "function", DeadEnd: true}})
		view := ansi.Strip(m.View())
		if l := lineWith(view, "a.py:f"); !strings.Contains(l, "pruned") || strings.Contains(l, "dead end") {
			t.Errorf("replay %v: the pruned unit reads %q", replay, l)
		}
		if l := lineWith(view, "b.py:g"); !strings.Contains(l, "dead end") {
			t.Errorf("replay %v: the dead end reads %q", replay, l)
		}
	}
}

// TestMetersKeepContextAndCost: the context figure and the cost stay whole
// down to 80 columns, in every layout; the rest of the line gives way.
func TestMetersKeepContextAndCost(t *testing.T) {
	u := &event.UsageInfo{PromptTokens: 812_000, CompletionTokens: 9_500, Calls: 41, Cost: 1.2345, Priced: true,
		CachedTokens: 400_000, Context: 141_200, Window: 400_000}
	one := &event.UsageInfo{PromptTokens: 900, Calls: 1, Cost: 0.0012, Priced: true, Context: 950, Window: 128_000}
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			m := testModel(sz.w, sz.h, Options{})
			feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}},
				event.Event{Type: event.ModelReply, Agent: event.Localizer, Usage: one},
				event.Event{Type: event.ModelCall, Agent: event.Resolver},
				event.Event{Type: event.Usage, Agent: event.Resolver, Usage: u})
			m.Update(press("4"))
			view := ansi.Strip(m.View())
			for _, want := range []string{"$1.2345", "ctx 141.2k/400.0k", "$0.0012", "ctx 950/128.0k"} {
				if !strings.Contains(view, want) {
					t.Errorf("the meters lack %q:\n%s", want, view)
				}
			}
			if strings.Contains(view, "1 calls") {
				t.Errorf("\"1 calls\":\n%s", view)
			}
		})
	}
}

// TestNoteKeepsItsBoxWhenADialogOpens: a note being typed stays on screen
// and keeps the keys when a question arrives; once sent, the dialog has
// them.
func TestNoteKeepsItsBoxWhenADialogOpens(t *testing.T) {
	for _, sz := range sizes {
		g := event.NewGate()
		m := testModel(sz.w, sz.h, Options{Gate: g})
		feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}})
		m.Update(press("n"))
		typeText(m, "look at")
		req := event.NewApproval("revert-1", "revert_to", "h1/t1")
		feed(m, event.Event{Type: event.Approval, Agent: event.Resolver, Approval: req})
		typeText(m, " money")
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "note › look at money") {
			t.Errorf("%dx%d: the note lost its box: %q", sz.w, sz.h, last)
		}
		m.Update(press("enter"))
		if notes := g.Notes(); len(notes) != 1 || notes[0] != "look at money" {
			t.Errorf("%dx%d: notes %q", sz.w, sz.h, notes)
		}
		m.Update(press("a"))
		if answerOf(t, req).Decision != event.Approve {
			t.Errorf("%dx%d: the dialog did not get the keys after the note", sz.w, sz.h)
		}
	}
}

// TestPathsDoNotWrapAtHyphens: a run folder's path in the final report
// and in the activity log stays on one line where the pane is wide enough,
// so it can be copied whole; the wrappers used to break it at a hyphen.
func TestPathsDoNotWrapAtHyphens(t *testing.T) {
	path := "/tmp/shop/.git/swe-adept/runs/20261126-0540-2e0f/locations.json"
	report := "localized; no resolution model is configured, so the run stops here with the ranking saved in " + path + ". Configure a model to resolve."
	for _, w := range []int{80, 160} { // panes 78 cells wide: tabs, and the grid
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := testModel(w, 48, Options{})
			feed(m, event.Event{Type: event.RunStarted, Run: &event.RunInfo{ID: "r"}},
				event.Event{Type: event.Error, Text: "could not read the ranking back from the run folder " + path},
				event.Event{Type: event.Done, Done: &event.DoneInfo{Status: "localized", Report: report}})
			m.Update(press("F"))
			for _, p := range []pane{paneDiff, paneActivity} {
				m.focus = p
				if view := ansi.Strip(m.View()); !strings.Contains(view, path) {
					t.Errorf("%s: the path is broken across lines:\n%s", paneSlug(p), view)
				}
			}
		})
	}
}

func TestWrapKeepsHyphenatedWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want []string
	}{
		{"saved in runs/20261126-0540-2e0f now", 24, []string{"saved in", "runs/20261126-0540-2e0f", "now"}},
		{"a well-known fix", 10, []string{"a", "well-known", "fix"}},
		{"swe-adept/20261126-0540-2e0f/round-half-up", 20, []string{"swe-adept/20261126-0", "540-2e0f/round-half-", "up"}},
		{"- a list item", 40, []string{"- a list item"}},
	} {
		if got := wrapHard(tc.in, tc.w); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapHard(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}
