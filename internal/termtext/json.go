package termtext

import (
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns the JSON text b, as encoding/json writes it, with every
// character Clean would mark written as a \u escape instead. A decoder
// reads the same value, byte for byte, and a terminal shows the text
// without obeying any of it. (encoding/json already escapes C0 controls,
// but not DEL, C1 controls or invisible characters.)
func JSON(b []byte) []byte {
	var out []byte // nil until the first change
	joined := false
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			if out != nil {
				out = append(out, c)
			}
			joined = false
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		valid := !(r == utf8.RuneError && size == 1)
		if c >= utf8.RuneSelf && valid && shown(r, joined, string(b[i+size:min(i+size+utf8.UTFMax, len(b))])) {
			if out != nil {
				out = append(out, b[i:i+size]...)
			}
			joined = true
			i += size
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+len(b)/8+16)
			out = append(out, b[:i]...)
		}
		if !valid {
			r = utf8.RuneError
		}
		out = appendEscape(out, r)
		joined = false
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// appendEscape writes r as a JSON \u escape (a surrogate pair above U+FFFF).
func appendEscape(b []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendEscape(appendEscape(b, hi), lo)
	}
	b = append(b, '\\', 'u')
	for shift := 12; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[(r>>shift)&0xf])
	}
	return b
}

// JSONWriter applies JSON to everything written through it: for a stream
// of JSON values each written whole (json.Encoder writes one per Write).
type JSONWriter struct{ w io.Writer }

// NewJSONWriter returns a JSONWriter that writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write escapes p and writes it. It reports len(p) written when the whole
// escaped text was.
func (w *JSONWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
