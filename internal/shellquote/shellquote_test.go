package shellquote

import (
	"os/exec"
	"testing"
)

// A quoted word comes back from a real shell byte for byte, whatever it
// holds.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	words := []string{"plain", "", "with space", "it's", `"dq"`, "$HOME", "`id`", "a;b|c&d", "back\\slash",
		"new\nline", "-dash", "*glob?", "tab\there", "ünïcode", "''", "'", "x'y'z"}
	for _, w := range words {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("Quote(%q) = %s: sh gave %q, %v", w, Quote(w), out, err)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a b", "it's", "$x", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				t.Skip("a shell word cannot hold NUL")
			}
		}
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Fatalf("Quote(%q) = %s: sh gave %q, %v", s, Quote(s), out, err)
		}
	})
}
