package llm

import (
	"fmt"
	"strings"
)

// Keep says what Fit must leave whole.
type Keep struct {
	// Tail is how many of the newest messages stay whole (widened so it
	// never starts on a tool result cut off from its call).
	Tail int
	// Memo is appended to the elision note: what the agent must not lose
	// with the old turns (its current hypothesis and to-dos).
	Memo string
}

// Fitted is a conversation made to fit a budget.
type Fitted struct {
	Messages []Message
	Tokens   int // the estimate of Messages
	Elided   int // observations and thoughts shortened to a stub
	Dropped  int // whole old turns removed
}

// elideAbove is the size in characters below which an old message is
// left alone: a stub would save nothing.
const elideAbove = 240

// Fit returns msgs trimmed to about budget tokens, as SWE-agent's history
// processors do: the opening messages (system prompt, issue, locations)
// and the newest Tail messages stay whole; in between, the oldest tool
// observations are elided first, then old thoughts and arguments, then
// whole old turns, each turn removed with its tool results so every call
// still has its answer. count estimates tokens; msgs is not modified.
func Fit(msgs []Message, budget int, keep Keep, count func(...Message) int) Fitted {
	out := append([]Message(nil), msgs...)
	total := count(out...)
	if budget <= 0 || total <= budget {
		return Fitted{Messages: out, Tokens: total}
	}
	head, tail := openingEnd(out), tailStart(out, keep.Tail)
	// The note saying what was left out takes room of its own.
	budget -= count(Message{Role: User, Content: elisionNote(Fitted{Elided: 999, Dropped: 999}, keep.Memo)})
	f := Fitted{}
	for pass := 0; pass < 2 && total > budget; pass++ {
		for i := head; i < tail && total > budget; i++ {
			if shrunk, ok := elide(out[i], pass); ok {
				total += count(shrunk) - count(out[i])
				out[i] = shrunk
				f.Elided++
			}
		}
	}
	for total > budget && head < tail {
		end := turnEnd(out, head, tail)
		total -= count(out[head:end]...)
		f.Dropped += countTurns(out[head:end])
		out = append(out[:head], out[end:]...)
		tail -= end - head
	}
	if f.Elided > 0 || f.Dropped > 0 {
		note := Message{Role: User, Content: elisionNote(f, keep.Memo)}
		out = append(out[:head], append([]Message{note}, out[head:]...)...)
		total += count(note)
	}
	f.Messages, f.Tokens = out, total
	return f
}

// openingEnd is the index of the first assistant turn: everything before
// it is the task itself.
func openingEnd(msgs []Message) int {
	for i, m := range msgs {
		if m.Role == Assistant {
			return i
		}
	}
	return len(msgs)
}

// tailStart is where the kept tail begins, moved back off tool results so
// it starts at the assistant turn that made the calls.
func tailStart(msgs []Message, n int) int {
	i := max(len(msgs)-n, openingEnd(msgs))
	for i > 0 && i < len(msgs) && msgs[i].Role == ToolRole {
		i--
	}
	return i
}

// turnEnd is the end of the turn that starts at i: the assistant message
// and the tool results and notes that follow it, up to the next assistant
// message or limit.
func turnEnd(msgs []Message, i, limit int) int {
	j := i + 1
	for j < limit && msgs[j].Role != Assistant {
		j++
	}
	return j
}

func countTurns(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == Assistant {
			n++
		}
	}
	return max(n, 1)
}

// elide shortens one old message: pass 0 takes tool observations, pass 1
// the assistant's thoughts and long call arguments.
func elide(m Message, pass int) (Message, bool) {
	switch {
	case pass == 0 && m.Role == ToolRole && len(m.Content) > elideAbove:
		m.Content = fmt.Sprintf("[output elided to fit the context window: %d lines]", strings.Count(m.Content, "\n")+1)
		return m, true
	case pass == 1 && m.Role == Assistant:
		changed := false
		if len(m.Content) > elideAbove || len(m.Reasoning) > 0 {
			m.Content, m.Reasoning, changed = firstLine(m.Content), "", true
		}
		calls := append([]ToolCall(nil), m.ToolCalls...)
		for i, c := range calls {
			if len(c.Arguments) > elideAbove {
				calls[i].Arguments, changed = `{"elided":"arguments elided to fit the context window"}`, true
			}
		}
		m.ToolCalls = calls
		return m, changed
	}
	return m, false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 160 {
		line = line[:160]
	}
	return line + " [rest elided]"
}

func elisionNote(f Fitted, memo string) string {
	var b strings.Builder
	b.WriteString("[Context note: to fit the model's context window, ")
	switch {
	case f.Dropped > 0 && f.Elided > 0:
		fmt.Fprintf(&b, "%d earlier turns were removed and %d older outputs shortened.", f.Dropped, f.Elided)
	case f.Dropped > 0:
		fmt.Fprintf(&b, "%d earlier turns were removed.", f.Dropped)
	default:
		fmt.Fprintf(&b, "%d older outputs were shortened.", f.Elided)
	}
	b.WriteString(" Re-run a command if you need its output again.]")
	if memo = strings.TrimSpace(memo); memo != "" {
		b.WriteString("\n\n" + memo)
	}
	return b.String()
}
