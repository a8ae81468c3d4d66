package llm

import "testing"

func TestParseTextCalls(t *testing.T) {
	tools := []Tool{{Name: "bash"}, {Name: "submit"}}
	tests := []struct {
		name, content string
		want          []ToolCall
		rest          string
	}{
		{"hermes tags", "I will look.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
			[]ToolCall{{Name: "bash", Arguments: `{"command": "ls"}`}}, "I will look."},
		{"two tags", `<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call><tool_call>{"name":"submit","arguments":{}}</tool_call>`,
			[]ToolCall{{Name: "bash", Arguments: `{"command":"ls"}`}, {Name: "submit", Arguments: `{}`}}, ""},
		{"unclosed tag at the end", `<tool_call>{"name":"submit","arguments":{}}`, []ToolCall{{Name: "submit", Arguments: `{}`}}, ""},
		{"arguments as a string", `<tool_call>{"name":"bash","arguments":"{\"command\":\"ls\"}"}</tool_call>`,
			[]ToolCall{{Name: "bash", Arguments: `{"command":"ls"}`}}, ""},
		{"parameters instead", "```json\n{\"name\": \"bash\", \"parameters\": {\"command\": \"pwd\"}}\n```",
			[]ToolCall{{Name: "bash", Arguments: `{"command": "pwd"}`}}, ""},
		{"unknown tool left alone", "```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```", nil, "```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```"},
		{"json in prose left alone", "The config is ```json\n{\"debug\": true}\n```", nil, "The config is ```json\n{\"debug\": true}\n```"},
		{"plain text", "Done.", nil, "Done."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rest := ParseTextCalls(tc.content, tools)
			if len(got) != len(tc.want) || rest != tc.rest {
				t.Fatalf("got %+v rest %q", got, rest)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("call %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func FuzzParseTextCalls(f *testing.F) {
	f.Add("<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}</tool_call>")
	f.Add("```json\n{\"name\":\"bash\",\"arguments\":\"{}\"}\n```")
	f.Add("<tool_call>{\"name\":\"bash\"")
	f.Fuzz(func(t *testing.T, content string) {
		calls, rest := ParseTextCalls(content, []Tool{{Name: "bash"}})
		for _, c := range calls {
			if c.Name != "bash" {
				t.Fatalf("a call to %q, which was not offered", c.Name)
			}
		}
		if len(calls) == 0 && rest != content {
			t.Fatalf("content changed without a call found")
		}
	})
}
