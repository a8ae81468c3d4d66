package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// Every string an event carries comes from a model, the repository's
// files, a tool, git or the issue, and reaches the terminal. cleanEvent
// makes each visible-only (termtext.Clean) where the event becomes view
// state, so no pane draws a raw byte. Our own styling is added later, by
// the panes. Clean text is returned as is, so this costs little.
//
// An approval request is the exception: the dialog must answer with the
// bytes the agent offered, so it keeps the request and draws a cleaned
// copy (shownRequest). Its id is never drawn and stays as sent.
func cleanEvent(e event.Event) event.Event {
	c := termtext.Clean
	e.Agent, e.Text, e.Phase = c(e.Agent), c(e.Text), c(e.Phase)
	if e.Run != nil {
		r := *e.Run
		r.ID, r.Repo, r.Workdir, r.Issue, r.Model, r.Localize = c(r.ID), c(r.Repo), c(r.Workdir), c(r.Issue), c(r.Model), c(r.Localize)
		e.Run = &r
	}
	if e.Progress != nil {
		p := *e.Progress
		p.What = c(p.What)
		e.Progress = &p
	}
	if e.Tool != nil {
		t := *e.Tool
		t.CallID, t.Name, t.Arguments, t.Thought = c(t.CallID), c(t.Name), c(t.Arguments), c(t.Thought)
		t.Observation, t.Summary = c(t.Observation), c(t.Summary)
		e.Tool = &t
	}
	if e.Node != nil {
		n := *e.Node
		n.ID, n.Parent, n.Kind, n.Preview, n.Query = c(n.ID), c(n.Parent), c(n.Kind), c(n.Preview), c(n.Query)
		e.Node = &n
	}
	if e.Ranking != nil {
		e.Ranking = &event.Ranking{Files: cleanAll(e.Ranking.Files), Functions: cleanAll(e.Ranking.Functions), Reasons: cleanAll(e.Ranking.Reasons)}
	}
	if e.Plan != nil {
		e.Plan = cleanPlan(*e.Plan)
	}
	if e.Checkpoint != nil {
		k := *e.Checkpoint
		k.Hypothesis, k.Todo, k.Hash, k.Parent, k.Branch, k.Message, k.Stat = c(k.Hypothesis), c(k.Todo), c(k.Hash), c(k.Parent), c(k.Branch), c(k.Message), c(k.Stat)
		e.Checkpoint = &k
	}
	if e.Diff != nil {
		d := *e.Diff
		d.From, d.To, d.Label, d.Patch, d.Stat = c(d.From), c(d.To), c(d.Label), c(d.Patch), c(d.Stat)
		e.Diff = &d
	}
	if e.Approval != nil && e.Type != event.Approval {
		e.Approval = shownRequest(e.Approval)
	}
	if e.Done != nil {
		d := *e.Done
		d.Status, d.Patch, d.RunDir, d.Report = c(d.Status), c(d.Patch), c(d.RunDir), c(d.Report)
		e.Done = &d
	}
	return e
}

func cleanPlan(p event.PlanSnapshot) *event.PlanSnapshot {
	c := termtext.Clean
	p.Current, p.Original, p.Base, p.Merged = c(p.Current), c(p.Original), c(p.Base), c(p.Merged)
	p.Hypotheses = slices.Clone(p.Hypotheses)
	for i := range p.Hypotheses {
		h := &p.Hypotheses[i]
		h.ID, h.Content, h.Status, h.Branch = c(h.ID), c(h.Content), c(h.Status), c(h.Branch)
		h.Insights = cleanAll(h.Insights)
		h.Todos = slices.Clone(h.Todos)
		for j := range h.Todos {
			t := &h.Todos[j]
			t.ID, t.Content, t.Status, t.Commit, t.Message, t.Stat = c(t.ID), c(t.Content), c(t.Status), c(t.Commit), c(t.Message), c(t.Stat)
		}
	}
	return &p
}

// shownRequest is the copy of req the dialog draws. It shares req's reply
// channel, so answering it answers req; a choice among its options is
// taken from req's, by position or by rawLocations.
func shownRequest(req *event.ApprovalRequest) *event.ApprovalRequest {
	c := termtext.Clean
	s := *req
	s.Action, s.Target, s.Summary, s.Diff, s.Report = c(s.Action), c(s.Target), c(s.Summary), c(s.Diff), c(s.Report)
	s.Options = cleanAll(s.Options)
	if s.Reply != nil {
		r := *s.Reply
		r.Choice, r.Reason = c(r.Choice), c(r.Reason)
		s.Reply = &r
	}
	return &s
}

func cleanAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = termtext.Clean(s)
	}
	return out
}

// visibleKey cleans the text a key message types (keys, or a paste) before
// an input box takes it: the boxes drop control characters but keep
// invisible and direction-changing ones, which would then reach the agent
// unseen. What the engineer sees in the box is what the agent reads. A
// pasted carriage return ends a line, as the clipboard meant.
func visibleKey(msg tea.KeyMsg) tea.KeyMsg {
	if msg.Type != tea.KeyRunes {
		return msg
	}
	s := string(msg.Runes)
	if strings.ContainsRune(s, '\r') {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	if c := termtext.Clean(s); c != s {
		msg.Runes = []rune(c)
	}
	return msg
}
