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
	if m.dialog == nil || m.dialog.req != second {
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
