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

// nbHyphen stands in for a hyphen inside a word while text is wrapped. The
// wrappers break lines after any hyphen, which cut paths and run ids
// (.git/swe-adept/runs/20261126-0540-2e0f) in two and made them hard to
// copy; held, a word breaks only where it is longer than the line.
const nbHyphen = "\u2011"

// holdHyphens protects the hyphens between two non-space characters from
// the wrappers; releaseHyphens gives them back once the text is laid out.
func holdHyphens(s string) string {
	if !strings.Contains(s, "-") {
		return s
	}
	b := []byte(s)
	var out strings.Builder
	for i, c := range b {
		if c == '-' && i > 0 && i+1 < len(b) && !isSpace(b[i-1]) && !isSpace(b[i+1]) {
			out.WriteString(nbHyphen)
			continue
		}
		out.WriteByte(c)
	}
	return out.String()
}

func releaseHyphens(s string) string { return strings.ReplaceAll(s, nbHyphen, "-") }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
