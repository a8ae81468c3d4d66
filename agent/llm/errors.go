package llm

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for errors.Is on a *CallError.
var (
	ErrUnauthorized  = errors.New("unauthorized")
	ErrModelNotFound = errors.New("model not found")
	ErrRateLimited   = errors.New("rate limited")
	// ErrContextOverflow: the prompt did not fit the model's context window.
	ErrContextOverflow = errors.New("context window exceeded")
)

// CallError is a failed model call. Its text never holds the API key: every
// message, including text the server sent back, is scrubbed when built.
type CallError struct {
	Status    int  // HTTP status of the last attempt; 0 when none came back
	Attempts  int  // how many tries were made
	Retryable bool // the last failure was transient (429, 5xx, time-out)
	// Window is the context window the server named in an overflow error,
	// 0 when it named none.
	Window int
	// Counted is the prompt size in tokens the server counted in an
	// overflow error, and Completion the share it reserved for the reply;
	// 0 when it did not say.
	Counted, Completion int
	overflow            bool
	msg                 string
	cause               error // only context errors, so errors.Is(err, context.Canceled) works
}

func (e *CallError) Error() string { return e.msg }

// Unwrap exposes a context error, never the provider's raw error, whose text
// is not scrubbed.
func (e *CallError) Unwrap() error { return e.cause }

// Is matches the sentinels by status.
func (e *CallError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == 401
	case ErrModelNotFound:
		return e.Status == 404
	case ErrRateLimited:
		return e.Status == 429
	case ErrContextOverflow:
		return e.overflow
	}
	return false
}

const redacted = "[redacted]"

// scrub removes the key from s. Keys shorter than 8 characters are not
// searched for: replacing "a" everywhere would destroy the message and such
// a key is not a secret worth the damage.
func scrub(s, key string) string {
	key = strings.TrimSpace(key)
	if len(key) < 8 {
		return s
	}
	return strings.ReplaceAll(s, key, redacted)
}

// newError formats a scrubbed CallError.
func (o *OpenAI) newError(status int, format string, args ...any) *CallError {
	return &CallError{Status: status, msg: scrub(fmt.Sprintf(format, args...), o.cfg.APIKey)}
}

// clip shortens server text quoted in an error.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
