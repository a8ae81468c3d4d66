// Package llm hides the model provider behind one small interface: messages
// and tool schemas in, an assistant message with tool calls and token usage
// out. Implementations here: an OpenAI-compatible HTTP client and a
// scripted model that plays a transcript (the offline localizer, which
// needs the index, lives in agent/localize/heuristic). It imports nothing
// of ours.
package llm

import "context"

// Roles of a message.
const (
	System    = "system"
	User      = "user"
	Assistant = "assistant"
	ToolRole  = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // on tool results
	Name       string     `json:"name,omitempty"`         // tool name, on tool results
	// Reasoning is the model's own reasoning text where the provider returns
	// it (DeepSeek's reasoning_content); some providers require it back.
	Reasoning string `json:"reasoning,omitempty"`
	// Refusal is the model's refusal text, kept so a refusal is not mistaken
	// for an empty turn.
	Refusal string `json:"refusal,omitempty"`
}

// ToolCall is a function call the model asked for. Arguments is raw JSON as
// the model wrote it; it may be malformed, and the caller must cope.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Signature is an opaque token the provider attached to the call
	// (Gemini's thought signature) that must be sent back with it.
	Signature string `json:"signature,omitempty"`
}

// Tool is a function the model may call. Parameters is a JSON schema object.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  any    `json:"parameters"`
}

// Request is one model call.
type Request struct {
	Messages    []Message
	Tools       []Tool
	Temperature *float32 // nil: the provider's default
	MaxTokens   int      // 0: the provider's default
	// OnDelta, when set, receives the answer's text as it is written, on
	// the calling goroutine. The Response is what counts: deltas are only
	// for showing progress.
	OnDelta func(Delta)
}

// Usage is what one call cost.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens,omitempty"`    // prompt tokens served from the provider's cache
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"` // completion tokens spent reasoning
	Cost             float64 `json:"cost"`
	Priced           bool    `json:"priced"` // false when the model has no known price
	// Estimated: the server sent no usage (some local servers, Gemini's
	// streams) and the counts are the client's estimate.
	Estimated bool `json:"estimated,omitempty"`
}

// Response is the assistant's turn.
type Response struct {
	Message Message
	Usage   Usage
}

// Model is a chat model that can call tools.
type Model interface {
	// Name is the model's name as shown to the engineer and written to runs.
	Name() string
	Complete(ctx context.Context, req Request) (Response, error)
}

// Windowed is a Model that knows its context window in tokens.
type Windowed interface {
	ContextWindow() int
}

// WindowOf is m's context window, or 0 when unknown.
func WindowOf(m Model) int {
	if w, ok := m.(Windowed); ok {
		return w.ContextWindow()
	}
	return 0
}

// Pricer is a Model that knows whether its calls have a price.
type Pricer interface {
	Priced() bool
}

// IsPriced reports whether m's calls are priced; a model that does not say
// (the scripted and offline ones) costs nothing.
func IsPriced(m Model) bool {
	if p, ok := m.(Pricer); ok {
		return p.Priced()
	}
	return true
}

// offers reports whether a request's tools include the named one.
func offers(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
