package llm

import (
	"encoding/json"
	"regexp"
	"strings"
)

// A model served without a tool-call parser writes its calls into the text:
// Hermes and Qwen templates as <tool_call>{...}</tool_call>, others as a
// fenced JSON block. These patterns find both; a block counts only when it
// names a tool the request offered, so a JSON example in prose is left alone.
var (
	taggedCall = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	fencedCall = regexp.MustCompile("(?s)```(?:json|tool_call|tool_code)?\\s*\\n?(\\{.*?\\})\\s*```")
)

// textCall is the JSON a model writes for a call in text.
type textCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

// ParseTextCalls finds tool calls written as text in content, for the
// tools offered. It returns the calls (ids left empty) and the content
// without them; with no call found, content comes back unchanged.
func ParseTextCalls(content string, tools []Tool) ([]ToolCall, string) {
	if len(tools) == 0 || !strings.ContainsAny(content, "<`") {
		return nil, content
	}
	for _, re := range []*regexp.Regexp{taggedCall, fencedCall} {
		calls, rest := matchCalls(re, content, tools)
		if len(calls) > 0 {
			return calls, rest
		}
	}
	return nil, content
}

func matchCalls(re *regexp.Regexp, content string, tools []Tool) ([]ToolCall, string) {
	var calls []ToolCall
	rest := re.ReplaceAllStringFunc(content, func(block string) string {
		m := re.FindStringSubmatch(block)
		c, ok := decodeTextCall(m[1], tools)
		if !ok {
			return block
		}
		calls = append(calls, c)
		return ""
	})
	return calls, strings.TrimSpace(rest)
}

func decodeTextCall(s string, tools []Tool) (ToolCall, bool) {
	var tc textCall
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &tc); err != nil || !offers(tools, tc.Name) {
		return ToolCall{}, false
	}
	args := tc.Arguments
	if len(args) == 0 {
		args = tc.Parameters
	}
	return ToolCall{Name: tc.Name, Arguments: rawArguments(args)}, true
}

// rawArguments is arguments as JSON text: an object stays as written, a
// string holding JSON is unwrapped, and nothing becomes {}.
func rawArguments(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "{}"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return t
}
