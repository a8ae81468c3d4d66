package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Errors a Scripted model wraps, for errors.Is.
var (
	ErrDiverged        = errors.New("diverged from the script")
	ErrScriptExhausted = errors.New("script exhausted")
)

// Scripted is a Model that plays a Script's turns in order against the real
// tools: the choices are scripted, everything the tools compute is real. It
// serves one conversation; concurrent calls are serialized.
//
// Its usage is estimated from message lengths (a quarter of the characters)
// so the meters move, and it is priced at $0 (Priced true): a script costs
// nothing, and "unpriced" would wrongly suggest a hidden bill.
type Scripted struct {
	script *Script
	delay  time.Duration

	mu    sync.Mutex
	next  int // index of the turn to play next
	calls int // tool call ids handed out so far
}

var _ Model = (*Scripted)(nil)

// ScriptedOption tunes a Scripted model.
type ScriptedOption func(*Scripted)

// WithDelay pauses d before each turn so a demo plays at a watchable pace.
// The pause ends early when the call's context does.
func WithDelay(d time.Duration) ScriptedOption {
	return func(s *Scripted) { s.delay = max(d, 0) }
}

// NewScripted plays s from its first turn.
func NewScripted(s *Script, opts ...ScriptedOption) *Scripted {
	m := &Scripted{script: s}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Name is the script's model name, or "scripted".
func (m *Scripted) Name() string {
	if m.script.Model != "" {
		return m.script.Model
	}
	return "scripted"
}

// Played is how many turns have been answered.
func (m *Scripted) Played() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// Remaining is how many turns are left to play.
func (m *Scripted) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.script.Turns) - m.next
}

// Complete answers with the next turn. A turn is consumed only when it is
// answered, so a call cut short by ctx can be repeated.
func (m *Scripted) Complete(ctx context.Context, req Request) (Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	if m.next >= len(m.script.Turns) {
		return Response{}, fmt.Errorf("%w after %d turns (%s): the agent asked for another turn", ErrScriptExhausted, len(m.script.Turns), m.Name())
	}
	m.takeBranch(req)
	n, turn := m.next+1, m.script.Turns[m.next]
	if err := checkTurn(n, turn, req); err != nil {
		return Response{}, err
	}
	if err := m.pace(ctx, turn.Content, req.OnDelta); err != nil {
		return Response{}, err
	}
	msg, err := m.message(turn)
	if err != nil {
		return Response{}, fmt.Errorf("script turn %d: %w", n, err)
	}
	m.next++
	usage := Usage{
		PromptTokens:     EstimateTokens(req.Messages...),
		CompletionTokens: EstimateTokens(msg),
		Priced:           true,
	}
	return Response{Message: msg, Usage: usage}, nil
}

// pace spends the turn's delay as a model would: thinking for half of it,
// then writing text word by word to onDelta over the other half, so a
// demo shows the thought as it is written.
func (m *Scripted) pace(ctx context.Context, text string, onDelta func(Delta)) error {
	words := strings.SplitAfter(text, " ")
	if onDelta == nil || m.delay <= 0 || strings.TrimSpace(text) == "" {
		return sleep(ctx, m.delay)
	}
	if err := sleep(ctx, m.delay/2); err != nil {
		return err
	}
	each := m.delay / 2 / time.Duration(len(words))
	for _, w := range words {
		onDelta(Delta{Content: w})
		if err := sleep(ctx, each); err != nil {
			return err
		}
	}
	return nil
}

// takeBranch replaces the rest of the script with the branch of the next
// turn that matches what the tools answered, if one does.
func (m *Scripted) takeBranch(req Request) {
	turn := m.script.Turns[m.next]
	if len(turn.Branches) == 0 {
		return
	}
	obs := lastObservation(req.Messages)
	if obs == "" {
		// The first turn answers the task itself (the locations, as the
		// engineer left them).
		obs = lastUserText(req.Messages)
	}
	for _, b := range turn.Branches {
		if b.When != "" && strings.Contains(obs, b.When) && len(b.Turns) > 0 {
			rest := append([]Turn(nil), m.script.Turns[:m.next]...)
			m.script = &Script{Model: m.script.Model, Turns: append(rest, b.Turns...)}
			return
		}
	}
}

func (m *Scripted) message(turn Turn) (Message, error) {
	msg := Message{Role: Assistant, Content: turn.Content}
	ids := m.calls
	for _, c := range turn.ToolCalls {
		args, err := c.argumentString()
		if err != nil {
			return Message{}, err
		}
		ids++
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: fmt.Sprintf("call_%d", ids), Name: c.Name, Arguments: args})
	}
	m.calls = ids
	return msg, nil
}

// checkTurn reports where the run left the script: a tool result that lacks
// what the turn expects, or a call to a tool the agent does not offer.
func checkTurn(n int, turn Turn, req Request) error {
	if turn.Expect != "" {
		obs := lastObservation(req.Messages)
		if !strings.Contains(obs, turn.Expect) {
			return fmt.Errorf("script turn %d expects the last tool result to contain %q, but it reads %q (%w)",
				n, turn.Expect, clip(obs, 200), ErrDiverged)
		}
	}
	for _, c := range turn.ToolCalls {
		if !offers(req.Tools, c.Name) {
			return fmt.Errorf("script turn %d calls tool %s, which this agent does not offer (%w)", n, c.Name, ErrDiverged)
		}
	}
	return nil
}

// lastObservation joins the tool results after the last assistant message.
func lastObservation(msgs []Message) string {
	var parts []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != Assistant; i-- {
		if msgs[i].Role == ToolRole {
			parts = append(parts, msgs[i].Content)
		}
	}
	slices.Reverse(parts) // collected backwards; restore the order the tools answered in
	return strings.Join(parts, "\n")
}

// lastUserText is the content of the last user message.
func lastUserText(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == User {
			return msgs[i].Content
		}
	}
	return ""
}
