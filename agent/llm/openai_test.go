package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/golden"
)

var searchTool = Tool{
	Name:        "search",
	Description: "Search the code index.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}},
		"required":   []string{"query"},
	},
}

// conversation is a request in the middle of a run: a tool was called and
// answered, so the mapping of every role is exercised.
func conversation() Request {
	temp := float32(0)
	return Request{
		Messages: []Message{
			{Role: System, Content: "You localize issues."},
			{Role: User, Content: "parse_header crashes on empty input"},
			{Role: Assistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "search", Arguments: `{"query":"parse_header"}`}}},
			{Role: ToolRole, ToolCallID: "call_1", Name: "search", Content: "http/parse.py:12 def parse_header"},
		},
		Tools:       []Tool{searchTool},
		Temperature: &temp,
		MaxTokens:   256,
	}
}

func TestOpenAIComplete(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		reply    string
		want     Message
		wantCost string
	}{
		{
			name:  "tool call",
			model: "gpt-4o-mini",
			reply: `{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"search","arguments":"{\"query\":\"empty\"}"}}]}`,
			want: Message{Role: Assistant, ToolCalls: []ToolCall{
				{ID: "call_abc", Name: "search", Arguments: `{"query":"empty"}`},
			}},
			wantCost: "$0.0002", // 1000*0.15/1e6 + 100*0.60/1e6
		},
		{
			name:     "plain content",
			model:    "qwen2.5-coder:7b",
			reply:    `{"role":"assistant","content":"The bug is in parse_header."}`,
			want:     Message{Role: Assistant, Content: "The bug is in parse_header."},
			wantCost: "unpriced",
		},
		{
			name:  "tool call without id from a local server",
			model: "llama3",
			reply: `{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"search","arguments":"{}"}}]}`,
			want: Message{Role: Assistant, ToolCalls: []ToolCall{
				{ID: "call_4_1", Name: "search", Arguments: `{}`},
			}},
			wantCost: "unpriced",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, ok(completion(tc.reply, 1000, 100)))
			resp, err := srv.client(t, tc.model, 1).Complete(context.Background(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			if !equalMessage(resp.Message, tc.want) {
				t.Errorf("message = %+v, want %+v", resp.Message, tc.want)
			}
			if resp.Usage.PromptTokens != 1000 || resp.Usage.CompletionTokens != 100 {
				t.Errorf("usage = %+v, want 1000/100 tokens", resp.Usage)
			}
			if got := FormatCost(resp.Usage.Cost, resp.Usage.Priced); got != tc.wantCost {
				t.Errorf("cost = %s, want %s", got, tc.wantCost)
			}
			if got := srv.header(0).Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("Authorization = %q", got)
			}
		})
	}
}

func equalMessage(a, b Message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestOpenAIRequestBody checks the wire request: a stream asking for
// usage in its last chunk (or, with NoStream, a whole answer), tools and
// tool_choice present, every role mapped. The streamed body is a golden
// file.
func TestOpenAIRequestBody(t *testing.T) {
	for _, whole := range []bool{false, true} {
		t.Run(map[bool]string{false: "streamed", true: "whole"}[whole], func(t *testing.T) {
			srv := newChatServer(t, ok(completion(`{"role":"assistant","content":"done"}`, 1, 1)))
			m := srv.client(t, "gpt-4o", 1)
			m.cfg.NoStream = whole
			if _, err := m.Complete(context.Background(), conversation()); err != nil {
				t.Fatal(err)
			}
			body := srv.body(0)
			if stream, _ := body["stream"].(bool); stream == whole {
				t.Errorf("stream = %v, want %v", body["stream"], !whole)
			}
			if opts, _ := body["stream_options"].(map[string]any); whole != (opts == nil) || !whole && opts["include_usage"] != true {
				t.Errorf("stream_options = %v with stream %v", body["stream_options"], body["stream"])
			}
			tools, _ := body["tools"].([]any)
			if len(tools) != 1 || body["tool_choice"] != "auto" {
				t.Errorf("tools = %v, tool_choice = %v", body["tools"], body["tool_choice"])
			}
			if temp, _ := body["temperature"].(float64); temp <= 0 || temp > 1e-6 {
				t.Errorf("temperature = %v, want a near-zero value (zero would be dropped)", body["temperature"])
			}
			msgs, _ := body["messages"].([]any)
			if tool, _ := msgs[len(msgs)-1].(map[string]any); tool["tool_call_id"] != "call_1" || tool["name"] != nil {
				t.Errorf("tool message = %v, want tool_call_id and no name", tool)
			}
			if whole {
				return
			}
			got, err := json.MarshalIndent(body, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.CheckFile(t, filepath.Join("..", "..", "testdata", "llm", "request_tools.golden.json"), string(got)+"\n")
		})
	}
}

func TestReasoningModelRequest(t *testing.T) {
	srv := newChatServer(t, ok(completion(`{"role":"assistant","content":"done"}`, 1, 1)))
	if _, err := srv.client(t, "o4-mini", 1).Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	body := srv.body(0)
	if _, has := body["temperature"]; has {
		t.Errorf("temperature sent to a reasoning model: %v", body["temperature"])
	}
	if body["max_completion_tokens"] != float64(256) || body["max_tokens"] != nil {
		t.Errorf("max tokens = %v / %v, want max_completion_tokens 256", body["max_completion_tokens"], body["max_tokens"])
	}
}

func TestNewOpenAIConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     OpenAIConfig
		wantErr string
	}{
		{"no model", OpenAIConfig{APIKey: testKey}, ErrNoModelName.Error()},
		{"no key for OpenAI", OpenAIConfig{Model: "gpt-4o"}, ErrNoServer.Error()},
		{"local server needs no key", OpenAIConfig{Model: "llama3", BaseURL: "http://localhost:11434/v1"}, ""},
		{"full", OpenAIConfig{Model: "gpt-4o", APIKey: testKey}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewOpenAI(tc.cfg)
			if tc.wantErr == "" {
				if err != nil || m.Name() != tc.cfg.Model || !strings.HasPrefix(m.BaseURL(), "http") {
					t.Fatalf("NewOpenAI = %v, %v", m, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

func TestConfigHidesKey(t *testing.T) {
	cfg := OpenAIConfig{APIKey: testKey, BaseURL: "http://localhost:8000/v1/", Model: "m"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := sprintf(verb, cfg); strings.Contains(s, testKey) {
			t.Errorf("%s of the config shows the key: %s", verb, s)
		}
	}
}

func sprintf(verb string, v any) string { return fmt.Sprintf(verb, v) }

// TestTruncationWarning: a server that read far fewer prompt tokens than
// were sent is said to cut the prompt only when it is one that cuts
// silently (Ollama, the llama.cpp server), and only once in a run however
// many calls and agents see it. OpenAI and Claude refuse a prompt that is
// too long, so odd usage figures from them warn of nothing.
func TestTruncationWarning(t *testing.T) {
	tests := []struct {
		name, extra string
		want        int
	}{
		{"openai", ``, 0},
		{"ollama by its fingerprint", `"system_fingerprint":"fp_ollama",`, 1},
		{"llama.cpp by its timings", `"timings":{"prompt_n":100},`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(completion(`{"role":"assistant","content":"ok"}`, 100, 5), `"model":"m",`, `"model":"m",`+tc.extra, 1)
			srv := newChatServer(t, ok(body))
			warned := 0
			ctx := WithOnce(WithNotices(context.Background(), func(n Notice) {
				if n.Kind == NoticeTruncated {
					warned++
				}
			}))
			req := Request{Messages: []Message{{Role: User, Content: strings.Repeat("a long prompt ", 1200)}}}
			for agent := 0; agent < 2; agent++ {
				m := srv.client(t, "qwen3-coder", 1)
				for call := 0; call < 3; call++ {
					if _, err := m.Complete(ctx, req); err != nil {
						t.Fatal(err)
					}
				}
			}
			if warned != tc.want {
				t.Errorf("warned %d times, want %d", warned, tc.want)
			}
		})
	}
}

// TestTruncationSeenAsAFallingCount: Ollama counting fewer prompt tokens
// for a longer request than for the one before is cutting it, even when
// the count is close to the estimate.
func TestTruncationSeenAsAFallingCount(t *testing.T) {
	reply := func(prompt int) reply {
		return ok(strings.Replace(completion(`{"role":"assistant","content":"ok"}`, prompt, 5), `"model":"m",`, `"model":"m","system_fingerprint":"fp_ollama",`, 1))
	}
	srv := newChatServer(t, reply(2300), reply(2250))
	warned := 0
	ctx := WithNotices(context.Background(), func(n Notice) {
		if n.Kind == NoticeTruncated {
			warned++
		}
	})
	m := srv.client(t, "qwen3-coder", 1)
	for _, words := range []int{2000, 2400} {
		req := Request{Messages: []Message{{Role: User, Content: strings.Repeat("word", words)}}}
		if _, err := m.Complete(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if warned != 1 {
		t.Errorf("warned %d times, want once when the count fell", warned)
	}
}
