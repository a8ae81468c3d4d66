package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// events is a server-sent event stream of the given data lines; a line
// starting with ":" is sent as a comment.
func events(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, ":") {
			b.WriteString(l + "\n\n")
			continue
		}
		b.WriteString("data: " + l + "\n\n")
	}
	return b.String()
}

func stream(lines ...string) reply { return reply{status: 200, sse: true, body: events(lines...)} }

const done = "[DONE]"

// TestStreamAssembly: each provider's way of streaming a turn comes out as
// the same assembled message, and the words reach OnDelta as they come.
func TestStreamAssembly(t *testing.T) {
	bashCall := ToolCall{Name: "bash", Arguments: `{"command":"ls -la"}`}
	tests := []struct {
		name       string
		model      string
		body       reply
		want       Message // ids checked separately
		wantID     string  // the first call's id, when the server sent one
		wantSig    string
		wantDeltas string // content and reasoning as OnDelta saw them
		wantUsage  int    // prompt tokens; 0: estimated
	}{
		{
			name: "openai: ids on the first chunk, arguments in pieces, usage last", model: "gpt-4o",
			body: stream(
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`,
				`{"choices":[{"index":0,"delta":{"content":"Let me "},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"content":"look."},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"bash","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"comm"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"and\":\"ls -la\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":812,"completion_tokens":20,"total_tokens":832,"prompt_tokens_details":{"cached_tokens":512}}}`,
				done),
			want: Message{Role: Assistant, Content: "Let me look.", ToolCalls: []ToolCall{bashCall}}, wantID: "call_abc",
			wantDeltas: "Let me look.", wantUsage: 812,
		},
		{
			name: "gemini: no index, arguments split, a signature, finish stop, no usage", model: "gemini-3-pro-preview",
			body: stream(
				`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"function-call-1","type":"function","function":{"name":"bash","arguments":"{\"command\":"},"extra_content":{"google":{"thought_signature":"sig-1"}}}]}}],"object":"chat.completion.chunk"}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"ls -la\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				done),
			want: Message{Role: Assistant, ToolCalls: []ToolCall{bashCall}}, wantID: "function-call-1", wantSig: "sig-1",
		},
		{
			name: "gemini through a proxy: every call numbered 0", model: "gemini-2.5-pro",
			body: stream(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls -la\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls -la\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				done),
			want: Message{Role: Assistant, ToolCalls: []ToolCall{bashCall, bashCall}}, wantID: "a",
		},
		{
			name: "llama.cpp: object arguments in one chunk, no id, timings, no [DONE]", model: "qwen3-coder-30b",
			body: stream(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"bash","arguments":{"command":"ls -la"}}}]},"finish_reason":null}],"timings":{"prompt_n":700}}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":700,"completion_tokens":12},"timings":{"prompt_n":700}}`),
			want: Message{Role: Assistant, ToolCalls: []ToolCall{bashCall}}, wantUsage: 700,
		},
		{
			name: "ollama: a text-form call spread across chunks", model: "qwen2.5-coder:7b",
			body: stream(
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Listing the files.\n<tool"}}],"system_fingerprint":"fp_ollama"}`,
				`{"choices":[{"index":0,"delta":{"content":"_call>\n{\"name\": \"bash\", \"argu"}}],"system_fingerprint":"fp_ollama"}`,
				`{"choices":[{"index":0,"delta":{"content":"ments\": {\"command\": \"ls -la\"}}\n</tool_call>"}}],"system_fingerprint":"fp_ollama"}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"system_fingerprint":"fp_ollama"}`,
				`{"choices":[],"usage":{"prompt_tokens":640,"completion_tokens":30},"system_fingerprint":"fp_ollama"}`,
				done),
			want: Message{Role: Assistant, Content: "Listing the files.",
				ToolCalls: []ToolCall{{Name: "bash", Arguments: `{"command": "ls -la"}`}}}, // as the model wrote it
			wantDeltas: "Listing the files.\n", wantUsage: 640,
		},
		{
			name: "deepseek: keep-alive comments, reasoning_content first", model: "deepseek-reasoner",
			body: stream(
				": keep-alive", ": keep-alive",
				`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"The user "}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning_content":"wants a listing."}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"Listing."}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls -la\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":900,"completion_tokens":40,"prompt_cache_hit_tokens":640}}`,
				done),
			want: Message{Role: Assistant, Content: "Listing.", Reasoning: "The user wants a listing.", ToolCalls: []ToolCall{bashCall}}, wantID: "call_0",
			wantDeltas: "The user wants a listing.Listing.", wantUsage: 900,
		},
		{
			name: "vllm and openrouter: reasoning, router comments, usage unasked", model: "openai/gpt-oss-120b",
			body: stream(
				": OPENROUTER PROCESSING",
				`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"Think."}}]}`,
				": OPENROUTER PROCESSING",
				`{"choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":333,"completion_tokens":3}}`,
				done),
			want: Message{Role: Assistant, Content: "Done.", Reasoning: "Think."}, wantDeltas: "Think.Done.", wantUsage: 333,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, tc.body)
			var deltas strings.Builder
			req := conversation()
			req.Tools = append(req.Tools, Tool{Name: "bash", Description: "run"})
			req.OnDelta = func(d Delta) { deltas.WriteString(d.Reasoning + d.Content) }
			resp, err := srv.client(t, tc.model, 1).Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Message
			if tc.wantID != "" && (len(got.ToolCalls) == 0 || got.ToolCalls[0].ID != tc.wantID) {
				t.Errorf("calls %+v, want the first with id %q", got.ToolCalls, tc.wantID)
			}
			if tc.wantSig != "" && got.ToolCalls[0].Signature != tc.wantSig {
				t.Errorf("signature %q, want %q", got.ToolCalls[0].Signature, tc.wantSig)
			}
			for i := range got.ToolCalls {
				if got.ToolCalls[i].ID == "" {
					t.Errorf("call %d has no id", i)
				}
				got.ToolCalls[i].ID, got.ToolCalls[i].Signature = "", ""
			}
			if !equalMessage(got, tc.want) {
				t.Errorf("message\n%+v, want\n%+v", got, tc.want)
			}
			if deltas.String() != tc.wantDeltas {
				t.Errorf("deltas %q, want %q", deltas.String(), tc.wantDeltas)
			}
			switch {
			case tc.wantUsage > 0 && resp.Usage.PromptTokens != tc.wantUsage:
				t.Errorf("prompt tokens %d, want the server's %d", resp.Usage.PromptTokens, tc.wantUsage)
			case tc.wantUsage == 0 && resp.Usage.PromptTokens == 0:
				t.Error("no usage from the server, and none estimated")
			}
		})
	}
}

// TestStreamCutIsRetried: a stream that breaks off (the connection closes
// before the answer ends, an error object arrives mid-stream, or the
// server falls silent) is tried again like a dropped connection; the
// listener hears that the earlier words are void, and the turn is the
// second attempt's alone.
func TestStreamCutIsRetried(t *testing.T) {
	start := `{"choices":[{"index":0,"delta":{"role":"assistant","content":"Half an ans"}}]}`
	whole := stream(`{"choices":[{"index":0,"delta":{"content":"A whole answer."},"finish_reason":"stop"}]}`, done)
	tests := []struct {
		name  string
		first reply
	}{
		{"closed mid-answer", stream(start)},
		{"openai's error object", stream(start, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`)},
		{"openrouter's error chunk", stream(start, `{"id":"gen-1","object":"chat.completion.chunk","error":{"code":502,"message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`)},
		{"vllm's error object", stream(start, `{"object":"error","message":"Internal server error","type":"InternalServerError","code":500}`)},
		{"a garbled chunk", stream(start, `{"choices":[{"index":0,"delta":{"content":"x"`)},
		{"silence", reply{status: 200, sse: true, body: events(start), stall: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, tc.first, whole)
			m := srv.client(t, "gpt-4o", 3)
			m.cfg.AttemptTimeout = 300 * time.Millisecond
			var heard []Delta
			req := conversation()
			req.OnDelta = func(d Delta) { heard = append(heard, d) }
			resp, err := m.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "A whole answer." || srv.requests() != 2 {
				t.Fatalf("content %q after %d requests", resp.Message.Content, srv.requests())
			}
			restarted := false
			for _, d := range heard {
				restarted = restarted || d.Restart
			}
			if !restarted || !heard[len(heard)-1].Restart && heard[len(heard)-1].Content != "A whole answer." {
				t.Errorf("deltas %+v: the listener was not told to forget the broken answer", heard)
			}
		})
	}
}

// TestStreamOverflowIsNotRetried: an overflow reported in the stream is an
// overflow, for the caller to trim, not a broken connection.
func TestStreamOverflowIsNotRetried(t *testing.T) {
	srv := newChatServer(t, stream(`{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`))
	_, err := srv.client(t, "gpt-4o", 3).Complete(context.Background(), conversation())
	var cerr *CallError
	if !errors.Is(err, ErrContextOverflow) || !errors.As(err, &cerr) || cerr.Window != 8192 || cerr.Counted != 9000 || srv.requests() != 1 {
		t.Fatalf("err %v after %d requests", err, srv.requests())
	}
}

// TestStreamOptionsRefused: a server that does not know stream_options is
// asked again without it.
func TestStreamOptionsRefused(t *testing.T) {
	srv := newChatServer(t, apiError(400, "Unrecognized request argument supplied: stream_options", ""),
		stream(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, done))
	m := srv.client(t, "gpt-4o", 1)
	for i := 0; i < 2; i++ {
		if _, err := m.Complete(context.Background(), conversation()); err != nil {
			t.Fatal(err)
		}
	}
	if _, asked := srv.body(1)["stream_options"]; asked || srv.requests() != 3 {
		t.Errorf("requests %d; the retry asked with stream_options = %v", srv.requests(), asked)
	}
	if _, asked := srv.body(2)["stream_options"]; asked {
		t.Error("the next call asked for stream_options again")
	}
}

// FuzzStreamAssembly: whatever a server streams, reading and assembling it
// neither panics nor hangs, and a complete stream yields a turn.
func FuzzStreamAssembly(f *testing.F) {
	f.Add(events(`{"choices":[{"index":0,"delta":{"content":"hi","tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"k":1}}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":"x"}}`, done))
	f.Add(": keep-alive\n\ndata: {\"error\":\"boom\"}\n\n")
	f.Add("data: {\"object\":\"error\"}\ndata: [DONE]\n")
	f.Fuzz(func(t *testing.T, body string) {
		var heard strings.Builder
		asm := newAssembler(&deltaSink{f: func(d Delta) { heard.WriteString(d.Content) }, gate: true})
		err := readEvents(strings.NewReader(body), asm.add)
		if err == nil && asm.complete() {
			r := asm.reply()
			if !strings.HasPrefix(r.msg.Content, heard.String()) {
				t.Errorf("heard %q, but the turn says %q", heard.String(), r.msg.Content)
			}
		}
	})
}
