package models

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func sampleIndex(t *testing.T) *index.Index {
	t.Helper()
	ix, err := index.Build(context.Background(), "../../testdata/localize/shop", index.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestLocalizationModel(t *testing.T) {
	ix := sampleIndex(t)
	key := map[string]string{"OPENAI_API_KEY": "k"}
	tests := []struct {
		name       string
		set        Settings
		ix         *index.Index
		wantName   string
		wantNotice string
		wantErr    bool
	}{
		{"script", Settings{Localize: Agent{Script: "../../testdata/localize/script.json"}}, nil, "scripted-localizer", "", false},
		{"missing script", Settings{Localize: Agent{Script: "nope.json"}}, nil, "", "", true},
		{"no key", Settings{}, ix, "heuristic", NoServerNotice, false},
		{"no key, model named", Settings{Shared: Agent{Model: "gpt-x"}}, ix, "heuristic", NoServerNotice, false},
		{"asked for", Settings{Shared: Agent{Model: "heuristic"}, Getenv: env(key)}, ix, "heuristic", "", false},
		{"localize's own model wins", Settings{Shared: Agent{Model: "gpt-x"}, Localize: Agent{Model: "heuristic"}, Getenv: env(key)}, ix, "heuristic", "", false},
		{"openai", Settings{Shared: Agent{Model: "gpt-x"}, Getenv: env(key)}, nil, "gpt-x", "", false},
		{"local server", Settings{Shared: Agent{Model: "llama", BaseURL: "http://localhost:1/v1"}}, nil, "llama", "", false},
		{"key under another name", Settings{Shared: Agent{Model: "claude-x", APIKeyEnv: "ANTHROPIC_API_KEY"},
			Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "a"})}, nil, "claude-x", "", false},
		{"key but no model", Settings{Getenv: env(key)}, nil, "", "", true},
		{"heuristic without index", Settings{Shared: Agent{Model: "heuristic"}}, nil, "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set.Getenv == nil {
				tc.set.Getenv = env(nil)
			}
			m, notice, err := tc.set.LocalizationModel(tc.ix, nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if m.Name() != tc.wantName || notice != tc.wantNotice {
				t.Errorf("got %s %q, want %s %q", m.Name(), notice, tc.wantName, tc.wantNotice)
			}
		})
	}
}

func TestResolutionModel(t *testing.T) {
	tests := []struct {
		name    string
		set     Settings
		want    string
		wantErr error
	}{
		{"no server", Settings{Shared: Agent{Model: "gpt-5.2"}}, "", ErrNoServer},
		{"no name", Settings{Getenv: env(map[string]string{"OPENAI_API_KEY": "k"})}, "", ErrNoModelName},
		{"named", Settings{Shared: Agent{Model: "gpt-5.2"}, Getenv: env(map[string]string{"OPENAI_API_KEY": "k"})}, "gpt-5.2", nil},
		{"resolve's own", Settings{Shared: Agent{Model: "a"}, Resolve: Agent{Model: "b", BaseURL: "http://x/v1"}}, "b", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set.Getenv == nil {
				tc.set.Getenv = env(nil)
			}
			m, err := tc.set.ResolutionModel()
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && m.Name() != tc.want {
				t.Errorf("name %s, want %s", m.Name(), tc.want)
			}
			if cerr := tc.set.Check(); !errors.Is(cerr, tc.wantErr) {
				t.Errorf("Check = %v, want %v", cerr, tc.wantErr)
			}
		})
	}
}

const sampleConfig = `
attempts = 3
timeout = "90s"

[model]
model = "gpt-5.2"
reasoning_effort = "medium"
headers = { "X-Title" = "swe-adept", "Authorization" = "$PROXY_TOKEN" }

[localize]
model = "heuristic"

[resolve]
base_url = "http://localhost:11434/v1"
model = "qwen3-coder:30b"
num_ctx = 32768
temperature = 0.0

[prices."qwen3-coder"]
input = 0.2
output = 0.8
`

func TestLoadFileThenEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(sampleConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{ConfigEnv: path, "SWE_ADEPT_MODEL": "gpt-5.1", "PROXY_TOKEN": "Bearer t",
		"SWE_ADEPT_PRICES": "my-model=1/0.1/2"}
	s, err := Load(env(vars), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Shared.Model != "gpt-5.1" || s.For(Localization).Model != "heuristic" {
		t.Errorf("env must beat the file: %+v", s.Shared)
	}
	r := s.For(Resolution)
	if r.Model != "qwen3-coder:30b" || r.ReasoningEffort != "medium" || r.NumCtx != 32768 || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("resolve settings = %+v", r)
	}
	cfg, err := s.Config(r)
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := cfg.Extra["options"].(map[string]any)
	if opts["num_ctx"] != 32768 || cfg.ContextWindow != 32768 || cfg.Headers["Authorization"] != "Bearer t" ||
		cfg.AttemptTimeout != 90*time.Second || cfg.MaxAttempts != 3 {
		t.Errorf("config = %+v", cfg)
	}
	if cfg.Price == nil || cfg.Price.Input != 0.2 {
		t.Errorf("the file's price for qwen3-coder was not used: %v", cfg.Price)
	}
	if p, ok := llm.PriceFor("my-model", s.Prices); !ok || p.CachedInput != 0.1 {
		t.Errorf("SWE_ADEPT_PRICES: %v %v", p, ok)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.toml")
	os.WriteFile(typo, []byte("[resolve]\nreasoning_efort = \"high\"\n"), 0o644)
	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(broken, []byte("[model\n"), 0o644)
	tests := []struct {
		name string
		vars map[string]string
		path string
		want string
	}{
		{"unknown key", nil, typo, "unknown keys resolve.reasoning_efort"},
		{"broken file", nil, broken, "broken.toml"},
		{"named file missing", nil, filepath.Join(dir, "nope.toml"), "nope.toml"},
		{"bad number", map[string]string{"SWE_ADEPT_CONTEXT_WINDOW": "big"}, "", "SWE_ADEPT_CONTEXT_WINDOW"},
		{"bad price", map[string]string{"SWE_ADEPT_PRICES": "m=cheap"}, "", "SWE_ADEPT_PRICES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.vars == nil {
				tc.vars = map[string]string{}
			}
			tc.vars["HOME"] = dir // the default file is absent: no error for that
			_, err := Load(env(tc.vars), tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Load(env(map[string]string{"HOME": dir}), ""); err != nil {
		t.Errorf("a missing default file is not an error: %v", err)
	}
}

func TestAddPrices(t *testing.T) {
	var s Settings
	if err := s.AddPrices("a=1/2, b=1/0.5/3"); err != nil {
		t.Fatal(err)
	}
	if s.Prices["a"] != (llm.Price{Input: 1, Output: 2}) || s.Prices["b"] != (llm.Price{Input: 1, CachedInput: 0.5, Output: 3}) {
		t.Errorf("prices = %v", s.Prices)
	}
	for _, bad := range []string{"a", "=1/2", "a=1", "a=1/2/3/4", "a=-1/2", "a=NaN/1", "a=1/Inf"} {
		if err := (&Settings{}).AddPrices(bad); err == nil {
			t.Errorf("AddPrices(%q) accepted", bad)
		}
	}
}

func FuzzAddPrices(f *testing.F) {
	f.Add("a=1/2,b=1/0.5/3")
	f.Add("=,/")
	f.Fuzz(func(t *testing.T, spec string) {
		var s Settings
		if err := s.AddPrices(spec); err != nil {
			return
		}
		for name, p := range s.Prices {
			if name == "" || !(p.Input >= 0 && p.Output >= 0 && p.CachedInput >= 0) || math.IsInf(p.Input+p.Output+p.CachedInput, 0) {
				t.Fatalf("accepted %q as %q: %+v", spec, name, p)
			}
		}
	})
}

// TestConfidential: everything the settings hold that a command must not
// see: the key variable named by api_key_env (whatever its name), every
// header's variable and value, a base URL's password, the file itself.
func TestConfidential(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	config := `[model]
api_key_env = "INNOCENT_LOOKING"
base_url = "https://user:url-password@llm.corp/v1"
[model.headers]
X-Trace = "$TRACE_ID"
X-Literal = "literal-header-value"
[localize]
api_key_env = "OTHER_KEY_VAR"
`
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(env(map[string]string{ConfigEnv: path, "INNOCENT_LOOKING": "sk-the-model-key", "TRACE_ID": "trace-value",
		"OTHER_KEY_VAR": "sk-other-key"}), "")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Confidential()
	for _, want := range []string{"INNOCENT_LOOKING", "OTHER_KEY_VAR", "TRACE_ID"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("Env %q lacks %s", c.Env, want)
		}
	}
	for _, want := range []string{"sk-the-model-key", "sk-other-key", "trace-value", "literal-header-value", "url-password"} {
		if !slices.Contains(c.Values, want) {
			t.Errorf("Values lack %s", want)
		}
	}
	if len(c.Files) != 1 || c.Files[0] != path {
		t.Errorf("Files = %q, want the settings file %s", c.Files, path)
	}
	if c := (Settings{Getenv: env(nil)}).Confidential(); !slices.Equal(c.Env, []string{DefaultKeyEnv}) || len(c.Files) != 0 {
		t.Errorf("no settings: %+v, want just %s", c, DefaultKeyEnv)
	}
}

// TestStreamSetting: answers stream unless the config says stream = false,
// for both agents or one.
func TestStreamSetting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("[model]\nmodel = \"gpt-4o\"\n\n[resolve]\nstream = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(env(map[string]string{"OPENAI_API_KEY": "sk-test-0123456789"}), path)
	if err != nil {
		t.Fatal(err)
	}
	for agent, whole := range map[string]bool{Localization: false, Resolution: true} {
		cfg, err := s.Config(s.For(agent))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.NoStream != whole {
			t.Errorf("%s: NoStream = %v, want %v", agent, cfg.NoStream, whole)
		}
	}
}
