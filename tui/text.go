package tui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// listMark is the start of a list item in plain text: "1. ", "12) ", "- ".
var listMark = regexp.MustCompile(`^(\d+[.)]|[-*•]) `)

// preformatted lays out plain text (a compare report, an observation) line
// by line for width w: each line keeps its indentation, and a line too
// long for w wraps under its own text, past any list number, so nothing is
// joined or renumbered as markdown would. "## " lines are headings.
func preformatted(st Styles, src string, w int) []string {
	w = max(w, 10)
	var out []string
	for _, line := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		line = strings.TrimRight(strings.ReplaceAll(line, "\t", "    "), " \r")
		if strings.HasPrefix(line, "## ") {
			for _, l := range hanging(line, w) {
				out = append(out, st.Bold.Render(l))
			}
			continue
		}
		out = append(out, hanging(line, w)...)
	}
	return out
}

// hanging wraps one line to w cells; continuation lines start under the
// text after the line's indentation and list mark.
func hanging(line string, w int) []string {
	if ansi.StringWidth(line) <= w {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	indent := len(line) - len(body)
	indent += len(listMark.FindString(body))
	if indent > w/2 {
		indent = 0 // a deep indent would leave no room for the text
	}
	pad := strings.Repeat(" ", indent)
	var out []string
	cur, words := line[:indent], 0
	for _, word := range strings.Fields(line[indent:]) {
		for _, piece := range strings.Split(ansi.Hardwrap(word, w-indent, false), "\n") {
			if words > 0 && ansi.StringWidth(cur)+1+ansi.StringWidth(piece) > w {
				out = append(out, cur)
				cur, words = pad, 0
			}
			if words > 0 {
				cur += " "
			}
			cur += piece
			words++
		}
	}
	return append(out, cur)
}
