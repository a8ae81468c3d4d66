package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWrapMeasuresCells: lines are filled to the width in terminal cells,
// not bytes: accented and wide characters fill a line as they show.
func TestWrapMeasuresCells(t *testing.T) {
	tests := []struct {
		name string
		in   string
		w    int
		want []string
	}{
		{"ascii", "one two three", 7, []string{"one two", "three"}},
		{"accented", "café crème brûlée", 10, []string{"café crème", "brûlée"}},
		{"wide", "日本 語の 文章", 7, []string{"日本", "語の", "文章"}},
		{"paragraphs", "a b\nc", 10, []string{"a b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrap(tt.in, tt.w)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
			}
			for _, l := range got {
				if ansi.StringWidth(l) > tt.w && strings.Contains(l, " ") {
					t.Errorf("line %q is %d cells, wider than %d", l, ansi.StringWidth(l), tt.w)
				}
			}
		})
	}
}
