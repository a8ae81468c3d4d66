package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/charmbracelet/lipgloss"
)

// View draws the whole screen: the panes (a grid or tabs), or the help or
// approval dialog over them, and the status bar.
func (m *Model) View() string {
	l := computeLayout(m.width, m.height)
	var body string
	switch {
	case m.showHelp: // over the dialog too: "?" opens it there
		body = m.helpView(l.body)
	case m.dialog != nil && l.grid:
		body = m.sideDialogView(l)
	case m.dialog != nil:
		body = m.dialogView(l.body)
	case l.grid:
		body = m.gridView(l)
	default:
		body = m.tabView(l)
	}
	return body + "\n" + m.statusBar()
}

func (m *Model) gridView(l layout) string {
	left := m.paneView(paneTree, l.boxes[paneTree]) + "\n" + m.paneView(paneHyps, l.boxes[paneHyps])
	right := m.paneView(paneDiff, l.boxes[paneDiff]) + "\n" + m.paneView(paneActivity, l.boxes[paneActivity])
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// tabView shows the focused pane alone under a tab bar, for small terminals.
func (m *Model) tabView(l layout) string {
	var tabs []string
	for p := pane(0); p < paneCount; p++ {
		label := string(rune('1'+p)) + " " + paneTitles[p]
		if p == m.focus {
			tabs = append(tabs, m.st.TabActive.Render(label))
		} else {
			tabs = append(tabs, m.st.Tab.Render(label))
		}
	}
	bar := fit(" "+strings.Join(tabs, "  "), m.width)
	out := bar + "\n" + m.paneView(m.focus, l.boxes[m.focus])
	if m.focus != paneActivity && l.strip > 0 {
		for _, line := range m.act.tail(m.st, l.strip, m.width) {
			out += "\n" + line
		}
	}
	return out
}

// paneView draws one pane in its box.
func (m *Model) paneView(p pane, r rect) string {
	in := r.inner()
	focused := p == m.focus
	title := paneTitles[p]
	var lines []string
	switch p {
	case paneTree:
		lines = m.tree.view(m.st, in, focused)
	case paneHyps:
		lines = m.hyps.view(m.st, in, focused)
	case paneDiff:
		title = m.diff.title()
		lines = m.diff.view()
	case paneActivity:
		lines = m.act.view(m.st, in)
	}
	return box(m.st, title, focused, lines, r)
}

// sideDialogView puts the approval dialog in the right column, where the
// diff and activity were, so the search tree and the hypotheses (what the
// engineer is deciding about) stay on screen.
func (m *Model) sideDialogView(l layout) string {
	left := m.paneView(paneTree, l.boxes[paneTree]) + "\n" + m.paneView(paneHyps, l.boxes[paneHyps])
	r := rect{l.body.w - l.boxes[paneTree].w, l.body.h}
	in := r.inner()
	lines := m.dialog.view(m.st, m.keys, m.opts.ScriptedNote, in.w-2, in.h)
	for i, line := range lines {
		lines[i] = " " + line
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, left, boxStyled(m.st, "Approval needed", lines, r))
}

func (m *Model) dialogView(r rect) string {
	w := min(r.w, 110)
	h := min(r.h, max(r.h*4/5, 20))
	box := rect{w, h}
	in := box.inner()
	lines := m.dialog.view(m.st, m.keys, m.opts.ScriptedNote, in.w-2, in.h)
	for i, l := range lines {
		lines[i] = " " + l
	}
	drawn := boxStyled(m.st, "Approval needed", lines, box)
	return lipgloss.Place(r.w, r.h, lipgloss.Center, lipgloss.Center, drawn)
}

func (m *Model) helpView(r rect) string {
	groups := m.shownKeys().FullHelp()
	// Narrow screens get two rows, steering first, with the pane and
	// movement keys folded in pairs, so every key fits from 80×24 up.
	rows := [][][]key.Binding{groups}
	if r.w < 130 {
		rows = [][][]key.Binding{{groups[2], compactNav()}, {groups[3], groups[4]}}
	}
	lines := []string{"", m.st.Dim.Render("Any key closes this help."), ""}
	for _, g := range rows {
		lines = append(lines, strings.Split(m.help.FullHelpView(g), "\n")...)
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = " " + l
	}
	return box(m.st, "Keys", true, lines, rect{r.w, r.h})
}

// compactNav is the pane and movement keys in pairs, for the help on small
// screens.
func compactNav() []key.Binding {
	b := func(help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(help), key.WithHelp(help, desc))
	}
	return []key.Binding{b("tab ⇧tab", "next, previous pane"), b("1 2 3 4", "pane by number"),
		b("↑↓/kj", "up, down"), b("←→/hl", "scroll diff"), b("pgup/u pgdn/d", "page"), b("g G", "top, bottom")}
}

// boxStyled is a box drawn in the dialog's colour.
func boxStyled(st Styles, title string, lines []string, r rect) string {
	st.BorderFocused, st.TitleFocused = st.Dialog, st.DialogTitle
	return box(st, title, true, lines, r)
}
