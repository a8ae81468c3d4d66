// Package tui is the workbench: a Bubble Tea program that draws a run's
// events (the search tree, the hypotheses and their checkpoints, diffs and
// the agents' activity) and lets the engineer steer it: approve or
// override reverts and merges, pause, step and leave notes.
//
// It knows the run only through its events and its gate; it does no git
// and no file I/O.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// Options configure the workbench.
type Options struct {
	Events <-chan event.Event // the run's events; closed when the run ends
	Gate   *event.Gate        // pause/step/notes; nil disables steering (replay)
	Cancel func()             // stops the run; called once on quit
	Title  string             // shown in the status bar
	Replay bool               // events come from a saved run: no approvals, no clock
	// Notices are shown first in the activity log: what the engineer should
	// know before the run's own events (a missing tool, a fallback model).
	Notices []string
	// ScriptedNote, if set, is shown in every approval dialog: the demo's
	// model follows a script, and answers other than the scripted ones take
	// it off that script.
	ScriptedNote string

	Keys   KeyMap // zero: DefaultKeyMap
	Styles Styles // zero: DefaultStyles

	// GlamourStyle is the markdown style ("dark", "light", "notty",
	// "ascii"). It must be chosen before the program starts: "auto" inside
	// a running program can hang. Empty: "notty" under NO_COLOR, else "dark".
	GlamourStyle string
	NoColor      bool // no colours at all; set by NO_COLOR

	Grace  time.Duration    // how long quitting waits for the run's Done event; zero: 3s
	Now    func() time.Time // the clock; nil: time.Now
	Input  io.Reader        // nil: the terminal; /dev/tty when stdin is a pipe
	Output io.Writer        // nil: the terminal; /dev/tty when stdout is not one
	Inline bool             // draw inline instead of the alternate screen
}

func (o Options) withDefaults() Options {
	if len(o.Keys.Quit.Keys()) == 0 {
		o.Keys = DefaultKeyMap()
	}
	if o.Styles.Agent == nil {
		o.Styles = DefaultStyles()
	}
	if o.GlamourStyle == "" {
		o.GlamourStyle = "dark"
		if o.NoColor {
			o.GlamourStyle = "notty"
		}
	}
	if o.Grace <= 0 {
		o.Grace = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Title == "" {
		o.Title = "swe-adept"
	}
	o.Title = termtext.Clean(o.Title) // it may name a run folder
	return o
}

// prepareTerminal has lipgloss read the colours of the terminal the
// program draws on, which is not standard output when that is a pipe or a
// file.
func prepareTerminal(tty *os.File) {
	lipgloss.SetDefaultRenderer(lipgloss.NewRenderer(tty))
}

// Run draws the workbench until the engineer quits or ctx ends.
func Run(ctx context.Context, opts Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	if f, ok := opts.Output.(*os.File); ok {
		prepareTerminal(f)
	}
	if opts.NoColor {
		// Set before the program starts, as the markdown style is.
		lipgloss.SetColorProfile(termenv.Ascii)
	} else {
		// Ask the terminal for its background now, before the program reads
		// keys: asked mid-run, its answer would arrive as typed keys, or be
		// left on the screen after the program exits.
		lipgloss.HasDarkBackground()
	}
	m := New(opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if !opts.Inline {
		popts = append(popts, tea.WithAltScreen())
	}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller cancelled: not a failure of the screen
	}
	if err != nil {
		return fmt.Errorf("workbench: %w", err)
	}
	return nil
}
