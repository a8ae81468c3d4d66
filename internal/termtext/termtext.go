// Package termtext makes untrusted text safe to show on a terminal. Text
// from a model, a file, a tool, git or an issue may hold control
// characters and escape sequences (which a terminal would obey: set its
// title, write the clipboard, clear the screen, conceal text, move the
// cursor) and invisible or direction-changing characters (which make what
// is shown differ from the bytes). Clean turns each of them into a visible
// mark, so the terminal shows text and never interprets it.
//
// The marks:
//   - C0 controls and DEL become their Unicode control pictures (ESC is ␛,
//     BEL ␇, CR ␍, DEL ␡), so "\x1b[8m" shows as "␛[8m"; newline and tab
//     stay;
//   - C1 controls (U+0080–U+009F), bidirectional overrides and isolates,
//     zero-width and other format characters, spaces other than U+0020,
//     fillers, variation selectors and tag characters become "<U+202E>";
//   - a byte that is not UTF-8 becomes "<0x9B>".
//
// Zero-width joiners and emoji presentation selectors stay when they join
// or follow a visible non-ASCII character (emoji, Indic scripts); anywhere
// else they are marked.
//
// Cleaning is idempotent, never grows a string by more than MaxGrowth times,
// and returns text that needs nothing unchanged and without allocating.
package termtext

import (
	"io"
	"unicode"
	"unicode/utf8"
)

// MaxGrowth bounds how much Clean lengthens a string: every input byte
// becomes at most this many output bytes (a lone invalid byte, "<0x9B>").
const MaxGrowth = 6

// Clean returns s with every control character, escape sequence
// introducer, invalid byte and invisible character made visible.
func Clean(s string) string {
	out, _ := clean(s, false)
	return out
}

// Count is how many characters (or invalid bytes) Clean would mark in s:
// zero when s is shown as it is.
func Count(s string) int {
	_, n := clean(s, false)
	return n
}

// Styled is Clean for the output of a renderer we trust that styled text
// which was already clean (markdown rendered by glamour): SGR sequences
// (ESC [ digits ; : m, colours and text attributes) pass, and everything
// else Clean marks is marked. Never use it on untrusted text: SGR can
// conceal.
func Styled(s string) string {
	out, _ := clean(s, true)
	return out
}

// clean walks s once. Output is built only from the first rune that
// changes; text that needs nothing is returned as it is.
func clean(s string, keepSGR bool) (string, int) {
	var b []byte // nil until the first change
	n := 0
	joined := false // the last rune was kept as itself and is not ASCII
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			if b != nil {
				b = append(b, c)
			}
			joined = false
			i++
			continue
		}
		if keepSGR && c == 0x1b {
			if k := sgrLen(s[i:]); k > 0 {
				if b != nil {
					b = append(b, s[i:i+k]...)
				}
				joined = false
				i += k
				continue
			}
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if c >= utf8.RuneSelf && !(r == utf8.RuneError && size == 1) && shown(r, joined, s[i+size:]) {
			if b != nil {
				b = append(b, s[i:i+size]...)
			}
			joined = true
			i += size
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s)+len(s)/8+16)
			b = append(b, s[:i]...)
		}
		b = appendMark(b, c, r, size)
		n++
		joined = false
		i += size
	}
	if b == nil {
		return s, 0
	}
	return string(b), n
}

// shown reports whether the non-ASCII rune r is drawn as itself. joined
// says the rune before it was kept and is not ASCII; rest is what follows.
func shown(r rune, joined bool, rest string) bool {
	switch {
	case r < 0xa0:
		return false // C1 controls: 0x9b is CSI on many terminals
	case r == 0x200c || r == 0x200d:
		return joined && plainNext(rest)
	case r == 0xfe0e || r == 0xfe0f:
		return joined
	}
	return !hidden(r)
}

// plainNext reports whether rest starts with a visible non-ASCII rune that
// is drawn as itself whatever comes before it.
func plainNext(rest string) bool {
	r, size := utf8.DecodeRuneInString(rest)
	if size == 0 || r < 0xa0 || r == utf8.RuneError && size == 1 {
		return false
	}
	return r != 0x200c && r != 0x200d && r != 0xfe0e && r != 0xfe0f && !hidden(r)
}

// hidden reports runes at or above U+00A0 that draw nothing, draw as a
// plain space, or change how the text around them is drawn.
func hidden(r rune) bool {
	switch {
	case r == 0xa0, r == 0xad, r == 0x34f, r == 0x61c, r == 0x115f, r == 0x1160,
		r == 0x17b4, r == 0x17b5, r >= 0x180b && r <= 0x180f,
		r >= 0x2000 && r <= 0x200f, r >= 0x2028 && r <= 0x202f, r >= 0x205f && r <= 0x206f,
		r == 0x2800, r == 0x3000, r == 0x3164, r >= 0xfe00 && r <= 0xfe0f, r == 0xfeff,
		r == 0xffa0, r >= 0xfff9 && r <= 0xfffb,
		r >= 0xe0000 && r <= 0xe007f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r < 0x600:
		return false // nothing else below the Arabic block is hidden: skip the tables
	}
	return unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp)
}

const hexDigits = "0123456789ABCDEF"

// appendMark writes the visible mark for the byte c or the rune r (size
// bytes of input).
func appendMark(b []byte, c byte, r rune, size int) []byte {
	switch {
	case c < 0x20:
		return utf8.AppendRune(b, 0x2400+rune(c)) // ␀ … ␟
	case c == 0x7f:
		return utf8.AppendRune(b, 0x2421) // ␡
	case size == 1: // a byte that is not UTF-8
		return append(b, '<', '0', 'x', hexDigits[c>>4], hexDigits[c&0xf], '>')
	}
	b = append(b, "<U+"...)
	digits := 4
	if r > 0xffff {
		digits = 5
	}
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(r>>shift)&0xf])
	}
	return append(b, '>')
}

// sgrLen is the length of the SGR sequence s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// Writer cleans everything written through it before passing it on: for
// a stream of human-readable text (error messages, listings). Each Write
// is cleaned on its own, so a character split across two writes shows as
// invalid bytes; fmt's printing functions write whole strings.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes it. It reports len(p) written when the whole
// cleaned text was.
func (w *Writer) Write(p []byte) (int, error) {
	s, _ := clean(string(p), false)
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
