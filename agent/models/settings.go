// Package models is the one place that chooses and builds the agents'
// models: settings from a config file, the environment and the command line
// in; the localization and resolution models out. Every command that runs
// an agent (run, localize, batch, eval-loc, worker) goes through it.
package models

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// Agent is one agent's model settings. Zero fields take the shared
// settings' values, then the client's defaults.
type Agent struct {
	Model           string            `toml:"model" json:"model,omitempty"`
	BaseURL         string            `toml:"base_url" json:"base_url,omitempty"`
	APIKeyEnv       string            `toml:"api_key_env" json:"api_key_env,omitempty"` // the variable holding the key; default OPENAI_API_KEY
	Temperature     *float64          `toml:"temperature" json:"temperature,omitempty"`
	MaxOutputTokens int               `toml:"max_output_tokens" json:"max_output_tokens,omitempty"`
	ReasoningEffort string            `toml:"reasoning_effort" json:"reasoning_effort,omitempty"`
	ContextWindow   int               `toml:"context_window" json:"context_window,omitempty"`
	NumCtx          int               `toml:"num_ctx" json:"num_ctx,omitempty"` // Ollama's context size, sent as options.num_ctx
	Headers         map[string]string `toml:"headers" json:"headers,omitempty"` // a value "$NAME" is read from the environment
	Extra           map[string]any    `toml:"extra" json:"extra,omitempty"`     // merged into each request body
	AzureAPIVersion string            `toml:"azure_api_version" json:"azure_api_version,omitempty"`
	// Stream false asks for whole answers instead of streams, for a server
	// that streams badly; unset streams.
	Stream *bool `toml:"stream" json:"stream,omitempty"`
	// Script is a transcript file the scripted model plays instead.
	Script string `toml:"-" json:"script,omitempty"`
}

// Settings are both agents' model settings.
type Settings struct {
	Shared   Agent                `toml:"model" json:"model"` // both agents
	Localize Agent                `toml:"localize" json:"localize"`
	Resolve  Agent                `toml:"resolve" json:"resolve"`
	Prices   map[string]llm.Price `toml:"prices" json:"prices,omitempty"`     // the engineer's own prices, by model name prefix
	Timeout  string               `toml:"timeout" json:"timeout,omitempty"`   // one HTTP attempt, e.g. "5m"
	Attempts int                  `toml:"attempts" json:"attempts,omitempty"` // tries per call

	ScriptDelay time.Duration `toml:"-" json:"-"` // pause before each scripted turn
	// File is the settings file read, if any: commands never see it.
	File string `toml:"-" json:"-"`
	// Getenv reads the environment (keys, header values); nil: os.Getenv.
	Getenv func(string) string `toml:"-" json:"-"`
}

// ConfigEnv names the variable that points at a config file.
const ConfigEnv = "SWE_ADEPT_CONFIG"

// DefaultKeyEnv holds the API key unless an agent names another variable.
const DefaultKeyEnv = "OPENAI_API_KEY"

// Load reads the config file at path (or $SWE_ADEPT_CONFIG, or the default
// ~/.config/swe-adept/config.toml when it exists), then lets the
// environment override it. The command line goes on top of the result.
func Load(getenv func(string) string, path string) (Settings, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	s := Settings{Getenv: getenv}
	file, explicit := configPath(getenv, path)
	if file != "" {
		err := s.readFile(file)
		if err != nil && (explicit || !errors.Is(err, fs.ErrNotExist)) {
			return s, err
		}
		if err == nil {
			s.File, _ = filepath.Abs(file)
		}
	}
	return s, s.fromEnv()
}

func configPath(getenv func(string) string, path string) (file string, explicit bool) {
	if path != "" {
		return path, true
	}
	if p := strings.TrimSpace(getenv(ConfigEnv)); p != "" {
		return p, true
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return "", false
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "swe-adept", "config.toml"), false
}

func (s *Settings) readFile(path string) error {
	md, err := toml.DecodeFile(path, s)
	if err != nil {
		return fmt.Errorf("model settings %s: %w", path, err)
	}
	if bad := md.Undecoded(); len(bad) > 0 {
		keys := make([]string, len(bad))
		for i, k := range bad {
			keys[i] = k.String()
		}
		return fmt.Errorf("model settings %s: unknown keys %s", path, strings.Join(keys, ", "))
	}
	return nil
}

// fromEnv applies the environment's overrides.
func (s *Settings) fromEnv() error {
	env := func(name string) string { return strings.TrimSpace(s.Getenv(name)) }
	setStr(&s.Shared.Model, env("SWE_ADEPT_MODEL"))
	setStr(&s.Localize.Model, env("SWE_ADEPT_LOCALIZE_MODEL"))
	setStr(&s.Shared.BaseURL, env("OPENAI_BASE_URL"))
	setStr(&s.Shared.ReasoningEffort, env("SWE_ADEPT_REASONING_EFFORT"))
	setStr(&s.Timeout, env("SWE_ADEPT_MODEL_TIMEOUT"))
	var errs []error
	for name, dst := range map[string]*int{"SWE_ADEPT_CONTEXT_WINDOW": &s.Shared.ContextWindow,
		"SWE_ADEPT_MODEL_ATTEMPTS": &s.Attempts, "SWE_ADEPT_NUM_CTX": &s.Shared.NumCtx} {
		if v := env(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a positive whole number", name, v))
				continue
			}
			*dst = n
		}
	}
	if v := env("SWE_ADEPT_PRICES"); v != "" {
		if err := s.AddPrices(v); err != nil {
			errs = append(errs, fmt.Errorf("SWE_ADEPT_PRICES: %w", err))
		}
	}
	return errors.Join(errs...)
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// AddPrices reads "model=input/output" or "model=input/cached/output"
// entries, comma-separated, in dollars per million tokens.
func (s *Settings) AddPrices(spec string) error {
	for _, entry := range strings.Split(spec, ",") {
		name, rates, ok := strings.Cut(strings.TrimSpace(entry), "=")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("%q: want model=input/output or model=input/cached/output", entry)
		}
		p, err := parseRates(rates)
		if err != nil {
			return fmt.Errorf("%q: %w", entry, err)
		}
		if s.Prices == nil {
			s.Prices = map[string]llm.Price{}
		}
		s.Prices[strings.ToLower(strings.TrimSpace(name))] = p
	}
	return nil
}

func parseRates(rates string) (llm.Price, error) {
	parts := strings.Split(rates, "/")
	nums := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return llm.Price{}, fmt.Errorf("%q is not a price in dollars per million tokens", p)
		}
		nums[i] = f
	}
	switch len(nums) {
	case 2:
		return llm.Price{Input: nums[0], Output: nums[1]}, nil
	case 3:
		return llm.Price{Input: nums[0], CachedInput: nums[1], Output: nums[2]}, nil
	}
	return llm.Price{}, errors.New("want input/output or input/cached/output")
}

// For is the effective settings of one agent (Localize or Resolve): its
// own fields over the shared ones.
func (s Settings) For(agent string) Agent {
	own := s.Resolve
	if agent == Localization {
		own = s.Localize
	}
	out := s.Shared
	setStr(&out.Model, own.Model)
	setStr(&out.BaseURL, own.BaseURL)
	setStr(&out.APIKeyEnv, own.APIKeyEnv)
	setStr(&out.ReasoningEffort, own.ReasoningEffort)
	setStr(&out.AzureAPIVersion, own.AzureAPIVersion)
	setStr(&out.Script, own.Script)
	if own.Temperature != nil {
		out.Temperature = own.Temperature
	}
	if own.Stream != nil {
		out.Stream = own.Stream
	}
	for dst, v := range map[*int]int{&out.MaxOutputTokens: own.MaxOutputTokens,
		&out.ContextWindow: own.ContextWindow, &out.NumCtx: own.NumCtx} {
		if v != 0 {
			*dst = v
		}
	}
	out.Headers = mergeMaps(out.Headers, own.Headers)
	out.Extra = mergeMaps(out.Extra, own.Extra)
	return out
}

// The agents For knows.
const (
	Localization = "localize"
	Resolution   = "resolve"
)

func mergeMaps[V any](base, over map[string]V) map[string]V {
	if len(over) == 0 {
		return base
	}
	out := make(map[string]V, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
