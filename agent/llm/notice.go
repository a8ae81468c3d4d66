package llm

import (
	"context"
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

func notify(ctx context.Context, n Notice) {
	if f, ok := ctx.Value(noticeKey{}).(func(Notice)); ok && f != nil {
		f(n)
	}
}
