package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// answer plays the next turn of the asking agent's script, in the
// family's shape.
func (s *Server) answer(body map[string]any) (map[string]any, *fail) {
	msgs, _ := body["messages"].([]any)
	if s.cfg.Family == Ollama {
		var cut bool
		msgs, cut = s.truncate(body)
		if cut && !mentionsTask(msgs) {
			// What Ollama's model does with a prompt cut past the task.
			return s.completion(body, llm.Turn{Content: "I'm not sure what you would like me to do. Could you describe the task?"}, msgs), nil
		}
	}
	agent := agentOf(body)
	sc := s.cfg.Scripts[agent]
	if sc == nil || s.next[agent] >= len(sc.Turns) {
		return nil, s.bad(fmt.Sprintf("fake %s server: no turn left for the %s agent", s.cfg.Family, agent), "", nil)
	}
	turn := sc.Turns[s.next[agent]]
	if turn.Expect != "" && !strings.Contains(lastObservation(msgs), turn.Expect) {
		return nil, s.bad(fmt.Sprintf("fake %s server: the last observation lacks %q; the conversation was mangled", s.cfg.Family, turn.Expect), "", nil)
	}
	s.next[agent]++
	return s.completion(body, turn, msgs), nil
}

func agentOf(body map[string]any) string {
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tool, _ := t.(map[string]any)
		fn, _ := tool["function"].(map[string]any)
		if fn["name"] == "bash" {
			return "resolve"
		}
	}
	return "localize"
}

// lastObservation is the text of the last tool message.
func lastObservation(msgs []any) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "tool" {
			return textOf(m["content"])
		}
	}
	return ""
}

func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			part, _ := p.(map[string]any)
			t, _ := part["text"].(string)
			b.WriteString(t)
		}
		return b.String()
	}
	return ""
}

// truncate is Ollama's silent cut: the oldest messages go until the
// prompt fits num_ctx (4096 unless the request sets options.num_ctx).
func (s *Server) truncate(body map[string]any) ([]any, bool) {
	msgs, _ := body["messages"].([]any)
	w, cut := s.window(body), false
	for len(msgs) > 1 && PromptTokens(map[string]any{"messages": msgs, "tools": body["tools"]}) > w {
		msgs, cut = msgs[1:], true
	}
	return msgs, cut
}

// mentionsTask: the system prompt survived the cut.
func mentionsTask(msgs []any) bool {
	for _, raw := range msgs {
		if m, _ := raw.(map[string]any); m["role"] == "system" {
			return true
		}
	}
	return false
}

// completion shapes a turn as the family answers.
func (s *Server) completion(body map[string]any, turn llm.Turn, seen []any) map[string]any {
	msg := map[string]any{"role": "assistant", "content": turn.Content}
	if len(turn.ToolCalls) > 0 {
		if s.cfg.Family == Ollama {
			msg["content"] = strings.TrimSpace(turn.Content + "\n" + taggedCalls(turn))
		} else {
			msg["tool_calls"] = s.toolCalls(turn)
		}
	}
	switch s.cfg.Family {
	case DeepSeek:
		msg["reasoning_content"] = "The user wants the next step. " + turn.Content
	case VLLM:
		msg["reasoning"] = "Next step. " + turn.Content // vLLM's reasoning parsers, newer name
	}
	if s.cfg.Family == Anthropic && turn.Content == "" {
		msg["content"] = nil
	}
	finish := "stop"
	if _, ok := msg["tool_calls"]; ok {
		finish = "tool_calls"
	}
	out := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", s.calls), "object": "chat.completion", "model": body["model"],
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   s.usage(body, seen, turn)}
	switch s.cfg.Family {
	case Ollama:
		out["system_fingerprint"] = "fp_ollama"
	case LlamaCpp:
		u := out["usage"].(map[string]any)
		out["timings"] = u["timings"]
		delete(u, "timings")
	}
	return out
}

// toolCalls are the turn's calls in the family's shape.
func (s *Server) toolCalls(turn llm.Turn) []any {
	var out []any
	for _, c := range turn.ToolCalls {
		s.calls++
		args := compact(c.Arguments)
		call := map[string]any{"id": fmt.Sprintf("call_%d", s.calls), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": args}}
		switch s.cfg.Family {
		case LlamaCpp:
			call["id"] = "" // no ids, and the arguments as an object
			var obj any
			_ = json.Unmarshal([]byte(args), &obj)
			call["function"] = map[string]any{"name": c.Name, "arguments": obj}
		case Gemini:
			call["id"] = fmt.Sprintf("function-call-%d", s.calls)
			call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": fmt.Sprintf("sig-%d", s.calls)}}
		}
		out = append(out, call)
	}
	return out
}

// taggedCalls writes calls as a Hermes-template model does when the server
// has no tool-call parser.
func taggedCalls(turn llm.Turn) string {
	var b strings.Builder
	for _, c := range turn.ToolCalls {
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>\n", c.Name, compact(c.Arguments))
	}
	return b.String()
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil || b.Len() == 0 {
		return "{}"
	}
	return b.String()
}

// usage is the call's usage in the family's shape, with cache hits for
// the prefix shared with the previous request where the family caches.
func (s *Server) usage(body map[string]any, seen []any, turn llm.Turn) map[string]any {
	prompt := PromptTokens(map[string]any{"messages": seen, "tools": body["tools"]})
	reply := max(len(turn.Content)/4+len(turn.ToolCalls)*20, 1)
	u := map[string]any{"prompt_tokens": prompt, "completion_tokens": reply, "total_tokens": prompt + reply}
	cached := s.cacheHit(body)
	switch s.cfg.Family {
	case OpenAIReasoning, OpenAIChat:
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": cached, "audio_tokens": 0}
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": reply / 2}
	case OpenRouter:
		if markedForCache(body) {
			u["prompt_tokens_details"] = map[string]any{"cached_tokens": cached}
		}
	case DeepSeek:
		u["prompt_cache_hit_tokens"], u["prompt_cache_miss_tokens"] = cached, prompt-cached
	case LlamaCpp:
		u["timings"] = map[string]any{"prompt_n": prompt, "predicted_n": reply}
	}
	return u
}

// cacheHit is the shared prefix with the previous request, in whole
// 128-token blocks past the first 1024, as OpenAI counts it.
func (s *Server) cacheHit(body map[string]any) int {
	b, _ := json.Marshal(body["messages"])
	cur := string(b)
	n := 0
	for n < len(cur) && n < len(s.prev) && cur[n] == s.prev[n] {
		n++
	}
	s.prev = cur
	tokens := n / 4
	if tokens < 1024 {
		return 0
	}
	return tokens / 128 * 128
}

func markedForCache(body map[string]any) bool {
	msgs, _ := body["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			if part, _ := p.(map[string]any); part["cache_control"] != nil {
				return true
			}
		}
	}
	return false
}

// Status is the HTTP status a fake answers a request body with, for unit
// tests of single rules.
func (s *Server) Status(body string) int {
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL()+"/chat/completions", strings.NewReader(body))
	resp, err := s.Client().Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
