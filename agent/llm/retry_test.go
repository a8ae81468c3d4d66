package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const plain = `{"role":"assistant","content":"fine"}`

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name     string
		replies  []reply
		attempts int
		wantReqs int
		wantErr  []string // substrings; none means success
		is       error
	}{
		{
			name:     "429 then success",
			replies:  []reply{withHeader(apiError(429, "slow down", "rate_limit_exceeded"), "Retry-After", "0"), ok(completion(plain, 5, 1))},
			attempts: 5, wantReqs: 2,
		},
		{
			name:     "429 with Retry-After-Ms then success",
			replies:  []reply{withHeader(apiError(429, "slow down", ""), "Retry-After-Ms", "1"), ok(completion(plain, 5, 1))},
			attempts: 5, wantReqs: 2,
		},
		{
			name:     "503 with a past HTTP date then success",
			replies:  []reply{withHeader(reply{status: 503, body: "<html>busy</html>"}, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"), ok(completion(plain, 5, 1))},
			attempts: 5, wantReqs: 2,
		},
		{
			name:     "500s exhaust the attempts",
			replies:  []reply{apiError(500, "internal failure", "")},
			attempts: 3, wantReqs: 3,
			wantErr: []string{"server error", "(500)", "internal failure", "gave up after 3 attempts"},
		},
		{
			name:     "429s exhaust the attempts",
			replies:  []reply{withHeader(apiError(429, "slow down", ""), "Retry-After", "0")},
			attempts: 2, wantReqs: 2,
			wantErr: []string{"rate limited", "gave up after 2 attempts"},
			is:      ErrRateLimited,
		},
		{
			name:     "no quota is not retried",
			replies:  []reply{apiError(429, "You exceeded your current quota", "insufficient_quota")},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"no quota left"},
		},
		{
			name:     "400 is not retried",
			replies:  []reply{apiError(400, "'messages' must contain the word 'json'", "invalid_request_error")},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"rejected the request (400)", "must contain the word"},
		},
		{
			name:     "an overflow is not retried and says so",
			replies:  []reply{apiError(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.", "context_length_exceeded")},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"does not fit gpt-9's context window", "8192"},
		},
		{
			name:     "401 says the key was refused",
			replies:  []reply{apiError(401, "Incorrect API key provided: "+testKey, "invalid_api_key")},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"rejected the API key: check the key", redacted},
			is:      ErrUnauthorized,
		},
		{
			name:     "404 names the model and base URL",
			replies:  []reply{apiError(404, "The model `gpt-9` does not exist", "model_not_found")},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"model gpt-9 not found at http://127.0.0.1:", "/v1: check the model name and the base URL"},
			is:      ErrModelNotFound,
		},
		{
			name:     "404 from a server with a plain error string",
			replies:  []reply{{status: 404, body: `{"error":"model 'gpt-9' not found, try pulling it first"}`}},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"model gpt-9 not found at", "try pulling it first"},
			is:      ErrModelNotFound,
		},
		{
			name:     "error without a message",
			replies:  []reply{{status: 403}},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"rejected the request (403): Forbidden"},
		},
		{
			name:     "malformed body",
			replies:  []reply{ok(`{"choices": [{"message": {"content": "cut off`)},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"malformed response from"},
		},
		{
			name:     "no choices",
			replies:  []reply{ok(`{"id":"x","choices":[]}`)},
			attempts: 5, wantReqs: 1,
			wantErr: []string{"malformed response from", "no choices"},
		},
		{
			name:     "error body echoing the key",
			replies:  []reply{{status: 502, body: "upstream said Bearer " + testKey}},
			attempts: 2, wantReqs: 2,
			wantErr: []string{"server error", "(502)", "Bearer " + redacted},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, tc.replies...)
			resp, err := srv.client(t, "gpt-9", tc.attempts).Complete(context.Background(), conversation())
			if got := srv.requests(); got != tc.wantReqs {
				t.Errorf("requests = %d, want %d", got, tc.wantReqs)
			}
			if len(tc.wantErr) == 0 {
				if err != nil || resp.Message.Content != "fine" {
					t.Fatalf("Complete = %+v, %v", resp, err)
				}
				return
			}
			checkCallError(t, err, tc.wantErr, tc.is)
		})
	}
}

func withHeader(r reply, k, v string) reply {
	r.header = map[string]string{k: v}
	return r
}

// checkCallError asserts the error's text and kind, and that the key never
// shows, directly or through the error chain.
func checkCallError(t *testing.T, err error, want []string, is error) {
	t.Helper()
	if err == nil {
		t.Fatal("Complete succeeded, want an error")
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Errorf("error shows the API key: %v", e)
		}
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("errors.Is(%v, %v) = false", err, is)
	}
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Errorf("error is %T, want *CallError", err)
	}
}

// TestOpenAICancel cuts a call that the server never answers, both in
// flight and during a backoff pause. Without prompt cancellation these
// tests hang until the suite's timeout.
func TestOpenAICancel(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
	}{
		{"in flight", reply{block: true}},
		{"during backoff", withHeader(apiError(429, "slow down", ""), "Retry-After", "3600")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, tc.reply)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-srv.arrived
				cancel()
			}()
			_, err := srv.client(t, "gpt-4o", 5).Complete(ctx, conversation())
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n := srv.requests(); n != 1 {
				t.Errorf("requests = %d, want 1 (no retry after cancel)", n)
			}
			checkCallError(t, err, []string{"stopped"}, context.Canceled)
		})
	}
}

func TestOpenAICallerDeadline(t *testing.T) {
	srv := newChatServer(t, reply{block: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := srv.client(t, "gpt-4o", 5).Complete(ctx, conversation())
	checkCallError(t, err, []string{"stopped", "deadline exceeded"}, context.DeadlineExceeded)
	if n := srv.requests(); n > 1 {
		t.Errorf("requests = %d, want at most 1 (the caller's deadline is not retried)", n)
	}
}

func TestOpenAIAttemptTimeout(t *testing.T) {
	srv := newChatServer(t, reply{block: true})
	m := srv.client(t, "gpt-4o", 5)
	m.cfg.AttemptTimeout = 20 * time.Millisecond
	_, err := m.Complete(context.Background(), conversation())
	checkCallError(t, err, []string{"no answer from", "gave up after 2 attempts"}, nil)
	if n := srv.requests(); n != 2 {
		t.Errorf("requests = %d, want 2: a hanging server gets one more try, not five", n)
	}
}

func TestOpenAIConnectionRefused(t *testing.T) {
	srv := newChatServer(t, ok(completion(plain, 1, 1)))
	m := srv.client(t, "gpt-4o", 5)
	srv.Close()
	_, err := m.Complete(context.Background(), conversation())
	checkCallError(t, err, []string{"cannot reach", "connection refused"}, nil)
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name      string
		info      attemptInfo
		want      time.Duration
		wantFound bool
	}{
		{"absent", attemptInfo{}, 0, false},
		{"seconds", attemptInfo{retryAfter: "7"}, 7 * time.Second, true},
		{"fractional seconds", attemptInfo{retryAfter: "0.25"}, 250 * time.Millisecond, true},
		{"zero", attemptInfo{retryAfter: "0"}, 0, true},
		{"milliseconds win", attemptInfo{retryAfter: "7", retryAfterMs: "120"}, 120 * time.Millisecond, true},
		{"http date", attemptInfo{retryAfter: now.Add(9 * time.Second).Format(http.TimeFormat)}, 9 * time.Second, true},
		{"past http date", attemptInfo{retryAfter: now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"capped", attemptInfo{retryAfter: "86400"}, maxRetryAfter, true},
		{"negative", attemptInfo{retryAfter: "-3"}, 0, false},
		{"garbage", attemptInfo{retryAfter: "soon"}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, found := retryAfter(&tc.info, now)
			if got != tc.want || found != tc.wantFound {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, found, tc.want, tc.wantFound)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	o := &OpenAI{cfg: OpenAIConfig{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}}
	tests := []struct {
		attempt int
		full    time.Duration
	}{
		{1, 100 * time.Millisecond},
		{2, 200 * time.Millisecond},
		{3, 400 * time.Millisecond},
		{4, 800 * time.Millisecond},
		{5, time.Second},
		{30, time.Second},
	}
	for _, tc := range tests {
		for range 50 {
			d := o.backoff(tc.attempt, &attemptInfo{})
			if d < tc.full/2 || d > tc.full {
				t.Fatalf("attempt %d: pause %v outside [%v, %v]", tc.attempt, d, tc.full/2, tc.full)
			}
		}
	}
}

func TestScrub(t *testing.T) {
	tests := []struct{ s, key, want string }{
		{"key " + testKey + " and " + testKey, testKey, "key [redacted] and [redacted]"},
		{"nothing here", testKey, "nothing here"},
		{"key abc stays", "abc", "key abc stays"},
		{"no key at all", "", "no key at all"},
	}
	for _, tc := range tests {
		if got := scrub(tc.s, tc.key); got != tc.want {
			t.Errorf("scrub(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// FuzzRetryAfter: whatever a server sends, the pause is within bounds.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "7", "1.5", "-1", "1e308", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", ""} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, after, afterMs string) {
		d, found := retryAfter(&attemptInfo{retryAfter: after, retryAfterMs: afterMs}, now)
		if d < 0 || d > maxRetryAfter || (!found && d != 0) {
			t.Fatalf("retryAfter(%q, %q) = %v, %v", after, afterMs, d, found)
		}
	})
}

func TestOpenAIConcurrentCalls(t *testing.T) {
	srv := newChatServer(t, ok(completion(plain, 10, 2)))
	m := srv.client(t, "gpt-4o", 1)
	var meter Meter
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			resp, err := m.Complete(context.Background(), conversation())
			meter.Add(resp.Usage)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := meter.Totals(); got.Calls != 8 || got.Tokens() != 96 || !got.Priced {
		t.Errorf("totals = %+v", got)
	}
}
