package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSanitise checks what every caller relies on: no control character
// but newline and tab survives, the output is UTF-8, cleaning twice
// changes nothing more, growth is bounded, and text with nothing to mark
// comes back unchanged.
func FuzzSanitise(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b]0;t\x07", "\x1b]52;c;eA==\x1b\\", "\x1b[2J\x1b[8mx\x1b[0m", "\x1b[1A\x1b[H",
		"\u009b2J", "\x9b2J", "\u202eab", "a\r\nb", "⚠\ufe0f", "👨\u200d👩", "é\u200d", "\xe2\x80", "\U000E0041",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		prev := rune(0)
		for i, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 {
				t.Fatalf("Clean(%q) = %q: control %U at %d", s, out, r, i)
			}
			joiner := r == 0x200c || r == 0x200d || r == 0xfe0e || r == 0xfe0f
			if hidden(r) && !joiner || joiner && prev < 0xa0 {
				t.Fatalf("Clean(%q) = %q: invisible %U at %d", s, out, r, i)
			}
			prev = r
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q: not UTF-8", s, out)
		}
		if again := Clean(out); again != out {
			t.Fatalf("not idempotent: Clean(%q) = %q, then %q", s, out, again)
		}
		if len(out) > MaxGrowth*len(s) {
			t.Fatalf("Clean grew %d bytes to %d", len(s), len(out))
		}
		if Count(s) == 0 && out != s {
			t.Fatalf("Count(%q) = 0 but Clean changed it to %q", s, out)
		}
		if Count(s) > 0 && out == s {
			t.Fatalf("Count(%q) = %d but Clean changed nothing", s, Count(s))
		}
		if strings.Contains(Styled(s), "\x1b") && !strings.Contains(s, "\x1b[") {
			t.Fatalf("Styled(%q) kept an ESC that starts no SGR", s)
		}
	})
}

var sink string

// BenchmarkClean measures the panes' common case (text with nothing to
// mark: a diff of source code) and the hostile one.
func BenchmarkClean(b *testing.B) {
	diff := strings.Repeat("@@ -12,7 +12,8 @@ def total(self):\n-    return sum(x.price for x in self.items)\n+    return round_cents(sum(x.price for x in self.items))  # café ✓\n", 200)
	hostile := strings.Repeat("ok \x1b[2J\x1b]0;t\x07 \u202eab\u200b \x9b ", 500)
	for _, c := range []struct {
		name, s string
	}{{"clean", diff}, {"hostile", hostile}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			b.ReportAllocs()
			for b.Loop() {
				sink = Clean(c.s)
			}
		})
	}
}
