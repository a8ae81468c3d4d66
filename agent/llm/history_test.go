package llm

import (
	"fmt"
	"math/rand/v2"
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
