package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// planMarkdown is a plan of n steps as a model writes it; edit rewords every third step.
func planMarkdown(n int, edit bool) string {
	var b strings.Builder
	for i := range n {
		text := fmt.Sprintf("Step %d: change the handling of case %d in module m%d", i, i, i%7)
		if edit && i%3 == 0 {
			text += " and cover it with a test"
		}
		fmt.Fprintf(&b, "%d. [%c] %s\n", i+1, " -v!"[i%4], text)
	}
	return b.String()
}

func BenchmarkParseStatusList(b *testing.B) {
	md := planMarkdown(50, false)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		if _, err := ParseStatusList(md); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateTodos re-sends an edited 50-step plan, the worst ordinary case for matching.
func BenchmarkUpdateTodos(b *testing.B) {
	for _, n := range []int{10, 50, MaxItems} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			orig, edited := planMarkdown(n, false), planMarkdown(n, true)
			m := New("bench")
			if _, err := m.UpdateHypotheses("- [-] h"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := m.UpdateTodos("h1", orig); err != nil {
					b.Fatal(err)
				}
				if _, err := m.UpdateTodos("h1", edited); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSave(b *testing.B) {
	m := New("bench")
	var hyps strings.Builder
	for i := range 5 {
		fmt.Fprintf(&hyps, "- [ ] hypothesis %d\n", i)
	}
	if _, err := m.UpdateHypotheses(hyps.String()); err != nil {
		b.Fatal(err)
	}
	for _, h := range m.Hypotheses {
		if _, err := m.UpdateTodos(h.ID, planMarkdown(20, false)); err != nil {
			b.Fatal(err)
		}
	}
	s := NewStore(filepath.Join(b.TempDir(), "memory.json"))
	for b.Loop() {
		if err := s.Save(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRendered parses a list copied back from RenderTodos, every line annotated.
func BenchmarkParseRendered(b *testing.B) {
	m := New("bench")
	if _, err := m.UpdateHypotheses("- [-] h"); err != nil {
		b.Fatal(err)
	}
	if _, err := m.UpdateTodos("h1", planMarkdown(50, false)); err != nil {
		b.Fatal(err)
	}
	h := m.Hypothesis("h1")
	for i, t := range h.Todos {
		t.Hash, t.Message = fmt.Sprintf("%040x", i+1), fmt.Sprintf("Commit step %d (part of the plan)", i)
	}
	md := RenderTodos(h)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		if _, err := ParseStatusList(md); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseHostile parses inputs near MaxBytes built to make a careless parser quadratic.
func BenchmarkParseHostile(b *testing.B) {
	inputs := map[string]string{
		"annotations":   "- x" + strings.Repeat(" (h1)", 50000),
		"parens":        "- x " + strings.Repeat("(", 100000) + strings.Repeat(")", 100000),
		"continuations": "- [ ] a\n" + strings.Repeat(" b\n", 80000),
		"plain lines":   strings.Repeat("a\n", 120000),
		"items":         strings.Repeat("- [ ] a\n", 30000),
	}
	for name, md := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			for b.Loop() {
				_, _ = ParseStatusList(md)
			}
		})
	}
}
