package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// errorBody is an error in the family's own shape. param and extra are
// used where the family has them.
func (s *Server) errorBody(msg, typ, code string, param any) any {
	switch s.cfg.Family {
	case Anthropic:
		return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	case Gemini:
		return []any{map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}}
	case VLLM:
		return map[string]any{"object": "error", "message": msg, "type": "BadRequestError", "param": param, "code": 400}
	case OpenRouter:
		raw, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": code}})
		return map[string]any{"error": map[string]any{"message": "Provider returned error", "code": 400,
			"metadata": map[string]any{"raw": string(raw), "provider_name": "OpenAI"}}}
	case LlamaCpp:
		return map[string]any{"error": map[string]any{"code": 400, "message": msg, "type": typ}}
	}
	var c any
	if code != "" {
		c = code
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": c}}
}

func (s *Server) bad(msg, code string, param any) *fail {
	return &fail{http.StatusBadRequest, s.errorBody(msg, "invalid_request_error", code, param), nil}
}

// reasoningUpstream: the request reaches an OpenAI reasoning model,
// directly or through the router.
func (s *Server) reasoningUpstream(body map[string]any) bool {
	model, _ := body["model"].(string)
	return s.cfg.Family == OpenAIReasoning || (s.cfg.Family == OpenRouter && llm.Reasoning(model))
}

// checkParams applies each family's rules on the request's parameters.
func (s *Server) checkParams(body map[string]any) *fail {
	if m, _ := body["model"].(string); m == "" {
		return s.bad("you must provide a model parameter", "", nil)
	}
	if s.reasoningUpstream(body) {
		if _, ok := body["max_tokens"]; ok {
			return s.bad("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
				"unsupported_parameter", "max_tokens")
		}
		if t, ok := body["temperature"]; ok && fmt.Sprint(t) != "1" {
			return s.bad(fmt.Sprintf("Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", t),
				"unsupported_value", "temperature")
		}
		if e, ok := body["reasoning_effort"].(string); ok && !oneOf(e, "none", "minimal", "low", "medium", "high", "xhigh") {
			return s.bad(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.", e),
				"invalid_value", "reasoning_effort")
		}
	}
	if n, ok := body["n"]; ok && fmt.Sprint(n) != "1" && s.cfg.Family == Anthropic {
		return s.bad("n: only n=1 is supported", "", nil)
	}
	if t, ok := body["temperature"].(json.Number); ok {
		v, _ := t.Float64()
		if v < 0 || v > 2 {
			return s.bad(fmt.Sprintf("Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got %v instead.", v), "decimal_above_max_value", "temperature")
		}
	}
	return nil
}

func oneOf(v string, set ...string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// checkMessages applies the conversation rules every strict server
// enforces, and the family's own.
func (s *Server) checkMessages(body map[string]any) *fail {
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		return s.bad("[] is too short - 'messages'", "", "messages")
	}
	open := map[string]bool{}
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if f := s.checkMessage(i, m, role, open); f != nil {
			return f
		}
	}
	if len(open) > 0 {
		return s.bad("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
			"The following tool_call_ids did not have response messages: "+strings.Join(keys(open), ", "), "", "messages")
	}
	return nil
}

func (s *Server) checkMessage(i int, m map[string]any, role string, open map[string]bool) *fail {
	switch role {
	case "system", "user", "developer":
		if len(open) > 0 {
			return s.bad("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
				"The following tool_call_ids did not have response messages: "+strings.Join(keys(open), ", "), "", "messages")
		}
	case "assistant":
		return s.checkAssistant(i, m, open)
	case "tool":
		id, _ := m["tool_call_id"].(string)
		if !open[id] {
			return s.bad("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
				"", fmt.Sprintf("messages.[%d].role", i))
		}
		delete(open, id)
	default:
		return s.bad(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role),
			"invalid_value", fmt.Sprintf("messages[%d].role", i))
	}
	return nil
}

func (s *Server) checkAssistant(i int, m map[string]any, open map[string]bool) *fail {
	calls, _ := m["tool_calls"].([]any)
	if !hasContent(m["content"]) && len(calls) == 0 {
		if s.cfg.Family == Anthropic {
			return s.bad(fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i), "", nil)
		}
		return s.bad("Invalid value for 'content': expected a string, got null.", "", fmt.Sprintf("messages.[%d].content", i))
	}
	if s.cfg.Family == DeepSeek && len(calls) > 0 {
		if r, _ := m["reasoning_content"].(string); r == "" {
			return s.bad(fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d. "+
				"For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", i), "invalid_request_error", nil)
		}
	}
	for j, c := range calls {
		call, _ := c.(map[string]any)
		id, _ := call["id"].(string)
		if id == "" || open[id] {
			return s.bad(fmt.Sprintf("Invalid 'messages[%d].tool_calls[%d].id': empty or repeated id.", i, j), "invalid_value", nil)
		}
		fn, _ := call["function"].(map[string]any)
		if _, ok := fn["arguments"].(string); !ok {
			return s.bad(fmt.Sprintf("Invalid type for 'messages[%d].tool_calls[%d].function.arguments': expected a string.", i, j), "invalid_type", nil)
		}
		if s.cfg.Family == Gemini && j == 0 && signatureOf(call) == "" {
			return s.bad(fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
				"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%v` , position %d. "+
				"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", fn["name"], i+1), "", nil)
		}
		open[id] = true
	}
	return nil
}

func hasContent(v any) bool {
	switch c := v.(type) {
	case string:
		return c != ""
	case []any:
		return len(c) > 0
	}
	return false
}

func signatureOf(call map[string]any) string {
	extra, _ := call["extra_content"].(map[string]any)
	google, _ := extra["google"].(map[string]any)
	sig, _ := google["thought_signature"].(string)
	return sig
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// PromptTokens counts a request's prompt as the fakes do: messages and
// tool schemas, a token per four bytes of their JSON.
func PromptTokens(body map[string]any) int {
	b, _ := json.Marshal(map[string]any{"m": body["messages"], "t": body["tools"]})
	return len(b) / 4
}

// checkWindow rejects a prompt beyond the window, in the family's words.
// Ollama does not reject: it cuts the prompt (see answer).
func (s *Server) checkWindow(body map[string]any) *fail {
	n, w := PromptTokens(body), s.window(body)
	if s.cfg.Family == VLLM {
		if mt, ok := body["max_tokens"].(json.Number); ok {
			m, _ := mt.Int64()
			if n+int(m) > w {
				return s.bad(fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). "+
					"Please reduce the length of the messages or completion.", w, n+int(m), n, m), "", nil)
			}
		}
	}
	if n <= w || s.cfg.Family == Ollama {
		return nil
	}
	switch s.cfg.Family {
	case Anthropic:
		return s.bad(fmt.Sprintf("prompt is too long: %d tokens > %d maximum", n, w), "", nil)
	case LlamaCpp:
		return &fail{http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error",
			"n_prompt_tokens": n, "n_ctx": w}}, nil}
	case Gemini:
		return s.bad(fmt.Sprintf("The input token count (%d) exceeds the maximum number of tokens allowed (%d).", n, w), "", nil)
	case VLLM:
		return s.bad(fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", w, n), "", nil)
	}
	return s.bad(fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", w, n),
		"context_length_exceeded", "messages")
}

// window is the request's window: Ollama's grows with options.num_ctx.
func (s *Server) window(body map[string]any) int {
	if s.cfg.Family == Ollama {
		opts, _ := body["options"].(map[string]any)
		if n, ok := opts["num_ctx"].(json.Number); ok {
			v, _ := n.Int64()
			return int(v)
		}
	}
	return s.cfg.Window
}
