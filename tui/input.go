package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// handleKey routes a key to whatever holds the focus: the note input, the
// approval dialog, the help screen, or the panes.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return m.quit()
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys that arrive together (fast typing, key repeat, ssh) come as
		// one message: each is a key of its own.
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	m.flash = "" // a status message lasts until the next key
	armed := m.armed
	m.armed = "" // so does a pending x or t: only the same key, next, confirms it
	if m.focus == paneTree && (key.Matches(msg, m.keys.Prune) || key.Matches(msg, m.keys.Prefer)) {
		m.armed = armed
	}
	switch {
	case m.noting:
		return m.noteKey(msg)
	case m.showHelp: // it may cover a dialog: the dialog waits
		if key.Matches(msg, m.keys.Quit) {
			return m.quit()
		}
		m.showHelp = false
		return nil
	case m.dialog != nil:
		return m.dialogKey(msg)
	}
	if cmd, ok := m.globalKey(msg); ok {
		return cmd
	}
	m.paneKey(msg)
	return nil
}

// globalKey handles the keys that work in every pane.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit(), true
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.NextPane):
		m.focus = (m.focus + 1) % paneCount
	case key.Matches(msg, k.PrevPane):
		m.focus = (m.focus + paneCount - 1) % paneCount
	case key.Matches(msg, k.Pane1, k.Pane2, k.Pane3, k.Pane4):
		m.focus = pane(msg.String()[0] - '1')
	case key.Matches(msg, k.Pause):
		m.togglePause()
	case key.Matches(msg, k.Step):
		m.step()
	case key.Matches(msg, k.Note):
		return m.startNote(), true
	case key.Matches(msg, k.Follow):
		m.followRun()
	case key.Matches(msg, k.Final):
		m.showFinal()
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) togglePause() {
	g := m.opts.Gate
	if g == nil {
		return
	}
	if g.Paused() {
		g.Resume()
		m.run.steps = false
		return
	}
	g.Pause()
}

// step pauses a running agent, or lets one tool call through a paused one.
func (m *Model) step() {
	g := m.opts.Gate
	if g == nil {
		return
	}
	m.run.steps = true
	if !g.Paused() {
		g.Pause()
		return
	}
	g.Step()
}

// live reports whether an agent is still running to read notes.
func (m *Model) live() bool {
	return m.opts.Gate != nil && !m.opts.Replay && m.run.done == nil && !m.run.closed
}

// noNotes is the answer to a note no agent would read.
const noNotes = "notes go to a live run"

func (m *Model) startNote() tea.Cmd {
	if !m.live() {
		m.flash = noNotes
		return nil
	}
	m.noting = true
	m.note.Reset()
	return m.note.Focus()
}

func (m *Model) noteKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		m.noting = false
		m.note.Blur()
		return nil
	case tea.KeyEnter:
		m.noting = false
		m.note.Blur()
		text := strings.TrimSpace(m.note.Value())
		if text != "" && !m.live() {
			m.flash = noNotes // the run ended while the note was typed
			return nil
		}
		if text != "" {
			m.opts.Gate.Note(text)
			m.act.add(event.Event{Time: m.run.last, Agent: "you"}, "note: "+text, "note")
		}
		return nil
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(visibleKey(msg))
	return cmd
}

// dialogKey passes a key to the approval dialog and sends its answer
// exactly once: the dialog is dropped as soon as it has answered.
func (m *Model) dialogKey(msg tea.KeyMsg) tea.Cmd {
	if m.dialog.mode == modeAsk && key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	if m.dialog.mode == modeAsk && key.Matches(msg, m.keys.Help) {
		m.showHelp = true
		return nil
	}
	rep, cmd := m.dialog.key(m.keys, msg)
	if rep == nil {
		return cmd
	}
	if m.dialog.req.Answer(*rep) {
		m.answers++
	}
	m.dialog = nil
	m.nextDialog()
	return cmd
}

// diffStep is how far left and right scroll a diff with long lines.
const diffStep = 8

// paneKey moves within the focused pane.
func (m *Model) paneKey(msg tea.KeyMsg) {
	k := m.keys
	delta := 0
	switch {
	case key.Matches(msg, k.Up):
		delta = -1
	case key.Matches(msg, k.Down):
		delta = 1
	case key.Matches(msg, k.PageUp):
		delta = -max(m.paneHeight()-1, 1)
	case key.Matches(msg, k.PageDown):
		delta = max(m.paneHeight()-1, 1)
	case key.Matches(msg, k.Top):
		delta = -1 << 20
	case key.Matches(msg, k.Bottom):
		delta = 1 << 20
	case key.Matches(msg, k.Select):
		m.selectItem()
		return
	case m.focus == paneTree && (key.Matches(msg, k.Prune) || key.Matches(msg, k.Prefer)):
		m.steerSearch(key.Matches(msg, k.Prune))
		return
	case key.Matches(msg, k.Left) && m.focus == paneDiff:
		m.diff.vp.ScrollLeft(diffStep)
		return
	case key.Matches(msg, k.Right) && m.focus == paneDiff:
		m.diff.vp.ScrollRight(diffStep)
		return
	default:
		return
	}
	m.move(delta)
}

func (m *Model) move(delta int) {
	switch m.focus {
	case paneTree:
		m.tree.move(delta)
	case paneHyps:
		m.hyps.move(delta)
	case paneDiff:
		if delta < 0 {
			m.diff.vp.ScrollUp(-delta)
		} else {
			m.diff.vp.ScrollDown(delta)
		}
	case paneActivity:
		m.act.scroll(delta)
	}
}

func (m *Model) paneHeight() int {
	return computeLayout(m.width, m.height).boxes[m.focus].inner().h
}

// selectItem expands the row under the cursor and shows it in the diff pane.
func (m *Model) selectItem() {
	switch m.focus {
	case paneTree:
		if n := m.tree.selected(); n != nil {
			m.tree.toggle()
			m.diff.follow = false
			m.diff.showMarkdown(n.ID, n.detail())
		}
	case paneHyps:
		m.selectHypRow()
	case paneActivity:
		if l, ok := m.act.atBottom(); ok {
			m.diff.follow = false
			m.diff.showMarkdown("activity "+l.at.Format("15:04:05"), l.text)
		}
	}
}

func (m *Model) selectHypRow() {
	r, ok := m.hyps.selected()
	if !ok {
		return
	}
	h := m.hyps.plan.Hypotheses[r.hyp]
	m.diff.follow = false
	switch r.kind {
	case rowHyp, rowHypMore:
		m.hyps.toggle()
		d, _ := m.diff.hypothesisDiff(h, m.hyps.plan.Original)
		m.diff.show(diffContent{title: "hypothesis " + h.ID + " vs original", markdown: hypDetail(h), patch: d.Patch})
	case rowTodo, rowCheckpoint:
		t := h.Todos[r.todo]
		text := "**[" + t.Status + "] " + h.ID + "/" + t.ID + "** " + t.Content
		if d, ok := m.diff.lookup(t.Commit); ok && t.Commit != "" {
			// The to-do in full above its checkpoint's diff.
			text += "\n\nCheckpoint `" + shortHash(t.Commit) + "` " + t.Message
			m.diff.show(diffContent{title: h.ID + "/" + t.ID + " · checkpoint " + shortHash(t.Commit) + " · " + d.Stat, markdown: text, patch: d.Patch})
			return
		}
		m.diff.showMarkdown(h.ID+"/"+t.ID, text)
	case rowInsight:
		m.diff.showMarkdown("insight", r.text)
	}
}

// followRun goes back to showing each new diff as the run makes it.
func (m *Model) followRun() {
	m.diff.follow = true
	m.tree.followCurrent()
	m.hyps.follow = true
	m.hyps.setPlan(m.hyps.plan)
	if info, ok := m.diff.lookup(m.diff.latest); ok {
		m.diff.showDiff(info)
	}
}

// showFinal shows the final report above the final patch.
func (m *Model) showFinal() {
	report := ""
	if m.run.done != nil {
		report = m.run.done.Report
	}
	patch, _ := m.diff.finalPatch()
	if report == "" && patch.Patch == "" {
		return
	}
	m.diff.follow = false
	m.diff.show(diffContent{title: "final report and patch", markdown: report, patch: patch.Patch})
}

// steerSearch asks the localizer, through a note, to prune the selected
// unit (stop following it and leave it out of the ranking) or to rank it
// first. The offline localizer obeys such notes; a model reads them. The
// first press names the unit in the status line; pressing the same key
// again acts on that unit, and any other key lets it go.
func (m *Model) steerSearch(prune bool) {
	n := m.tree.selected()
	if n == nil || m.opts.Gate == nil || !m.live() {
		return
	}
	verb, said := "prefer", "rank first"
	if prune {
		verb, said = "prune", "prune"
	}
	if m.armed != verb+" "+n.ID {
		m.armed = verb + " " + n.ID
		key := map[bool]string{true: "x", false: "t"}[prune]
		m.flash = fmt.Sprintf("%s %s? %s again to confirm", said, n.ID, key)
		return
	}
	m.armed = ""
	if prune {
		m.tree.pruned[n.ID] = true
	}
	m.opts.Gate.Note(verb + " " + n.ID)
	m.act.add(event.Event{Time: m.run.last, Agent: "you"}, said+": "+n.ID, "note")
	m.flash = "asked the search to " + said + " " + n.ID
}
