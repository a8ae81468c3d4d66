package hypothesis

import (
	"context"
	"fmt"

	"github.com/swe-adept/swe-adept/agent/tool"
)

// UpdateHypothesis replaces the hypothesis list (confidence order).
func (f *Tracker) UpdateHypothesis(ctx context.Context, md string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, err := f.mem.UpdateHypotheses(md)
	if err != nil {
		return advice("update_hypothesis: %v\nSend a markdown list such as:\n1. [-] The parser drops the last token\n2. [ ] The tokenizer splits on the wrong character", err), nil
	}
	if f.mem.Current == "" {
		if act := f.mem.Active(); len(act) > 0 {
			_ = f.mem.SetCurrent(act[0].ID)
		}
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	return tool.Output{Text: changed(ch.String()) + f.mem.HypothesisOverview(), Summary: "hypotheses: " + ch.String()}, nil
}

// UpdateTodo replaces the to-do list of a hypothesis and makes it current.
func (f *Tracker) UpdateTodo(ctx context.Context, hypothesis, md string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, err := f.mem.FindHypothesis(hypothesis)
	if err != nil {
		return advice("update_todo: %v", err), nil
	}
	ch, err := f.mem.UpdateTodos(h.ID, md)
	if err != nil {
		return advice("update_todo: %v\nSend a markdown list such as:\n- [v] Reproduce the bug\n- [-] Fix the off-by-one in wrap()", err), nil
	}
	if err := f.mem.SetCurrent(h.ID); err != nil {
		return advice("update_todo: %v", err), nil
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	return tool.Output{Text: changed(ch.String()) + f.mem.TodoOverview(h), Summary: fmt.Sprintf("to-dos of %s: %s", h.ID, ch.String())}, nil
}

// LogInsight attaches a lesson to the current hypothesis.
func (f *Tracker) LogInsight(ctx context.Context, text string) (tool.Output, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.mem.LogInsight(text); err != nil {
		return advice("log_insight: %v", err), nil
	}
	if err := f.commit(ctx); err != nil {
		return tool.Output{}, err
	}
	h := f.mem.CurrentHypothesis()
	return tool.Output{Text: f.mem.InsightsOverview(h), Summary: "insight on " + h.ID}, nil
}

func changed(s string) string {
	if s == "" {
		return ""
	}
	return "Updated: " + s + "\n\n"
}

// advice is an observation for a mistake the model can fix.
func advice(format string, args ...any) tool.Output {
	return tool.Output{Text: fmt.Sprintf(format, args...), Failed: true}
}
