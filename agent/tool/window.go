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
// whole while older turns can still make room: the last few turns the
// agent is reasoning about.
const keepTail = 12

// outputReserve is the share of the window left for the reply.
const outputReserve = 0.15

// maxOverflowRetries bounds how often one call is trimmed harder and sent
// again after the server said the prompt was too long.
const maxOverflowRetries = 3

// window tracks one loop's context window: its size (configured, known, or
// named by the server, which is the truth once it has spoken), a ceiling
// learnt from overflows that named no window, and how the server's token
// counts compare with the local estimate.
type window struct {
	size    int     // tokens
	named   bool    // the server named size in an overflow error
	ceiling int     // prompt tokens an overflow taught us to stay under; 0: none
	reserve int     // tokens the server counts for the reply; 0: outputReserve of size
	ratio   float64 // server tokens per estimated token
	last    int     // trims in the last request, to report changes only

	prevSent, prevPrompt int // the last call's estimate and the server's count
}

// scale turns an estimate into the server's tokens.
func (w *window) scale(est int) int {
	r := w.ratio
	if r == 0 {
		r = 1
	}
	return int(float64(est) * r)
}

func (w *window) count(msgs ...llm.Message) int { return w.scale(llm.EstimateTokens(msgs...)) }

// budget is the prompt budget in the server's tokens, tool schemas
// included; 0 means no trimming.
func (w *window) budget() int {
	b := 0
	if w.size > 0 {
		b = w.size - max(int(float64(w.size)*outputReserve), w.reserve)
	}
	if w.ceiling > 0 && (b == 0 || w.ceiling < b) {
		b = w.ceiling
	}
	return b
}

// calibrate learns the ratio from a call the server counted. A count
// lower than for the previous, shorter request is of a prompt the server
// cut to fit its own context (Ollama's num_ctx): it teaches nothing.
func (w *window) calibrate(est, promptTokens int) {
	if est < 200 || promptTokens <= 0 {
		return
	}
	cut := est > w.prevSent && promptTokens < w.prevPrompt
	w.prevSent, w.prevPrompt = est, promptTokens
	if !cut {
		w.setRatio(promptTokens, est)
	}
}

func (w *window) setRatio(server, est int) {
	if server > 0 && est > 0 {
		w.ratio = min(max(float64(server)/float64(est), 0.5), 3)
	}
}

// learn takes what an overflow error says: the window is the server's
// word from now on, its count of what was sent recalibrates the estimate
// at once, and with neither the next request aims at 70% of this one.
func (w *window) learn(e *llm.CallError, sentEst int) {
	if e == nil {
		e = &llm.CallError{}
	}
	if e.Window > 0 {
		w.size, w.named = e.Window, true
	}
	w.setRatio(e.Counted, sentEst)
	if e.Completion > 0 {
		w.reserve = e.Completion
	}
	if e.Window == 0 {
		sent := w.scale(sentEst)
		if e.Counted > 0 {
			sent = e.Counted
		}
		w.ceiling = int(float64(sent) * 0.7)
	}
}

// WindowError is a request the model's context window cannot hold, however
// it is trimmed: the agent's opening messages (system prompt, task, tool
// descriptions) and a stub of its newest turn alone are too large. The
// loop ends with ExitTokens; the message says what to change.
type WindowError struct {
	Model  string
	Window int  // tokens; 0 when neither known nor named
	Named  bool // the server named Window
	Need   int  // about how many tokens the smallest request takes
}

func (e *WindowError) Error() string {
	var what string
	switch {
	case e.Window > 0 && e.Named:
		what = fmt.Sprintf("%s's context window (%d tokens, as its server said) cannot hold the task", e.Model, e.Window)
	case e.Window > 0:
		what = fmt.Sprintf("%s's context window (%d tokens, as configured or known) cannot hold the task", e.Model, e.Window)
	default:
		what = fmt.Sprintf("%s's server kept refusing the conversation as too long for the model's context window, which it does not name", e.Model)
	}
	return fmt.Sprintf("%s: the system prompt, the issue and the tool descriptions alone take about %d tokens. "+
		"Give the agent a larger window: set context_window (or --context-window) to the model's real window; "+
		"for Ollama raise num_ctx (--num-ctx 32768); or choose a model with a larger window", what, e.Need)
}

// send makes one model call with the conversation fitted to the window.
// When the server still finds it too long, it learns from the error and
// sends again, each time a strictly smaller request; a request that cannot
// be made small enough ends in a *WindowError.
func (l *Loop) send(ctx context.Context, req llm.Request) (llm.Response, error) {
	tools := llm.EstimateTools(req.Tools)
	prev := 0 // the estimate of the request the server refused
	for try := 0; ; try++ {
		fit, est, err := l.fit(tools, prev)
		if err != nil {
			return llm.Response{}, err
		}
		req.Messages = fit.Messages
		resp, err := l.cfg.Model.Complete(l.withNotices(ctx), req)
		if !errors.Is(err, llm.ErrContextOverflow) {
			if err == nil && !resp.Usage.Estimated {
				l.win.calibrate(est, resp.Usage.PromptTokens)
			}
			return resp, err
		}
		if try >= maxOverflowRetries {
			return resp, l.windowError(tools)
		}
		var cerr *llm.CallError
		errors.As(err, &cerr)
		l.win.learn(cerr, est)
		prev = est
		l.emit(event.Event{Type: event.Message, Text: fmt.Sprintf(
			"the conversation outgrew the model's context window: trimming it to %d tokens and trying again", l.win.budget())})
	}
}

// fit trims the conversation to the window. After a refused request of
// prev estimated tokens, it trims until the new one is smaller.
func (l *Loop) fit(tools, prev int) (llm.Fitted, int, error) {
	keep := llm.Keep{Tail: keepTail, Memo: l.memo(), Paging: l.cfg.Paging}
	for {
		budget := l.win.budget()
		msgBudget := 0
		if budget > 0 {
			msgBudget = max(budget-l.win.scale(tools), 1)
		}
		fit := llm.Fit(l.Messages, msgBudget, keep, l.win.count)
		est := llm.EstimateTokens(fit.Messages...) + tools
		if fit.Over > 0 {
			return fit, est, l.windowError(tools)
		}
		if prev == 0 || est < prev {
			l.reportTrim(fit)
			return fit, est, nil
		}
		// Still not smaller than what was refused: lower the ceiling below it.
		l.win.ceiling = l.win.scale(prev) * 9 / 10
		prev = est
	}
}

// windowError says the window cannot hold the opening messages and the
// tool schemas (of tools estimated tokens), with their size for the advice.
func (l *Loop) windowError(tools int) *WindowError {
	n := tools
	for _, m := range l.Messages {
		if m.Role == llm.Assistant {
			break
		}
		n += llm.EstimateTokens(m)
	}
	return &WindowError{Model: l.cfg.Model.Name(), Window: l.win.size, Named: l.win.named, Need: l.win.scale(n)}
}

func (l *Loop) memo() string {
	if l.cfg.Memo == nil {
		return ""
	}
	return l.cfg.Memo()
}

// reportTrim tells the engineer when the trimming changes.
func (l *Loop) reportTrim(f llm.Fitted) {
	n := f.Elided + f.Dropped + f.Cut
	if n == l.win.last {
		return
	}
	l.win.last = n
	if n == 0 {
		return
	}
	text := fmt.Sprintf("context: %d older outputs shortened, %d old turns left out", f.Elided, f.Dropped)
	if f.Cut > 0 {
		text += fmt.Sprintf(", %d recent outputs cut in the middle", f.Cut)
	}
	l.emit(event.Event{Type: event.Message, Text: fmt.Sprintf("%s to fit %d tokens", text, l.win.budget())})
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
