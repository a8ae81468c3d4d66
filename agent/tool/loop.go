package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// Status is how a loop ended, in SWE-agent's exit-status vocabulary.
type Status string

const (
	Submitted      Status = "submitted"       // a Stop tool ran (submit, finish_search)
	ExitIterations Status = "exit_iterations" // the iteration limit
	ExitCost       Status = "exit_cost"       // the cost limit
	ExitTokens     Status = "exit_context"    // the token limit, or a context window too small for the task
	ExitFormat     Status = "exit_format"     // too many malformed tool calls in a row
	ExitNoTool     Status = "exit_no_tool"    // the model kept answering without calling a tool
	ExitError      Status = "exit_error"      // the model call failed
	Cancelled      Status = "cancelled"       // the run's context ended
)

// Config is what one agent's loop needs.
type Config struct {
	Agent         string // event.Localizer or event.Resolver
	Model         llm.Model
	Tools         *Registry
	Bus           *event.Bus  // nil: no events
	Gate          *event.Gate // nil: never paused
	MaxIterations int         // model calls; 0 means 20
	MaxTokens     int         // prompt+completion over the loop's life; 0: no limit
	MaxCost       float64     // dollars; 0: no limit (unpriced models are never stopped by cost)
	MaxRepairs    int         // malformed turns in a row before ExitFormat; 0 means 3
	Temperature   *float32
	// Dedupe, when set, answers a call identical to an earlier one with this
	// advice instead of running it again (the localization loop guard).
	Dedupe string
	// AfterCall sees every call that ran, with its output, in order.
	AfterCall func(ctx context.Context, call llm.ToolCall, out Output)
	// Guard, when set, is asked before each call and after the last; an
	// error stops the loop with ExitError (the workspace changed under the
	// agent, for one).
	Guard func(ctx context.Context) error
	// Watch, when set, is called as each call starts; the function it
	// returns is called as soon as the call returns, before anything else
	// reads the workspace. An error from it stops the loop as a Guard's
	// does (the workspace changed under the call, for one).
	Watch func(ctx context.Context, call llm.ToolCall) func(context.Context) error
	// Usage accumulates across loops of the same agent; nil: the loop's own.
	Usage *event.UsageInfo
	// Memo is what a conversation trimmed to fit the context window must
	// keep in view; nil: nothing beyond the opening messages.
	Memo func() string
	// Paging tells the model how to see the lines cut from the middle of
	// an output to fit the window (see llm.Keep); nil: a generic hint.
	Paging func(first, last int, numbered bool) string
	// Now is the clock for pacing streamed deltas; nil: time.Now.
	Now func() time.Time
}

// Result is how the loop ended.
type Result struct {
	Status     Status
	Iterations int
	Last       Output // the output of the Stop tool, if one ran
	Usage      event.UsageInfo
}

// Loop drives a model through tool calls until a Stop tool, a limit, or an
// unrecoverable error. Messages is the agent's own context window; it starts
// with the caller's system and user messages and can be carried into a
// later loop (the localization filter stages continue the search's context).
type Loop struct {
	cfg      Config
	Messages []llm.Message
	seen     map[string]int
	iter     int
	win      window
}

// NewLoop starts a loop on the given opening messages.
func NewLoop(cfg Config, messages ...llm.Message) *Loop {
	if cfg.MaxIterations == 0 {
		cfg.MaxIterations = 20
	}
	if cfg.MaxRepairs == 0 {
		cfg.MaxRepairs = 3
	}
	if cfg.Usage == nil {
		cfg.Usage = &event.UsageInfo{Priced: true}
	}
	return &Loop{cfg: cfg, Messages: messages, seen: map[string]int{}, win: window{size: llm.WindowOf(cfg.Model)}}
}

// Run runs the loop. The error is non-nil only for ExitError, Cancelled,
// and ExitTokens when the window cannot hold the task (a *WindowError).
func (l *Loop) Run(ctx context.Context) (Result, error) {
	repairs := 0
	for {
		if st, ok := l.limitReached(); ok {
			return l.result(st, Output{}), nil
		}
		l.deliverNotes()
		resp, err := l.complete(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return l.result(Cancelled, Output{}), ctx.Err()
			}
			var werr *WindowError
			if errors.As(err, &werr) {
				l.emit(event.Event{Type: event.Message, Text: werr.Error()})
				return l.result(ExitTokens, Output{}), err
			}
			l.emit(event.Event{Type: event.Error, Text: err.Error()})
			return l.result(ExitError, Output{}), err
		}
		msg := resp.Message
		l.Messages = append(l.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			repairs++
			if repairs > l.cfg.MaxRepairs {
				return l.result(ExitNoTool, Output{}), nil
			}
			l.Messages = append(l.Messages, llm.Message{Role: llm.User, Content: fmt.Sprintf(
				"Please continue by calling one of the tools (%s). Answer with a tool call, not prose.",
				strings.Join(l.cfg.Tools.Names(), ", "))})
			continue
		}
		malformed, stop, err := l.runCalls(ctx, msg)
		var gerr *GuardError
		if errors.As(err, &gerr) {
			l.emit(event.Event{Type: event.Error, Text: err.Error()})
			return l.result(ExitError, Output{}), err
		}
		if err != nil {
			return l.result(Cancelled, Output{}), err
		}
		if stop != nil {
			return l.result(Submitted, *stop), nil
		}
		if malformed {
			repairs++
			if repairs > l.cfg.MaxRepairs {
				return l.result(ExitFormat, Output{}), nil
			}
		} else {
			repairs = 0
		}
	}
}

// GuardError is a Guard's refusal to go on.
type GuardError struct{ Err error }

func (e *GuardError) Error() string { return e.Err.Error() }
func (e *GuardError) Unwrap() error { return e.Err }

func (l *Loop) guard(ctx context.Context) error {
	if l.cfg.Guard == nil {
		return nil
	}
	if err := l.cfg.Guard(ctx); err != nil {
		return &GuardError{Err: err}
	}
	return nil
}

func (l *Loop) limitReached() (Status, bool) {
	u := l.cfg.Usage
	switch {
	case l.iter >= l.cfg.MaxIterations:
		return ExitIterations, true
	case l.cfg.MaxTokens > 0 && u.PromptTokens+u.CompletionTokens >= l.cfg.MaxTokens:
		return ExitTokens, true
	case l.cfg.MaxCost > 0 && u.Priced && u.Cost >= l.cfg.MaxCost:
		return ExitCost, true
	}
	return "", false
}

// deliverNotes hands the engineer's notes to the model as a user turn.
func (l *Loop) deliverNotes() {
	for _, n := range l.cfg.Gate.NotesOrNil() {
		l.Messages = append(l.Messages, llm.Message{Role: llm.User, Content: "Note from the engineer watching this run: " + n})
		l.emit(event.Event{Type: event.Message, Text: "note delivered: " + n})
	}
}

func (l *Loop) complete(ctx context.Context) (llm.Response, error) {
	l.iter++
	l.emit(event.Event{Type: event.ModelCall})
	pump := &deltaPump{emit: l.emit, now: l.now}
	resp, err := l.send(ctx, llm.Request{Tools: l.cfg.Tools.Schemas(), Temperature: l.cfg.Temperature, OnDelta: pump.add})
	pump.flush()
	if err != nil {
		return resp, fmt.Errorf("%s model call %d: %w", l.cfg.Agent, l.iter, err)
	}
	u := l.cfg.Usage
	u.Calls++
	u.PromptTokens += resp.Usage.PromptTokens
	u.CompletionTokens += resp.Usage.CompletionTokens
	u.CachedTokens += resp.Usage.CachedTokens
	u.Cost += resp.Usage.Cost
	u.Priced = u.Priced && resp.Usage.Priced
	u.Context, u.Window = resp.Usage.PromptTokens+resp.Usage.CompletionTokens, l.win.size
	usage := *u
	l.emit(event.Event{Type: event.ModelReply, Text: resp.Message.Content, Usage: &usage})
	return resp, nil
}

// runCalls runs every call of one assistant turn. Each call gets its tool
// message, even those skipped after a Stop, so the conversation stays valid
// for providers that check it.
func (l *Loop) runCalls(ctx context.Context, msg llm.Message) (malformed bool, stop *Output, err error) {
	for _, c := range msg.ToolCalls {
		if stop != nil {
			l.answer(c, "not run: an earlier call in this turn ended the phase")
			continue
		}
		if err := l.cfg.Gate.Pass(ctx); err != nil {
			return malformed, nil, err
		}
		if err := l.guard(ctx); err != nil {
			return malformed, nil, err
		}
		out, bad, werr := l.runOne(ctx, c, msg.Content)
		if ctx.Err() != nil {
			return malformed, nil, ctx.Err()
		}
		if werr != nil {
			return malformed, nil, &GuardError{Err: werr}
		}
		malformed = malformed || bad
		if out.Stop {
			o := out
			stop = &o
		}
	}
	return malformed, stop, nil
}

// Rerun runs again calls of the last, interrupted turn, which is already in
// Messages, each answered in the conversation as any call is: a resumed run
// puts the questions they waited on to the engineer again.
func (l *Loop) Rerun(ctx context.Context, calls []llm.ToolCall) error {
	for _, c := range calls {
		if err := l.cfg.Gate.Pass(ctx); err != nil {
			return err
		}
		if _, _, werr := l.runOne(ctx, c, ""); werr != nil {
			return &GuardError{Err: werr}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (l *Loop) runOne(ctx context.Context, c llm.ToolCall, thought string) (Output, bool, error) {
	step := &event.ToolStep{CallID: c.ID, Name: c.Name, Arguments: c.Arguments, Thought: thought, Iteration: l.iter}
	end := func(context.Context) error { return nil }
	if l.cfg.Watch != nil {
		end = l.cfg.Watch(ctx, c) // before the call is shown: from then on a change may be the call's
	}
	l.emit(event.Event{Type: event.ToolCall, Tool: step})
	out, bad := l.execute(ctx, c)
	werr := end(ctx)
	l.answer(c, out.Text)
	done := *step
	done.Observation, done.Summary, done.Failed = out.Text, summary(out), out.Failed || bad
	l.emit(event.Event{Type: event.ToolResult, Tool: &done})
	if !bad && l.cfg.AfterCall != nil {
		l.cfg.AfterCall(ctx, c, out)
	}
	return out, bad, werr
}

func (l *Loop) execute(ctx context.Context, c llm.ToolCall) (Output, bool) {
	if l.cfg.Dedupe != "" {
		key := c.Name + " " + canonicalArgs(c.Arguments)
		if at, ok := l.seen[key]; ok {
			return Output{Text: fmt.Sprintf("Already seen: you made this exact call at step %d. %s", at, l.cfg.Dedupe), Failed: true}, false
		}
		l.seen[key] = l.iter
	}
	out, err := l.cfg.Tools.Call(ctx, c)
	var me *MalformedError
	switch {
	case errors.As(err, &me):
		return Output{Text: "Malformed tool call: " + me.Msg, Failed: true}, true
	case err != nil:
		return Output{Text: fmt.Sprintf("%s failed: %v", c.Name, err), Failed: true}, false
	}
	return out, false
}

func (l *Loop) answer(c llm.ToolCall, text string) {
	l.Messages = append(l.Messages, llm.Message{Role: llm.ToolRole, ToolCallID: c.ID, Name: c.Name, Content: text})
}

func (l *Loop) result(st Status, last Output) Result {
	return Result{Status: st, Iterations: l.iter, Last: last, Usage: *l.cfg.Usage}
}

func (l *Loop) now() time.Time {
	if l.cfg.Now != nil {
		return l.cfg.Now()
	}
	return time.Now()
}

func (l *Loop) emit(e event.Event) {
	if l.cfg.Bus == nil {
		return
	}
	e.Agent = l.cfg.Agent
	l.cfg.Bus.Emit(e)
}

func summary(o Output) string {
	if o.Summary != "" {
		return o.Summary
	}
	first, _, _ := strings.Cut(strings.TrimSpace(o.Text), "\n")
	if len(first) > 120 {
		first = first[:117] + "..."
	}
	return first
}

// canonicalArgs makes argument order and spacing irrelevant to the loop guard.
func canonicalArgs(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return strings.TrimSpace(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
