package llm

import (
	"fmt"
	"strings"
)

// Keep says what Fit must leave whole.
type Keep struct {
	// Tail is how many of the newest messages stay whole while the older
	// ones can make room (widened so it never starts on a tool result cut
	// off from its call).
	Tail int
	// Memo is appended to the elision note: what the agent must not lose
	// with the old turns (its current hypothesis and to-dos).
	Memo string
	// Paging tells the model how to see lines cut from the middle of an
	// output: first and last are line numbers, of the file when the output
	// was numbered like cat -n (numbered), else of the output. nil: a
	// generic hint.
	Paging func(first, last int, numbered bool) string
}

// Fitted is a conversation made to fit a budget.
type Fitted struct {
	Messages []Message
	Tokens   int // the estimate of Messages
	Elided   int // observations and thoughts shortened to a stub
	Dropped  int // whole old turns removed
	Cut      int // recent outputs cut in the middle
	// Over is how far the result still exceeds the budget: more than zero
	// only when the opening messages and a stub of the newest turn alone do
	// not fit.
	Over int
}

// elideAbove is the size in characters below which an old message is
// left alone: a stub would save nothing.
const elideAbove = 240

// Fit returns msgs trimmed to about budget tokens, as SWE-agent's history
// processors do. The opening messages (system prompt, issue, locations)
// stay whole. Room is made in this order, each step only while the
// conversation is still over budget:
//  1. before the kept tail: old observations are elided, then old thoughts
//     and arguments, then whole old turns;
//  2. in the tail: observations older than the newest turn are elided;
//  3. the newest turn's outputs lose their middle, down to a floor;
//  4. in the tail: older thoughts are elided and older turns removed;
//  5. the newest outputs and notes lose their middle entirely, and the
//     newest turn's own thought and arguments are elided.
//
// Every turn is removed with its tool results, so every call keeps its
// answer. What is still over the budget after all that is Over. count
// estimates tokens; msgs is not modified.
func Fit(msgs []Message, budget int, keep Keep, count func(...Message) int) Fitted {
	f := &fitter{out: append([]Message(nil), msgs...), keep: keep, count: count, cuts: map[int]*cutRec{}}
	f.total = count(f.out...)
	if budget <= 0 || f.total <= budget {
		return Fitted{Messages: f.out, Tokens: f.total}
	}
	// The note saying what was left out takes room of its own.
	f.budget, f.asked = budget-count(f.noteStandIn()), budget
	f.head = openingEnd(f.out)
	f.elideRange(f.head, tailStart(f.out, keep.Tail), 0)
	f.elideRange(f.head, tailStart(f.out, keep.Tail), 1)
	f.dropTurns(tailStart(f.out, keep.Tail))
	f.elideRange(f.head, f.newest(), 0)
	f.cutNewest(cutFloor)
	f.elideRange(f.head, f.newest(), 1)
	f.dropTurns(f.newest())
	f.cutNewest(0)
	f.elideRange(f.newest(), len(f.out), 1)
	return f.result()
}

// cutFloor is how many characters of each newest output step 3 keeps.
const cutFloor = 2400

// fitter carries one Fit.
type fitter struct {
	out    []Message
	keep   Keep
	count  func(...Message) int
	total  int
	budget int // what is left for the messages once the note is in
	asked  int // the budget Fit was given
	head   int // the end of the opening
	cuts   map[int]*cutRec
	f      Fitted
}

// cutRec is one output cut in the middle: its whole text and how much of
// it is cut so far. It is keyed by its distance from the end of the
// conversation, which dropping older turns does not change.
type cutRec struct {
	orig string
	drop int
}

// noteStandIn is as long as any note Fit may add.
func (f *fitter) noteStandIn() Message {
	return Message{Role: User, Content: elisionNote(Fitted{Elided: 999, Dropped: 999, Cut: 99}, f.keep.Memo)}
}

func (f *fitter) over() bool { return f.total > f.budget }

// replace puts m at i, keeping the total.
func (f *fitter) replace(i int, m Message) {
	f.total += f.count(m) - f.count(f.out[i])
	f.out[i] = m
}

// newest is where the newest turn begins: the last assistant message
// after the opening, or the end when there is none.
func (f *fitter) newest() int {
	for i := len(f.out) - 1; i >= f.head; i-- {
		if f.out[i].Role == Assistant {
			return i
		}
	}
	return len(f.out)
}

// elideRange shortens messages in [from, to), oldest first.
func (f *fitter) elideRange(from, to, pass int) {
	for i := from; i < to && f.over(); i++ {
		if shrunk, ok := elide(f.out[i], pass); ok {
			f.replace(i, shrunk)
			f.f.Elided++
		}
	}
}

// dropTurns removes whole turns from the start of the conversation's
// middle until it fits or limit is reached.
func (f *fitter) dropTurns(limit int) {
	for f.over() && f.head < limit {
		end := turnEnd(f.out, f.head, limit)
		f.total -= f.count(f.out[f.head:end]...)
		f.f.Dropped += countTurns(f.out[f.head:end])
		f.out = append(f.out[:f.head], f.out[end:]...)
		limit -= end - f.head
	}
}

// cutNewest cuts the middle out of the newest turn's outputs and notes,
// largest first, keeping at least floor characters of each.
func (f *fitter) cutNewest(floor int) {
	stuck := map[int]bool{}
	for f.over() {
		i := f.largestNewest(floor, stuck)
		if i < 0 {
			return
		}
		key := len(f.out) - i
		rec, seen := f.cuts[key]
		if !seen {
			rec = &cutRec{orig: f.out[i].Content, drop: cutMarkerRoom}
		}
		m := f.out[i]
		tokens := max(f.count(m), 1)
		// Characters per token of this message turn the excess into a cut.
		more := (f.total-f.budget+1)*len(m.Content)/tokens + 1
		drop := min(rec.drop+more, len(rec.orig)-floor)
		m.Content = cutMiddle(rec.orig, drop, f.keep.Paging)
		if f.count(m) >= tokens {
			stuck[i] = true
			continue
		}
		rec.drop = drop
		if !seen {
			f.cuts[key] = rec
			f.f.Cut++
		}
		f.replace(i, m)
	}
}

// largestNewest is the newest turn's biggest output or note that can
// still lose characters above floor, or -1.
func (f *fitter) largestNewest(floor int, stuck map[int]bool) int {
	best, size := -1, 0
	for i := f.newest() + 1; i < len(f.out); i++ {
		m := f.out[i]
		if m.Role == Assistant || m.Role == System || stuck[i] {
			continue
		}
		if n := len(m.Content); n > floor+cutMarkerRoom && n > size {
			best, size = i, n
		}
	}
	return best
}

// result adds the note and says how far over the budget it all stays.
func (f *fitter) result() Fitted {
	r := f.f
	if r.Elided > 0 || r.Dropped > 0 || r.Cut > 0 {
		note := Message{Role: User, Content: elisionNote(r, f.keep.Memo)}
		f.out = append(f.out[:f.head], append([]Message{note}, f.out[f.head:]...)...)
		f.total += f.count(note)
	}
	r.Messages, r.Tokens = f.out, f.total
	r.Over = max(f.total-f.asked, 0)
	return r
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
	var parts []string
	if f.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d earlier turns were removed", f.Dropped))
	}
	if f.Elided > 0 {
		parts = append(parts, fmt.Sprintf("%d older outputs were shortened", f.Elided))
	}
	if f.Cut > 0 {
		parts = append(parts, fmt.Sprintf("%d recent outputs lost their middle", f.Cut))
	}
	var b strings.Builder
	b.WriteString("[Context note: to fit the model's context window, ")
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString(". Re-run a command if you need its output again, asking for less at once.]")
	if memo = strings.TrimSpace(memo); memo != "" {
		b.WriteString("\n\n" + memo)
	}
	return b.String()
}
