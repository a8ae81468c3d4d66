package models

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// Heuristic is the model name that picks the offline localizer.
const Heuristic = "heuristic"

// NoServerNotice is the line shown when localization falls back to the
// offline localizer because no model server is configured.
const NoServerNotice = "no API key and no base URL: using the offline heuristic localizer"

// Errors of the builders; callers explain them in their own terms (flags,
// a batch spec).
var (
	ErrNoServer    = errors.New("no model server for the resolution agent: no API key and no base URL")
	ErrNoModelName = errors.New("no model named for the resolution agent")
)

// ResolutionModel builds the resolution agent's model: its script, or the
// OpenAI-compatible client.
func (s Settings) ResolutionModel() (llm.Model, error) {
	a := s.For(Resolution)
	if a.Script != "" {
		sc, err := LoadScript(a.Script, "resolve", "resolution")
		if err != nil {
			return nil, err
		}
		return llm.NewScripted(sc, llm.WithDelay(s.ScriptDelay)), nil
	}
	if !s.hasServer(a) {
		return nil, ErrNoServer
	}
	if a.Model == "" {
		return nil, ErrNoModelName
	}
	return s.client(a)
}

// LocalizationModel builds the localization agent's model: its script; the
// offline localizer when asked for or when no server is configured; or the
// OpenAI-compatible client. notice, when not empty, tells the engineer why
// the offline localizer was picked. ix is needed only by that localizer;
// searcher may be nil.
func (s Settings) LocalizationModel(ix *index.Index, searcher *search.Searcher) (m llm.Model, notice string, err error) {
	a := s.For(Localization)
	if a.Script != "" {
		sc, err := LoadScript(a.Script, "localize", "localization")
		if err != nil {
			return nil, "", err
		}
		return llm.NewScripted(sc, llm.WithDelay(s.ScriptDelay)), "", nil
	}
	asked := strings.EqualFold(a.Model, Heuristic)
	if asked || !s.hasServer(a) {
		if ix == nil {
			return nil, "", errors.New("the heuristic localizer needs an index")
		}
		if searcher == nil {
			searcher = search.NewSearcher(ix)
		}
		if !asked {
			notice = NoServerNotice
		}
		return heuristic.New(ix, searcher), notice, nil
	}
	if a.Model == "" {
		return nil, "", errors.New("no model named for the localization agent")
	}
	m, err = s.client(a)
	return m, "", err
}

// Check reports settings that cannot build the resolution agent's model,
// without building it.
func (s Settings) Check() error {
	a := s.For(Resolution)
	if a.Script != "" {
		if _, err := os.Stat(a.Script); err != nil {
			return fmt.Errorf("resolution script: %w", err)
		}
		return nil
	}
	switch {
	case !s.hasServer(a):
		return ErrNoServer
	case a.Model == "":
		return ErrNoModelName
	}
	return nil
}

// UsesServer reports whether the localization agent would call a model
// server (rather than a script or the offline localizer).
func (s Settings) UsesServer() bool {
	a := s.For(Localization)
	return a.Script == "" && !strings.EqualFold(a.Model, Heuristic) && s.hasServer(a)
}

func (s Settings) getenv(name string) string {
	if s.Getenv == nil {
		return os.Getenv(name)
	}
	return s.Getenv(name)
}

func (s Settings) key(a Agent) string {
	name := a.APIKeyEnv
	if name == "" {
		name = DefaultKeyEnv
	}
	return strings.TrimSpace(s.getenv(name))
}

// hasServer: local servers (Ollama, llama.cpp, vLLM) take no key, OpenAI
// itself does.
func (s Settings) hasServer(a Agent) bool {
	return s.key(a) != "" || strings.TrimSpace(a.BaseURL) != ""
}

// client builds the OpenAI-compatible client for a.
func (s Settings) client(a Agent) (*llm.OpenAI, error) {
	cfg, err := s.Config(a)
	if err != nil {
		return nil, err
	}
	m, err := llm.NewOpenAI(cfg)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", a.Model, err)
	}
	return m, nil
}

// Config is the client configuration for a.
func (s Settings) Config(a Agent) (llm.OpenAIConfig, error) {
	cfg := llm.OpenAIConfig{
		APIKey: s.key(a), BaseURL: strings.TrimSpace(a.BaseURL), Model: strings.TrimSpace(a.Model),
		MaxTokens: a.MaxOutputTokens, ReasoningEffort: a.ReasoningEffort, ContextWindow: a.ContextWindow,
		AzureAPIVersion: a.AzureAPIVersion, MaxAttempts: s.Attempts, Extra: a.Extra,
		NoStream: a.Stream != nil && !*a.Stream,
	}
	// The paper samples at temperature 0; the client leaves it out for
	// models that take only their default.
	t := float32(0)
	if a.Temperature != nil {
		t = float32(*a.Temperature)
	}
	cfg.Temperature = &t
	if a.NumCtx > 0 {
		cfg.Extra = mergeMaps(cfg.Extra, map[string]any{"options": map[string]any{"num_ctx": a.NumCtx}})
		if cfg.ContextWindow == 0 {
			cfg.ContextWindow = a.NumCtx
		}
	}
	if len(a.Headers) > 0 {
		cfg.Headers = make(map[string]string, len(a.Headers))
		for k, v := range a.Headers {
			if name, ok := strings.CutPrefix(v, "$"); ok {
				v = s.getenv(name)
			}
			cfg.Headers[k] = v
		}
	}
	if p, ok := llm.PriceFor(cfg.Model, s.Prices); ok {
		cfg.Price = &p
	}
	if s.Timeout != "" {
		d, err := time.ParseDuration(s.Timeout)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("model time-out %q: want a duration such as 90s or 5m", s.Timeout)
		}
		cfg.AttemptTimeout = d
	}
	slog.Debug("model settings", "model", cfg.Model, "base_url", cfg.BaseURL, "effort", cfg.ReasoningEffort,
		"window", cfg.ContextWindow, "priced", cfg.Price != nil)
	return cfg, nil
}

// LoadScript reads a transcript file: a single script, or one agent's part
// of a per-agent file under any of its names.
func LoadScript(path string, names ...string) (*llm.Script, error) {
	var firstErr error
	for _, n := range names {
		sc, err := llm.LoadAgentScript(path, n)
		if err == nil {
			return sc, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("script %s: %w", path, firstErr)
}
