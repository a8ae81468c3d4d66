package llm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cutMarkerStart opens the note that replaces the middle of an output.
const cutMarkerStart = "[... "

// cutMarkerRoom is a generous size for that note, in characters.
const cutMarkerRoom = 420

// numberedLine is a line as cat -n and the file viewer print it.
var numberedLine = regexp.MustCompile(`^\s*(\d+)\t`)

// cutMiddle removes about drop characters from the middle of text,
// keeping its head and tail on whole lines where it can, and puts in their
// place a note that says how much was cut and how to see it. paging words
// the "how"; nil gives a generic hint.
func cutMiddle(text string, drop int, paging func(first, last int, numbered bool) string) string {
	if drop <= 0 || text == "" {
		return text
	}
	keep := max(len(text)-drop, 0)
	head := snapHead(text, keep/2)
	tail := snapTail(text, len(text)-head, keep-head)
	middle := text[head : len(text)-tail]
	if middle == "" {
		return text
	}
	first := strings.Count(text[:head], "\n") + 1
	last := first + strings.Count(strings.TrimSuffix(middle, "\n"), "\n")
	numbered := false
	if a, b, ok := fileLines(text[:head], text[len(text)-tail:]); ok {
		first, last, numbered = a, b, true
	}
	if paging == nil {
		paging = genericPaging
	}
	what := fmt.Sprintf("lines %d-%d of this output", first, last)
	if numbered {
		what = fmt.Sprintf("lines %d-%d of the file", first, last)
	}
	note := fmt.Sprintf("%s%d characters (%s) cut from the middle to fit the context window; %s ...]",
		cutMarkerStart, len(middle), what, paging(first, last, numbered))
	sep := "\n"
	if head > 0 && text[head-1] == '\n' {
		sep = ""
	}
	return text[:head] + sep + note + "\n" + text[len(text)-tail:]
}

// snapHead is the length of a head of about n bytes, ending after a
// newline when one is near, and never inside a character.
func snapHead(text string, n int) int {
	n = min(max(n, 0), len(text))
	if i := strings.LastIndexByte(text[:n], '\n'); i >= 0 && i >= n/2 {
		return i + 1
	}
	for n > 0 && !utf8.RuneStart(text[n]) && n < len(text) {
		n--
	}
	return n
}

// snapTail is the length of a tail of about n bytes that starts at a
// line's beginning when one is near, after the head's end at from.
func snapTail(text string, room, n int) int {
	n = min(max(n, 0), room)
	start := len(text) - n
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 && i < n/2 {
		return n - i - 1
	}
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	return len(text) - start
}

// fileLines reads the file's line numbers around a cut in a numbered
// output: the head's last line and the tail's first.
func fileLines(head, tail string) (first, last int, ok bool) {
	h := strings.TrimSuffix(head, "\n")
	h = h[strings.LastIndexByte(h, '\n')+1:]
	t, _, _ := strings.Cut(tail, "\n")
	hm, tm := numberedLine.FindStringSubmatch(h), numberedLine.FindStringSubmatch(t)
	if hm == nil || tm == nil {
		return 0, 0, false
	}
	a, _ := strconv.Atoi(hm[1])
	b, _ := strconv.Atoi(tm[1])
	if b-a < 2 {
		return 0, 0, false
	}
	return a + 1, b - 1, true
}

func genericPaging(first, last int, numbered bool) string {
	if numbered {
		return fmt.Sprintf("to see them, view lines %d-%d of the file on their own", first, last)
	}
	return fmt.Sprintf("to see them, run the command again printing only those lines (| sed -n '%d,%dp'), or narrow it with grep, head or tail", first, last)
}
