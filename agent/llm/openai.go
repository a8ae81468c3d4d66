package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultBaseURL is where requests go when OPENAI_BASE_URL is unset.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults for the retry policy; zero fields of OpenAIConfig take these.
const (
	DefaultMaxAttempts    = 5
	DefaultBackoffBase    = 500 * time.Millisecond
	DefaultBackoffMax     = 30 * time.Second
	DefaultAttemptTimeout = 5 * time.Minute // a CPU-bound local server can be slow
)

// OpenAIConfig configures an OpenAI-compatible chat-completions client.
// Any server that speaks the protocol works: OpenAI, vLLM, Ollama, the
// llama.cpp server, a LiteLLM proxy.
type OpenAIConfig struct {
	APIKey      string
	BaseURL     string // "" means DefaultBaseURL
	Model       string
	Temperature *float32 // used when a Request sets none; nil: the server's default
	MaxTokens   int      // used when a Request sets none; 0: the server's default

	MaxAttempts    int           // total tries per call; 0 means DefaultMaxAttempts
	BackoffBase    time.Duration // first retry's pause before jitter; 0 means DefaultBackoffBase
	BackoffMax     time.Duration // cap on a computed pause; 0 means DefaultBackoffMax
	AttemptTimeout time.Duration // limit on one HTTP attempt; 0 means DefaultAttemptTimeout

	HTTPClient *http.Client // nil: a plain http.Client; tests point it at httptest
	Logger     *slog.Logger // nil: slog.Default()
}

// ConfigFromEnv builds a config from OPENAI_API_KEY and OPENAI_BASE_URL. The
// model comes from the argument (the --model flag) or, when that is empty,
// from SWE_ADEPT_MODEL.
func ConfigFromEnv(model string) OpenAIConfig { return ConfigFrom(os.Getenv, model) }

// ConfigFrom is ConfigFromEnv reading the variables through getenv, so a
// caller with its own view of the environment (a test's map) gets the same
// config, retry limits included.
func ConfigFrom(getenv func(string) string, model string) OpenAIConfig {
	if model == "" {
		model = getenv("SWE_ADEPT_MODEL")
	}
	return OpenAIConfig{
		APIKey:         strings.TrimSpace(getenv("OPENAI_API_KEY")),
		BaseURL:        strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		Model:          strings.TrimSpace(model),
		AttemptTimeout: envDuration(getenv, "SWE_ADEPT_MODEL_TIMEOUT"),
		MaxAttempts:    envInt(getenv, "SWE_ADEPT_MODEL_ATTEMPTS"),
	}
}

// envDuration reads a Go duration ("90s", "5m") from the environment; an
// unset or unreadable value means the default (and the latter is logged).
func envDuration(getenv func(string) string, name string) time.Duration {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		slog.Warn("ignoring a malformed duration; using the default", "var", name, "value", v)
		return 0
	}
	return d
}

func envInt(getenv func(string) string, name string) int {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		slog.Warn("ignoring a malformed number; using the default", "var", name, "value", v)
		return 0
	}
	return n
}

// String hides the key so a config printed with %v or %+v cannot leak it.
func (c OpenAIConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("OpenAIConfig{model=%q base=%q key=%s attempts=%d}", c.Model, c.baseURL(), key, c.MaxAttempts)
}

// GoString hides the key from %#v as well.
func (c OpenAIConfig) GoString() string { return c.String() }

// LogValue hides the key from structured logs.
func (c OpenAIConfig) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("model", c.Model),
		slog.String("base_url", c.baseURL()),
		slog.Bool("key_set", c.APIKey != ""),
	)
}

func (c OpenAIConfig) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

// withDefaults fills the zero fields of the retry policy.
func (c OpenAIConfig) withDefaults() OpenAIConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = DefaultBackoffBase
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = DefaultAttemptTimeout
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.BaseURL = c.baseURL()
	return c
}

// OpenAI is a Model served by an OpenAI-compatible chat-completions API.
// It is safe for concurrent use.
type OpenAI struct {
	cfg    OpenAIConfig
	client *openai.Client
}

var _ Model = (*OpenAI)(nil)

// NewOpenAI checks the config and builds a client. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, errors.New("no model named: pass --model or set SWE_ADEPT_MODEL")
	}
	// Local servers (Ollama, llama.cpp, vLLM) take no key; OpenAI itself does.
	if cfg.APIKey == "" && cfg.BaseURL == "" {
		return nil, errors.New("OPENAI_API_KEY is not set (set it, or point OPENAI_BASE_URL at a local server)")
	}
	cfg = cfg.withDefaults()
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &recordingDoer{inner: cfg.HTTPClient}
	return &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc)}, nil
}

// Name is the model name the server is asked for.
func (o *OpenAI) Name() string { return o.cfg.Model }

// BaseURL is the server the client talks to, for display and run records.
func (o *OpenAI) BaseURL() string { return o.cfg.BaseURL }

// Complete sends one non-streaming chat completion, retrying transient
// failures, and returns the assistant's turn with its usage and cost.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	creq := o.buildRequest(req)
	resp, err := o.withRetry(ctx, creq)
	if err != nil {
		return Response{}, err
	}
	if len(resp.Choices) == 0 {
		return Response{}, o.newError(0, "malformed response from %s: no choices", o.cfg.BaseURL)
	}
	msg := fromOpenAIMessage(resp.Choices[0].Message)
	usage := Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	if usage.PromptTokens == 0 && usage.CompletionTokens == 0 {
		// Some local servers report no usage; an estimate beats a blank meter.
		usage.PromptTokens = estimateTokens(req.Messages...)
		usage.CompletionTokens = estimateTokens(msg)
	}
	usage.Cost, usage.Priced = PriceOf(o.cfg.Model, usage.PromptTokens, usage.CompletionTokens)
	o.cfg.Logger.Debug("model call", "model", o.cfg.Model, "finish", resp.Choices[0].FinishReason,
		"prompt_tokens", usage.PromptTokens, "completion_tokens", usage.CompletionTokens,
		"tool_calls", len(msg.ToolCalls))
	return Response{Message: msg, Usage: usage}, nil
}

// buildRequest maps our request onto the wire format. Streaming stays off.
func (o *OpenAI) buildRequest(req Request) openai.ChatCompletionRequest {
	creq := openai.ChatCompletionRequest{
		Model:    o.cfg.Model,
		Messages: toOpenAIMessages(req.Messages),
	}
	if len(req.Tools) > 0 {
		creq.Tools = toOpenAITools(req.Tools)
		creq.ToolChoice = "auto"
	}
	temp, maxTokens := req.Temperature, req.MaxTokens
	if temp == nil {
		temp = o.cfg.Temperature
	}
	if maxTokens == 0 {
		maxTokens = o.cfg.MaxTokens
	}
	if reasoningModel(o.cfg.Model) {
		// These models reject max_tokens and any temperature but the default.
		creq.MaxCompletionTokens = maxTokens
		return creq
	}
	// max_tokens is deprecated at OpenAI, but Ollama and the llama.cpp
	// server read only it, and OpenAI's non-reasoning models still take it.
	//lint:ignore SA1019 kept for compatible servers, see above
	creq.MaxTokens = maxTokens
	if temp != nil {
		creq.Temperature = wireTemperature(*temp)
	}
	return creq
}

// wireTemperature works around go-openai dropping a zero temperature
// (omitempty), which would silently give the server's default instead.
func wireTemperature(t float32) float32 {
	if t == 0 {
		return smallestTemperature
	}
	return t
}

const smallestTemperature = 1e-9

func reasoningModel(name string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func toOpenAIMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == ToolRole && om.Content == "" {
			// The API rejects a tool message without content.
			om.Content = "(no output)"
		}
		if m.Role != ToolRole {
			om.Name = m.Name // strict servers refuse "name" on tool messages
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		out = append(out, om)
	}
	return out
}

func toOpenAITools(tools []Tool) []openai.Tool {
	out := make([]openai.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		out = append(out, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out
}

func fromOpenAIMessage(m openai.ChatCompletionMessage) Message {
	out := Message{Role: Assistant, Content: m.Content}
	for i, tc := range m.ToolCalls {
		id := tc.ID
		if id == "" {
			// Some local servers omit ids; tool results still need one to answer.
			id = fmt.Sprintf("call_%d", i+1)
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

// estimateTokens guesses a token count as a quarter of the characters, the
// usual rule of thumb for English and code.
func estimateTokens(msgs ...Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Name)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return (n + 3) / 4
}
