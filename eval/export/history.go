package export

import (
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// history is the chat of both agents: the saved transcript when there is
// one, else what the events show of it (replies and tool results).
func history(r *Run) []HistoryEntry {
	var out []HistoryEntry
	if t := r.Transcript; t != nil && len(t.Localize)+len(t.Resolve) > 0 {
		for _, m := range t.Localize {
			out = append(out, entry(m, event.Localizer))
		}
		for _, m := range t.Resolve {
			out = append(out, entry(m, event.Resolver))
		}
		return out
	}
	return historyFromEvents(r.Events)
}

func entry(m llm.Message, agent string) HistoryEntry {
	h := HistoryEntry{Role: m.Role, Content: m.Content, Agent: agent, MessageType: messageType(m)}
	for _, c := range m.ToolCalls {
		var hc HistoryCall
		hc.ID, hc.Type = c.ID, "function"
		hc.Function.Name, hc.Function.Arguments = c.Name, c.Arguments
		h.ToolCalls = append(h.ToolCalls, hc)
	}
	if m.ToolCallID != "" {
		h.ToolCallIDs = []string{m.ToolCallID}
	}
	return h
}

func messageType(m llm.Message) string {
	switch m.Role {
	case llm.System:
		return "system_prompt"
	case llm.ToolRole:
		return "observation"
	case llm.Assistant:
		if len(m.ToolCalls) > 0 {
			return "action"
		}
		return "thought"
	}
	return "user"
}

// historyFromEvents rebuilds a chat from a run that kept no transcript.
func historyFromEvents(evs []event.Event) []HistoryEntry {
	var out []HistoryEntry
	for _, e := range evs {
		switch {
		case e.Type == event.RunStarted && e.Run != nil && e.Run.Issue != "":
			out = append(out, HistoryEntry{Role: llm.User, Content: e.Run.Issue, Agent: event.Localizer, MessageType: "user"})
		case e.Type == event.ToolCall && e.Tool != nil:
			m := llm.Message{Role: llm.Assistant, Content: strings.TrimSpace(e.Tool.Thought),
				ToolCalls: []llm.ToolCall{{ID: e.Tool.CallID, Name: e.Tool.Name, Arguments: e.Tool.Arguments}}}
			out = append(out, entry(m, e.Agent))
		case e.Type == event.ToolResult && e.Tool != nil:
			m := llm.Message{Role: llm.ToolRole, Content: e.Tool.Observation, ToolCallID: e.Tool.CallID, Name: e.Tool.Name}
			out = append(out, entry(m, e.Agent))
		case e.Type == event.ModelReply && strings.TrimSpace(e.Text) != "":
			out = append(out, entry(llm.Message{Role: llm.Assistant, Content: e.Text}, e.Agent))
		}
	}
	return out
}
