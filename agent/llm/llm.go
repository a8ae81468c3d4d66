// Package llm hides the model provider behind one small interface: messages
// and tool schemas in, an assistant message with tool calls and token usage
// out. Implementations: an OpenAI-compatible HTTP client, a scripted model
// that plays a transcript, and an offline heuristic localizer.
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
}

// ToolCall is a function call the model asked for. Arguments is raw JSON as
// the model wrote it; it may be malformed, and the caller must cope.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
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
}

// Usage is what one call cost.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost"`
	Priced           bool    `json:"priced"` // false when the model has no known price
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

// offers reports whether a request's tools include the named one.
func offers(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
