package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// Messages the program sends itself.
type (
	eventMsg     struct{ e event.Event }
	eventsClosed struct{}
	clockMsg     time.Time
	graceOver    struct{}
)

// runState is what the status bar tells about the run.
type runState struct {
	info     *event.RunInfo
	phase    string
	progress *event.Progress
	start    time.Time
	last     time.Time
	done     *event.DoneInfo
	closed   bool
	err      string
	steps    bool // the engineer is stepping one tool call at a time
	// unconfined: the run's commands are not confined; the status bar
	// says so for the whole run.
	unconfined bool
}

// Model is the workbench: one root model that routes messages to plain
// pane structs. Build it with New; Run starts it in the terminal.
type Model struct {
	opts   Options
	keys   KeyMap
	st     Styles
	width  int
	height int
	focus  pane

	tree treePane
	hyps hypPane
	diff diffPane
	act  activityPane

	dialog *dialog
	queue  []*event.ApprovalRequest
	// answers counts the questions the engineer answered on this screen.
	answers int

	note     textinput.Model
	noting   bool
	help     help.Model
	showHelp bool
	flash    string // a short status message, cleared by the next key
	armed    string // "prune ID" or "prefer ID" named by x or t, waiting for the same key again
	run      runState
	quitting bool
}

// New builds the model from opts; it reads no terminal and starts nothing.
func New(opts Options) *Model {
	opts = opts.withDefaults()
	md := newMarkdown(opts.GlamourStyle, opts.NoColor)
	note := textinput.New()
	note.Prompt = ""
	note.Placeholder = "a note the agent reads at its next turn"
	note.CharLimit = 1000
	m := &Model{
		opts: opts, keys: opts.Keys, st: opts.Styles,
		tree: newTreePane(), hyps: newHypPane(), diff: newDiffPane(opts.Styles, md), act: newActivityPane(),
		note: note, help: help.New(),
	}
	for _, n := range opts.Notices {
		m.act.add(event.Event{Agent: event.Runtime}, n, "note")
	}
	m.resize(80, 24)
	return m
}

// Init starts reading events and the clock.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(waitForEvent(m.opts.Events), clock())
}

// Update routes each message to its handler.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case eventMsg:
		return m, m.handleEvent(msg.e)
	case eventsClosed:
		return m, m.handleClosed()
	case spinner.TickMsg:
		return m, m.handleSpin(msg)
	case clockMsg:
		return m, clock()
	case graceOver:
		return m, tea.Quit
	case locationChecked:
		m.handleChecked(msg)
	}
	return m, nil
}

// handleChecked brings the run's verdict on a typed location to the
// dialog that asked, if it is still open.
func (m *Model) handleChecked(msg locationChecked) {
	if m.dialog != nil && m.dialog.raw == msg.req {
		m.dialog.added(msg.loc, msg.err)
	}
}

// waitForEvent reads one event; Update issues it again after each one.
func waitForEvent(ch <-chan event.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		e, ok := <-ch
		if !ok {
			return eventsClosed{}
		}
		return eventMsg{e}
	}
}

func clock() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return clockMsg(t) })
}

func (m *Model) handleSpin(msg spinner.TickMsg) tea.Cmd {
	if !m.act.isBusy() {
		return nil
	}
	var cmd tea.Cmd
	m.act.spin, cmd = m.act.spin.Update(msg)
	return cmd
}

// handleClosed notes that no more events will come. The screen stays so
// the engineer can read the outcome; a pending quit completes.
func (m *Model) handleClosed() tea.Cmd {
	m.run.closed = true
	m.act.busy = map[string]string{}
	if m.quitting {
		return tea.Quit
	}
	return nil
}

// quit cancels the run and waits for its Done event (the run restores the
// engineer's repository) or the grace period, whichever comes first.
func (m *Model) quit() tea.Cmd {
	wait := !m.quitting && m.run.done == nil && !m.run.closed && m.opts.Cancel != nil
	m.quitting = true
	if m.opts.Cancel != nil {
		m.opts.Cancel()
	}
	if !wait {
		return tea.Quit
	}
	return tea.Tick(m.opts.Grace, func(time.Time) tea.Msg { return graceOver{} })
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	l := computeLayout(w, h)
	m.diff.setSize(l.boxes[paneDiff])
	m.help.Width = w - 4
}
