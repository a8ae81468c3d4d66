package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxRetryAfter caps a server's Retry-After so a bad header cannot park a
// run for hours; the caller's context can always cut it shorter.
const maxRetryAfter = 2 * time.Minute

// attemptInfo is what the transport saw of one attempt's response. go-openai
// drops the headers of failed responses, so recordingDoer keeps them here.
type attemptInfo struct {
	status       int
	retryAfter   string
	retryAfterMs string
	patch        patchRequest      // set before the attempt: the request's additions
	headers      map[string]string // set before the attempt: extra headers
	extras       wireExtras        // filled from a successful response
	upstream     string            // a router's wrapped upstream error (OpenRouter's metadata.raw)
	errBody      string            // a failed response's body, for what the decoded error drops
	stream       bool              // set before the attempt: a streaming call
	body         io.ReadCloser     // a streaming call's body, taken aside for our own reader
	contentType  string            // a streaming call's content type
}

type attemptKey struct{}

// recordingDoer applies the attempt's request patch and headers, notes the
// status and Retry-After of each response, and normalises a successful
// body (see wire.go), all through the attemptInfo in the request's context.
type recordingDoer struct{ inner *http.Client }

func (d *recordingDoer) Do(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(attemptKey{}).(*attemptInfo)
	if info == nil {
		return d.inner.Do(req)
	}
	if err := patchBody(req, info.patch); err != nil {
		return nil, err
	}
	for k, v := range info.headers {
		req.Header.Set(k, v)
	}
	resp, err := d.inner.Do(req)
	if resp == nil {
		return resp, err
	}
	info.status = resp.StatusCode
	info.retryAfter = resp.Header.Get("Retry-After")
	info.retryAfterMs = resp.Header.Get("Retry-After-Ms")
	if resp.StatusCode >= 400 {
		raw, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		info.upstream, info.errBody = upstreamError(raw), string(raw)
		resp.Body = io.NopCloser(bytes.NewReader(raw))
	}
	if resp.StatusCode == http.StatusOK && info.stream {
		info.body, info.contentType = resp.Body, resp.Header.Get("Content-Type")
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, err
	}
	if resp.StatusCode == http.StatusOK {
		raw, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		var body []byte
		body, info.extras = normalizeResponse(raw)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
	}
	return resp, err
}

// withRetry runs attempts until one succeeds, a failure is permanent, the
// attempts run out, or ctx ends. try makes one attempt and keeps its result.
func (o *OpenAI) withRetry(ctx context.Context, try func(ctx context.Context) (*attemptInfo, error)) error {
	for attempt := 1; ; attempt++ {
		info, err := try(ctx)
		if err == nil {
			return nil
		}
		cerr := o.classify(ctx, info, err)
		cerr.Attempts = attempt
		if !cerr.Retryable {
			return cerr
		}
		// A server that let one attempt time out usually hangs again: one
		// more try, not MaxAttempts times the (long) attempt time-out.
		if attempt >= o.cfg.MaxAttempts || (errors.Is(err, errAttemptTimeout) && attempt >= 2) {
			cerr.msg += " (gave up after " + strconv.Itoa(attempt) + " attempts)"
			return cerr
		}
		wait := o.backoff(attempt, info)
		o.cfg.Logger.Warn("model call failed; retrying",
			"model", o.cfg.Model, "attempt", attempt, "wait", wait, "err", cerr.msg)
		notify(ctx, Notice{Kind: NoticeRetry, Attempt: attempt, Wait: wait, Status: cerr.Status,
			Text: retryText(wait, cerr)})
		if err := sleep(ctx, wait); err != nil {
			stopped := o.cancelled(ctx)
			stopped.Attempts = attempt
			return stopped
		}
	}
}

// retryText is the activity line for a retry: "retrying in 20s (429): ...".
func retryText(wait time.Duration, e *CallError) string {
	why := "connection"
	if e.Status != 0 {
		why = strconv.Itoa(e.Status)
	}
	return fmt.Sprintf("retrying in %s (%s): %s", wait.Round(100*time.Millisecond), why, clip(e.msg, 120))
}

func (o *OpenAI) attempt(ctx context.Context, creq openai.ChatCompletionRequest, patch patchRequest) (openai.ChatCompletionResponse, *attemptInfo, error) {
	info := &attemptInfo{patch: patch, headers: o.cfg.Headers}
	actx, cancel := context.WithTimeout(ctx, o.cfg.AttemptTimeout)
	defer cancel()
	actx = context.WithValue(actx, attemptKey{}, info)
	resp, err := o.client.CreateChatCompletion(actx, creq)
	if err != nil && actx.Err() != nil && ctx.Err() == nil {
		err = errAttemptTimeout
	}
	return resp, info, err
}

var errAttemptTimeout = errors.New("attempt timed out")

func (o *OpenAI) cancelled(ctx context.Context) *CallError {
	e := o.newError(0, "model call to %s stopped: %v", o.cfg.BaseURL, ctx.Err())
	e.cause = ctx.Err()
	return e
}

// classify turns a failed attempt into a scrubbed CallError and decides
// whether it is worth another try.
func (o *OpenAI) classify(ctx context.Context, info *attemptInfo, err error) *CallError {
	if ctx.Err() != nil {
		return o.cancelled(ctx)
	}
	if errors.Is(err, errAttemptTimeout) {
		e := o.newError(0, "no answer from %s within %s", o.cfg.BaseURL, o.cfg.AttemptTimeout)
		e.Retryable = true
		return e
	}
	if errors.Is(err, errStreamCut) {
		e := o.newError(0, "the answer from %s broke off mid-stream: %v", o.cfg.BaseURL, err)
		e.Retryable = true
		return e
	}
	var se *streamError
	if errors.As(err, &se) {
		return o.midStreamError(se)
	}
	var me *errMalformed
	if errors.As(err, &me) {
		return o.newError(http.StatusOK, "malformed response from %s: %s", o.cfg.BaseURL, me.detail)
	}
	status, detail, code := errorDetail(err)
	if status == 0 {
		status = info.status
	}
	if info.upstream != "" {
		// A router's own message ("Provider returned error") says nothing;
		// the provider's error under it says what went wrong.
		detail = info.upstream
	}
	if status == 0 {
		return o.transportError(err)
	}
	e := o.statusError(status, detail, code)
	if e.overflow {
		// The numbers may sit in fields the decoded error drops (llama.cpp's
		// n_ctx and n_prompt_tokens).
		all := detail + "\n" + info.errBody
		e.Window, e.Counted, e.Completion = overflowWindow(all), overflowCount(all), overflowCompletion(all)
	}
	return e
}

// midStreamError is an error the server sent inside a stream that had
// begun well: an overflow is an overflow, anything else broke the answer
// off and is tried again like a dropped connection.
func (o *OpenAI) midStreamError(se *streamError) *CallError {
	if overflowError(http.StatusBadRequest, se.msg, se.code) {
		e := o.statusError(http.StatusBadRequest, se.msg, se.code)
		e.Window, e.Counted, e.Completion = overflowWindow(se.msg), overflowCount(se.msg), overflowCompletion(se.msg)
		return e
	}
	e := o.newError(0, "the answer from %s broke off mid-stream: %s", o.cfg.BaseURL, clip(se.msg, 300))
	e.Retryable = true
	return e
}

// errorDetail pulls the status, the server's message and its error code
// from go-openai's error types. A body that is not OpenAI's error shape
// ({"error": "text"} from some local servers) comes as a RequestError
// wrapping an empty APIError; its raw body is the message then.
func errorDetail(err error) (status int, detail, code string) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		c, _ := apiErr.Code.(string)
		return apiErr.HTTPStatusCode, apiErr.Message, c
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, string(reqErr.Body), ""
	}
	return 0, err.Error(), ""
}

func (o *OpenAI) statusError(status int, detail, code string) *CallError {
	base, model, said := o.cfg.BaseURL, o.cfg.Model, clip(detail, 300)
	if said == "" {
		said = http.StatusText(status)
	}
	var e *CallError
	switch {
	case status == http.StatusOK:
		e = o.newError(status, "malformed response from %s: %s", base, said)
	case status == http.StatusUnauthorized:
		e = o.newError(status, "%s rejected the API key: check the key for this server (it said: %s)", base, said)
	case status == http.StatusNotFound:
		e = o.newError(status, "model %s not found at %s: check the model name and the base URL (server said: %s)", model, base, said)
	case overflowError(status, detail, code):
		e = o.newError(status, "the conversation does not fit %s's context window (%s said: %s)", model, base, said)
		e.overflow = true
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		e = o.newError(status, "the account behind the API key has no quota left at %s: %s", base, said)
	case status == http.StatusTooManyRequests:
		e = o.newError(status, "rate limited by %s (429): %s", base, said)
		e.Retryable = true
	case status >= 500 || status == http.StatusRequestTimeout:
		e = o.newError(status, "server error from %s (%d): %s", base, status, said)
		e.Retryable = true
	default:
		e = o.newError(status, "%s rejected the request (%d): %s", base, status, said)
	}
	return e
}

// transportError covers failures with no HTTP response. A refused
// connection is permanent (nothing listens); resets and time-outs are not.
func (o *OpenAI) transportError(err error) *CallError {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return o.newError(0, "cannot reach %s: connection refused (is the server running? check the base URL)", o.cfg.BaseURL)
	}
	var he interface{ Timeout() bool }
	transient := errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "EOF") ||
		(errors.As(err, &he) && he.Timeout())
	if !transient {
		return o.newError(0, "model call to %s failed: %v", o.cfg.BaseURL, err)
	}
	e := o.newError(0, "connection to %s failed: %v", o.cfg.BaseURL, err)
	e.Retryable = true
	return e
}

// backoff is the pause before the next attempt: the server's Retry-After
// when it gave one, else exponential from BackoffBase with equal jitter, so
// parallel agents hitting the same limit do not retry in lock step.
func (o *OpenAI) backoff(attempt int, info *attemptInfo) time.Duration {
	if d, ok := retryAfter(info, time.Now()); ok {
		return d
	}
	d := o.cfg.BackoffBase
	for i := 1; i < attempt && d < o.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, o.cfg.BackoffMax)
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads Retry-After-Ms (sent by OpenAI) or Retry-After, in
// seconds or as an HTTP date.
func retryAfter(info *attemptInfo, now time.Time) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(info.retryAfterMs), 64); err == nil {
		if d, ok := seconds(ms / 1000); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(info.retryAfter)
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(secs)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// seconds converts a server-sent number of seconds, capped, in float space
// so a huge value cannot overflow into a negative Duration.
func seconds(secs float64) (time.Duration, bool) {
	if math.IsNaN(secs) || secs < 0 {
		return 0, false
	}
	if secs >= maxRetryAfter.Seconds() {
		return maxRetryAfter, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
