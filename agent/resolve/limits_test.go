package resolve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// windowed is a scripted model with a context window.
type windowed struct {
	*llm.Scripted
	window int
}

func (w windowed) ContextWindow() int { return w.window }

// TestOutputsScaleWithTheWindow: a small window gets much smaller command
// outputs and file pages than a large one, from the first call, and each
// says how to see the rest.
func TestOutputsScaleWithTheWindow(t *testing.T) {
	_, dir := newTestEditor(t)
	var file strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&file, "value_%d = %d  # a line of a long generated module\n", i, i*i)
	}
	write(t, dir, "big.py", file.String())
	tests := []struct {
		window          int
		maxBash, maxWin int // the largest observation sizes allowed
		minBash         int
	}{
		{12_000, 3_000 + 400, 4_800 + 300, 2_000},
		{400_000, DefaultMaxOutput + 400, MaxViewChars + 300, DefaultMaxOutput - 100},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.window), func(t *testing.T) {
			a, err := New(Config{Model: windowed{llm.NewScripted(&llm.Script{}), tc.window}, Workdir: dir, Issue: "x", Mode: ModeAuto})
			if err != nil {
				t.Fatal(err)
			}
			x, err := a.Shell.Run(context.Background(), "cat big.py", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(x.Output); n > tc.maxBash || n < tc.minBash {
				t.Errorf("bash output of %d bytes for a %d-token window, want %d-%d", n, tc.window, tc.minBash, tc.maxBash)
			}
			if !strings.Contains(x.Output, "sed -n") {
				t.Errorf("the cut output does not say how to see the rest:\n%s", x.Output[len(x.Output)/2-300:len(x.Output)/2+300])
			}
			v, err := a.Editor.Do(EditArgs{Command: "view", Path: "big.py"})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(v.Text); n > tc.maxWin {
				t.Errorf("a view of %d characters for a %d-token window, want at most %d", n, tc.window, tc.maxWin)
			}
			if !strings.Contains(v.Text, "view_range [") {
				t.Errorf("the clipped view does not say how to page: %s", v.Text[len(v.Text)-200:])
			}
		})
	}
}
