package localize

import (
	"context"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index/search"
)

// Empty names are meaningful to two tools (list a file's units, show a
// span): the registry must pass those calls through, not ask for the name.
func TestListingCallsReachTheTools(t *testing.T) {
	ix, s := sample(t)
	a := newAgent(Config{Index: ix, Searcher: s})
	tests := []struct{ tool, args, want string }{
		{search.FindCodeDef.Name, `{"file_path": "shop/money.py"}`, "round_money"},
		{search.FindCodeContent.Name, `{"file_path": "shop/money.py", "start_line": 1, "end_line": 3}`, "shop/money.py"},
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

// TestSearchToolsAsDeclared: the model is offered the localization tools
// exactly as index/search declares them, in the paper's order, each with
// the declared description and a schema of the declared arguments.
func TestSearchToolsAsDeclared(t *testing.T) {
	ix, s := sample(t)
	a := newAgent(Config{Index: ix, Searcher: s})
	want := []struct{ name, description string }{
		{search.FindFile.Name, search.FindFile.Description},
		{search.FindCodeDef.Name, search.FindCodeDef.Description},
		{search.FindCodeContent.Name, search.FindCodeContent.Description},
		{search.FindChildUnit.Name, search.FindChildUnit.Description},
		{search.FinishSearch.Name, search.FinishSearch.Description},
	}
	got := a.searchTools().Schemas()
	if len(got) != len(want) {
		t.Fatalf("%d tools offered, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Description != w.description {
			t.Errorf("tool %d = %s %q, want %s %q", i, got[i].Name, got[i].Description, w.name, w.description)
		}
		if got[i].Parameters == nil {
			t.Errorf("%s has no parameter schema", w.name)
		}
	}
}
