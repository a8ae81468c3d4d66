package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// The fakes stream in each family's own chunk shapes, as their docs and
// issue trackers show them:
//   - OpenAI (and Anthropic's compatibility layer, DeepSeek, vLLM): a role
//     chunk, the text in pieces, each tool call's id and name on its first
//     chunk and its arguments in pieces after, a finish chunk, and the
//     usage in a last chunk with no choices only when stream_options asks;
//   - DeepSeek: ": keep-alive" comments while the request waits, and
//     reasoning_content before the answer;
//   - vLLM: reasoning under its newer name, "reasoning";
//   - OpenRouter: ": OPENROUTER PROCESSING" comments, and the usage in the
//     last chunk whether asked for or not (include_usage is deprecated);
//   - Gemini: tool-call chunks without an index, the arguments split over
//     index-less chunks, the thought signature on the call, finish_reason
//     "stop" even for calls, and no usage at all;
//   - the llama.cpp server: a call in one chunk with no id and object
//     arguments, timings on every chunk, usage on the finish chunk, and no
//     [DONE] (as its ik_llama.cpp fork ends streams);
//   - Ollama: fp_ollama on every chunk, and a model without a tool-call
//     parser whose <tool_call> text arrives in pieces like any other text.
//
// With BreakStream, the first streamed answer breaks off halfway in the
// family's way: an error object (OpenAI's, OpenRouter's or vLLM's shape),
// or a connection that just ends.

// streaming reports whether a request asks for a stream.
func streaming(body map[string]any) bool {
	v, _ := body["stream"].(bool)
	return v
}

// checkStream applies the rules on stream_options that strict servers
// enforce.
func (s *Server) checkStream(body map[string]any) *fail {
	opts, present := body["stream_options"]
	if !present || opts == nil {
		return nil
	}
	switch s.cfg.Family {
	case Gemini, Ollama, LlamaCpp:
		return nil // they take it or leave it
	case VLLM:
		if !streaming(body) {
			return s.bad("Stream options can only be defined when `stream=True`.", "", nil)
		}
	default:
		if !streaming(body) {
			return s.bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "invalid_value", "stream_options")
		}
	}
	if o, ok := opts.(map[string]any); !ok || !isBoolOrAbsent(o["include_usage"]) {
		return s.bad("Invalid type for 'stream_options.include_usage': expected a boolean.", "invalid_type", "stream_options.include_usage")
	}
	return nil
}

func isBoolOrAbsent(v any) bool {
	_, ok := v.(bool)
	return ok || v == nil
}

// streamer writes one answer as server-sent events.
type streamer struct {
	w     http.ResponseWriter
	base  map[string]any // the fields every chunk carries
	fam   Family
	count int // chunks written
}

func (st *streamer) comment(text string) {
	fmt.Fprintf(st.w, ": %s\n\n", text)
	st.flush()
}

func (st *streamer) data(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(st.w, "data: %s\n\n", b)
	st.count++
	st.flush()
}

func (st *streamer) flush() {
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunk is a chat.completion.chunk with one choice.
func (st *streamer) chunk(delta map[string]any, finish any) map[string]any {
	c := map[string]any{}
	for k, v := range st.base {
		c[k] = v
	}
	c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	return c
}

// writeStream streams whole, the answer the fake would have sent in one
// piece, in the family's chunks. It reports whether the stream broke off.
func (s *Server) writeStream(w http.ResponseWriter, body, whole map[string]any) bool {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &streamer{w: w, fam: s.cfg.Family, base: map[string]any{"id": whole["id"], "object": "chat.completion.chunk",
		"created": 1767225600, "model": whole["model"]}}
	switch s.cfg.Family {
	case Ollama:
		st.base["system_fingerprint"] = "fp_ollama"
	case LlamaCpp:
		st.base["timings"] = whole["timings"]
	}
	choice := whole["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	chunks := s.chunksOf(st, msg)
	breakAt := -1
	if s.cfg.BreakStream && !s.broken {
		s.broken, breakAt = true, len(chunks)/2
	}
	s.keepAlive(st)
	defer func() { s.chunks += st.count }()
	for i, c := range chunks {
		if i == breakAt {
			s.breakOff(st)
			return true
		}
		st.data(c)
		if s.cfg.Family == OpenRouter && i == 0 {
			st.comment("OPENROUTER PROCESSING")
		}
	}
	s.finish(st, body, whole, choice["finish_reason"])
	return false
}

// keepAlive is what a busy server sends before the first chunk.
func (s *Server) keepAlive(st *streamer) {
	switch s.cfg.Family {
	case DeepSeek:
		st.comment("keep-alive")
		st.comment("keep-alive")
	case OpenRouter:
		st.comment("OPENROUTER PROCESSING")
	}
}

// chunksOf splits a message into the family's delta chunks, up to the
// finish chunk.
func (s *Server) chunksOf(st *streamer, msg map[string]any) []map[string]any {
	out := []map[string]any{st.chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, field := range []string{"reasoning_content", "reasoning"} {
		if r, _ := msg[field].(string); r != "" {
			for _, p := range pieces(r, 14) {
				out = append(out, st.chunk(map[string]any{field: p}, nil))
			}
		}
	}
	if c, _ := msg["content"].(string); c != "" {
		for _, p := range pieces(c, 9) {
			out = append(out, st.chunk(map[string]any{"content": p}, nil))
		}
	}
	calls, _ := msg["tool_calls"].([]any)
	for i, c := range calls {
		for _, d := range s.callChunks(i, c.(map[string]any)) {
			out = append(out, st.chunk(map[string]any{"tool_calls": []any{d}}, nil))
		}
	}
	return out
}

// callChunks is one tool call as the family streams it.
func (s *Server) callChunks(i int, call map[string]any) []map[string]any {
	fn := call["function"].(map[string]any)
	switch s.cfg.Family {
	case LlamaCpp:
		return []map[string]any{{"index": i, "id": "", "type": "function", "function": fn}}
	case Gemini:
		args := fn["arguments"].(string)
		half := len(args) / 2
		first := map[string]any{"id": call["id"], "type": "function", "extra_content": call["extra_content"],
			"function": map[string]any{"name": fn["name"], "arguments": args[:half]}}
		return []map[string]any{first, {"function": map[string]any{"arguments": args[half:]}}}
	}
	out := []map[string]any{{"index": i, "id": call["id"], "type": "function",
		"function": map[string]any{"name": fn["name"], "arguments": ""}}}
	for _, p := range pieces(fn["arguments"].(string), 7) {
		out = append(out, map[string]any{"index": i, "function": map[string]any{"arguments": p}})
	}
	return out
}

// finish ends a stream that did not break: the finish chunk, the usage
// where the family sends it, and [DONE] where it sends one.
func (s *Server) finish(st *streamer, body, whole map[string]any, reason any) {
	usage := whole["usage"]
	last := st.chunk(map[string]any{}, reason)
	switch s.cfg.Family {
	case Gemini:
		last = st.chunk(map[string]any{}, "stop")
		usage = nil
	case LlamaCpp:
		last["usage"], usage = usage, nil
	case OpenRouter:
	default:
		if opts, _ := body["stream_options"].(map[string]any); opts["include_usage"] != true {
			usage = nil
		}
	}
	st.data(last)
	if usage != nil {
		u := map[string]any{}
		for k, v := range st.base {
			u[k] = v
		}
		u["choices"], u["usage"] = []any{}, usage
		st.data(u)
	}
	if s.cfg.Family != LlamaCpp {
		fmt.Fprint(st.w, "data: [DONE]\n\n")
		st.flush()
	}
}

// breakOff ends a stream halfway, the family's way.
func (s *Server) breakOff(st *streamer) {
	switch s.cfg.Family {
	case OpenAIReasoning, OpenAIChat, Anthropic, DeepSeek:
		st.data(map[string]any{"error": map[string]any{"message": "The server had an error while processing your request. Sorry about that!",
			"type": "server_error", "param": nil, "code": nil}})
	case OpenRouter:
		c := st.chunk(map[string]any{"content": ""}, "error")
		c["error"] = map[string]any{"code": 502, "message": "Provider disconnected unexpectedly"}
		st.data(c)
	case VLLM:
		st.data(map[string]any{"object": "error", "message": "The engine loop has stopped.", "type": "InternalServerError", "param": nil, "code": 500})
	}
	// The others just end the connection mid-answer.
}

// pieces splits s into pieces of about n bytes, never inside a character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8Start(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Chunks is the number of chunks the fake streamed, all answers together.
func (s *Server) Chunks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chunks
}
