package termtext

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"plain", "pytest -q tests/", "pytest -q tests/", 0},
		{"newline and tab stay", "a\tb\nc", "a\tb\nc", 0},
		{"non-ASCII text stays", "café 日本 ✓ → ␛", "café 日本 ✓ → ␛", 0},
		{"title OSC 0", "\x1b]0;pwned\x07", "␛]0;pwned␇", 2},
		{"title OSC 2 ST", "\x1b]2;pwned\x1b\\", "␛]2;pwned␛\\", 2},
		{"clipboard OSC 52", "\x1b]52;c;Y3VybCB8IHNo\x07", "␛]52;c;Y3VybCB8IHNo␇", 2},
		{"clear screen", "\x1b[2J\x1b[H", "␛[2J␛[H", 2},
		{"conceal", "pytest -q\x1b[8m; python3 -c evil\x1b[0m", "pytest -q␛[8m; python3 -c evil␛[0m", 2},
		{"cursor up", "ok\x1b[1A\x1b[2Kfake", "ok␛[1A␛[2Kfake", 2},
		{"DCS APC PM SOS", "\x1bPq\x1b\\\x1b_x\x1b\\\x1b^x\x1b\\\x1bXx\x1b\\", "␛Pq␛\\␛_x␛\\␛^x␛\\␛Xx␛\\", 8},
		{"carriage return", "safe\rEVIL", "safe␍EVIL", 1},
		{"CRLF", "a\r\nb", "a␍\nb", 1},
		{"NUL and DEL", "a\x00b\x7f", "a␀b␡", 2},
		{"backspace", "rm -rf /tmp/x\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08", "rm -rf /tmp/x␈␈␈␈␈␈␈␈␈␈", 10},
		{"C1 CSI rune", "a\u009b2Jb", "a<U+009B>2Jb", 1},
		{"C1 OSC rune", "\u009d0;t\u009c", "<U+009D>0;t<U+009C>", 2},
		{"invalid byte 0x9b", "a\x9b2J", "a<0x9B>2J", 1},
		{"truncated rune", "a\xe2\x80", "a<0xE2><0x80>", 2},
		{"RLO", "user\u202egnp.exe", "user<U+202E>gnp.exe", 1},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", "<U+2066>a<U+2067>b<U+2068>c<U+2069>", 4},
		{"LRM RLM ALM", "\u200e\u200f\u061c", "<U+200E><U+200F><U+061C>", 3},
		{"zero width space", "py\u200btest", "py<U+200B>test", 1},
		{"BOM and word joiner", "\ufeffa\u2060b", "<U+FEFF>a<U+2060>b", 2},
		{"soft hyphen", "rm\u00ad -rf", "rm<U+00AD> -rf", 1},
		{"no-break space", "rm -rf\u00a0/", "rm -rf<U+00A0>/", 1},
		{"line separator", "a\u2028b\u2029c", "a<U+2028>b<U+2029>c", 2},
		{"hangul filler", "a\u3164b\uffa0c", "a<U+3164>b<U+FFA0>c", 2},
		{"tag characters", "ok\U000E0041\U000E0042", "ok<U+E0041><U+E0042>", 2},
		{"variation selector on ASCII", "pytest\ufe0f", "pytest<U+FE0F>", 1},
		{"variation selector supplement", "a\U000E0100", "a<U+E0100>", 1},
		{"ZWJ between ASCII", "py\u200dtest", "py<U+200D>test", 1},
		{"emoji presentation stays", "⚠\ufe0f careful", "⚠\ufe0f careful", 0},
		{"emoji ZWJ sequence stays", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧", 0},
		{"eye in speech bubble stays", "👁\ufe0f\u200d🗨\ufe0f", "👁\ufe0f\u200d🗨\ufe0f", 0},
		{"ZWJ after a mark", "\x1b\u200d👩", "␛<U+200D>👩", 2},
		{"ZWJ before ASCII", "é\u200dr", "é<U+200D>r", 1},
		{"ZWJ at the end", "é\u200d", "é<U+200D>", 1},
		{"control picture stays", "␛[8m is not an escape", "␛[8m is not an escape", 0},
		{"replacement char stays", "\ufffd", "\ufffd", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Count(tt.in); got != tt.n {
				t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.n)
			}
			if again := Clean(tt.want); again != tt.want {
				t.Errorf("Clean is not idempotent: Clean(%q) = %q", tt.want, again)
			}
		})
	}
}

// TestCleanReturnsInput checks the fast path: clean text is the same
// string, not a copy.
func TestCleanReturnsInput(t *testing.T) {
	s := strings.Repeat("def total(self):\n\treturn 1 # café ✓\n", 100)
	if got := Clean(s); unsafe.StringData(got) != unsafe.StringData(s) {
		t.Fatal("clean text was copied")
	}
	if n := testing.AllocsPerRun(100, func() { _ = Clean(s) }); n != 0 {
		t.Errorf("Clean of clean text allocates %.0f times", n)
	}
}

func TestStyled(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"colour passes", "\x1b[38;5;252mtext\x1b[0m", "\x1b[38;5;252mtext\x1b[0m"},
		{"colon params pass", "\x1b[4:3mu\x1b[m", "\x1b[4:3mu\x1b[m"},
		{"clear screen is marked", "\x1b[2J", "␛[2J"},
		{"OSC is marked", "\x1b]8;;http://x\x1b\\link", "␛]8;;http://x␛\\link"},
		{"unterminated SGR is marked", "\x1b[31", "␛[31"},
		{"bidi is marked", "\x1b[1m\u202eab\x1b[0m", "\x1b[1m<U+202E>ab\x1b[0m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Styled(tt.in); got != tt.want {
				t.Errorf("Styled(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	n, err := w.Write([]byte("error: \x1b]0;title\x07 in \u202efile\n"))
	if err != nil || n != len("error: \x1b]0;title\x07 in \u202efile\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, want := buf.String(), "error: ␛]0;title␇ in <U+202E>file\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if _, err := NewWriter(failing{}).Write([]byte("x")); err == nil {
		t.Error("a failing writer's error was lost")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestJSON(t *testing.T) {
	values := []string{
		"plain",
		"esc \x1b[2J bel \x07 del \x7f cr \r",
		"c1 \u009b31m and \u0085",
		"bidi \u202e rlo \u2066 isolate \u200b zwsp \ufeff bom",
		"tags \U000E0041 and vs \U000E0100",
		"emoji ⚠\ufe0f 👨\u200d👩",
		"invalid \xff byte",
	}
	for _, v := range values {
		b, err := json.Marshal(map[string]string{"text": v})
		if err != nil {
			t.Fatal(err)
		}
		safe := JSON(append(b, '\n'))
		if s := Clean(string(safe)); s != string(safe) {
			t.Errorf("JSON(%q) = %s: still has characters Clean marks (%s)", b, safe, s)
		}
		var got, want map[string]string
		if err := json.Unmarshal(safe, &got); err != nil {
			t.Fatalf("JSON(%s) = %s: not JSON: %v", b, safe, err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if got["text"] != want["text"] {
			t.Errorf("JSON changed the value: %q, want %q", got["text"], want["text"])
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(NewJSONWriter(&buf)).Encode("a\u202eb"); err != nil || buf.String() != `"a\u202eb"`+"\n" {
		t.Errorf("JSONWriter wrote %q, %v", buf.String(), err)
	}
	if _, err := NewJSONWriter(failing{}).Write([]byte("1")); err == nil {
		t.Error("a failing writer's error was lost")
	}
	plain := []byte(`{"a":"café ✓"}` + "\n")
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied text that needed nothing")
	}
}

func TestMarksAreValidUTF8(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := Clean(string([]byte{'a', byte(c), 'b'}))
		if !utf8.ValidString(s) {
			t.Errorf("Clean(0x%02x) = %q: not UTF-8", c, s)
		}
	}
}
