package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// statusBar is the bottom line: the run, its phase and time, and what it
// waits for, with a reminder of the main keys on the right.
func (m *Model) statusBar() string {
	if m.noting {
		return fit(m.st.StatusKey.Render("note › ")+m.note.View(), m.width)
	}
	left := strings.Join(m.statusParts(), m.st.Dim.Render(" · "))
	room := m.width - ansi.StringWidth(left) - 2
	keys := m.shownKeys().ShortHelp()
	if m.dialog != nil {
		keys = m.dialog.keys(m.keys)
		if m.dialog.mode == modeAsk { // elsewhere "?" is typed text
			keys = append(keys, m.keys.Help)
		}
	}
	right := shortHelp(m.st, keys, room)
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return fit(left, m.width)
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) statusParts() []string {
	st := m.st
	parts := []string{st.Bold.Render(m.opts.Title)}
	if m.run.phase != "" && m.run.done == nil {
		parts = append(parts, m.run.phase)
	}
	if p := m.run.progress; p != nil && m.run.phase == "index" && p.Total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d files", p.Done, p.Total))
	}
	parts = append(parts, m.elapsed())
	parts = append(parts, m.state())
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
