package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
)

// TestFakesRejectWhatProvidersReject pins the fakes' strictness: each rule
// a real provider enforces is enforced, with the provider's words. A fake
// that accepted these would prove nothing about the client.
func TestFakesRejectWhatProvidersReject(t *testing.T) {
	const call = `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}`
	const answer = `{"role":"tool","tool_call_id":"c1","content":"ok"}`
	user := `{"role":"user","content":"hi"}`
	tests := []struct {
		fam  providertest.Family
		body string
		want string
	}{
		{providertest.OpenAIReasoning, `{"model":"gpt-5.2","max_tokens":10,"messages":[` + user + `]}`, "Use 'max_completion_tokens' instead"},
		{providertest.OpenAIReasoning, `{"model":"gpt-5.2","temperature":0,"messages":[` + user + `]}`, "Only the default (1) value is supported"},
		{providertest.OpenAIReasoning, `{"model":"gpt-5.2","reasoning_effort":"max","messages":[` + user + `]}`, "Supported values are"},
		{providertest.OpenRouter, `{"model":"openai/gpt-5.2","max_tokens":10,"messages":[` + user + `]}`, "max_completion_tokens"},
		{providertest.OpenAIChat, `{"model":"gpt-4o","messages":[` + user + `,{"role":"assistant"}]}`, "expected a string, got null"},
		{providertest.Anthropic, `{"model":"claude-sonnet-4-5","messages":[` + user + `,{"role":"assistant","content":""},` + user + `]}`, "must have non-empty content"},
		{providertest.OpenAIChat, `{"model":"gpt-4o","messages":[` + user + `,` + answer + `]}`, "must be a response to a preceeding message"},
		{providertest.OpenAIChat, `{"model":"gpt-4o","messages":[` + user + `,` + call + `,` + user + `]}`, "did not have response messages: c1"},
		{providertest.DeepSeek, `{"model":"deepseek-reasoner","messages":[` + user + `,` + call + `,` + answer + `]}`, "Missing `reasoning_content` field"},
		{providertest.Gemini, `{"model":"gemini-3-pro-preview","messages":[` + user + `,` + call + `,` + answer + `]}`, "missing a thought_signature"},
		{providertest.LlamaCpp, `{"model":"q","messages":[` + user + `,{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":{}}}]},` + answer + `]}`, "expected a string"},
		{providertest.OpenAIChat, `{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`, "context_length_exceeded"},
		{providertest.Anthropic, `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`, "prompt is too long"},
		{providertest.LlamaCpp, `{"model":"q","messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`, "exceed_context_size_error"},
		{providertest.VLLM, `{"model":"q","max_tokens":900,"messages":[{"role":"user","content":"` + strings.Repeat("x", 800) + `"}]}`, `"object":"error"`},
		{providertest.Gemini, `{"model":"g","messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`, "exceeds the maximum number of tokens allowed"},
		{providertest.OpenAIChat, `{"model":"gpt-4o","stream_options":{"include_usage":true},"messages":[` + user + `]}`, "only allowed when 'stream' is enabled"},
		{providertest.VLLM, `{"model":"q","stream":false,"stream_options":{"include_usage":true},"messages":[` + user + `]}`, "can only be defined when `stream=True`"},
	}
	for _, tc := range tests {
		t.Run(string(tc.fam)+"/"+tc.want, func(t *testing.T) {
			srv := providertest.New(t, providertest.Config{Family: tc.fam, Window: 500})
			if code := srv.Status(tc.body); code != 400 {
				t.Fatalf("status %d, want 400", code)
			}
			if got := srv.Rejected[0]; !strings.Contains(got, tc.want) {
				t.Errorf("body %s, want %q", got, tc.want)
			}
		})
	}
}

var bash = llm.Tool{Name: "bash", Description: "run a command", Parameters: map[string]any{"type": "object",
	"properties": map[string]any{"command": map[string]any{"type": "string"}}}}

func script(calls int) map[string]*llm.Script {
	var turns []llm.Turn
	for i := 0; i < calls; i++ {
		turns = append(turns, llm.Turn{Content: "Look around.", ToolCalls: []llm.ScriptCall{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}})
	}
	return map[string]*llm.Script{"resolve": {Turns: turns}}
}

func client(t *testing.T, srv *providertest.Server, model string, whole bool) *llm.OpenAI {
	t.Helper()
	if model == "" {
		model = srv.Model()
	}
	m, err := llm.NewOpenAI(llm.OpenAIConfig{APIKey: "sk-test-abcdefgh", BaseURL: srv.BaseURL(), Model: model, MaxAttempts: 2, MaxTokens: 500,
		NoStream: whole, BackoffBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestClientSpeaksEachFamily: two turns against each family, streamed and
// whole, the second carrying the first's call and answer back: the decoded
// turn is usable, what the provider needs returned is returned, and a
// streamed turn is the same as a whole one.
func TestClientSpeaksEachFamily(t *testing.T) {
	for _, fam := range providertest.Families {
		t.Run(string(fam), func(t *testing.T) {
			var turns [2][]llm.Response
			for i, whole := range []bool{false, true} {
				srv := providertest.New(t, providertest.Config{Family: fam, Scripts: script(2)})
				m := client(t, srv, "", whole)
				turns[i] = twoTurns(t, m)
				if n := srv.ErrorCount(); n != 0 {
					t.Errorf("rejected: %v", srv.Rejected)
				}
				if streamed := srv.Chunks() > 0; streamed == whole {
					t.Errorf("whole=%v, yet %d chunks were streamed", whole, srv.Chunks())
				}
			}
			for i := range turns[0] {
				s, w := turns[0][i], turns[1][i]
				if !sameTurn(s.Message, w.Message) {
					t.Errorf("turn %d streamed %+v, whole %+v", i, s.Message, w.Message)
				}
				if fam != providertest.Gemini && s.Usage != w.Usage { // Gemini streams no usage
					t.Errorf("turn %d usage streamed %+v, whole %+v", i, s.Usage, w.Usage)
				}
			}
			last := turns[0][1].Usage
			if fam == providertest.OpenAIReasoning || fam == providertest.OpenAIChat || fam == providertest.DeepSeek {
				if last.CachedTokens == 0 {
					t.Errorf("the second call's cached tokens were not read: %+v", last)
				}
			}
		})
	}
}

// twoTurns plays two turns, answering the first turn's call.
func twoTurns(t *testing.T, m *llm.OpenAI) []llm.Response {
	t.Helper()
	msgs := []llm.Message{{Role: llm.System, Content: strings.Repeat("You fix bugs. ", 400)}, {Role: llm.User, Content: "the cart total is wrong"}}
	var out []llm.Response
	for turn := 0; turn < 2; turn++ {
		resp, err := m.Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.Tool{bash}})
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		c := resp.Message.ToolCalls
		if len(c) != 1 || c[0].ID == "" || c[0].Name != "bash" || c[0].Arguments != `{"command":"ls"}` {
			t.Fatalf("turn %d: calls %+v from content %q", turn, c, resp.Message.Content)
		}
		msgs = append(msgs, resp.Message, llm.Message{Role: llm.ToolRole, ToolCallID: c[0].ID, Name: "bash", Content: "README.md"})
		out = append(out, resp)
	}
	return out
}

// sameTurn compares what a turn says; the ids the servers made up differ.
func sameTurn(a, b llm.Message) bool {
	if a.Content != b.Content || a.Reasoning != b.Reasoning || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := a.ToolCalls[i], b.ToolCalls[i]
		if x.Name != y.Name || x.Arguments != y.Arguments || (x.Signature == "") != (y.Signature == "") {
			return false
		}
	}
	return true
}

// TestFakesStreamTheirQuirks pins the fakes' streams: each family's known
// departures from OpenAI's stream are there for the client to meet.
func TestFakesStreamTheirQuirks(t *testing.T) {
	tests := []struct {
		fam          providertest.Family
		want, absent []string
	}{
		{providertest.OpenAIChat, []string{`"index":0,"type":"function"`, `"choices":[],`, "data: [DONE]"}, nil},
		{providertest.DeepSeek, []string{": keep-alive", `"reasoning_content":`}, nil},
		{providertest.VLLM, []string{`"reasoning":`}, []string{`"reasoning_content"`}},
		{providertest.OpenRouter, []string{": OPENROUTER PROCESSING", `"usage":`}, nil},
		{providertest.Gemini, []string{`"thought_signature"`, `"finish_reason":"stop"`}, []string{`"index":0,"type"`, `"usage"`}},
		{providertest.LlamaCpp, []string{`"arguments":{"command":"ls"}`, `"id":""`, `"timings"`}, []string{"[DONE]"}},
		{providertest.Ollama, []string{`fp_ollama`, `\u003ctool`}, []string{`"tool_calls"`}},
	}
	for _, tc := range tests {
		t.Run(string(tc.fam), func(t *testing.T) {
			srv := providertest.New(t, providertest.Config{Family: tc.fam, Scripts: script(1)})
			body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],` +
				`"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}]}`
			if tc.fam != providertest.OpenRouter && tc.fam != providertest.Gemini {
				body = strings.Replace(body, `"stream":true`, `"stream":true,"stream_options":{"include_usage":true}`, 1)
			}
			resp, err := srv.Client().Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for _, w := range tc.want {
				if !strings.Contains(string(raw), w) {
					t.Errorf("stream lacks %s:\n%s", w, raw)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(string(raw), a) {
					t.Errorf("stream has %s:\n%s", a, raw)
				}
			}
		})
	}
}

// TestBrokenStreamsAreRetried: a stream that breaks off halfway, in each
// family's way, is retried and the turn comes whole, with a notice.
func TestBrokenStreamsAreRetried(t *testing.T) {
	for _, fam := range providertest.Families {
		t.Run(string(fam), func(t *testing.T) {
			srv := providertest.New(t, providertest.Config{Family: fam, Scripts: script(1), BreakStream: true})
			var notices []llm.Notice
			ctx := llm.WithNotices(context.Background(), func(n llm.Notice) { notices = append(notices, n) })
			resp, err := client(t, srv, "", false).Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}, Tools: []llm.Tool{bash}})
			if err != nil {
				t.Fatal(err)
			}
			if c := resp.Message.ToolCalls; len(c) != 1 || c[0].Arguments != `{"command":"ls"}` {
				t.Errorf("calls %+v", c)
			}
			if len(srv.Received) != 2 || !srv.Received[0].Broken || srv.Received[1].Broken {
				t.Errorf("exchanges %+v, want a broken stream and a whole one", srv.Received)
			}
			if len(notices) != 1 || notices[0].Kind != llm.NoticeRetry {
				t.Errorf("notices %+v, want one retry", notices)
			}
		})
	}
}

// TestReasoningModelsGetTheirParameters: gpt-5.2 gets the paper's effort
// and no max_tokens or temperature, also behind a router's prefix.
func TestReasoningModelsGetTheirParameters(t *testing.T) {
	for _, fam := range []providertest.Family{providertest.OpenAIReasoning, providertest.OpenRouter} {
		srv := providertest.New(t, providertest.Config{Family: fam, Scripts: script(1)})
		temp := float32(0)
		_, err := client(t, srv, "", false).Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}},
			Tools: []llm.Tool{bash}, Temperature: &temp})
		if err != nil {
			t.Fatalf("%s: %v", fam, err)
		}
		body := srv.Requests[0]
		if body["reasoning_effort"] != "medium" || body["max_completion_tokens"] == nil || body["temperature"] != nil {
			t.Errorf("%s: request %v", fam, body)
		}
	}
}

// TestClaudeBehindARouterIsCached: cache breakpoints are marked, the
// router reports cached tokens, and they are billed at the cached rate.
func TestClaudeBehindARouterIsCached(t *testing.T) {
	srv := providertest.New(t, providertest.Config{Family: providertest.OpenRouter, Scripts: script(2)})
	m := client(t, srv, "anthropic/claude-sonnet-4.5", false)
	msgs := []llm.Message{{Role: llm.System, Content: strings.Repeat("You fix bugs. ", 600)}, {Role: llm.User, Content: "go"}}
	var last llm.Response
	for i := 0; i < 2; i++ {
		resp, err := m.Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.Tool{bash}})
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Message.ToolCalls[0]
		msgs = append(msgs, resp.Message, llm.Message{Role: llm.ToolRole, ToolCallID: c.ID, Content: "ok"})
		last = resp
	}
	sys := srv.Requests[1]["messages"].([]any)[0].(map[string]any)
	if _, parts := sys["content"].([]any); !parts {
		t.Errorf("system message not marked for caching: %v", sys)
	}
	u := last.Usage
	full, _ := llm.PriceOf("claude-sonnet-4-5", llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}, nil)
	if u.CachedTokens == 0 || !u.Priced || u.Cost >= full {
		t.Errorf("usage %+v: cached tokens must be read and billed below %v", u, full)
	}
}

// TestOverflowIsRecognised: every family's overflow error is an
// ErrContextOverflow, with the window and the prompt size the server
// counted, which the caller needs to send a smaller request next.
func TestOverflowIsRecognised(t *testing.T) {
	for _, fam := range providertest.Families {
		if fam == providertest.Ollama {
			continue // Ollama cuts instead of refusing
		}
		srv := providertest.New(t, providertest.Config{Family: fam, Window: 300, Scripts: script(1)})
		_, err := client(t, srv, "", false).Complete(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: llm.User, Content: strings.Repeat("long ", 600)}}})
		var cerr *llm.CallError
		if !errors.Is(err, llm.ErrContextOverflow) || !errors.As(err, &cerr) {
			t.Errorf("%s: %v is not an overflow", fam, err)
			continue
		}
		if cerr.Window != 300 {
			t.Errorf("%s: window %d, want 300 from %q", fam, cerr.Window, err)
		}
		if want := providertest.PromptTokens(srv.Received[len(srv.Received)-1].Body); cerr.Counted != want {
			t.Errorf("%s: counted %d, want the server's %d from %q", fam, cerr.Counted, want, err)
		}
	}
}

// TestGemini3KeepsItsTemperature: Gemini 3 gets no temperature (its
// makers advise the default), other chat models get the one asked for.
func TestGemini3KeepsItsTemperature(t *testing.T) {
	for model, want := range map[string]bool{"gemini-3-pro-preview": false, "gemini-2.5-pro": true, "gpt-4o": true} {
		srv := providertest.New(t, providertest.Config{Family: providertest.OpenAIChat, Scripts: script(1)})
		temp := float32(0)
		if _, err := client(t, srv, model, false).Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}},
			Tools: []llm.Tool{bash}, Temperature: &temp}); err != nil {
			t.Fatal(err)
		}
		if _, sent := srv.Requests[0]["temperature"]; sent != want {
			t.Errorf("%s: temperature sent = %v, want %v", model, sent, want)
		}
	}
}
