package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// chatServer speaks OpenAI chat completions, answering each agent with the
// turns of its script: the same run as TestScriptedRun, over real HTTP.
type chatServer struct {
	mu      sync.Mutex
	scripts map[string]*llm.Script // "localize", "resolve"
	next    map[string]int
	calls   int
	auth    string
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = r.Header.Get("Authorization")
	agent := "localize" // the search and both filter stages share one script
	for _, t := range req.Tools {
		if t.Function.Name == "bash" {
			agent = "resolve"
		}
	}
	sc := s.scripts[agent]
	if sc == nil || s.next[agent] >= len(sc.Turns) {
		http.Error(w, `{"error":{"message":"no more turns","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	turn := sc.Turns[s.next[agent]]
	s.next[agent]++
	_ = json.NewEncoder(w).Encode(s.completion(turn))
}

func (s *chatServer) completion(turn llm.Turn) map[string]any {
	var calls []map[string]any
	for _, c := range turn.ToolCalls {
		s.calls++
		var args bytes.Buffer
		if err := json.Compact(&args, c.Arguments); err != nil || args.Len() == 0 {
			args.Reset()
			args.WriteString("{}")
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", s.calls), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": args.String()}})
	}
	msg := map[string]any{"role": "assistant", "content": turn.Content}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "sample-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "tool_calls"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
}

func TestRunOverHTTP(t *testing.T) {
	needPython(t)
	const key = "sk-test-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	loc, err := llm.LoadScript(filepath.Join(sampleDir, "localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := llm.LoadScript(filepath.Join(sampleDir, "resolve.json"))
	if err != nil {
		t.Fatal(err)
	}
	cs := &chatServer{scripts: map[string]*llm.Script{"localize": loc, "resolve": res}, next: map[string]int{}}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	model, err := llm.NewOpenAI(llm.OpenAIConfig{APIKey: key, BaseURL: srv.URL + "/v1", Model: "sample-model", HTTPClient: srv.Client(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	repo, readme := sampleRepo(t)
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Model: model, Approve: "auto", MaxIterations: 40})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil || sum.Status != "submitted" {
		t.Fatalf("status %s err %v: %s", sum.Status, err, sum.Message)
	}
	if cs.auth != "Bearer "+key {
		t.Errorf("the server saw Authorization %q", cs.auth)
	}
	if sum.Tokens != 120*(len(loc.Turns)+len(res.Turns)) {
		t.Errorf("tokens %d, want the server's usage summed over %d calls", sum.Tokens, len(loc.Turns)+len(res.Turns))
	}
	if sum.Cost != "unpriced" {
		t.Errorf("cost %q for a model without a price, want unpriced", sum.Cost)
	}
	checkPatch(t, sum)
	checkCheckout(t, repo, readme, " M README.md\n?? notes.txt\n")
	noKeyIn(t, r.Dir, key)
}

// noKeyIn checks that no file of the run folder holds the API key.
func noKeyIn(t *testing.T, dir, key string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the API key", e.Name())
		}
	}
}
