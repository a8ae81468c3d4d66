package llm

import "strings"

// BareName is a model name without the provider prefixes that proxies put
// in front of it ("openrouter/openai/gpt-5" is "gpt-5"), lower-cased, so a
// family is recognised however the model is routed.
func BareName(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// Reasoning reports whether model belongs to OpenAI's reasoning families
// (o-series, gpt-5.x), which reject max_tokens and any temperature but 1,
// and take reasoning_effort instead.
func Reasoning(model string) bool {
	name := BareName(model)
	if strings.HasPrefix(name, "gpt-5") {
		// The chat variants behave like gpt-4o.
		return !strings.Contains(name, "-chat")
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if name == p || strings.HasPrefix(name, p+"-") {
			return true
		}
	}
	return false
}

// DefaultTemperatureOnly reports whether a model should be sent no
// temperature: reasoning models reject any but 1, and Gemini 3's makers
// advise against lowering it (it loops).
func DefaultTemperatureOnly(model string) bool {
	return Reasoning(model) || strings.HasPrefix(BareName(model), "gemini-3")
}

// windows are context windows in tokens by longest name prefix, for the
// families people run the agents with. A model missing here gets its window
// from the settings, or is learnt from the server's overflow error.
var windows = map[string]int{
	"gpt-4o":            128_000,
	"gpt-4.1":           1_047_576,
	"gpt-5":             400_000,
	"o1":                200_000,
	"o3":                200_000,
	"o4-mini":           200_000,
	"claude":            200_000,
	"gemini":            1_048_576,
	"deepseek-chat":     128_000,
	"deepseek-reasoner": 128_000,
}

// KnownWindow is the context window of a well-known model, or 0.
func KnownWindow(model string) int {
	name := BareName(model)
	best, w := -1, 0
	for p, n := range windows {
		if strings.HasPrefix(name, p) && len(p) > best {
			best, w = len(p), n
		}
	}
	return w
}
