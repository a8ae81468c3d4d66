package tool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// keepTail is how many of the newest messages a trimmed conversation keeps
// whole: the last few turns the agent is reasoning about.
const keepTail = 12

// outputReserve is the share of the window left for the reply.
const outputReserve = 0.15

// maxOverflowRetries bounds how often one call is trimmed harder and sent
// again after the server said the prompt was too long.
const maxOverflowRetries = 3

// window tracks one loop's context window: its size (configured, known, or
// learnt from an overflow error) and how the server's token counts compare
// with the local estimate.
type window struct {
	size  int
	ratio float64 // server tokens per estimated token
	last  int     // elisions in the last request, to report changes only

	prevSent, prevPrompt int  // the last call's estimate and the server's count
	warned               bool // the engineer was told the server cuts prompts
}

func (w *window) count(msgs ...llm.Message) int {
	r := w.ratio
	if r == 0 {
		r = 1
	}
	return int(float64(llm.EstimateTokens(msgs...)) * r)
}

// budget is the prompt budget in tokens; 0 means no trimming.
func (w *window) budget() int {
	if w.size <= 0 {
		return 0
	}
	return int(float64(w.size) * (1 - outputReserve))
}

// calibrate learns the ratio from a call the server counted. It reports
// a server that counted fewer tokens than for the previous, shorter
// request: one that cuts prompts to fit its own context (Ollama's num_ctx)
// without saying so.
func (w *window) calibrate(sent []llm.Message, promptTokens int) (cut bool) {
	est := llm.EstimateTokens(sent...)
	if est < 200 || promptTokens <= 0 {
		return false
	}
	cut = est > w.prevSent && promptTokens < w.prevPrompt && !w.warned
	w.prevSent, w.prevPrompt = est, promptTokens
	if cut {
		w.warned = true
		return true // the count is of a cut prompt: do not learn from it
	}
	w.ratio = min(max(float64(promptTokens)/float64(est), 0.5), 3)
	return false
}

// shrink lowers the window after an overflow: to what the server named,
// or to 70% of what was sent.
func (w *window) shrink(e *llm.CallError, sent int) {
	switch {
	case e != nil && e.Window > 0 && (w.size == 0 || e.Window < w.size):
		w.size = e.Window
	case w.size > 0:
		w.size = int(float64(min(w.size, sent)) * 0.7)
	default:
		w.size = int(float64(sent) * 0.7)
	}
}

// send makes one model call with the conversation fitted to the window,
// trimming harder and trying again when the server still finds it too long.
func (l *Loop) send(ctx context.Context, req llm.Request) (llm.Response, []llm.Message, error) {
	for try := 0; ; try++ {
		fit := llm.Fit(l.Messages, l.win.budget(), llm.Keep{Tail: keepTail, Memo: l.memo()}, l.win.count)
		l.reportTrim(fit)
		req.Messages = fit.Messages
		resp, err := l.cfg.Model.Complete(l.withNotices(ctx), req)
		var cerr *llm.CallError
		if !errors.Is(err, llm.ErrContextOverflow) || try >= maxOverflowRetries {
			return resp, fit.Messages, err
		}
		errors.As(err, &cerr)
		l.win.shrink(cerr, fit.Tokens)
		l.emit(event.Event{Type: event.Message, Text: fmt.Sprintf(
			"the conversation outgrew the model's context window: trimming it to %d tokens and trying again", l.win.budget())})
	}
}

func (l *Loop) memo() string {
	if l.cfg.Memo == nil {
		return ""
	}
	return l.cfg.Memo()
}

// reportTrim tells the engineer when the trimming changes.
func (l *Loop) reportTrim(f llm.Fitted) {
	n := f.Elided + f.Dropped
	if n == l.win.last {
		return
	}
	l.win.last = n
	if n == 0 {
		return
	}
	l.emit(event.Event{Type: event.Message, Text: fmt.Sprintf(
		"context: %d older outputs shortened, %d old turns left out to fit %d tokens", f.Elided, f.Dropped, l.win.budget())})
}

// withNotices routes the client's retry notices to the activity log.
func (l *Loop) withNotices(ctx context.Context) context.Context {
	return llm.WithNotices(ctx, func(n llm.Notice) {
		e := event.Event{Type: event.Message, Text: n.Text}
		if n.Kind == llm.NoticeRetry {
			e.Type, e.Retry = event.Retry, &event.RetryInfo{Attempt: n.Attempt, Status: n.Status,
				WaitSeconds: n.Wait.Seconds(), Until: time.Now().Add(n.Wait)}
		}
		l.emit(e)
	})
}
