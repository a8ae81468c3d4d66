package llm

import (
	"context"
	"path/filepath"
	"testing"
)

// TestScriptRoundTrip records a conversation as a script, saves it, loads
// it back and replays it: the same calls come out, with fresh ids.
func TestScriptRoundTrip(t *testing.T) {
	recorded := []Message{
		{Role: System, Content: "You localize issues."},
		{Role: Assistant, Content: "Looking.", ToolCalls: []ToolCall{
			{ID: "abc", Name: "find_code_def", Arguments: `{"definition_name": "parse_header"}`},
			{ID: "def", Name: "find_file", Arguments: `{"file_name": broken`},
		}},
		{Role: ToolRole, ToolCallID: "abc", Content: "def parse_header"},
		{Role: Assistant}, // an empty turn has nothing to replay
		{Role: Assistant, Content: "Done."},
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := ScriptFromMessages("gpt-4o", recorded).Save(path); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	m := NewScripted(s)
	req := Request{Tools: tools("find_code_def", "find_file")}
	want := []Message{
		{Role: Assistant, Content: "Looking.", ToolCalls: []ToolCall{
			{ID: "call_1", Name: "find_code_def", Arguments: `{"definition_name":"parse_header"}`},
			{ID: "call_2", Name: "find_file", Arguments: `{"file_name": broken`},
		}},
		{Role: Assistant, Content: "Done."},
	}
	for i, w := range want {
		resp, err := m.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !equalMessage(resp.Message, w) {
			t.Errorf("turn %d = %+v, want %+v", i+1, resp.Message, w)
		}
	}
	if m.Name() != "gpt-4o" || m.Remaining() != 0 {
		t.Errorf("name %q, remaining %d", m.Name(), m.Remaining())
	}
}

func TestSaveRejectsEmptyScript(t *testing.T) {
	if err := ScriptFromMessages("m", nil).Save(filepath.Join(t.TempDir(), "x.json")); err == nil {
		t.Error("saved a script with no turns")
	}
}
