package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// pane names the four panes in focus order.
type pane int

const (
	paneTree pane = iota
	paneHyps
	paneDiff
	paneActivity
	paneCount
)

var paneTitles = [paneCount]string{"Search tree", "Hypotheses", "Diff", "Activity"}

// rect is a pane's outer size, border included.
type rect struct{ w, h int }

// inner is the space inside the border.
func (r rect) inner() rect { return rect{max(r.w-2, 0), max(r.h-2, 0)} }

// layout is where the panes go for one terminal size. From about 100
// columns the panes sit side by side in two columns, the search tree over
// the hypotheses on the left and the diff over the activity on the right;
// smaller terminals show one pane at a time under a tab bar.
type layout struct {
	grid  bool
	boxes [paneCount]rect
	body  rect // the area above the status bar
	strip int  // tabs: lines of recent activity under the other panes
}

// gridMin is the smallest terminal that still shows all four panes.
const gridMinW, gridMinH = 100, 28

func computeLayout(w, h int) layout {
	w, h = max(w, 20), max(h, 6)
	body := rect{w, h - 1}
	if w < gridMinW || h < gridMinH {
		l := layout{body: body}
		if body.h >= 18 {
			l.strip = 3
		}
		for i := range l.boxes {
			l.boxes[i] = rect{w, body.h - 1 - l.strip} // one line for the tab bar
		}
		l.boxes[paneActivity].h = body.h - 1
		return l
	}
	leftW := w / 2
	treeH := body.h * 11 / 20 // the search leads; the hypotheses follow
	diffH := body.h / 2
	return layout{grid: true, body: body, boxes: [paneCount]rect{
		paneTree:     {leftW, treeH},
		paneHyps:     {leftW, body.h - treeH},
		paneDiff:     {w - leftW, diffH},
		paneActivity: {w - leftW, body.h - diffH},
	}}
}

// fit clips or pads s to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// box draws lines inside a rounded border with the title in the top edge,
// exactly r.w by r.h cells, so panes line up whatever their content.
func box(st Styles, title string, focused bool, lines []string, r rect) string {
	if r.w < 4 || r.h < 2 {
		return ""
	}
	bs, ts := st.Border, st.Title
	if focused {
		bs, ts = st.BorderFocused, st.TitleFocused
		title = "▶ " + title
	}
	in := r.inner()
	title = ansi.Truncate(title, in.w-2, "…")
	topFill := in.w - ansi.StringWidth(title) - 2
	var b strings.Builder
	b.WriteString(bs.Render("╭ ") + ts.Render(title) + bs.Render(" "+strings.Repeat("─", max(topFill, 0))+"╮"))
	for i := 0; i < in.h; i++ {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString("\n" + bs.Render("│") + fit(line, in.w) + bs.Render("│"))
	}
	b.WriteString("\n" + bs.Render("╰"+strings.Repeat("─", in.w)+"╯"))
	return b.String()
}

// window returns the offset that keeps cursor visible in a list of n rows
// shown h at a time, moving the old offset as little as possible.
func window(offset, cursor, n, h int) int {
	if h <= 0 {
		return 0
	}
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+h {
		offset = cursor - h + 1
	}
	return max(min(offset, n-h), 0)
}

// firstLine is s up to its first newline, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// shortHash is the first 7 characters of a commit hash (whatever a
// replayed file holds there: never half a character).
func shortHash(h string) string {
	if len(h) > 7 {
		return strings.ToValidUTF8(h[:7], "")
	}
	return h
}
