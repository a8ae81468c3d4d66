// Package providertest serves fake chat-completion endpoints that behave
// like the providers the agents meet: each family rejects what its real
// server rejects, with that server's own error bodies, and answers in its
// own shapes (usage details, text-form tool calls, object arguments, empty
// ids, thought signatures, rate limits, context overflows). The replies
// come from the agents' scripts, so whole runs can be played against it.
package providertest

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

// Family names a provider behaviour.
type Family string

// The families.
const (
	OpenAIReasoning Family = "openai-reasoning" // gpt-5.x, o-series
	OpenAIChat      Family = "openai-chat"      // gpt-4o, gpt-4.1
	Anthropic       Family = "anthropic"        // Claude through Anthropic's OpenAI compatibility
	OpenRouter      Family = "openrouter"       // a router: provider/model names, upstream errors wrapped
	Ollama          Family = "ollama"           // a model without a tool-call parser; silent truncation
	LlamaCpp        Family = "llamacpp"         // object arguments, empty ids
	VLLM            Family = "vllm"             // top-level error objects; prompt plus max_tokens must fit
	DeepSeek        Family = "deepseek"         // reasoning_content that must come back
	Gemini          Family = "gemini"           // thought signatures that must come back; errors in a list
)

// Families is every family, for table-driven suites.
var Families = []Family{OpenAIReasoning, OpenAIChat, Anthropic, OpenRouter, Ollama, LlamaCpp, VLLM, DeepSeek, Gemini}

// Config shapes one fake server.
type Config struct {
	Family Family
	// Scripts answer each agent: "localize" and "resolve" (an agent is told
	// apart by the tools it offers: bash means resolution).
	Scripts map[string]*llm.Script
	// Window is the context window in tokens; 0: the family's default.
	Window int
	// RateLimitFirst answers the first request with a 429 and Retry-After.
	RateLimitFirst bool
	// Key, when set, is the API key the server demands.
	Key string
	// BreakStream breaks the first streamed answer off halfway, as the
	// family's servers do when something fails mid-answer; the turn is
	// answered again on the next request.
	BreakStream bool
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	cfg Config

	mu       sync.Mutex
	next     map[string]int
	calls    int
	broken   bool             // BreakStream has broken a stream
	chunks   int              // chunks streamed
	prev     string           // the previous request's messages, for cache hits
	Requests []map[string]any // the requests answered, in order
	Rejected []string         // the error bodies sent back, in order
	// Received is every request that could be decoded, answered or not,
	// with the status it got.
	Received []Exchange
}

// Exchange is one request the fake read and how it answered.
type Exchange struct {
	Body   map[string]any
	Bytes  int // the size of the request body
	Status int
	Broken bool // the answer was a stream broken off halfway
}

// New starts a fake server; it stops with the test.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Window == 0 {
		cfg.Window = defaultWindow(cfg.Family)
	}
	s := &Server{cfg: cfg, next: map[string]int{}}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func defaultWindow(f Family) int {
	switch f {
	case Ollama:
		return 4096 // Ollama's default num_ctx
	case LlamaCpp, VLLM:
		return 16384
	}
	return 128000
}

// BaseURL is what a client is pointed at.
func (s *Server) BaseURL() string {
	if s.cfg.Family == Gemini {
		return s.URL + "/v1beta/openai"
	}
	return s.URL + "/v1"
}

// Model is a model name of the family, as its users write it.
func (s *Server) Model() string {
	return map[Family]string{
		OpenAIReasoning: "gpt-5.2", OpenAIChat: "gpt-4o", Anthropic: "claude-sonnet-4-5",
		OpenRouter: "openai/gpt-5.2", Ollama: "qwen2.5-coder:7b", LlamaCpp: "qwen3-coder-30b",
		VLLM: "Qwen/Qwen3-Coder-30B-A3B-Instruct", DeepSeek: "deepseek-reasoner", Gemini: "gemini-3-pro-preview",
	}[s.cfg.Family]
}

// ErrorCount is how many requests were rejected.
func (s *Server) ErrorCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.Rejected)
}

// fail is a rejection: a status and the provider's body.
type fail struct {
	status int
	body   any
	header map[string]string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, f := s.check(r)
	if f == nil {
		var reply map[string]any
		reply, f = s.answer(body)
		if f == nil {
			s.record(body, http.StatusOK)
			s.Requests = append(s.Requests, body)
			if !streaming(body) {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(reply)
				return
			}
			if s.writeStream(w, body, reply) {
				s.Received[len(s.Received)-1].Broken = true
				s.next[agentOf(body)]-- // the turn was not heard: answer it again
			}
			return
		}
	}
	b, _ := json.Marshal(f.body)
	s.record(body, f.status)
	s.Rejected = append(s.Rejected, string(b))
	for k, v := range f.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write(b)
}

func (s *Server) record(body map[string]any, status int) {
	if body == nil {
		return
	}
	raw, _ := json.Marshal(body)
	s.Received = append(s.Received, Exchange{Body: body, Bytes: len(raw), Status: status})
}

// check decodes the request and applies the family's rules.
func (s *Server) check(r *http.Request) (map[string]any, *fail) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		return nil, &fail{http.StatusNotFound, s.errorBody(fmt.Sprintf("no route %s", r.URL.Path), "not_found", "", nil), nil}
	}
	if s.cfg.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.Key {
		return nil, &fail{http.StatusUnauthorized, s.errorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key", nil), nil}
	}
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return nil, &fail{http.StatusBadRequest, s.errorBody("We could not parse the JSON body of your request.", "invalid_request_error", "", nil), nil}
	}
	if s.cfg.RateLimitFirst && s.calls == 0 && len(s.Rejected) == 0 {
		return body, s.rateLimited()
	}
	if f := s.checkParams(body); f != nil {
		return body, f
	}
	if f := s.checkStream(body); f != nil {
		return body, f
	}
	if f := s.checkMessages(body); f != nil {
		return body, f
	}
	return body, s.checkWindow(body)
}

func (s *Server) rateLimited() *fail {
	msg := "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20ms."
	return &fail{http.StatusTooManyRequests, s.errorBody(msg, "requests", "rate_limit_exceeded", nil),
		map[string]string{"Retry-After-Ms": "20", "Retry-After": "1"}}
}
