package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// hypRowKind says what a line of the hypotheses pane shows.
type hypRowKind int

const (
	rowHyp     hypRowKind = iota
	rowHypMore            // the open hypothesis's text, continued
	rowTodo
	rowCheckpoint
	rowInsight
)

type hypRow struct {
	kind hypRowKind
	hyp  int // index into plan.Hypotheses
	todo int // index into its Todos, for todo and checkpoint rows
	text string
}

// hypPane lists the hypotheses with their status tags; under the open one
// its to-dos, each completed to-do's checkpoint, and its insights.
type hypPane struct {
	plan   event.PlanSnapshot
	open   string // hypothesis whose to-dos are shown
	cursor int
	offset int
	width  int  // of the last view, to wrap the open hypothesis's text
	follow bool // the open hypothesis tracks the current one
}

func newHypPane() hypPane { return hypPane{follow: true} }

func (p *hypPane) setPlan(s event.PlanSnapshot) {
	p.plan = s
	if p.follow && s.Current != "" {
		p.open = s.Current
		p.cursor = p.hypRow(s.Current)
	}
	p.cursor = max(min(p.cursor, len(p.rows())-1), 0)
}

func (p *hypPane) hypRow(id string) int {
	for i, r := range p.rows() {
		if r.kind == rowHyp && p.plan.Hypotheses[r.hyp].ID == id {
			return i
		}
	}
	return p.cursor
}

func (p *hypPane) rows() []hypRow {
	var out []hypRow
	for i, h := range p.plan.Hypotheses {
		if h.ID != p.open {
			out = append(out, hypRow{kind: rowHyp, hyp: i})
			continue
		}
		first, more := p.wrapText(h)
		out = append(out, hypRow{kind: rowHyp, hyp: i, text: first})
		for _, l := range more {
			out = append(out, hypRow{kind: rowHypMore, hyp: i, text: l})
		}
		for j, t := range h.Todos {
			out = append(out, hypRow{kind: rowTodo, hyp: i, todo: j})
			if t.Commit != "" {
				out = append(out, hypRow{kind: rowCheckpoint, hyp: i, todo: j})
			}
		}
		for _, in := range h.Insights {
			out = append(out, hypRow{kind: rowInsight, hyp: i, text: in})
		}
	}
	return out
}

func (p *hypPane) move(delta int) {
	p.cursor = max(min(p.cursor+delta, len(p.rows())-1), 0)
	p.follow = false
}

// selected is the row under the cursor.
func (p *hypPane) selected() (hypRow, bool) {
	rows := p.rows()
	if p.cursor < 0 || p.cursor >= len(rows) {
		return hypRow{}, false
	}
	return rows[p.cursor], true
}

// toggle opens the hypothesis under the cursor (or closes it).
func (p *hypPane) toggle() {
	r, ok := p.selected()
	if !ok || (r.kind != rowHyp && r.kind != rowHypMore) {
		return
	}
	id := p.plan.Hypotheses[r.hyp].ID
	if p.open == id {
		p.open = ""
	} else {
		p.open = id
	}
	p.follow = false
	p.cursor = p.hypRow(id)
}

func (p *hypPane) view(st Styles, r rect, focused bool) []string {
	p.width = r.w
	rows := p.rows()
	if len(rows) == 0 {
		return []string{st.Dim.Render("no hypotheses yet; the resolution agent starts after localization")}
	}
	p.offset = window(p.offset, p.cursor, len(rows), r.h)
	var out []string
	for i := p.offset; i < len(rows) && len(out) < r.h; i++ {
		mark := "  "
		if i == p.cursor && focused {
			mark = st.Cursor.Render("› ")
		}
		out = append(out, fit(mark+p.line(st, rows[i]), r.w))
	}
	return out
}

func (p *hypPane) line(st Styles, r hypRow) string {
	h := p.plan.Hypotheses[r.hyp]
	switch r.kind {
	case rowTodo:
		t := h.Todos[r.todo]
		return "    " + st.tag(t.Status) + " " + st.Dim.Render(t.ID) + " " + firstLine(t.Content)
	case rowCheckpoint:
		t := h.Todos[r.todo]
		line := "        " + st.Hunk.Render("⎇ "+shortHash(t.Commit)) + " " + firstLine(t.Message)
		if t.Stat != "" {
			line += st.Dim.Render(" · " + t.Stat)
		}
		return line
	case rowInsight:
		return "    " + st.Note.Render("✎ ") + firstLine(r.text)
	case rowHypMore:
		return "    " + r.text
	}
	id := h.ID
	if h.ID == p.plan.Current {
		id = st.Current.Render(h.ID + " ◀")
	}
	// The badge goes before the content, which is often cut at the edge.
	if p.plan.Merged != "" && h.Branch == p.plan.Merged {
		id += " " + st.StatusOK.Render("merged ✓")
	}
	text := r.text
	if text == "" {
		text = firstLine(h.Content)
	}
	return st.tag(h.Status) + " " + id + " " + text
}

// maxHypLines is how many lines the open hypothesis's text may take.
const maxHypLines = 3

// wrapText splits the open hypothesis's text into what its row shows and
// the lines that continue it, wrapped to the pane.
func (p *hypPane) wrapText(h event.Hypothesis) (first string, more []string) {
	text := strings.Join(strings.Fields(h.Content), " ")
	if p.width <= 20 {
		return "", nil
	}
	// The row shows "› [v] h2 ◀ merged ✓ " before the text.
	head := 2 + 4 + ansi.StringWidth(h.ID) + 1
	if h.ID == p.plan.Current {
		head += 2
	}
	if p.plan.Merged != "" && h.Branch == p.plan.Merged {
		head += 9
	}
	room := p.width - head
	if room <= 10 || ansi.StringWidth(text) <= room {
		return "", nil
	}
	lines := strings.Split(ansi.Wordwrap(text, room, ""), "\n")
	more = strings.Split(ansi.Wordwrap(strings.Join(lines[1:], " "), p.width-6, ""), "\n")
	if len(more) > maxHypLines-1 {
		more = more[:maxHypLines-1]
		more[len(more)-1] += " …"
	}
	return lines[0], more
}

// hypDetail is the markdown the diff pane shows for a hypothesis.
func hypDetail(h event.Hypothesis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s [%s]\n\n%s\n", h.ID, h.Status, strings.TrimSpace(h.Content))
	if h.Branch != "" {
		fmt.Fprintf(&b, "\nBranch: `%s`\n", h.Branch)
	}
	if len(h.Todos) > 0 {
		b.WriteString("\n## To-dos\n\n")
		for _, t := range h.Todos {
			fmt.Fprintf(&b, "- [%s] %s %s", t.Status, t.ID, strings.Join(strings.Fields(t.Content), " "))
			if t.Commit != "" {
				fmt.Fprintf(&b, " (`%s` %s)", shortHash(t.Commit), t.Message)
			}
			b.WriteString("\n")
		}
	}
	if len(h.Insights) > 0 {
		b.WriteString("\n## Insights\n\n")
		for _, in := range h.Insights {
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(in))
		}
	}
	return b.String()
}
