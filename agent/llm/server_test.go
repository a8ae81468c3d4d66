package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef-SECRET"

// reply is one canned HTTP answer from the fake chat-completions server.
type reply struct {
	status int
	header map[string]string
	body   string
	block  bool // hold the request until the client gives up
	sse    bool // body is an event stream
	stall  bool // after the body, hold the stream open until the client gives up
}

// chatServer speaks enough of the chat-completions protocol for the client:
// it answers POST /v1/chat/completions with its replies in order (the last
// one repeats) and records each request body.
type chatServer struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
	headers []http.Header
	arrived chan int // request number, sent as each request arrives
	logs    lockedBuffer
}

// lockedBuffer collects the client's logs so tests can check them for the key.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newChatServer(t testing.TB, replies ...reply) *chatServer {
	t.Helper()
	s := &chatServer{t: t, replies: replies, arrived: make(chan int, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no route","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	rep := s.replies[min(n, len(s.replies)-1)]
	s.mu.Unlock()
	select {
	case s.arrived <- n + 1:
	default: // nobody is counting (benchmarks); never block the handler
	}
	if rep.block {
		<-r.Context().Done()
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
	if rep.stall {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func (s *chatServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func (s *chatServer) header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// body decodes request i as generic JSON.
func (s *chatServer) body(i int) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(s.bodies[i], &m); err != nil {
		s.t.Fatalf("request %d is not JSON: %v\n%s", i, err, s.bodies[i])
	}
	return m
}

// client builds an OpenAI client pointed at the server with a fast retry
// policy, so tests exercise retries without waiting.
func (s *chatServer) client(t testing.TB, model string, attempts int) *OpenAI {
	t.Helper()
	m, err := NewOpenAI(OpenAIConfig{
		APIKey:         testKey,
		BaseURL:        s.URL + "/v1",
		Model:          model,
		MaxAttempts:    attempts,
		BackoffBase:    time.Millisecond,
		BackoffMax:     2 * time.Millisecond,
		AttemptTimeout: time.Minute,
		HTTPClient:     s.Client(),
		Logger:         slog.New(slog.NewTextHandler(&s.logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if logs := s.logs.String(); strings.Contains(logs, testKey) {
			t.Errorf("logs show the API key:\n%s", logs)
		}
	})
	return m
}

func completion(message string, prompt, completion int) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
"choices":[{"index":0,"finish_reason":"stop","message":` + message + `}],
"usage":{"prompt_tokens":` + itoa(prompt) + `,"completion_tokens":` + itoa(completion) + `,"total_tokens":` + itoa(prompt+completion) + `}}`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func ok(body string) reply { return reply{status: 200, body: body} }

func apiError(status int, msg, code string) reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "error", "code": code}})
	return reply{status: status, body: string(b)}
}
