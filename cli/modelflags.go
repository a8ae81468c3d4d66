package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/swe-adept/swe-adept/agent/models"
)

// modelFlags are the model settings every command that runs an agent
// takes. They go on top of the config file and the environment.
type modelFlags struct {
	config, model, localizeModel, baseURL, effort, prices, azure string
	window, numCtx, maxOutput                                    int
	temperature                                                  optionalFloat
	// localizeOnly: --model names the localization model (localize,
	// eval-loc), not both agents'.
	localizeOnly bool
}

// optionalFloat is a float flag that knows whether it was set.
type optionalFloat struct{ v *float64 }

func (o *optionalFloat) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'g', -1, 64)
}

func (o *optionalFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	o.v = &f
	return nil
}

// addModelFlags declares the model flags on fs. With localizeOnly the
// command runs only the localization agent, and --localize-model is not
// offered.
func addModelFlags(fs *flag.FlagSet, localizeOnly bool) *modelFlags {
	f := &modelFlags{localizeOnly: localizeOnly}
	if localizeOnly {
		fs.StringVar(&f.model, "model", "", "localization model: heuristic (offline) or a `name` (default SWE_ADEPT_MODEL; heuristic without a key or base URL)")
	} else {
		fs.StringVar(&f.model, "model", "", "model `name` for both agents (default SWE_ADEPT_MODEL)")
		fs.StringVar(&f.localizeModel, "localize-model", "", "localization model: heuristic (offline) or a `name`; default --model, or heuristic without a key or base URL")
	}
	fs.StringVar(&f.config, "model-config", "", "model settings `file` (TOML; default $SWE_ADEPT_CONFIG or ~/.config/swe-adept/config.toml)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible server `url` (default OPENAI_BASE_URL, else OpenAI)")
	fs.StringVar(&f.effort, "reasoning-effort", "", "reasoning `effort` for models that take it: none, minimal, low, medium (the default), high")
	fs.IntVar(&f.window, "context-window", 0, "the model's context window in `tokens` (default: known for common models, else learnt from the server)")
	fs.IntVar(&f.numCtx, "num-ctx", 0, "Ollama: context size in `tokens`, sent as options.num_ctx")
	fs.IntVar(&f.maxOutput, "max-output-tokens", 0, "`tokens` one model reply may use (default: the server's)")
	fs.Var(&f.temperature, "temperature", "sampling `temperature` (default 0 where the model allows one)")
	fs.StringVar(&f.prices, "price", "", "your own prices: `model=in/out` or model=in/cached/out in dollars per million tokens, comma-separated")
	fs.StringVar(&f.azure, "azure-api-version", "", "the base URL is an Azure OpenAI resource and --model a deployment; this `version` of its API")
	return f
}

// settings loads the config file and the environment, then applies the
// flags.
func (f *modelFlags) settings() (models.Settings, error) {
	s, err := models.Load(os.Getenv, f.config)
	if err != nil {
		return s, usagef("%v", err)
	}
	target := &s.Shared
	if f.localizeOnly {
		target = &s.Localize
	}
	setIf(&target.Model, f.model)
	setIf(&s.Localize.Model, f.localizeModel)
	setIf(&s.Shared.BaseURL, f.baseURL)
	setIf(&s.Shared.ReasoningEffort, f.effort)
	setIf(&s.Shared.AzureAPIVersion, f.azure)
	for dst, v := range map[*int]int{&s.Shared.ContextWindow: f.window, &s.Shared.NumCtx: f.numCtx, &s.Shared.MaxOutputTokens: f.maxOutput} {
		if v < 0 {
			return s, usagef("--context-window, --num-ctx and --max-output-tokens cannot be negative")
		}
		if v > 0 {
			*dst = v
		}
	}
	if f.temperature.v != nil {
		s.Shared.Temperature = f.temperature.v
	}
	if f.prices != "" {
		if err := s.AddPrices(f.prices); err != nil {
			return s, usagef("--price: %v", err)
		}
	}
	return s, nil
}

func setIf(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// explainModelError says, in the command line's terms, how to give the
// resolution agent a model.
func explainModelError(err error) error {
	switch {
	case errors.Is(err, models.ErrNoServer):
		return usagef("no model configured for the resolution agent: set OPENAI_API_KEY (or --base-url for a local server) and --model NAME, " +
			"or play a transcript with --script-resolve FILE ('swe-adept localize' runs localization alone, offline)")
	case errors.Is(err, models.ErrNoModelName):
		return usagef("no model name: pass --model NAME or set SWE_ADEPT_MODEL")
	case err != nil:
		return fmt.Errorf("resolution model: %w", err)
	}
	return nil
}
