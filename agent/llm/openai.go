package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultBaseURL is where requests go when no base URL is set.
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
	// ReasoningEffort is sent to reasoning models ("low", "medium",
	// "high"...); "" means DefaultReasoningEffort, "none" sends nothing.
	ReasoningEffort string
	ContextWindow   int               // tokens; 0: the family's known window, if any
	Headers         map[string]string // added to every request (OpenRouter's X-Title, a proxy's auth)
	Extra           map[string]any    // merged into the request body, e.g. {"options": {"num_ctx": 32768}}
	CacheControl    *bool             // mark cache breakpoints; nil: for Claude behind a router
	AzureAPIVersion string            // set: BaseURL is an Azure OpenAI resource and Model a deployment
	Price           *Price            // nil: the price table
	// NoStream asks for whole answers instead of streams, for a server
	// that streams badly.
	NoStream bool

	MaxAttempts    int           // total tries per call; 0 means DefaultMaxAttempts
	BackoffBase    time.Duration // first retry's pause before jitter; 0 means DefaultBackoffBase
	BackoffMax     time.Duration // cap on a computed pause; 0 means DefaultBackoffMax
	AttemptTimeout time.Duration // limit on one HTTP attempt; 0 means DefaultAttemptTimeout

	HTTPClient *http.Client // nil: a plain http.Client; tests point it at httptest
	Logger     *slog.Logger // nil: slog.Default()
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

	truncWarned     atomic.Bool // the engineer was told the server cuts prompts
	noStreamOptions atomic.Bool // the server refused stream_options

	mu                 sync.Mutex
	prevSent, prevRead int // the last call's estimate and the server's count
}

var _ Model = (*OpenAI)(nil)

// DefaultReasoningEffort is the paper's setting for reasoning models.
const DefaultReasoningEffort = "medium"

// Errors of NewOpenAI, for callers that explain them in their own terms.
var (
	ErrNoModelName = errors.New("no model named")
	ErrNoServer    = errors.New("no API key and no base URL")
)

// NewOpenAI checks the config and builds a client. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, ErrNoModelName
	}
	// Local servers (Ollama, llama.cpp, vLLM) take no key; OpenAI itself does.
	if cfg.APIKey == "" && cfg.BaseURL == "" {
		return nil, ErrNoServer
	}
	cfg = cfg.withDefaults()
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.AzureAPIVersion != "" {
		oc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		oc.APIVersion = cfg.AzureAPIVersion
		oc.AzureModelMapperFunc = func(model string) string { return model } // the name is the deployment
	}
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &recordingDoer{inner: cfg.HTTPClient}
	return &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc)}, nil
}

// Priced reports whether the model has a price, its own or the table's.
func (o *OpenAI) Priced() bool {
	if o.cfg.Price != nil {
		return true
	}
	_, ok := PriceFor(o.cfg.Model, nil)
	return ok
}

// ContextWindow is the model's context window in tokens, 0 when unknown.
func (o *OpenAI) ContextWindow() int {
	if o.cfg.ContextWindow > 0 {
		return o.cfg.ContextWindow
	}
	return KnownWindow(o.cfg.Model)
}

// Name is the model name the server is asked for.
func (o *OpenAI) Name() string { return o.cfg.Model }

// BaseURL is the server the client talks to, for display and run records.
func (o *OpenAI) BaseURL() string { return o.cfg.BaseURL }

// Complete sends one chat completion, streamed unless the config says
// otherwise (the text reaching req.OnDelta as it is written), retries
// transient failures, a stream cut mid-way among them, and returns the
// assistant's turn with its usage and cost. A streamed turn and a whole
// one come out the same.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	r, err := o.call(ctx, req, o.buildRequest(req))
	if err != nil {
		return Response{}, err
	}
	msg := r.msg
	if len(msg.ToolCalls) == 0 {
		msg.ToolCalls, msg.Content = ParseTextCalls(msg.Content, req.Tools)
	}
	assignCallIDs(msg.ToolCalls, req.Messages)
	usage := o.usage(ctx, req, msg, r.usage, r.extras)
	o.cfg.Logger.Debug("model call", "model", o.cfg.Model, "finish", r.finish, "streamed", !o.cfg.NoStream,
		"prompt_tokens", usage.PromptTokens, "cached_tokens", usage.CachedTokens,
		"completion_tokens", usage.CompletionTokens, "tool_calls", len(msg.ToolCalls))
	return Response{Message: msg, Usage: usage}, nil
}

// call makes the call whole or streamed, with retries.
func (o *OpenAI) call(ctx context.Context, req Request, creq openai.ChatCompletionRequest) (turnReply, error) {
	patch := o.requestPatch(req.Messages)
	if o.cfg.NoStream {
		return o.callWhole(ctx, creq, patch)
	}
	r, err := o.callStreamed(ctx, req, creq, patch)
	var cerr *CallError
	if errors.As(err, &cerr) && cerr.Status == http.StatusBadRequest && strings.Contains(cerr.msg, "stream_options") && !o.noStreamOptions.Load() {
		// An older server that refuses stream_options: ask without it.
		o.noStreamOptions.Store(true)
		return o.callStreamed(ctx, req, creq, patch)
	}
	return r, err
}

func (o *OpenAI) callWhole(ctx context.Context, creq openai.ChatCompletionRequest, patch patchRequest) (turnReply, error) {
	var resp openai.ChatCompletionResponse
	var extras wireExtras
	err := o.withRetry(ctx, func(ctx context.Context) (*attemptInfo, error) {
		var info *attemptInfo
		var err error
		resp, info, err = o.attempt(ctx, creq, patch)
		extras = info.extras
		return info, err
	})
	if err != nil {
		return turnReply{}, err
	}
	if len(resp.Choices) == 0 {
		return turnReply{}, o.newError(0, "malformed response from %s: no choices", o.cfg.BaseURL)
	}
	c := resp.Choices[0]
	return turnReply{msg: fromOpenAIMessage(c.Message, extras), usage: resp.Usage, extras: extras, finish: string(c.FinishReason)}, nil
}

func (o *OpenAI) callStreamed(ctx context.Context, req Request, creq openai.ChatCompletionRequest, patch patchRequest) (turnReply, error) {
	creq.Stream = true
	if !o.noStreamOptions.Load() {
		creq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	sink := &deltaSink{f: req.OnDelta, gate: len(req.Tools) > 0}
	var r turnReply
	err := o.withRetry(ctx, func(ctx context.Context) (*attemptInfo, error) {
		sink.restart()
		var info *attemptInfo
		var err error
		r, info, err = o.streamAttempt(ctx, creq, patch, sink)
		if err == nil {
			sink.flush()
		}
		return info, err
	})
	return r, err
}

// usage reads the call's usage, estimates it when the server sent none, and
// prices it.
func (o *OpenAI) usage(ctx context.Context, req Request, msg Message, u openai.Usage, ex wireExtras) Usage {
	usage := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: ex.cachedTokens}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		usage.CachedTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		usage.ReasoningTokens = d.ReasoningTokens
	}
	sent := EstimateTokens(req.Messages...) + EstimateTools(req.Tools)
	if usage.PromptTokens == 0 && usage.CompletionTokens == 0 {
		// Some servers report no usage (Gemini's streams, some local
		// servers); an estimate beats a blank meter.
		usage.PromptTokens, usage.CompletionTokens, usage.Estimated = sent, EstimateTokens(msg), true
	} else if o.looksCut(sent, usage.PromptTokens) && o.cutsSilently(ex.server) {
		o.warnTruncated(ctx, usage.PromptTokens, sent)
	}
	var overrides map[string]Price
	if o.cfg.Price != nil {
		overrides = map[string]Price{strings.ToLower(o.cfg.Model): *o.cfg.Price}
	}
	usage.Cost, usage.Priced = PriceOf(o.cfg.Model, usage, overrides)
	return usage
}

// looksCut reports whether the server read less than it was sent: far
// less than the estimate, or fewer tokens than for the previous, shorter
// request.
func (o *OpenAI) looksCut(sent, read int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	shrank := sent > o.prevSent && read < o.prevRead
	o.prevSent, o.prevRead = sent, read
	return shrank || sent > 2048 && float64(read) < 0.85*float64(sent)
}

// cutsSilently reports whether the server is one that cuts a prompt
// longer than its context without an error: Ollama (known by its answers
// or its port) and the llama.cpp server. The others refuse such a prompt,
// so a low count from them says nothing about truncation.
func (o *OpenAI) cutsSilently(server string) bool {
	base := strings.ToLower(o.cfg.BaseURL)
	return server != "" || strings.Contains(base, ":11434") || strings.Contains(base, "ollama")
}

// warnTruncated says once per client, and once per run (see WithOnce),
// that the server read fewer prompt tokens than were sent.
func (o *OpenAI) warnTruncated(ctx context.Context, read, sent int) {
	if !o.truncWarned.CompareAndSwap(false, true) {
		return
	}
	text := fmt.Sprintf("%s read %d prompt tokens of about %d sent: the server is likely cutting the prompt to fit its context "+
		"(for Ollama, raise num_ctx; for the llama.cpp server, its context size)", o.cfg.BaseURL, read, sent)
	o.cfg.Logger.Warn(text)
	notify(ctx, Notice{Kind: NoticeTruncated, Text: text})
}

// buildRequest maps our request onto the wire format, whole; call asks
// for a stream.
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
	if Reasoning(o.cfg.Model) {
		// These models reject max_tokens and any temperature but the default.
		creq.MaxCompletionTokens = maxTokens
		if effort := o.cfg.ReasoningEffort; effort != "none" {
			creq.ReasoningEffort = cmp.Or(effort, DefaultReasoningEffort)
		}
		return creq
	}
	// max_tokens is deprecated at OpenAI, but Ollama and the llama.cpp
	// server read only it, and OpenAI's non-reasoning models still take it.
	//lint:ignore SA1019 kept for compatible servers, see above
	creq.MaxTokens = maxTokens
	if temp != nil && !DefaultTemperatureOnly(o.cfg.Model) {
		creq.Temperature = wireTemperature(*temp)
	}
	if effort := o.cfg.ReasoningEffort; effort != "" && effort != "none" {
		creq.ReasoningEffort = effort // DeepSeek, Gemini and vLLM take it too
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

// emptyTurn stands in for an assistant turn with no text and no calls:
// OpenAI and Anthropic reject {"role": "assistant"} with nothing in it.
const emptyTurn = "(no reply)"

func toOpenAIMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
			ReasoningContent: m.Reasoning}
		if m.Role == ToolRole && om.Content == "" {
			// The API rejects a tool message without content.
			om.Content = "(no output)"
		}
		if m.Role == Assistant && om.Content == "" && len(m.ToolCalls) == 0 {
			om.Content = cmp.Or(m.Refusal, emptyTurn)
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

func fromOpenAIMessage(m openai.ChatCompletionMessage, ex wireExtras) Message {
	out := Message{Role: Assistant, Content: m.Content, Refusal: m.Refusal,
		Reasoning: cmp.Or(m.ReasoningContent, ex.reasoning)}
	for i, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name,
			Arguments: tc.Function.Arguments, Signature: ex.signatures[i]})
	}
	return out
}

// assignCallIDs gives every call an id unique in the conversation: some
// local servers send none, or the same one each turn, and a tool result
// must answer exactly one call.
func assignCallIDs(calls []ToolCall, history []Message) {
	used := map[string]bool{}
	for _, m := range history {
		for _, tc := range m.ToolCalls {
			used[tc.ID] = true
		}
	}
	for i := range calls {
		id := calls[i].ID
		for n := 1; id == "" || used[id]; n++ {
			id = fmt.Sprintf("call_%d_%d", len(history), i+n)
		}
		calls[i].ID, used[id] = id, true
	}
}

// EstimateTools estimates the tokens the tool schemas add to a prompt.
func EstimateTools(tools []Tool) int {
	if len(tools) == 0 {
		return 0
	}
	b, _ := json.Marshal(tools)
	return len(b) / 4
}

// EstimateTokens guesses a token count as a quarter of the characters, the
// usual rule of thumb for English and code.
func EstimateTokens(msgs ...Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Name) + len(m.Reasoning)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return (n + 3) / 4
}
