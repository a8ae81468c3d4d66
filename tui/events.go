package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
)

// handleEvent folds one run event into the panes and asks for the next.
func (m *Model) handleEvent(e event.Event) tea.Cmd {
	wasBusy := m.act.isBusy()
	if !e.Time.IsZero() {
		m.run.last = e.Time
	}
	m.apply(cleanEvent(e))
	cmds := []tea.Cmd{waitForEvent(m.opts.Events)}
	if !wasBusy && m.act.isBusy() {
		cmds = append(cmds, m.act.spin.Tick)
	}
	if e.Type == event.Done && m.quitting {
		cmds = append(cmds, tea.Quit)
	}
	return tea.Batch(cmds...)
}

// apply changes the model for one event. Each case is a line or two so
// the event table stays readable; the panes do the work.
func (m *Model) apply(e event.Event) {
	switch e.Type {
	case event.RunStarted:
		m.startRun(e)
	case event.PhaseChanged:
		m.run.phase = e.Phase
		m.act.add(e, "phase: "+e.Phase, "note")
	case event.IndexProgress:
		m.run.progress = e.Progress
	case event.ModelCall:
		m.act.startCall(e.Agent)
	case event.Retry:
		m.act.retrying(e)
	case event.Delta:
		m.act.delta(e)
	case event.ModelReply:
		m.modelReply(e)
	case event.ToolCall:
		m.toolCall(e)
	case event.ToolResult:
		m.toolResult(e)
	case event.SearchNode:
		m.searchNode(e)
	case event.Shortlist, event.Ranked:
		m.ranking(e)
	case event.Plan:
		m.plan(e)
	case event.Checkpoint:
		// commit_todo's result line already says it; the hypotheses pane shows it.
	case event.Diff:
		m.addDiff(e)
	case event.Approval:
		m.approval(e)
	case event.ApprovalDone:
		m.approvalDone(e)
	case event.Message:
		m.message(e)
	case event.Usage:
		m.act.setUsage(e.Agent, e.Usage)
	case event.Error:
		m.run.err = firstLine(e.Text)
		m.act.add(e, "error: "+e.Text, "error")
	case event.Done:
		m.finish(e)
	}
}

// message logs a note; one delivering the engineer's prune to the search
// marks the unit pruned (in a replay too).
func (m *Model) message(e event.Event) {
	m.act.add(e, e.Text, "note")
	if id, ok := strings.CutPrefix(e.Text, "note delivered: prune "); ok {
		m.tree.pruned[strings.TrimSpace(id)] = true
	}
}

func (m *Model) startRun(e event.Event) {
	m.run.info, m.run.start = e.Run, e.Time
	if e.Run != nil {
		m.run.unconfined = e.Run.Unconfined != ""
		m.act.add(e, fmt.Sprintf("run %s on %s (model %s)", e.Run.ID, e.Run.Repo, e.Run.Model), "note")
	}
}

func (m *Model) modelReply(e event.Event) {
	m.act.endLive(e.Agent)
	delete(m.act.busy, e.Agent)
	m.act.setUsage(e.Agent, e.Usage)
	if t := strings.TrimSpace(e.Text); t != "" {
		m.act.add(e, "“"+t+"”", "")
		m.act.said[e.Agent] = t
	}
}

func (m *Model) toolCall(e event.Event) {
	if e.Tool == nil {
		return
	}
	m.act.busy[e.Agent] = e.Tool.Name
	// The loop repeats the reply's text as the call's thought: log it once.
	if t := strings.TrimSpace(e.Tool.Thought); t != "" && t != m.act.said[e.Agent] {
		m.act.add(e, "“"+t+"”", "")
		m.act.said[e.Agent] = t
	}
	m.act.addLine(logLine{at: e.Time, agent: e.Agent, text: "▸ " + e.Tool.Name + " " + compactArgs(e.Tool.Arguments), style: "tool", call: e.Tool.CallID})
}

func (m *Model) toolResult(e event.Event) {
	delete(m.act.busy, e.Agent)
	if e.Tool == nil {
		return
	}
	s := e.Tool.Summary
	if s == "" {
		s = firstLine(e.Tool.Observation)
	}
	if e.Tool.Name == "bash" {
		// A command's verdict is its last line: "OK", "FAILED (failures=2)".
		if last := lastOutputLine(e.Tool.Observation); last != "" && !strings.Contains(s, last) {
			s += " → " + last
		}
	}
	if e.Tool.Failed || strings.Contains(s, "(exit ") {
		m.act.result(e, "✗ "+s, "fail")
		return
	}
	m.act.result(e, "✓ "+s, "tool")
}

func (m *Model) searchNode(e event.Event) {
	if e.Node != nil {
		m.tree.add(*e.Node)
	}
}

func (m *Model) ranking(e event.Event) {
	if e.Ranking == nil {
		return
	}
	what := "shortlist"
	if e.Type == event.Ranked {
		what = "ranked"
		m.tree.setRanking(e.Ranking)
	}
	m.act.add(e, fmt.Sprintf("%s: %s", what, strings.Join(e.Ranking.Functions, ", ")), "note")
}

func (m *Model) plan(e event.Event) {
	if e.Plan != nil {
		m.hyps.setPlan(*e.Plan)
	}
}

func (m *Model) addDiff(e event.Event) {
	if e.Diff != nil {
		m.diff.add(*e.Diff)
	}
}

// approval queues a request for the engineer. A replayed request has no
// one waiting for it, so it is only logged; so is one a policy answered
// before the screen saw it. Every other request is shown, whatever its id:
// a run blocked on a question the screen does not show would hang.
func (m *Model) approval(e event.Event) {
	req := e.Approval
	if req == nil {
		return
	}
	m.act.add(e, fmt.Sprintf("asks to %s %s", req.Action, req.Target), "note")
	if m.opts.Replay || req.Answered() {
		return
	}
	m.queue = append(m.queue, req)
	m.nextDialog()
}

func (m *Model) nextDialog() {
	if m.dialog != nil || len(m.queue) == 0 {
		return
	}
	m.dialog = newDialog(m.queue[0])
	m.queue = m.queue[1:]
}

// approvalDone logs the answer and closes a dialog answered elsewhere (by
// policy or because the run was cancelled).
func (m *Model) approvalDone(e event.Event) {
	req := e.Approval
	if req == nil {
		return
	}
	if req.Reply != nil {
		m.act.add(e, fmt.Sprintf("%s %s: %s %s%s", req.Action, req.Target, req.Reply.Decision, req.Reply.Choice, reason(req.Reply)), "note")
	}
	if m.dialog != nil && m.dialog.req.Same(req) {
		m.dialog = nil
		m.nextDialog()
	}
	for i, q := range m.queue {
		if q.Same(req) {
			m.queue = append(m.queue[:i], m.queue[i+1:]...)
			break
		}
	}
}

func reason(r *event.Reply) string {
	if r.Reason == "" {
		return ""
	}
	return " (" + r.Reason + ")"
}

func (m *Model) finish(e event.Event) {
	m.run.done = e.Done
	m.act.busy = map[string]string{}
	for agent := range m.act.live {
		m.act.endLive(agent)
	}
	// Nobody waits for an answer any more: a dialog left open would ask in vain.
	m.dialog, m.queue = nil, nil
	if e.Done == nil {
		return
	}
	m.act.add(e, fmt.Sprintf("done: %s after %.0fs", e.Done.Status, e.Done.Seconds), "note")
	if m.diff.follow && strings.TrimSpace(e.Done.Report) != "" {
		m.showFinal()
		m.diff.follow = true
	}
}

// compactArgs shortens a tool call's JSON arguments to one line.
func compactArgs(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:157], "") + "…" // never half a character
	}
	return s
}

// lastOutputLine is a command's last line of output, skipping the exit
// status the shell tool appends.
func lastOutputLine(obs string) string {
	lines := strings.Split(strings.TrimSpace(obs), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "[exit status") {
			return l
		}
	}
	return ""
}
