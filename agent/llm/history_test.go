package llm

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// conversation builds an opening and n turns of one call each, with big
// observations.
func longConversation(n int) []Message {
	msgs := []Message{{Role: System, Content: "You fix bugs."}, {Role: User, Content: "The cart total is wrong."}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			Message{Role: Assistant, Content: fmt.Sprintf("step %d: ", i) + strings.Repeat("thinking ", 40),
				ToolCalls: []ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"cat f` + fmt.Sprint(i) + `"}`}}},
			Message{Role: ToolRole, ToolCallID: id, Name: "bash", Content: strings.Repeat(fmt.Sprintf("line of file %d\n", i), 60)})
	}
	return msgs
}

func TestFit(t *testing.T) {
	conv := longConversation(20)
	full := EstimateTokens(conv...)
	tests := []struct {
		name        string
		budget      int
		wantElided  bool
		wantDropped bool
	}{
		{"fits", full, false, false},
		{"no budget", 0, false, false},
		{"observations go first", full * 6 / 10, true, false},
		{"then whole turns", full / 6, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Fit(conv, tc.budget, Keep{Tail: 4, Memo: "h1: divide by 100"}, EstimateTokens)
			if (f.Elided > 0) != tc.wantElided || (f.Dropped > 0) != tc.wantDropped {
				t.Fatalf("elided %d dropped %d", f.Elided, f.Dropped)
			}
			if tc.budget > 0 && f.Tokens > tc.budget {
				t.Errorf("%d tokens over the %d budget", f.Tokens, tc.budget)
			}
			checkValid(t, f.Messages)
			if f.Messages[0].Content != conv[0].Content || f.Messages[1].Content != conv[1].Content {
				t.Error("the opening messages changed")
			}
			last := conv[len(conv)-4:]
			for i, m := range f.Messages[len(f.Messages)-4:] {
				if m.Content != last[i].Content {
					t.Errorf("tail message %d changed", i)
				}
			}
			if tc.wantElided && !strings.Contains(f.Messages[2].Content, "h1: divide by 100") {
				t.Errorf("the memo is missing: %q", f.Messages[2].Content)
			}
			if EstimateTokens(conv...) != full {
				t.Error("Fit modified its input")
			}
		})
	}
}

// checkValid: every tool result answers a call of the assistant turn
// before it, and every call is answered.
func checkValid(t *testing.T, msgs []Message) {
	t.Helper()
	open := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case Assistant:
			if len(open) > 0 {
				t.Fatalf("message %d: calls %v unanswered", i, open)
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		case ToolRole:
			if !open[m.ToolCallID] {
				t.Fatalf("message %d answers %s, which is not open", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		}
	}
}

// TestFitKeepsPairsValid: random conversations and budgets never leave a
// tool result without its call.
func TestFitKeepsPairsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		var msgs []Message
		msgs = append(msgs, Message{Role: System, Content: "s"}, Message{Role: User, Content: "task"})
		for turn := 0; turn < r.IntN(15); turn++ {
			calls := r.IntN(3)
			a := Message{Role: Assistant, Content: strings.Repeat("t", r.IntN(600))}
			for c := 0; c < calls; c++ {
				a.ToolCalls = append(a.ToolCalls, ToolCall{ID: fmt.Sprintf("%d-%d", turn, c), Name: "x", Arguments: strings.Repeat("a", r.IntN(400))})
			}
			msgs = append(msgs, a)
			for c := 0; c < calls; c++ {
				msgs = append(msgs, Message{Role: ToolRole, ToolCallID: fmt.Sprintf("%d-%d", turn, c), Content: strings.Repeat("o", r.IntN(2000))})
			}
			if r.IntN(4) == 0 {
				msgs = append(msgs, Message{Role: User, Content: "note"})
			}
		}
		f := Fit(msgs, r.IntN(EstimateTokens(msgs...)+1), Keep{Tail: r.IntN(8)}, EstimateTokens)
		checkValid(t, f.Messages)
	}
}

// bigTail is an opening and six turns that each read the same large file:
// the newest twelve messages alone are far over a small window.
func bigTail(numbered bool) []Message {
	var file strings.Builder
	for i := 1; i <= 200; i++ {
		line := fmt.Sprintf("row %03d: sku-%d, price %d.00, stock %d", i, i*7, i%50, i%13)
		if numbered {
			line = fmt.Sprintf("%6d\t%s", i, line)
		}
		file.WriteString(line + "\n")
	}
	msgs := []Message{{Role: System, Content: "You fix bugs."}, {Role: User, Content: "The cart total is wrong."}}
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("read%d", i)
		msgs = append(msgs,
			Message{Role: Assistant, Content: "Read the catalogue again.", ToolCalls: []ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"cat catalog.csv"}`}}},
			Message{Role: ToolRole, ToolCallID: id, Name: "bash", Content: file.String()})
	}
	return msgs
}

// TestFitShrinksTheTail: when the opening and the kept tail are over the
// budget, the tail shrinks too: older observations first, then the middle
// of the newest one, whose head and tail stay with a note on what was cut.
func TestFitShrinksTheTail(t *testing.T) {
	conv := bigTail(false)
	obs := EstimateTokens(conv[3])
	opening := EstimateTokens(conv[:2]...)
	tests := []struct {
		name      string
		budget    int
		wantWhole bool // the newest observation is untouched
	}{
		{"older observations go first", opening + obs + 600, true},
		{"then the newest loses its middle", opening + obs/2, false},
		{"down to a stub", opening + 400, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Fit(conv, tc.budget, Keep{Tail: 12}, EstimateTokens)
			if f.Tokens > tc.budget {
				t.Fatalf("%d tokens over the %d budget", f.Tokens, tc.budget)
			}
			checkValid(t, f.Messages)
			last := f.Messages[len(f.Messages)-1]
			whole := conv[len(conv)-1].Content
			if (last.Content == whole) != tc.wantWhole {
				t.Fatalf("newest observation whole = %v, want %v:\n%.300s", last.Content == whole, tc.wantWhole, last.Content)
			}
			if tc.wantWhole {
				return
			}
			if !strings.Contains(last.Content, "cut from the middle") || !strings.Contains(last.Content, "sed -n") {
				t.Errorf("no note on what was cut and how to see it:\n%s", last.Content)
			}
			if tc.name != "down to a stub" && (!strings.HasPrefix(last.Content, "row 001") || !strings.HasSuffix(strings.TrimSpace(last.Content), "stock 5")) {
				t.Errorf("the head or the tail of the newest observation is gone:\n%s", last.Content)
			}
		})
	}
}

// TestFitNamesFileLines: a cut file view says which lines of the file
// were cut, in the agent's own words for paging.
func TestFitNamesFileLines(t *testing.T) {
	conv := bigTail(true)
	paging := func(first, last int, numbered bool) string {
		return fmt.Sprintf("paging %d-%d numbered=%v", first, last, numbered)
	}
	f := Fit(conv, EstimateTokens(conv[:2]...)+EstimateTokens(conv[3])/2, Keep{Tail: 12, Paging: paging}, EstimateTokens)
	last := f.Messages[len(f.Messages)-1].Content
	m := regexp.MustCompile(`lines (\d+)-(\d+) of the file.*paging (\d+)-(\d+) numbered=true`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("no file lines in the note:\n%s", last)
	}
	if m[1] != m[3] || m[2] != m[4] {
		t.Errorf("the note and the paging hint disagree: %v", m)
	}
	before := regexp.MustCompile(`(?m)^\s*(\d+)\t.*\n\[\.\.\. `).FindStringSubmatch(last)
	if before == nil || fmt.Sprint(atoi(before[1])+1) != m[1] {
		t.Errorf("the cut does not start after the last line shown: %v, note %v", before, m)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// TestFitAlwaysFits: random conversations and budgets; whatever the sizes
// of the newest outputs, the result fits whenever the opening and a stub
// of the newest turn do.
func TestFitAlwaysFits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 400; i++ {
		msgs := []Message{{Role: System, Content: strings.Repeat("s", r.IntN(3000))}, {Role: User, Content: strings.Repeat("u", r.IntN(2000))}}
		turns := 1 + r.IntN(12)
		for turn := 0; turn < turns; turn++ {
			calls := 1 + r.IntN(3)
			a := Message{Role: Assistant, Content: strings.Repeat("t", r.IntN(900))}
			for c := 0; c < calls; c++ {
				a.ToolCalls = append(a.ToolCalls, ToolCall{ID: fmt.Sprintf("%d-%d", turn, c), Name: "x", Arguments: `{"a":"` + strings.Repeat("a", r.IntN(300)) + `"}`})
			}
			msgs = append(msgs, a)
			for c := 0; c < calls; c++ {
				msgs = append(msgs, Message{Role: ToolRole, ToolCallID: fmt.Sprintf("%d-%d", turn, c), Content: strings.Repeat("line\n", r.IntN(4000))})
			}
		}
		floor := EstimateTokens(msgs[:2]...) + 1500 // the opening, the note, a stub of the newest turn
		budget := floor + r.IntN(EstimateTokens(msgs...)+1)
		f := Fit(msgs, budget, Keep{Tail: 12, Memo: "h1"}, EstimateTokens)
		checkValid(t, f.Messages)
		if f.Tokens > budget {
			t.Fatalf("case %d: %d tokens over the %d budget (opening %d)", i, f.Tokens, budget, EstimateTokens(msgs[:2]...))
		}
	}
}

// TestFitReportsWhatCannotFit: an opening over the budget is reported,
// never silently sent.
func TestFitReportsWhatCannotFit(t *testing.T) {
	conv := bigTail(false)
	opening := EstimateTokens(conv[:2]...)
	if f := Fit(conv, opening/2, Keep{Tail: 12}, EstimateTokens); f.Over <= 0 {
		t.Errorf("an opening over the budget fitted: %d tokens, over %d", f.Tokens, f.Over)
	}
	if f := Fit(conv, opening+600, Keep{Tail: 12}, EstimateTokens); f.Over != 0 || f.Tokens > opening+600 {
		t.Errorf("room for the opening and a stub, yet over %d (%d tokens)", f.Over, f.Tokens)
	}
}
