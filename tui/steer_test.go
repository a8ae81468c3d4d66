package tui

import (
	"strings"
	"testing"

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
