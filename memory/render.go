package memory

import (
	"fmt"
	"strings"
)

// RenderItems writes items as a numbered, tagged markdown list, nested items indented under
// their parent; ParseStatusList reads it back to the same statuses, contents and depths.
func RenderItems(items []Item) string {
	var b strings.Builder
	top, sub := 0, 0
	for _, it := range items {
		if it.Depth > 0 && top > 0 {
			sub++
			fmt.Fprintf(&b, "   %d. %s %s\n", sub, it.Status.Tag(), it.Content)
			continue
		}
		top, sub = top+1, 0
		fmt.Fprintf(&b, "%d. %s %s\n", top, it.Status.Tag(), it.Content)
	}
	return b.String()
}

// RenderHypotheses writes the hypothesis list in confidence order, each with its id, branch and
// whether it is current, as "1. [v] Fix parsing of X  (h1, branch swe-adept/r/h1)". Dropped
// hypotheses follow under a heading. The model may send the text back edited: the parser strips
// the annotations and uses the ids to keep identities.
func (m *Memory) RenderHypotheses() string {
	var b strings.Builder
	var dropped []*Hypothesis
	n := 0
	for _, h := range m.Hypotheses {
		if h.Dropped {
			dropped = append(dropped, h)
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s %s  (%s)\n", n, h.Status.Tag(), h.Content, m.hypothesisNote(h))
	}
	if len(dropped) > 0 {
		b.WriteString("\n### Dropped from the list, kept for their work\n")
		for _, h := range dropped {
			fmt.Fprintf(&b, "- %s %s  (%s)\n", h.Status.Tag(), h.Content, m.hypothesisNote(h))
		}
	}
	return b.String()
}

func (m *Memory) hypothesisNote(h *Hypothesis) string {
	note := h.ID
	if h.ID == m.Current {
		note += ", current"
	}
	if h.Branch != "" {
		note += ", branch " + h.Branch
	}
	if h.Branch != "" && h.Branch == m.Merged {
		note += ", merged"
	}
	return note
}

// RenderTodos writes h's to-do list in plan order, each with its id and checkpoint, as
// "1. [v] Add a test  (t1, checkpoint 3f2a1c4: Add regression test)". Dropped to-dos follow under
// a heading.
func RenderTodos(h *Hypothesis) string {
	var b strings.Builder
	var dropped []*Todo
	n := 0
	for _, t := range h.Todos {
		if t.Dropped {
			dropped = append(dropped, t)
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s %s  (%s)\n", n, t.Status.Tag(), t.Content, todoNote(t))
	}
	if len(dropped) > 0 {
		b.WriteString("\n### Dropped from the list, kept for their checkpoints\n")
		for _, t := range dropped {
			fmt.Fprintf(&b, "- %s %s  (%s)\n", t.Status.Tag(), t.Content, todoNote(t))
		}
	}
	return b.String()
}

func todoNote(t *Todo) string {
	if t.Hash == "" {
		return t.ID
	}
	note := t.ID + ", checkpoint " + short(t.Hash)
	if msg := firstLine(t.Message); msg != "" {
		note += ": " + msg
	}
	return note
}

// HypothesisOverview is update_hypothesis's observation: every hypothesis with status and order.
func (m *Memory) HypothesisOverview() string {
	if len(m.Hypotheses) == 0 {
		return "No hypotheses yet. Create them with update_hypothesis.\n"
	}
	head := "Hypotheses, most confident first"
	if h := m.CurrentHypothesis(); h != nil {
		head += fmt.Sprintf(" (current: %s)", h.ID)
	}
	return head + ":\n" + m.RenderHypotheses()
}

// TodoOverview is update_todo's observation: the to-do list of the hypothesis with its status.
func (m *Memory) TodoOverview(h *Hypothesis) string {
	head := fmt.Sprintf("To-dos of %s %s %s", h.ID, h.Status.Tag(), h.Content)
	if h.Branch != "" {
		head += "  (branch " + h.Branch + ")"
	}
	if len(h.Todos) == 0 {
		return head + ":\n(none yet: create them with update_todo)\n"
	}
	return head + ":\n" + RenderTodos(h)
}

// InsightsOverview is log_insight's observation: the insights of the hypothesis, oldest first.
func (m *Memory) InsightsOverview(h *Hypothesis) string {
	head := fmt.Sprintf("Insights of %s %s %s", h.ID, h.Status.Tag(), h.Content)
	if len(h.Insights) == 0 {
		return head + ":\n(none yet)\n"
	}
	return head + ":\n" + renderInsights(h, "")
}

func renderInsights(h *Hypothesis, indent string) string {
	var b strings.Builder
	for i, in := range h.Insights {
		lines := strings.Split(in.Text, "\n")
		fmt.Fprintf(&b, "%s%d. [%s] %s\n", indent, i+1, in.Time.UTC().Format("15:04:05"), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "%s   %s\n", indent, l)
		}
	}
	return b.String()
}

// BaseOverview is init_base's observation: the two hashes every hypothesis starts from.
func (m *Memory) BaseOverview() string {
	if m.Original == "" {
		return "No base yet: run init_base first.\n"
	}
	return fmt.Sprintf("Original code state: %s\nCommon working base: %s\n", m.Original, m.Base)
}

// CompareReport is compare_hypotheses' observation: for each hypothesis in confidence order (then
// dropped ones), its branch, content and status, to-dos with status and commit messages, insights,
// and the diff statistics against the original state that the caller computed, keyed by
// hypothesis id (a missing key reads "not available").
func (m *Memory) CompareReport(stats map[string]string) string {
	if len(m.Hypotheses) == 0 {
		return "No hypotheses to compare. Create them with update_hypothesis.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hypothesis comparison (original state %s", orNone(short(m.Original)))
	if m.Merged != "" {
		fmt.Fprintf(&b, ", merged %s", m.Merged)
	}
	b.WriteString(")\n")
	for _, h := range append(m.Active(), m.droppedHypotheses()...) {
		b.WriteString("\n")
		m.compareOne(&b, h, stats)
	}
	return b.String()
}

func (m *Memory) compareOne(b *strings.Builder, h *Hypothesis, stats map[string]string) {
	fmt.Fprintf(b, "## %s %s %s\n", h.ID, h.Status.Tag(), h.Content)
	if h.Dropped {
		b.WriteString("(dropped from the hypothesis list)\n")
	}
	fmt.Fprintf(b, "branch: %s\n", orNone(h.Branch))
	if len(h.Todos) == 0 {
		b.WriteString("to-dos: none\n")
	} else {
		b.WriteString("to-dos:\n")
		for i, t := range h.Todos {
			note := todoNote(t)
			if t.Dropped {
				note += ", dropped from the list"
			}
			fmt.Fprintf(b, "  %d. %s %s  (%s)\n", i+1, t.Status.Tag(), t.Content, note)
		}
	}
	if len(h.Insights) == 0 {
		b.WriteString("insights: none\n")
	} else {
		b.WriteString("insights:\n" + renderInsights(h, "  "))
	}
	stat, ok := stats[h.ID]
	stat = strings.TrimSpace(stat)
	switch {
	case !ok || stat == "":
		b.WriteString("diff against original: not available\n")
	case !strings.Contains(stat, "\n"):
		fmt.Fprintf(b, "diff against original: %s\n", stat)
	default:
		b.WriteString("diff against original:\n")
		for _, l := range strings.Split(stat, "\n") {
			b.WriteString("  " + strings.TrimRight(l, " \t\r") + "\n")
		}
	}
}

func (m *Memory) droppedHypotheses() []*Hypothesis {
	var out []*Hypothesis
	for _, h := range m.Hypotheses {
		if h.Dropped {
			out = append(out, h)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
