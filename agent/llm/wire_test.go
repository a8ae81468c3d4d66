package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalizeResponse(t *testing.T) {
	raw := `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
		"reasoning":"think","tool_calls":[{"id":"","function":{"name":"bash","arguments":{"command":"ls"}},
		"extra_content":{"google":{"thought_signature":"sig"}}},{"id":"x","function":{"name":"submit"}}]}}],
		"usage":{"prompt_tokens":10,"prompt_cache_hit_tokens":4}}`
	out, ex := normalizeResponse([]byte(raw))
	var body struct {
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(out, &body); err != nil {
		t.Fatalf("normalised body does not decode: %v\n%s", err, out)
	}
	msg := body.Choices[0].Message
	if msg.Content != "ab" || msg.ToolCalls[0].Function.Arguments != `{"command":"ls"}` || msg.ToolCalls[1].Function.Arguments != "{}" {
		t.Errorf("message %+v", msg)
	}
	if ex.signatures[0] != "sig" || ex.reasoning != "think" || ex.cachedTokens != 4 {
		t.Errorf("extras %+v", ex)
	}
	if got, _ := normalizeResponse([]byte("not json")); string(got) != "not json" {
		t.Error("a body that is not JSON must pass untouched")
	}
}

func TestOverflowWindow(t *testing.T) {
	tests := []struct {
		detail string
		want   int
	}{
		{"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 8192},
		{"prompt is too long: 215000 tokens > 200000 maximum", 200000},
		{`{"message":"the request exceeds the available context size","n_prompt_tokens":5000,"n_ctx":4096}`, 4096},
		{"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1048576},
		{"the request exceeds the available context size, try increasing it", 0},
	}
	for _, tc := range tests {
		if got := overflowWindow(tc.detail); got != tc.want {
			t.Errorf("overflowWindow(%q) = %d, want %d", tc.detail, got, tc.want)
		}
		if !overflowError(400, tc.detail, "") {
			t.Errorf("%q not seen as an overflow", tc.detail)
		}
	}
	if overflowError(400, "Invalid value for 'content'", "") || overflowError(500, "maximum context length", "") {
		t.Error("false overflow")
	}
}

func TestEmptyAssistantTurnIsNeverSent(t *testing.T) {
	out := toOpenAIMessages([]Message{{Role: Assistant}, {Role: Assistant, Refusal: "I can't help with that."}})
	if out[0].Content == "" || out[1].Content != "I can't help with that." {
		t.Errorf("messages %+v", out)
	}
}

func FuzzNormalizeResponse(f *testing.F) {
	f.Add(`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}`)
	f.Add(`{"choices":[{"message":{"content":[{"text":"x"}]}}],"usage":{"prompt_cache_hit_tokens":"x"}}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, raw string) {
		out, _ := normalizeResponse([]byte(raw))
		if !json.Valid([]byte(raw)) && string(out) != raw {
			t.Fatal("invalid JSON was rewritten")
		}
		if json.Valid([]byte(raw)) && strings.HasPrefix(strings.TrimSpace(raw), "{") && !json.Valid(out) {
			t.Fatalf("normalised JSON is invalid: %s", out)
		}
	})
}
