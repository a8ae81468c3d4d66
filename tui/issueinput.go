package tui

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
)

// ErrNoIssue: the engineer left the issue box without giving an issue.
var ErrNoIssue = errors.New("no issue given")

// issueInput is the box the workbench opens when it starts without an
// issue: the engineer types or pastes it, ctrl+d starts the run.
type issueInput struct {
	area   textarea.Model
	st     Styles
	title  string
	w, h   int
	done   bool
	cancel bool
}

func newIssueInput(title string) *issueInput {
	ta := textarea.New()
	ta.Placeholder = "Paste or type the issue: what is wrong, how to reproduce it, what you expected."
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.Focus()
	return &issueInput{area: ta, st: DefaultStyles(), title: title}
}

func (m *issueInput) Init() tea.Cmd { return textarea.Blink }

func (m *issueInput) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		msg = visibleKey(k)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.area.SetWidth(max(msg.Width-4, 10))
		m.area.SetHeight(max(msg.Height-6, 3))
	case tea.KeyMsg:
		switch msg.Type {
		case tea.KeyCtrlD:
			if strings.TrimSpace(m.area.Value()) != "" {
				m.done = true
				return m, tea.Quit
			}
		case tea.KeyCtrlC, tea.KeyEsc:
			m.cancel = true
			return m, tea.Quit
		}
	}
	var cmd tea.Cmd
	m.area, cmd = m.area.Update(msg)
	return m, cmd
}

func (m *issueInput) View() string {
	lines := append([]string{m.st.Dim.Render("The issue to work on. ctrl+d starts, esc leaves."), ""}, strings.Split(m.area.View(), "\n")...)
	return box(m.st, m.title, true, lines, rect{max(m.w, 20), max(m.h, 6)})
}

// AskIssue opens a box for the issue text on the terminal and returns what
// the engineer typed, or ErrNoIssue when they left it.
func AskIssue(ctx context.Context, title string, tty *os.File) (string, error) {
	m := newIssueInput(title)
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}
	if tty != nil {
		prepareTerminal(tty)
		popts = append(popts, tea.WithInput(tty), tea.WithOutput(tty))
	}
	p := tea.NewProgram(m, popts...)
	if _, err := p.Run(); err != nil {
		return "", err
	}
	if m.cancel || !m.done {
		return "", ErrNoIssue
	}
	return strings.TrimSpace(m.area.Value()) + "\n", nil
}
