package localize

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// TestOverHTTP runs the agent against an OpenAI-compatible server that
// plays tool calls, checking what the agent sends in each phase.
func TestOverHTTP(t *testing.T) {
	turns := []struct{ tool, args, offered string }{
		{"find_code_def", `{"definition_name":"apply_discount"}`, "find_file,find_code_def,find_code_content,find_child_unit,finish_search"},
		{"find_child_unit", `{"definition_name":"round_money","file_path":"shop/money.py"}`, ""},
		{"finish_search", `{}`, ""},
		{"shortlist", `{"locations":["shop/money.py:round_money"],"reasons":["floors"]}`, "shortlist"},
		{"rank_locations", `{"files":["shop/money.py"],"functions":["shop/money.py:round_money"]}`, "rank_locations"},
	}
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		turn := turns[n]
		n++
		mu.Unlock()
		var offered []string
		for _, tl := range req.Tools {
			offered = append(offered, tl.Function.Name)
		}
		if turn.offered != "" && strings.Join(offered, ",") != turn.offered {
			t.Errorf("turn %d offered %v, want %s", n, offered, turn.offered)
		}
		if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[1].Content, "<issue>") {
			t.Errorf("turn %d: the conversation should open with the system prompt and the issue", n)
		}
		args, _ := json.Marshal(turn.args)
		fmt.Fprintf(w, `{"id":"r%d","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",
			"message":{"role":"assistant","content":"","tool_calls":[{"id":"c%d","type":"function","function":{"name":%q,"arguments":%s}}]}}],
			"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, n, n, turn.tool, args)
	}))
	defer srv.Close()
	m, err := llm.NewOpenAI(llm.OpenAIConfig{APIKey: "test", BaseURL: srv.URL, Model: "gpt-test", HTTPClient: srv.Client(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	loc, _, err := runWith(t, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(turns) {
		t.Errorf("%d model calls, want %d", n, len(turns))
	}
	if strings.Join(loc.Functions, " ") != "shop/money.py:round_money" || loc.Model != "gpt-test" {
		t.Errorf("functions %v model %q", loc.Functions, loc.Model)
	}
	if nd := node(t, loc, "shop/money.py:round_money"); nd.Parent != "shop/pricing.py:apply_discount" {
		t.Errorf("round_money node %+v", nd)
	}
	if loc.Usage.PromptTokens != 500 || loc.Usage.Calls != 5 {
		t.Errorf("usage %+v", loc.Usage)
	}
}
