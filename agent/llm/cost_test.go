package llm

import (
	"sync"
	"testing"
)

func TestPriceFor(t *testing.T) {
	tests := []struct {
		model     string
		want      Price
		wantFound bool
	}{
		{"gpt-4o", Price{2.50, 10.00}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10.00}, true},
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"openai/gpt-4.1-mini", Price{0.40, 1.60}, true},
		{"GPT-5", Price{1.25, 10.00}, true},
		{"llama3.1:8b", Price{}, false},
		{"", Price{}, false},
	}
	for _, tc := range tests {
		got, found := PriceFor(tc.model)
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
	cost, priced := PriceOf("gpt-4o", 1_000_000, 100_000)
	if !priced || cost != 3.50 {
		t.Errorf("PriceOf = %v, %v; want 3.50, true", cost, priced)
	}
	if cost, priced := PriceOf("mistral", 1_000_000, 1); priced || cost != 0 {
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
		{"priced", []Usage{{10, 2, 0.5, true}, {5, 1, 0.25, true}}, Totals{2, 15, 3, 0.75, true}},
		{"one unpriced call spoils the sum", []Usage{{10, 2, 0.5, true}, {5, 1, 0, false}}, Totals{2, 15, 3, 0.5, false}},
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
	if got := a.Plus(b); got != (Totals{3, 15, 3, 0.75, true}) {
		t.Errorf("priced sum = %+v", got)
	}
	b.Priced = false
	if got := a.Plus(b); got.Priced || got.CostString() != "unpriced" {
		t.Errorf("sum with an unpriced side = %+v", got)
	}
}
