package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// intro opens the dialog's scrollable part: the command in full, for a
// command, then the summary of what happens if approved.
func (d *dialog) intro(st Styles, w int) []string {
	var out []string
	if d.req.Action == "bash" {
		out = append(commandLines(st, d.req.Target, w), "")
	}
	if s := strings.TrimSpace(d.req.Summary); s != "" {
		out = append(out, wrap(s, w)...)
		out = append(out, "")
	}
	return out
}

// commandLines draws a command as exactly what will run: every character,
// with control and invisible ones as the marks the shown request already
// holds, a tab as ␉, wrapped to w cells and never cut. The first line
// starts "$ ", a line after a newline in the command "> ", and a line
// wrapped for width "  ", so none can pass for another.
func commandLines(st Styles, cmd string, w int) []string {
	room := max(w-2, 1)
	var out []string
	for i, line := range strings.Split(cmd, "\n") {
		prefix := "> "
		if i == 0 {
			prefix = "$ "
		}
		line = strings.ReplaceAll(line, "\t", "␉")
		for j, part := range strings.Split(ansi.Hardwrap(line, room, true), "\n") {
			if j > 0 {
				prefix = "  "
			}
			out = append(out, st.Bold.Render(prefix+part))
		}
	}
	return out
}

// warning says when what the agent sent had to be cleaned to be shown:
// the engineer then knows the marks stand for real bytes.
func (d *dialog) warning(st Styles, w int) []string {
	n, what := termtext.Count(d.raw.Target), "this command contains"
	if d.raw.Action != "bash" {
		what = "what the agent names here contains"
		for _, o := range d.raw.Options {
			n += termtext.Count(o)
		}
	}
	if n == 0 {
		return nil
	}
	msg := fmt.Sprintf("⚠ %s %d hidden or control %s, shown as marks (␛ is ESC, <U+202E> a Unicode character): read it all before approving",
		what, n, plural(n, "character", "characters"))
	var out []string
	for _, l := range wrap(msg, w) {
		out = append(out, st.StatusWarn.Render(l))
	}
	return out
}

// moreBelow is the line under a dialog's cut-off part: how much is below
// and the key that scrolls to it.
func moreBelow(st Styles, k KeyMap, n, w int) string {
	return st.Note.Render(fit(fmt.Sprintf("↓ %d more %s below: %s scrolls", n, plural(n, "line", "lines"), k.Down.Help().Key), w))
}

// rawLocations maps the locations the engineer kept, in their shown form,
// back to the bytes the agent offered; a location typed by hand matches
// none and is kept as typed.
func rawLocations(raw *event.ApprovalRequest, shown []string) []string {
	byShown := map[string]string{}
	for _, l := range locationsOf(raw) {
		if _, ok := byShown[termtext.Clean(l)]; !ok {
			byShown[termtext.Clean(l)] = l
		}
	}
	out := make([]string, len(shown))
	for i, s := range shown {
		out[i] = s
		if l, ok := byShown[s]; ok {
			out[i] = l
		}
	}
	return out
}
