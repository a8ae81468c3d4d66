package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// The command dialog answers as a coding assistant's permission prompt
// does: approve once; approve and stop asking about commands like this one
// for the rest of the run, under a prefix the engineer sees and may edit;
// run another command instead; or refuse and say what to do instead.

// commandKey handles the keys only the command dialog has; ok is false for
// the keys every dialog shares.
func (d *dialog) commandKey(k KeyMap, msg tea.KeyMsg) (*event.Reply, tea.Cmd, bool) {
	switch {
	case key.Matches(msg, k.Always) && d.prefix() != "":
		return nil, d.startInput(modeAllow, "the start of the commands to allow", d.prefix()), true
	case key.Matches(msg, k.Edit):
		return nil, d.startInput(modeEdit, "a command", d.req.Target), true
	}
	return nil, nil, false
}

// prefix is the command prefix the run offers to stop asking about, from
// the request's "always: PREFIX" option; "" when it offers none.
func (d *dialog) prefix() string {
	for _, o := range d.req.Options {
		if p, ok := strings.CutPrefix(o, "always:"); ok {
			return strings.TrimSpace(p)
		}
	}
	return ""
}

// choosable reports whether "choose another" has something to offer: the
// command dialog's only option is the prefix, which A handles.
func (d *dialog) choosable() bool {
	return len(d.req.Options) > 0 && d.req.Action != "bash"
}

// shortBranch is a hypothesis branch without the run's namespace
// (swe-adept/<run>/), which the dialog's summary spells out in full.
func shortBranch(b string) string {
	parts := strings.SplitN(b, "/", 3)
	if len(parts) == 3 && parts[0] == "swe-adept" {
		return parts[2]
	}
	return b
}
