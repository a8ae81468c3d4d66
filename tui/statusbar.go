package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// statusBar is the bottom line: the run, its phase and time, and what it
// waits for, with a reminder of the main keys on the right. When a dialog
// is open its answer keys must fit: the left side gives up its words first.
func (m *Model) statusBar() string {
	if m.noting {
		return fit(m.st.StatusKey.Render("note › ")+m.note.View(), m.width)
	}
	need := 0
	if m.dialog != nil {
		need = ansi.StringWidth(m.dialogHint(m.width, true)) + 2
	}
	var left string
	for level := 0; level <= maxCompact; level++ {
		left = strings.Join(m.statusParts(level), m.st.Dim.Render(" · "))
		if ansi.StringWidth(left)+need <= m.width {
			break
		}
	}
	room := m.width - ansi.StringWidth(left) - 2
	right := shortHelp(m.st, m.shownKeys().ShortHelp(), room)
	if m.dialog != nil {
		right = m.dialogHint(room, false)
	}
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return fit(left, m.width)
	}
	return left + strings.Repeat(" ", gap) + right
}

// maxCompact is the most the status bar's left side is shortened: 1 says
// the state in a word, 2 drops the title, 3 the phase.
const maxCompact = 3

func (m *Model) statusParts(compact int) []string {
	st := m.st
	var parts []string
	if compact < 2 {
		parts = append(parts, st.Bold.Render(m.opts.Title))
	}
	if m.run.unconfined { // kept at every width: it is why every command asks
		parts = append(parts, st.StatusWarn.Render("COMMANDS NOT CONFINED"))
	}
	if m.run.phase != "" && m.run.done == nil && compact < 3 {
		parts = append(parts, m.run.phase)
	}
	if p := m.run.progress; p != nil && m.run.phase == "index" && p.Total > 0 && compact < 3 {
		parts = append(parts, fmt.Sprintf("%d/%d files", p.Done, p.Total))
	}
	parts = append(parts, m.elapsed())
	if compact > 0 && m.dialog != nil && !m.quitting && m.run.done == nil {
		parts = append(parts, st.StatusWarn.Render("your answer?"))
	} else {
		parts = append(parts, m.state())
	}
	if m.flash != "" {
		parts = append(parts, st.StatusWarn.Render(m.flash))
	}
	return parts
}

// state is the run's state in a word or two, coloured by urgency.
func (m *Model) state() string {
	st := m.st
	switch {
	case m.quitting:
		return st.StatusWarn.Render("stopping…")
	case m.run.done != nil:
		return m.doneState()
	case m.dialog != nil:
		return st.StatusWarn.Render("waiting for your approval")
	case m.opts.Gate != nil && m.opts.Gate.Paused() && m.run.steps:
		return st.StatusWarn.Render("stepping (s: next call, p: resume)")
	case m.opts.Gate != nil && m.opts.Gate.Paused():
		return st.StatusWarn.Render("paused")
	case m.run.closed:
		return st.Dim.Render("ended")
	case m.opts.Replay:
		return st.Dim.Render("replay")
	case m.act.isBusy():
		return st.Current.Render(m.act.spin.View() + " running")
	}
	return "running"
}

// doneState is how the run ended. Only a submitted patch, or a ranking
// kept as asked, is "done"; an empty submission (an older run's summary
// may call it "submitted") or an unmerged one says what it is.
func (m *Model) doneState() string {
	st, d := m.st, m.run.done
	switch {
	case d.Status == "submitted" && d.Patch == "":
		return st.StatusWarn.Render("ended: submitted, empty patch")
	case d.Status == "submitted" || d.Status == "localized":
		return st.StatusOK.Render("done: " + d.Status)
	}
	return st.StatusWarn.Render("ended: " + d.Status)
}

// elapsed is the run's time: the final figure once done, the clock while
// running, and the last event's time in a replay.
func (m *Model) elapsed() string {
	var d time.Duration
	switch {
	case m.run.done != nil && m.run.done.Seconds > 0:
		d = time.Duration(m.run.done.Seconds * float64(time.Second))
	case m.run.start.IsZero():
		return "--:--"
	case m.opts.Replay || m.run.closed:
		d = m.run.last.Sub(m.run.start)
	default:
		d = m.opts.Now().Sub(m.run.start)
	}
	d = max(d, 0).Round(time.Second)
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// shownKeys is the key map as the help shows it: without the keys that do
// nothing in this run. Notes need a live agent; pause and step need a gate
// (a replay has one: its player waits on it) and a run not yet over.
func (m *Model) shownKeys() KeyMap {
	k := m.keys
	if !m.live() {
		k.Note.SetEnabled(false)
		k.Prune.SetEnabled(false)
		k.Prefer.SetEnabled(false)
	}
	if m.opts.Gate == nil || m.run.done != nil || m.run.closed {
		k.Pause.SetEnabled(false)
		k.Step.SetEnabled(false)
	}
	return k
}

// hintWords are the status bar's one-word reminders of the dialog keys
// whose help runs long; the dialog's own footer says them in full.
var hintWords = map[string]string{"A": "don't ask again", "r": "refuse", "c": "choose", "e": "edit",
	"d": "drop", "+": "add", "enter": "confirm", "?": "keys"}

// dialogHint reminds of the open dialog's keys in room cells: its answers
// first, so they are the last to go when the line is short; answers keeps
// only them.
func (m *Model) dialogHint(room int, answers bool) string {
	keys := m.dialog.keys(m.keys)
	switch {
	case m.dialog.mode != modeAsk:
		keys = nil // the dialog's input says enter and esc
	case answers:
		keys = slices.DeleteFunc(keys, func(b key.Binding) bool { return !isAnswer(m.keys, b) })
	default: // the answers, then "?" (elsewhere typed text), then the moves
		moves := slices.DeleteFunc(slices.Clone(keys), func(b key.Binding) bool { return isAnswer(m.keys, b) })
		keys = slices.DeleteFunc(keys, func(b key.Binding) bool { return !isAnswer(m.keys, b) })
		keys = append(append(keys, m.keys.Help), moves...)
	}
	var parts []string
	for _, b := range keys {
		word, ok := hintWords[b.Help().Key]
		if !ok {
			word, _, _ = strings.Cut(b.Help().Desc, ",")
		}
		parts = append(parts, m.st.StatusKey.Render(b.Help().Key)+" "+m.st.Dim.Render(word))
	}
	for len(parts) > 0 {
		if s := strings.Join(parts, "  "); ansi.StringWidth(s) <= room {
			return s
		}
		parts = parts[:len(parts)-1]
	}
	return ""
}

// isAnswer reports whether b answers a dialog (rather than moving in it).
func isAnswer(k KeyMap, b key.Binding) bool {
	for _, a := range []key.Binding{k.Approve, k.Always, k.Edit, k.Choose, k.Refuse} {
		if a.Help().Key == b.Help().Key {
			return true
		}
	}
	return false
}

// shortHelp is as many key reminders as fit in room cells; the last ones
// (help and quit) are kept longest.
func shortHelp(st Styles, keys []key.Binding, room int) string {
	var parts []string
	for _, b := range keys {
		if !b.Enabled() {
			continue
		}
		parts = append(parts, st.StatusKey.Render(b.Help().Key)+" "+st.Dim.Render(b.Help().Desc))
	}
	for len(parts) > 0 {
		s := strings.Join(parts, "  ")
		if ansi.StringWidth(s) <= room {
			return s
		}
		parts = parts[1:]
	}
	return ""
}
