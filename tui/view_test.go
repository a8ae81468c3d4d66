package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func press(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

var sizes = []struct{ w, h int }{{80, 24}, {100, 30}, {120, 40}, {160, 48}}

func isPhase(p string) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type == event.PhaseChanged && e.Phase == p }
}

// TestPanes draws each pane at each size at three moments of a run.
func TestPanes(t *testing.T) {
	all := loadEvents(t, "run.jsonl")
	moments := []struct {
		name string
		evs  []event.Event
	}{
		{"start", nil},
		{"localized", upTo(all, isPhase("resolve"))},
		{"reverting", upTo(all, func(e event.Event) bool {
			return e.Type == event.ApprovalDone
		})},
		{"done", all},
	}
	for _, mo := range moments {
		for p := pane(0); p < paneCount; p++ {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%s/%s/%dx%d", mo.name, paneSlug(p), sz.w, sz.h), func(t *testing.T) {
					m := testModel(sz.w, sz.h, Options{Replay: true})
					feed(m, mo.evs...)
					m.focus = p
					checkGolden(t, m.View())
				})
			}
		}
	}
}

func paneSlug(p pane) string {
	return [...]string{"tree", "hyps", "diff", "activity"}[p]
}

// TestRecordedDemo draws each pane at the end of a recorded demo run (the
// real tools' events, as "swe-adept demo --headless" wrote them).
func TestRecordedDemo(t *testing.T) {
	all := loadEvents(t, "demo.jsonl")
	for p := pane(0); p < paneCount; p++ {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", paneSlug(p), sz.w, sz.h), func(t *testing.T) {
				m := testModel(sz.w, sz.h, Options{Replay: true})
				feed(m, all...)
				m.focus = p
				checkGolden(t, m.View())
			})
		}
	}
}

// TestDialogs draws the approval dialog for each action at each size.
func TestDialogs(t *testing.T) {
	all := loadEvents(t, "run.jsonl")
	reqs := map[string]*event.ApprovalRequest{}
	for _, e := range all {
		if e.Type == event.Approval {
			reqs[e.Approval.Action] = e.Approval
		}
	}
	bash := event.NewApproval("ap-bash", "bash", "python3 -m unittest discover -s tests -q")
	bash.Summary = "The resolution agent wants to run a shell command in the working tree."
	edit := event.NewApproval("ap-edit", "edit_locations", "")
	edit.Summary = "These are the ranked locations the resolution agent will start from."
	edit.Options = []string{"shop/money.py:round_cents", "shop/pricing.py:line_total", "shop/cart.py:Cart.total"}
	const scripted = "demo: the model is scripted — refusing or choosing another option takes it off its script"
	cases := []struct {
		name string
		req  *event.ApprovalRequest
		keys []string
		note string
	}{
		{"revert", reqs["revert_to"], nil, ""},
		{"merge", reqs["merge_solution"], nil, ""},
		{"merge_choose", reqs["merge_solution"], []string{"c"}, ""},
		{"merge_refuse", reqs["merge_solution"], []string{"r", "H", "1"}, ""},
		{"bash", bash, nil, ""},
		{"edit_locations", edit, []string{"j", "K"}, ""},
		// The demo's own merge: its compare report as memory writes it.
		{"merge_demo", demoRequest(t, "merge_solution"), nil, scripted},
	}
	for _, c := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := testModel(sz.w, sz.h, Options{ScriptedNote: c.note})
				feed(m, upTo(all, isPhase("resolve"))...)
				feed(m, event.Event{Type: event.Approval, Agent: "resolve", Approval: c.req})
				for _, k := range c.keys {
					m.Update(press(k))
				}
				checkGolden(t, m.View())
			})
		}
	}
}

func TestHelpView(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := testModel(sz.w, sz.h, Options{Replay: true})
			m.Update(press("?"))
			checkGolden(t, m.View())
		})
	}
}
