package localize

import (
	"fmt"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// windowed is a scripted model with a context window.
type windowed struct {
	*llm.Scripted
	window int
}

func (w windowed) ContextWindow() int { return w.window }

// TestFullCodeFitsTheWindow: stage 2's full code takes a share of a small
// model's window, not the fixed budget meant for large ones (the notes on
// units left out come on top).
func TestFullCodeFitsTheWindow(t *testing.T) {
	ix, s := sample(t)
	var ids []string
	for _, u := range ix.Units() {
		ids = append(ids, u.ID)
	}
	full := 0
	for _, tc := range []struct{ window, most int }{{0, fullCodeBudget + 4000}, {4_000, 4_000 + 800}} {
		t.Run(fmt.Sprint(tc.window), func(t *testing.T) {
			a := newAgent(Config{Index: ix, Searcher: s, Model: windowed{llm.NewScripted(&llm.Script{}), tc.window}})
			n := len(a.fullCode(ids))
			if tc.window == 0 {
				full = n
			}
			if n > tc.most || tc.window > 0 && n >= full {
				t.Errorf("%d bytes of full code for a %d-token window (%d without one), want at most %d", n, tc.window, full, tc.most)
			}
		})
	}
}
