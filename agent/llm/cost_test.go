package llm

import (
	"sync"
	"testing"
)

func TestPriceFor(t *testing.T) {
	mine := map[string]Price{"qwen3-coder": {Input: 0.2, Output: 0.8}, "gpt-5.2": {Input: 9, Output: 9}}
	tests := []struct {
		model     string
		overrides map[string]Price
		want      Price
		wantFound bool
	}{
		{"gpt-4o", nil, Price{2.50, 1.25, 10.00}, true},
		{"gpt-4o-2024-08-06", nil, Price{2.50, 1.25, 10.00}, true},
		{"gpt-4o-mini", nil, Price{0.15, 0.075, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", nil, Price{0.15, 0.075, 0.60}, true},
		{"openai/gpt-4.1-mini", nil, Price{0.40, 0.10, 1.60}, true},
		{"GPT-5", nil, Price{1.25, 0.125, 10.00}, true},
		{"gpt-5.2", nil, Price{1.75, 0.175, 14.00}, true},
		{"gpt-5.2-2025-12-11", nil, Price{1.75, 0.175, 14.00}, true},
		{"claude-sonnet-4-5-20250929", nil, Price{3, 0.30, 15}, true},
		{"anthropic/claude-opus-4.5", nil, Price{5, 0.50, 25}, true},
		{"claude-opus-4-1", nil, Price{15, 1.50, 75}, true},
		{"gemini-2.5-pro", nil, Price{1.25, 0.125, 10}, true},
		{"deepseek-reasoner", nil, Price{0.28, 0.028, 0.42}, true},
		{"llama3.1:8b", nil, Price{}, false},
		{"", nil, Price{}, false},
		{"qwen3-coder:30b", mine, Price{Input: 0.2, Output: 0.8}, true},
		{"openrouter/qwen/qwen3-coder", mine, Price{Input: 0.2, Output: 0.8}, true},
		{"gpt-5.2", mine, Price{Input: 9, Output: 9}, true},
	}
	for _, tc := range tests {
		got, found := PriceFor(tc.model, tc.overrides)
		if got != tc.want || found != tc.wantFound {
			t.Errorf("PriceFor(%q) = %v, %v; want %v, %v", tc.model, got, found, tc.want, tc.wantFound)
		}
	}
}

func TestFormatCost(t *testing.T) {
	tests := []struct {
		cost   float64
		priced bool
		want   string
	}{
		{0.0123, true, "$0.0123"},
		{0, true, "$0.0000"},
		{12.5, true, "$12.5000"},
		{0, false, "unpriced"},
		{3, false, "unpriced"},
	}
	for _, tc := range tests {
		if got := FormatCost(tc.cost, tc.priced); got != tc.want {
			t.Errorf("FormatCost(%v, %v) = %q, want %q", tc.cost, tc.priced, got, tc.want)
		}
	}
}

func TestPriceOf(t *testing.T) {
	cost, priced := PriceOf("gpt-4o", Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000}, nil)
	if !priced || cost != 3.50 {
		t.Errorf("PriceOf = %v, %v; want 3.50, true", cost, priced)
	}
	// Half the prompt from the cache: 0.5M at 2.50 + 0.5M at 1.25 + 0.1M at 10.
	cost, _ = PriceOf("gpt-4o", Usage{PromptTokens: 1_000_000, CachedTokens: 500_000, CompletionTokens: 100_000}, nil)
	if cost != 2.875 {
		t.Errorf("cached PriceOf = %v, want 2.875", cost)
	}
	if cost, priced := PriceOf("mistral", Usage{PromptTokens: 1_000_000, CompletionTokens: 1}, nil); priced || cost != 0 {
		t.Errorf("unknown model: %v, %v", cost, priced)
	}
}

func TestMeter(t *testing.T) {
	tests := []struct {
		name   string
		usages []Usage
		want   Totals
	}{
		{"empty", nil, Totals{Priced: true}},
		{"priced", []Usage{{PromptTokens: 10, CompletionTokens: 2, CachedTokens: 4, Cost: 0.5, Priced: true}, {PromptTokens: 5, CompletionTokens: 1, Cost: 0.25, Priced: true}},
			Totals{Calls: 2, PromptTokens: 15, CompletionTokens: 3, CachedTokens: 4, Cost: 0.75, Priced: true}},
		{"one unpriced call spoils the sum", []Usage{{PromptTokens: 10, CompletionTokens: 2, Cost: 0.5, Priced: true}, {PromptTokens: 5, CompletionTokens: 1}},
			Totals{Calls: 2, PromptTokens: 15, CompletionTokens: 3, Cost: 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m Meter
			for _, u := range tc.usages {
				m.Add(u)
			}
			if got := m.Totals(); got != tc.want {
				t.Errorf("Totals = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMeterConcurrent(t *testing.T) {
	var m Meter
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				m.Add(Usage{PromptTokens: 3, CompletionTokens: 1, Cost: 0.001, Priced: true})
				_ = m.Totals()
			}
		})
	}
	wg.Wait()
	got := m.Totals()
	if got.Calls != 800 || got.Tokens() != 3200 || !got.Priced || got.CostString() != "$0.8000" {
		t.Errorf("Totals = %+v (%s)", got, got.CostString())
	}
}

func TestTotalsPlus(t *testing.T) {
	a := Totals{Calls: 1, PromptTokens: 10, CompletionTokens: 2, Cost: 0.5, Priced: true}
	b := Totals{Calls: 2, PromptTokens: 5, CompletionTokens: 1, Cost: 0.25, Priced: true}
	if got := a.Plus(b); got != (Totals{Calls: 3, PromptTokens: 15, CompletionTokens: 3, Cost: 0.75, Priced: true}) {
		t.Errorf("priced sum = %+v", got)
	}
	b.Priced = false
	if got := a.Plus(b); got.Priced || got.CostString() != "unpriced" {
		t.Errorf("sum with an unpriced side = %+v", got)
	}
}
