package llm

import (
	"fmt"
	"strings"
	"sync"
)

// Price is what a model charges per million tokens, in US dollars.
type Price struct {
	Input  float64
	Output float64
}

// prices holds list prices (USD per million tokens, standard tier, as
// published by OpenAI in 2025) for a few well-known models. A name matches
// its longest prefix here, so dated snapshots ("gpt-4o-2024-08-06") find
// their family and "gpt-4o-mini" is not billed as "gpt-4o".
var prices = map[string]Price{
	"gpt-4o":       {Input: 2.50, Output: 10.00},
	"gpt-4o-mini":  {Input: 0.15, Output: 0.60},
	"gpt-4.1":      {Input: 2.00, Output: 8.00},
	"gpt-4.1-mini": {Input: 0.40, Output: 1.60},
	"gpt-4.1-nano": {Input: 0.10, Output: 0.40},
	"gpt-5":        {Input: 1.25, Output: 10.00},
	"gpt-5-mini":   {Input: 0.25, Output: 2.00},
	"gpt-5-nano":   {Input: 0.05, Output: 0.40},
	"o3-mini":      {Input: 1.10, Output: 4.40},
	"o4-mini":      {Input: 1.10, Output: 4.40},
}

// PriceFor finds the price of a model by longest name prefix. A proxy-style
// provider prefix ("openai/gpt-4o") is ignored. ok is false for models not
// in the table: local and unknown models are unpriced, never free.
func PriceFor(model string) (p Price, ok bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best := -1
	for prefix, pr := range prices {
		if strings.HasPrefix(name, prefix) && len(prefix) > best {
			p, best = pr, len(prefix)
		}
	}
	return p, best >= 0
}

// PriceOf is the dollar cost of one call, and whether the model is priced.
func PriceOf(model string, promptTokens, completionTokens int) (cost float64, priced bool) {
	p, ok := PriceFor(model)
	if !ok {
		return 0, false
	}
	return (float64(promptTokens)*p.Input + float64(completionTokens)*p.Output) / 1e6, true
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
