package llm

import (
	"fmt"
	"strings"
	"sync"
)

// Price is what a model charges per million tokens, in US dollars.
// CachedInput is the rate for prompt tokens served from the provider's
// cache; 0 means they cost the full Input rate.
type Price struct {
	Input       float64 `json:"input" toml:"input"`
	CachedInput float64 `json:"cached_input,omitempty" toml:"cached_input"`
	Output      float64 `json:"output" toml:"output"`
}

// Cost is the dollar cost of one call's usage.
func (p Price) Cost(u Usage) float64 {
	cached := min(max(u.CachedTokens, 0), u.PromptTokens)
	rate := p.CachedInput
	if rate == 0 {
		rate = p.Input
	}
	return (float64(u.PromptTokens-cached)*p.Input + float64(cached)*rate +
		float64(u.CompletionTokens)*p.Output) / 1e6
}

// PricesAsOf dates the table below, so a reader knows how stale it may be.
const PricesAsOf = "2026-11"

// prices holds list prices (USD per million tokens, standard tier, short
// context) of the models people run the agents with. A name matches its
// longest prefix here, so dated snapshots ("gpt-4o-2024-08-06") find their
// family and "gpt-4o-mini" is not billed as "gpt-4o". Anthropic's cache
// writes (1.25 times the input rate) are billed as plain input: the
// OpenAI-compatible usage does not report them apart.
var prices = map[string]Price{
	"gpt-4o":            {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	"gpt-4o-mini":       {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"gpt-4.1":           {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"gpt-4.1-mini":      {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano":      {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-5":             {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5-mini":        {Input: 0.25, CachedInput: 0.025, Output: 2.00},
	"gpt-5-nano":        {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-5-pro":         {Input: 15.00, Output: 120.00},
	"gpt-5.1":           {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5.2":           {Input: 1.75, CachedInput: 0.175, Output: 14.00},
	"gpt-5.2-pro":       {Input: 21.00, Output: 168.00},
	"o1":                {Input: 15.00, CachedInput: 7.50, Output: 60.00},
	"o3":                {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"o3-mini":           {Input: 1.10, CachedInput: 0.55, Output: 4.40},
	"o4-mini":           {Input: 1.10, CachedInput: 0.275, Output: 4.40},
	"claude-opus-4":     {Input: 15.00, CachedInput: 1.50, Output: 75.00},
	"claude-opus-4-5":   {Input: 5.00, CachedInput: 0.50, Output: 25.00},
	"claude-opus-4-6":   {Input: 5.00, CachedInput: 0.50, Output: 25.00},
	"claude-sonnet-4":   {Input: 3.00, CachedInput: 0.30, Output: 15.00},
	"claude-3-7-sonnet": {Input: 3.00, CachedInput: 0.30, Output: 15.00},
	"claude-haiku-4-5":  {Input: 1.00, CachedInput: 0.10, Output: 5.00},
	"claude-3-5-haiku":  {Input: 0.80, CachedInput: 0.08, Output: 4.00},
	"gemini-2.5-pro":    {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gemini-2.5-flash":  {Input: 0.30, CachedInput: 0.03, Output: 2.50},
	"gemini-3-pro":      {Input: 2.00, CachedInput: 0.20, Output: 12.00},
	"deepseek-chat":     {Input: 0.28, CachedInput: 0.028, Output: 0.42},
	"deepseek-reasoner": {Input: 0.28, CachedInput: 0.028, Output: 0.42},
}

// PriceFor finds the price of a model by longest name prefix, in overrides
// first (the engineer's own prices) and then in the table. A proxy-style
// provider prefix ("openai/gpt-4o") is ignored, and so is the dotted form
// routers give Claude versions ("claude-sonnet-4.5"). ok is false for models
// in neither: local and unknown models are unpriced, never free.
func PriceFor(model string, overrides map[string]Price) (p Price, ok bool) {
	full := strings.ToLower(strings.TrimSpace(model))
	if p, ok := overrides[full]; ok {
		return p, true
	}
	name := BareName(model)
	if strings.HasPrefix(name, "claude") {
		name = strings.ReplaceAll(name, ".", "-")
	}
	for _, table := range []map[string]Price{overrides, prices} {
		if p, ok := longestPrefix(table, name); ok {
			return p, true
		}
	}
	return Price{}, false
}

func longestPrefix(table map[string]Price, name string) (p Price, ok bool) {
	best := -1
	for prefix, pr := range table {
		prefix = strings.ToLower(prefix)
		if strings.HasPrefix(name, prefix) && len(prefix) > best {
			p, best = pr, len(prefix)
		}
	}
	return p, best >= 0
}

// PriceOf is the dollar cost of one call, and whether the model is priced.
func PriceOf(model string, u Usage, overrides map[string]Price) (cost float64, priced bool) {
	p, ok := PriceFor(model, overrides)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// FormatCost shows a cost for the engineer: "$0.0123", or "unpriced" when
// the price is unknown, so an unknown model never reads as free.
func FormatCost(cost float64, priced bool) string {
	if !priced {
		return "unpriced"
	}
	return fmt.Sprintf("$%.4f", cost)
}

// Totals is the sum of the usage a Meter has seen.
type Totals struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens,omitempty"`
	Cost             float64 `json:"cost"`
	// Priced is false once any call was unpriced: a partial sum would
	// understate the bill.
	Priced bool `json:"priced"`
}

// Tokens is prompt plus completion tokens.
func (t Totals) Tokens() int { return t.PromptTokens + t.CompletionTokens }

// Plus sums two agents' totals, for a run-wide figure.
func (t Totals) Plus(u Totals) Totals {
	return Totals{
		Calls:            t.Calls + u.Calls,
		PromptTokens:     t.PromptTokens + u.PromptTokens,
		CompletionTokens: t.CompletionTokens + u.CompletionTokens,
		CachedTokens:     t.CachedTokens + u.CachedTokens,
		Cost:             t.Cost + u.Cost,
		Priced:           t.Priced && u.Priced,
	}
}

// CostString formats the total cost with FormatCost.
func (t Totals) CostString() string { return FormatCost(t.Cost, t.Priced) }

// Meter adds up one agent's usage. The zero value is ready; it is safe for
// concurrent use.
type Meter struct {
	mu       sync.Mutex
	t        Totals
	unpriced bool
}

// Add records one call.
func (m *Meter) Add(u Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.Calls++
	m.t.PromptTokens += u.PromptTokens
	m.t.CompletionTokens += u.CompletionTokens
	m.t.CachedTokens += u.CachedTokens
	m.t.Cost += u.Cost
	if !u.Priced {
		m.unpriced = true
	}
}

// Totals is a snapshot of what was added so far. With no calls it is priced
// at $0: nothing has been spent.
func (m *Meter) Totals() Totals {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.t
	t.Priced = !m.unpriced
	return t
}
