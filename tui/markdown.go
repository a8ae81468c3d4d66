package tui

import (
	"html"
	"strings"

	"github.com/swe-adept/swe-adept/internal/termtext"
)

// Glamour decodes HTML character references (with html.UnescapeString)
// in text, code spans and tables, so "&#x1b;[2J" in a model's markdown
// would reach the terminal as a real escape, after cleaning. Before
// rendering, the "&" of every reference that decodes to a character
// termtext would mark is replaced by entityMark; after rendering it is put
// back, so the reference shows as the text it is. termtext marks U+2800
// (it draws as a blank), so cleaned text never holds it, and it is one
// cell wide like "&".
const entityMark = "\u2800"

// markdownSource is src cleaned and with its dangerous references
// disarmed, ready for glamour.
func markdownSource(src string) string {
	src = termtext.Clean(src)
	if !strings.Contains(src, "&") {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + 16)
	for {
		i := strings.IndexByte(src, '&')
		if i < 0 {
			b.WriteString(src)
			return b.String()
		}
		b.WriteString(src[:i])
		src = src[i+1:]
		// A reference cannot hold "&": what follows up to the next one is
		// all the decoder could read, leading zeros and all.
		ref := src
		if j := strings.IndexByte(ref, '&'); j >= 0 {
			ref = ref[:j]
		}
		if d := html.UnescapeString("&" + ref); d != "&"+ref && termtext.Count(d) > 0 {
			b.WriteString(entityMark)
		} else {
			b.WriteByte('&')
		}
	}
}

// renderedMarkdown puts the disarmed "&"s back into glamour's output and
// marks anything but glamour's own styling that still reached it.
func renderedMarkdown(out string) string {
	return termtext.Styled(strings.ReplaceAll(out, entityMark, "&"))
}
