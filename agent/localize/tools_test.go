package localize

import (
	"context"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// Empty names are meaningful to two tools (list a file's units, show a
// span): the registry must pass those calls through, not ask for the name.
func TestListingCallsReachTheTools(t *testing.T) {
	ix, s := sample(t)
	a := newAgent(Config{Index: ix, Searcher: s})
	tests := []struct{ tool, args, want string }{
		{ToolFindCodeDef, `{"file_path": "shop/money.py"}`, "round_money"},
		{ToolFindCodeContent, `{"file_path": "shop/money.py", "start_line": 1, "end_line": 3}`, "shop/money.py"},
	}
	for _, tt := range tests {
		out, err := a.searchTools().Call(context.Background(), llm.ToolCall{ID: "c", Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.args, err)
		}
		if !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s %s = %q, want it to mention %q", tt.tool, tt.args, out.Text, tt.want)
		}
	}
}
