package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// go-openai's request and response types have no room for what providers
// add to the protocol: Gemini's thought signatures, Anthropic's
// cache_control, Ollama's options, arguments sent as an object, content as
// a list of parts. Rather than give up its client, the transport edits the
// JSON on the way out (patch) and normalises it on the way in, keeping what
// the types would drop in the attempt's wireExtras.

// wireExtras is what a successful response carried beyond go-openai's types.
type wireExtras struct {
	signatures   map[int]string // tool call index -> thought signature
	reasoning    string         // "reasoning" where a server uses that name
	cachedTokens int            // DeepSeek's prompt_cache_hit_tokens
	server       string         // a server that cuts prompts silently (see silentCutter)
}

// patchRequest rewrites a request body in place; it runs on the decoded
// JSON with numbers kept exact.
type patchRequest func(body map[string]any)

// patchBody applies p to the request's JSON body.
func patchBody(req *http.Request, p patchRequest) error {
	if p == nil || req.Body == nil {
		return nil
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	body, err := decodeObject(raw)
	if err != nil {
		return fmt.Errorf("patch request body: %w", err)
	}
	p(body)
	out, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("patch request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.ContentLength = int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
}

func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return body, nil
}

// normalizeResponse rewrites a successful body into the shape go-openai
// decodes, and returns what it would have dropped. A body that is not a
// JSON object is passed on untouched, for go-openai to report.
func normalizeResponse(raw []byte) ([]byte, wireExtras) {
	var ex wireExtras
	body, err := decodeObject(raw)
	if err != nil {
		return raw, ex
	}
	if choices, ok := body["choices"].([]any); ok && len(choices) > 0 {
		for i, c := range choices {
			choice, _ := c.(map[string]any)
			msg, _ := choice["message"].(map[string]any)
			if msg == nil {
				continue
			}
			e := normalizeMessage(msg)
			if i == 0 {
				ex.signatures, ex.reasoning = e.signatures, e.reasoning
			}
		}
	}
	if usage, ok := body["usage"].(map[string]any); ok {
		ex.cachedTokens = intOf(usage["prompt_cache_hit_tokens"])
	}
	ex.server = silentCutter(body)
	out, err := json.Marshal(body)
	if err != nil {
		return raw, ex
	}
	return out, ex
}

func normalizeMessage(msg map[string]any) wireExtras {
	var ex wireExtras
	if parts, ok := msg["content"].([]any); ok {
		msg["content"] = joinTextParts(parts)
	}
	if r, ok := msg["reasoning"].(string); ok {
		ex.reasoning = r
	}
	calls, _ := msg["tool_calls"].([]any)
	for i, c := range calls {
		call, _ := c.(map[string]any)
		if call == nil {
			continue
		}
		if sig := thoughtSignature(call); sig != "" {
			if ex.signatures == nil {
				ex.signatures = map[int]string{}
			}
			ex.signatures[i] = sig
		}
		fn, _ := call["function"].(map[string]any)
		if fn == nil {
			continue
		}
		fn["arguments"] = argumentsText(fn["arguments"])
	}
	return ex
}

// argumentsText is a call's arguments as the JSON text the protocol
// specifies, whether the server sent a string (OpenAI), an object (some
// llama.cpp builds) or nothing.
func argumentsText(v any) string {
	switch a := v.(type) {
	case string:
		return a
	case nil:
		return "{}"
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return "{}"
		}
		return string(b)
	}
}

func joinTextParts(parts []any) string {
	var texts []string
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if t, ok := part["text"].(string); ok {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "")
}

// thoughtSignature reads Gemini's signature from a tool call's
// extra_content.google.thought_signature.
func thoughtSignature(call map[string]any) string {
	extra, _ := call["extra_content"].(map[string]any)
	google, _ := extra["google"].(map[string]any)
	sig, _ := google["thought_signature"].(string)
	return sig
}

func intOf(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	}
	return 0
}

// requestPatch is what a call adds to go-openai's request body: the
// configured extra fields, the thought signatures of earlier calls, and
// cache breakpoints.
func (o *OpenAI) requestPatch(msgs []Message) patchRequest {
	sigs := signaturesByTurn(msgs)
	extra, cache := o.cfg.Extra, o.cacheControl()
	if len(extra) == 0 && len(sigs) == 0 && !cache {
		return nil
	}
	return func(body map[string]any) {
		mergeInto(body, extra)
		wire, _ := body["messages"].([]any)
		for i, bySlot := range sigs {
			if i < len(wire) {
				attachSignatures(wire[i], bySlot)
			}
		}
		if cache {
			markCacheBreakpoints(wire)
		}
	}
}

// signaturesByTurn maps message index -> tool call slot -> signature.
func signaturesByTurn(msgs []Message) map[int]map[int]string {
	var out map[int]map[int]string
	for i, m := range msgs {
		for j, tc := range m.ToolCalls {
			if tc.Signature == "" {
				continue
			}
			if out == nil {
				out = map[int]map[int]string{}
			}
			if out[i] == nil {
				out[i] = map[int]string{}
			}
			out[i][j] = tc.Signature
		}
	}
	return out
}

func attachSignatures(m any, bySlot map[int]string) {
	msg, _ := m.(map[string]any)
	calls, _ := msg["tool_calls"].([]any)
	for j, sig := range bySlot {
		if j >= len(calls) {
			continue
		}
		if call, ok := calls[j].(map[string]any); ok {
			call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": sig}}
		}
	}
}

// mergeInto adds src's fields to dst, merging nested objects so an extra
// {"options": {"num_ctx": N}} does not wipe other options.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		sub, ok := v.(map[string]any)
		have, haveOK := dst[k].(map[string]any)
		if ok && haveOK {
			mergeInto(have, sub)
			continue
		}
		dst[k] = v
	}
}

// cacheControl reports whether to mark cache breakpoints: Claude behind a
// router (OpenRouter, LiteLLM) caches only what is marked, while OpenAI
// caches prefixes by itself and Anthropic's own compatibility endpoint does
// not cache at all.
func (o *OpenAI) cacheControl() bool {
	if o.cfg.CacheControl != nil {
		return *o.cfg.CacheControl
	}
	return strings.HasPrefix(BareName(o.cfg.Model), "claude") && !strings.Contains(o.cfg.BaseURL, "anthropic.com")
}

// markCacheBreakpoints turns the system message and the last message into
// content parts with an ephemeral cache_control: the first caches the
// stable prefix (system prompt, tools), the second the conversation so far,
// which the next call extends.
func markCacheBreakpoints(wire []any) {
	if len(wire) == 0 {
		return
	}
	marked := map[int]bool{}
	for i, m := range wire {
		if msg, _ := m.(map[string]any); msg["role"] == System {
			markCache(msg)
			marked[i] = true
			break
		}
	}
	if last := len(wire) - 1; !marked[last] {
		msg, _ := wire[last].(map[string]any)
		markCache(msg)
	}
}

func markCache(msg map[string]any) {
	text, ok := msg["content"].(string)
	if !ok || text == "" {
		return
	}
	msg["content"] = []any{map[string]any{
		"type": "text", "text": text, "cache_control": map[string]any{"type": "ephemeral"},
	}}
}

// upstreamError is the provider's error a router wrapped in its own
// (OpenRouter: error.metadata.raw), or "".
func upstreamError(raw []byte) string {
	var body struct {
		Error struct {
			Metadata struct {
				Raw string `json:"raw"`
			} `json:"metadata"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	return body.Error.Metadata.Raw
}
