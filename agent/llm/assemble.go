package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// turnReply is one answered call before it becomes a Response: the message as
// the server sent it (text-form calls not yet parsed, ids not yet made
// unique), its usage and what go-openai's types would have dropped.
type turnReply struct {
	msg    Message
	usage  openai.Usage
	extras wireExtras
	finish string
}

// assembler builds a turn from the chunks of a stream, whatever the
// provider's dialect: tool calls keyed by index, or by id when the index
// is missing (Gemini), ids only on a call's first chunk, names sent once
// or repeated, arguments in pieces or as one object (llama.cpp),
// reasoning as reasoning_content (DeepSeek, llama.cpp) or reasoning
// (vLLM, OpenRouter), usage in the last chunk or in none.
type assembler struct {
	sink               *deltaSink
	content, reasoning strings.Builder
	refusal            strings.Builder
	calls              []*callParts
	byIndex            map[int]*callParts
	byID               map[string]*callParts
	usage              map[string]any
	finish             string
	done               bool   // [DONE] came
	server             string // a server that cuts prompts silently, from its chunks
}

// callParts is one tool call as its chunks arrive.
type callParts struct {
	id, name, sig string
	args          strings.Builder
}

func newAssembler(sink *deltaSink) *assembler {
	return &assembler{sink: sink, byIndex: map[int]*callParts{}, byID: map[string]*callParts{}}
}

// add takes one event's data.
func (a *assembler) add(data []byte) error {
	if string(data) == "[DONE]" {
		a.done = true
		return nil
	}
	chunk, err := decodeObject(data)
	if err != nil {
		return &streamError{msg: fmt.Sprintf("the stream sent a chunk that is not a JSON object: %s", clip(string(data), 200))}
	}
	if e := chunkError(chunk); e != nil {
		return e
	}
	if s := silentCutter(chunk); s != "" {
		a.server = s
	}
	if u, ok := chunk["usage"].(map[string]any); ok {
		a.usage = u
	}
	choices, _ := chunk["choices"].([]any)
	for _, c := range choices {
		choice, _ := c.(map[string]any)
		if i, ok := intField(choice["index"]); ok && i != 0 {
			continue // only one answer is asked for
		}
		if f, _ := choice["finish_reason"].(string); f != "" {
			a.finish = f
		}
		delta, _ := choice["delta"].(map[string]any)
		if delta == nil {
			delta, _ = choice["message"].(map[string]any) // a server that streams whole messages
		}
		a.addDelta(delta)
	}
	return nil
}

func (a *assembler) addDelta(d map[string]any) {
	if d == nil {
		return
	}
	text := ""
	switch c := d["content"].(type) {
	case string:
		text = c
	case []any:
		text = joinTextParts(c)
	}
	a.content.WriteString(text)
	reasoning, _ := d["reasoning_content"].(string)
	if r, _ := d["reasoning"].(string); r != "" && reasoning == "" {
		reasoning = r
	}
	a.reasoning.WriteString(reasoning)
	if r, _ := d["refusal"].(string); r != "" {
		a.refusal.WriteString(r)
	}
	a.sink.send(text, reasoning)
	calls, _ := d["tool_calls"].([]any)
	for _, c := range calls {
		if call, ok := c.(map[string]any); ok {
			a.addCall(call)
		}
	}
}

// addCall merges one tool-call chunk into the call it continues.
func (a *assembler) addCall(tc map[string]any) {
	c := a.callFor(tc)
	if id, _ := tc["id"].(string); id != "" && c.id == "" {
		c.id = id
		a.byID[id] = c
	}
	if sig := thoughtSignature(tc); sig != "" {
		c.sig = sig
	}
	fn, _ := tc["function"].(map[string]any)
	if name, _ := fn["name"].(string); name != "" {
		switch {
		case c.name == "" || strings.HasPrefix(name, c.name):
			c.name = name // the first piece, or the name so far repeated and grown
		case !strings.HasSuffix(c.name, name):
			c.name += name // the next piece
		}
	}
	switch args := fn["arguments"].(type) {
	case string:
		c.args.WriteString(args)
	case nil:
	default: // an object, in one chunk
		c.args.Reset()
		c.args.WriteString(argumentsText(args))
	}
}

// callFor finds the call a chunk continues, or starts one. The index
// decides when the server sends one, unless a new id under a used index
// says it is another call (Gemini through some proxies numbers every call
// 0); without an index, a new id starts a call and no id continues the
// last one.
func (a *assembler) callFor(tc map[string]any) *callParts {
	id, _ := tc["id"].(string)
	idx, hasIdx := intField(tc["index"])
	if c := a.byID[id]; id != "" && c != nil {
		return c
	}
	if c := a.byIndex[idx]; hasIdx && c != nil && (id == "" || c.id == "") {
		return c
	}
	if !hasIdx && id == "" && len(a.calls) > 0 {
		return a.calls[len(a.calls)-1]
	}
	c := &callParts{}
	a.calls = append(a.calls, c)
	if hasIdx {
		a.byIndex[idx] = c
	}
	return c
}

// complete reports whether the stream ended as a finished answer: with
// [DONE], or with a finish reason from a server that sends no [DONE].
func (a *assembler) complete() bool { return a.done || a.finish != "" }

func (a *assembler) reply() turnReply {
	msg := Message{Role: Assistant, Content: a.content.String(), Reasoning: a.reasoning.String(), Refusal: a.refusal.String()}
	for _, c := range a.calls {
		args := c.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.id, Name: c.name, Arguments: args, Signature: c.sig})
	}
	r := turnReply{msg: msg, finish: a.finish, extras: wireExtras{server: a.server}}
	if a.usage != nil {
		b, _ := json.Marshal(a.usage)
		_ = json.Unmarshal(b, &r.usage)
		r.extras.cachedTokens = intOf(a.usage["prompt_cache_hit_tokens"])
	}
	return r
}

// chunkError is an error a server sent as a chunk: OpenAI's and
// OpenRouter's {"error": {...}} (OpenRouter with finish_reason "error"
// beside it), vLLM's {"object": "error", ...}, Anthropic's
// {"type": "error", ...}.
func chunkError(chunk map[string]any) *streamError {
	body := chunk
	switch e := chunk["error"].(type) {
	case map[string]any:
		body = e
	case string:
		return &streamError{msg: e}
	default:
		if chunk["object"] != "error" && chunk["type"] != "error" {
			return nil
		}
	}
	msg, _ := body["message"].(string)
	if msg == "" {
		b, _ := json.Marshal(chunk)
		msg = string(b)
	}
	code := fmt.Sprint(body["code"])
	if t, ok := body["type"].(string); ok && (code == "" || code == "<nil>") {
		code = t
	}
	return &streamError{msg: msg, code: code}
}

// silentCutter names a server known to cut a prompt longer than its
// context without an error, from its answer: Ollama signs it fp_ollama,
// the llama.cpp server adds timings.
func silentCutter(body map[string]any) string {
	if fp, _ := body["system_fingerprint"].(string); fp == "fp_ollama" {
		return "ollama"
	}
	if _, ok := body["timings"]; ok {
		return "llama.cpp"
	}
	return ""
}

func intField(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case float64:
		return int(n), true
	}
	return 0, false
}

// deltaSink hands the streamed text to the caller. It holds back a
// text-form tool call (<tool_call>...) so that only the model's words are
// shown, and says Restart when a new attempt follows one that was heard.
type deltaSink struct {
	f       func(Delta)
	gate    bool   // the request offers tools: text-form calls may come
	held    bool   // a text-form call began; the rest of the answer is its
	pending string // a possible start of one, not yet shown
	heard   bool   // something was sent in this attempt
}

const textCallTag = "<tool_call>"

func (s *deltaSink) send(content, reasoning string) {
	if s == nil || s.f == nil {
		return
	}
	content = s.filter(content)
	if content == "" && reasoning == "" {
		return
	}
	s.heard = true
	s.f(Delta{Content: content, Reasoning: reasoning})
}

// filter passes content up to a text-form call's tag, which may arrive
// split across chunks.
func (s *deltaSink) filter(content string) string {
	if !s.gate || s.held {
		if s.held {
			return ""
		}
		return content
	}
	text := s.pending + content
	s.pending = ""
	if i := strings.Index(text, textCallTag); i >= 0 {
		s.held = true
		return text[:i]
	}
	for n := min(len(textCallTag)-1, len(text)); n > 0; n-- {
		if strings.HasSuffix(text, textCallTag[:n]) {
			s.pending = text[len(text)-n:]
			return text[:len(text)-n]
		}
	}
	return text
}

// flush sends what was held back as a possible tag but was not one.
func (s *deltaSink) flush() {
	if s == nil || s.held || s.pending == "" || s.f == nil {
		return
	}
	text := s.pending
	s.pending = ""
	s.heard = true
	s.f(Delta{Content: text})
}

// restart starts a new attempt, voiding what an earlier one sent.
func (s *deltaSink) restart() {
	if s == nil {
		return
	}
	if s.heard && s.f != nil {
		s.f(Delta{Restart: true})
	}
	s.heard, s.held, s.pending = false, false, ""
}
