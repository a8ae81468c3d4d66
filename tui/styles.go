package tui

import "github.com/charmbracelet/lipgloss"

// Palette is the handful of colours every style is made from. Adaptive
// colours keep the panes readable on light and dark terminals.
type Palette struct {
	Accent, Muted, Text, Add, Del, Hunk, Warn, OK, Fail, Border, Focus lipgloss.TerminalColor
}

// DefaultPalette is the workbench's colours.
func DefaultPalette() Palette {
	return Palette{
		Accent: lipgloss.AdaptiveColor{Light: "#5A4FCF", Dark: "#A59BFF"},
		Muted:  lipgloss.AdaptiveColor{Light: "#8A8A8A", Dark: "#6C6C6C"},
		Text:   lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#E4E4E4"},
		Add:    lipgloss.AdaptiveColor{Light: "#1E7F32", Dark: "#6BD68A"},
		Del:    lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF7A7A"},
		Hunk:   lipgloss.AdaptiveColor{Light: "#0B6E99", Dark: "#5FC8F0"},
		Warn:   lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#F2C14E"},
		OK:     lipgloss.AdaptiveColor{Light: "#1E7F32", Dark: "#6BD68A"},
		Fail:   lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF7A7A"},
		Border: lipgloss.AdaptiveColor{Light: "#C0C0C0", Dark: "#4A4A4A"},
		Focus:  lipgloss.AdaptiveColor{Light: "#5A4FCF", Dark: "#A59BFF"},
	}
}

// Styles is every style the panes use. It is built once and passed down
// so no pane invents its own colours.
type Styles struct {
	Title, TitleFocused   lipgloss.Style
	Border, BorderFocused lipgloss.Style
	Cursor, Current       lipgloss.Style
	Dim, Text, Bold       lipgloss.Style
	Add, Del, Hunk, Meta  lipgloss.Style
	Rank                  lipgloss.Style
	TagTodo, TagDoing     lipgloss.Style
	TagDone, TagFailed    lipgloss.Style
	Agent                 map[string]lipgloss.Style
	Error, Note           lipgloss.Style
	StatusBar, StatusKey  lipgloss.Style
	StatusOK, StatusWarn  lipgloss.Style
	Dialog, DialogTitle   lipgloss.Style
	Tab, TabActive        lipgloss.Style
}

// DefaultStyles builds the styles from DefaultPalette.
func DefaultStyles() Styles { return NewStyles(DefaultPalette()) }

// NewStyles builds the styles from a palette.
func NewStyles(p Palette) Styles {
	s := lipgloss.NewStyle
	return Styles{
		Title:         s().Foreground(p.Muted).Bold(true),
		TitleFocused:  s().Foreground(p.Focus).Bold(true),
		Border:        s().Foreground(p.Border),
		BorderFocused: s().Foreground(p.Focus),
		Cursor:        s().Foreground(p.Accent).Bold(true),
		Current:       s().Foreground(p.Accent).Bold(true),
		Dim:           s().Foreground(p.Muted),
		Text:          s().Foreground(p.Text),
		Bold:          s().Bold(true),
		Add:           s().Foreground(p.Add),
		Del:           s().Foreground(p.Del),
		Hunk:          s().Foreground(p.Hunk),
		Meta:          s().Foreground(p.Muted).Bold(true),
		Rank:          s().Foreground(p.Warn).Bold(true),
		TagTodo:       s().Foreground(p.Text),
		TagDoing:      s().Foreground(p.Warn).Bold(true),
		TagDone:       s().Foreground(p.OK).Bold(true),
		TagFailed:     s().Foreground(p.Fail).Bold(true),
		Agent: map[string]lipgloss.Style{
			"localize": s().Foreground(p.Hunk).Bold(true),
			"resolve":  s().Foreground(p.Accent).Bold(true),
			"runtime":  s().Foreground(p.Muted).Bold(true),
		},
		Error:       s().Foreground(p.Fail),
		Note:        s().Foreground(p.Warn),
		StatusBar:   s().Foreground(p.Text),
		StatusKey:   s().Foreground(p.Accent).Bold(true),
		StatusOK:    s().Foreground(p.OK).Bold(true),
		StatusWarn:  s().Foreground(p.Warn).Bold(true),
		Dialog:      s().Foreground(p.Warn),
		DialogTitle: s().Foreground(p.Warn).Bold(true),
		Tab:         s().Foreground(p.Muted),
		TabActive:   s().Foreground(p.Focus).Bold(true).Underline(true),
	}
}

// tag renders a status tag "[v]" in its colour.
func (st Styles) tag(status string) string {
	if status == "" {
		status = " "
	}
	t := "[" + status + "]"
	switch status {
	case "-":
		return st.TagDoing.Render(t)
	case "v":
		return st.TagDone.Render(t)
	case "!":
		return st.TagFailed.Render(t)
	}
	return st.TagTodo.Render(t)
}

func (st Styles) agent(name string) lipgloss.Style {
	if s, ok := st.Agent[name]; ok {
		return s
	}
	return st.Dim
}
