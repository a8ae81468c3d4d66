package llm

import (
	"context"
	"sync"
	"time"
)

// Notice is something the engineer should see while a call is under way:
// a retry and the wait before it, or a server that seems to have cut the
// prompt short.
type Notice struct {
	Kind    string        // NoticeRetry or NoticeTruncated
	Attempt int           // the attempt that failed (retries)
	Wait    time.Duration // the pause before the next attempt (retries)
	Status  int           // HTTP status of the failure; 0 without one
	Text    string        // one line for the activity log
}

// Kinds of Notice.
const (
	NoticeRetry     = "retry"
	NoticeTruncated = "truncated"
)

type noticeKey struct{}

// WithNotices returns a context whose model calls report notices to f.
// f must not block: it runs on the calling goroutine.
func WithNotices(ctx context.Context, f func(Notice)) context.Context {
	return context.WithValue(ctx, noticeKey{}, f)
}

type onceKey struct{}

// WithOnce returns a context under which a notice of a once-only kind
// (NoticeTruncated) is reported at most once, whichever model and call
// raise it: a run says it once, not once per agent.
func WithOnce(ctx context.Context) context.Context {
	return context.WithValue(ctx, onceKey{}, &sync.Map{})
}

func notify(ctx context.Context, n Notice) {
	if seen, ok := ctx.Value(onceKey{}).(*sync.Map); ok && n.Kind == NoticeTruncated {
		if _, said := seen.LoadOrStore(n.Kind, true); said {
			return
		}
	}
	if f, ok := ctx.Value(noticeKey{}).(func(Notice)); ok && f != nil {
		f(n)
	}
}
