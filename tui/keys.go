package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the workbench answers to. It is a value passed down
// so tests and callers can rebind keys without touching the panes.
type KeyMap struct {
	NextPane, PrevPane key.Binding
	Pane1, Pane2       key.Binding
	Pane3, Pane4       key.Binding
	Up, Down           key.Binding
	Left, Right        key.Binding
	PageUp, PageDown   key.Binding
	Top, Bottom        key.Binding
	Select, Follow     key.Binding
	Final              key.Binding
	Pause, Step, Note  key.Binding
	Prune, Prefer      key.Binding // steer the offline localizer's search
	Help, Quit         key.Binding
	Approve, Choose    key.Binding
	Refuse, Cancel     key.Binding
	Always, Edit       key.Binding // the command dialog: allow the prefix for the run; run another command
	Drop, Add          key.Binding
	MoveUp, MoveDown   key.Binding
	Confirm            key.Binding
}

// DefaultKeyMap is the workbench's keys.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		NextPane: b("tab", "next pane", "tab"),
		PrevPane: b("shift+tab", "previous pane", "shift+tab"),
		Pane1:    b("1", "search tree", "1"),
		Pane2:    b("2", "hypotheses", "2"),
		Pane3:    b("3", "diff", "3"),
		Pane4:    b("4", "activity", "4"),
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		Left:     b("←/h", "scroll left (diff)", "left", "h"),
		Right:    b("→/l", "scroll right (diff)", "right", "l"),
		PageUp:   b("pgup/u", "page up", "pgup", "u"),
		PageDown: b("pgdn/d", "page down", "pgdown", "d"),
		Top:      b("g", "top", "g", "home"),
		Bottom:   b("G", "bottom", "G", "end"),
		Select:   b("enter", "expand / show", "enter"),
		Follow:   b("f", "follow the run", "f"),
		Final:    b("F", "final patch & report", "F"),
		Pause:    b("p", "pause / resume", "p"),
		Step:     b("s", "step one tool call", "s"),
		Note:     b("n", "note to the agent", "n"),
		Prune:    b("x", "search: prune this unit", "x"),
		Prefer:   b("t", "search: rank this unit first", "t"),
		Help:     b("?", "keys", "?"),
		Quit:     b("q", "quit", "q", "ctrl+c"),
		Approve:  b("a", "approve", "a"),
		Choose:   b("c", "choose another", "c"),
		Refuse:   b("r", "refuse, say what to do instead", "r"),
		Always:   b("A", "approve, don't ask again", "A"),
		Edit:     b("e", "edit the command", "e"),
		Cancel:   b("esc", "back", "esc"),
		Drop:     b("d", "drop location", "d", "x"),
		Add:      b("+", "add location", "+"),
		MoveUp:   b("K", "move up", "K"),
		MoveDown: b("J", "move down", "J"),
		Confirm:  b("enter", "confirm", "enter"),
	}
}

// ShortHelp is the status bar's reminder.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Select, k.Pause, k.Note, k.Help, k.Quit}
}

// FullHelp is the whole map, shown by "?".
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Pane1, k.Pane2, k.Pane3, k.Pane4},
		{k.Up, k.Down, k.Left, k.Right, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Select, k.Follow, k.Final, k.Pause, k.Step, k.Note, k.Prune, k.Prefer},
		{k.Approve, k.Choose, k.Refuse, k.Cancel, k.Help, k.Quit},
		{k.Always, k.Edit, k.Drop, k.MoveUp, k.MoveDown, k.Add, k.Confirm},
	}
}

// dialogHelp is the keys an approval dialog for action answers to in its
// main mode, the answers first.
func (k KeyMap) dialogHelp(action string) []key.Binding {
	switch action {
	case "edit_locations":
		return []key.Binding{k.Approve, k.Refuse, k.Confirm, k.Up, k.Down, k.Drop, k.MoveUp, k.MoveDown, k.Add}
	case "bash":
		return []key.Binding{k.Approve, k.Always, k.Edit, k.Refuse, k.Up, k.Down}
	}
	return []key.Binding{k.Approve, k.Choose, k.Refuse, k.Up, k.Down}
}
