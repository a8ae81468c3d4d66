package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/glamour"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// markdown renders markdown with one glamour renderer per width. Renderers
// are costly and not safe for concurrent use, so they live on the UI
// goroutine and are built only when a width is first needed.
type markdown struct {
	style   string // chosen before the program starts: never "auto"
	ascii   bool
	byWidth map[int]*glamour.TermRenderer
}

func newMarkdown(style string, ascii bool) *markdown {
	return &markdown{style: style, ascii: ascii, byWidth: map[int]*glamour.TermRenderer{}}
}

func (m *markdown) render(src string, width int) string {
	width = max(width, 10)
	r, ok := m.byWidth[width]
	if !ok {
		opts := []glamour.TermRendererOption{glamour.WithStandardStyle(m.style), glamour.WithWordWrap(width)}
		if m.ascii {
			opts = append(opts, glamour.WithColorProfile(termenv.Ascii))
		}
		var err error
		if r, err = glamour.NewTermRenderer(opts...); err != nil {
			return termtext.Clean(src)
		}
		m.byWidth[width] = r
	}
	out, err := r.Render(holdHyphens(markdownSource(src)))
	if err != nil {
		return termtext.Clean(src)
	}
	return strings.Trim(releaseHyphens(renderedMarkdown(out)), "\n")
}

// diffContent is what the diff pane shows: a patch or a markdown text.
type diffContent struct {
	title    string
	patch    string
	markdown string
}

// diffPane keeps every diff the run sent, by target hash and by label, and
// shows one of them (or a hypothesis, insight or report as markdown) in a
// scrollable viewport.
type diffPane struct {
	vp     viewport.Model
	byKey  map[string]event.DiffInfo
	latest string // key of the newest diff
	final  string // key of the newest final patch
	shown  diffContent
	follow bool // show each new diff as it arrives
	width  int
	md     *markdown
	st     Styles
}

func newDiffPane(st Styles, md *markdown) diffPane {
	return diffPane{vp: viewport.New(0, 0), byKey: map[string]event.DiffInfo{}, follow: true, md: md, st: st}
}

// add keeps a diff; while following, it is shown at once.
func (d *diffPane) add(info event.DiffInfo) {
	for _, k := range []string{info.To, info.Label} {
		if k != "" {
			d.byKey[k] = info
		}
	}
	d.latest = info.Label
	if d.latest == "" {
		d.latest = info.To
	}
	if strings.Contains(strings.ToLower(info.Label), "final") {
		d.final = d.latest
	}
	if d.follow {
		d.showDiff(info)
	}
}

// lookup finds a diff by hash (full or short) or label.
func (d *diffPane) lookup(keys ...string) (event.DiffInfo, bool) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if info, ok := d.byKey[k]; ok {
			return info, true
		}
		for key, info := range d.byKey {
			if len(k) >= 7 && (strings.HasPrefix(key, k) || strings.HasPrefix(k, key) && len(key) >= 7) {
				return info, true
			}
		}
	}
	return event.DiffInfo{}, false
}

func (d *diffPane) showDiff(info event.DiffInfo) {
	title := info.Label
	if title == "" {
		title = shortHash(info.From) + ".." + shortHash(info.To)
	}
	if info.Stat != "" {
		title += " · " + info.Stat
	}
	d.show(diffContent{title: title, patch: info.Patch})
}

func (d *diffPane) showMarkdown(title, src string) {
	d.show(diffContent{title: title, markdown: src})
}

func (d *diffPane) show(c diffContent) {
	c.title, c.patch, c.markdown = termtext.Clean(c.title), termtext.Clean(c.patch), termtext.Clean(c.markdown)
	d.shown = c
	d.refresh()
	d.vp.GotoTop()
}

func (d *diffPane) setSize(r rect) {
	inner := r.inner()
	d.vp.Width, d.vp.Height = inner.w, max(inner.h, 1)
	if inner.w != d.width {
		d.width = inner.w
		d.refresh()
	}
}

// refresh re-renders the shown content for the current width.
func (d *diffPane) refresh() {
	var parts []string
	if d.shown.markdown != "" {
		parts = append(parts, d.md.render(d.shown.markdown, d.width))
	}
	if d.shown.patch != "" {
		parts = append(parts, colorPatch(d.st, d.shown.patch))
	}
	if len(parts) == 0 {
		parts = append(parts, d.st.Dim.Render("no diff yet; select a checkpoint or hypothesis and press enter"))
	}
	d.vp.SetContent(strings.Join(parts, "\n\n"))
}

// hypothesisDiff finds a hypothesis's diff against the original state: by
// its branch, or by a label that names it.
func (d *diffPane) hypothesisDiff(h event.Hypothesis, original string) (event.DiffInfo, bool) {
	if info, ok := d.byKey[h.Branch]; ok && h.Branch != "" {
		return info, true
	}
	for _, info := range d.byKey {
		if (original == "" || info.From == original) && containsWord(info.Label, h.ID) && !strings.Contains(info.Label, "checkpoint") {
			return info, true
		}
	}
	return event.DiffInfo{}, false
}

// final is the final patch, whose label says so.
func (d *diffPane) finalPatch() (event.DiffInfo, bool) {
	info, ok := d.byKey[d.final]
	return info, ok && d.final != ""
}

// containsWord reports whether w occurs in s not as part of a longer word.
func containsWord(s, w string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '(' || r == ')' || r == '/' || r == ',' || r == ':'
	}) {
		if f == w {
			return true
		}
	}
	return false
}

func (d *diffPane) title() string {
	t := paneTitles[paneDiff]
	if d.shown.title != "" {
		t += ": " + d.shown.title
	}
	if d.follow {
		t += " (following)"
	}
	return t
}

func (d *diffPane) view() []string { return strings.Split(d.vp.View(), "\n") }

// colorPatch colours a unified diff line by line.
func colorPatch(st Styles, patch string) string {
	lines := strings.Split(strings.TrimRight(patch, "\n"), "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
			lines[i] = st.Meta.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = st.Hunk.Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = st.Add.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = st.Del.Render(l)
		default:
			lines[i] = l
		}
	}
	return strings.Join(lines, "\n")
}
