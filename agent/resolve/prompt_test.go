package resolve

import (
	"testing"

	"github.com/swe-adept/swe-adept/internal/golden"
)

// TestPromptsGolden keeps the prompts reviewable: a change shows up as a
// diff of the golden files.
func TestPromptsGolden(t *testing.T) {
	hyp := []string{"bash", "str_replace_editor", "update_hypothesis", "update_todo", "log_insight", "init_base",
		"start_hypothesis", "commit_todo", "revert_to", "compare_hypotheses", "merge_solution", "submit"}
	tests := []struct{ name, got string }{
		{"system_hypotheses", systemPrompt(hyp)},
		{"system_plain", systemPrompt([]string{"bash", "str_replace_editor", "submit"})},
		{"task", taskMessage("Cart totals go negative with a discount.\n", []string{"inventory/pricing.py"}, []string{"inventory/pricing.py:apply_discount"}, false)},
		{"task_no_locations", taskMessage("Something is off.", nil, nil, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, t.Name(), tt.got)
		})
	}
}
