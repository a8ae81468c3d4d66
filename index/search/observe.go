package search

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/swe-adept/swe-adept/index"
)

// lineCount is the number of lines of file fi.
func (s *Searcher) lineCount(fi int32) int { return len(s.lines[fi]) }

// lineText is line n (1-based) of file fi without its line break.
func (s *Searcher) lineText(fi int32, n int) string {
	offs := s.lines[fi]
	if n < 1 || n > len(offs) {
		return ""
	}
	src, _ := s.ix.Source(s.files[fi].Path)
	end := len(src)
	if n < len(offs) {
		end = int(offs[n])
	}
	return strings.TrimRight(string(src[offs[n-1]:end]), "\r\n")
}

// headerLines are the lines of a unit's signature: decorators skipped
// (with their arguments, however many lines they take), up to the line that
// opens the body, at most four lines.
func (s *Searcher) headerLines(u *index.Unit) []int {
	fi, ok := s.fileIdx[u.Path]
	if !ok {
		return nil
	}
	n := min(u.End, s.lineCount(fi))
	var out []int
	depth := 0 // open brackets of a decorator being skipped
	for l := max(u.Start, 1); l <= n && len(out) < 4; l++ {
		t := strings.TrimSpace(s.lineText(fi, l))
		if len(out) == 0 && (depth > 0 || t == "" || strings.HasPrefix(t, "@")) {
			depth = max(0, depth+bracketBalance(t))
			continue
		}
		out = append(out, l)
		if u.Kind == index.KindChunk || opensBody(t) {
			break
		}
	}
	return out
}

// bracketBalance is how many more brackets a line opens than it closes,
// ignoring those inside string literals well enough for decorators.
func bracketBalance(t string) int {
	bal := 0
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#':
			return bal
		case c == '(' || c == '[' || c == '{':
			bal++
		case c == ')' || c == ']' || c == '}':
			bal--
		}
	}
	return bal
}

// opensBody tells whether a signature line ends the header: Python's colon
// or a C-family brace.
func opensBody(t string) bool {
	if i := strings.Index(t, " #"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return strings.HasSuffix(t, ":") || strings.Contains(t, "{") || strings.HasSuffix(t, ";")
}

// Preview is the concise view of a unit the tools show: its signature plus
// the lines where it reaches its children (calls, nested definitions), at
// most PreviewLines lines, numbered, not the body.
func (s *Searcher) Preview(u *index.Unit) string {
	var extra []int
	for _, e := range u.Children {
		line := e.Line
		if e.Rel == index.Contains {
			// A nested definition's edge points at its first line, which
			// may be a decorator; its signature line says more.
			if c, ok := s.ix.Unit(e.ID); ok {
				if h := s.headerLines(c); len(h) > 0 {
					line = h[0]
				}
			}
		}
		extra = append(extra, line)
	}
	return s.renderLines(u, extra)
}

// renderLines shows a unit's header lines and the given lines inside its span,
// in order, de-indented by the header's indentation and capped to
// PreviewLines.
func (s *Searcher) renderLines(u *index.Unit, extra []int) string {
	fi, ok := s.fileIdx[u.Path]
	if !ok {
		return u.Signature
	}
	head := s.headerLines(u)
	seen := map[int]bool{}
	var ls []int
	for _, l := range head {
		seen[l] = true
		ls = append(ls, l)
	}
	var body []int
	for _, l := range extra {
		if l >= u.Start && l <= u.End && l <= s.lineCount(fi) && !seen[l] {
			seen[l] = true
			body = append(body, l)
		}
	}
	sort.Ints(body)
	return s.numbered(fi, ls, body, PreviewLines)
}

// numbered renders head and body lines with numbers, keeping at most limit
// lines (the last one a "more" notice when lines are left out). Gaps are
// left to the line numbers to show: a "..." line would cost a preview line.
func (s *Searcher) numbered(fi int32, head, body []int, limit int) string {
	all := append(append([]int{}, head...), body...)
	cut := 0
	if len(all) > limit {
		cut = len(all) - (limit - 1)
		all = all[:limit-1]
	}
	indent := -1
	for _, l := range all {
		t := s.lineText(fi, l)
		if strings.TrimSpace(t) == "" {
			continue
		}
		w := len(t) - len(strings.TrimLeft(t, " \t"))
		if indent < 0 || w < indent {
			indent = w
		}
	}
	indent = max(indent, 0)
	width := len(fmt.Sprint(lastOr(all, 1)))
	var b strings.Builder
	for _, l := range all {
		t := s.lineText(fi, l)
		if len(t) >= indent {
			t = t[indent:]
		}
		b.WriteString(numberedLine(width, l, clipLine(t)))
	}
	if cut > 0 {
		fmt.Fprintf(&b, "%*s | ... (%d more lines)\n", width, "", cut)
	}
	return b.String()
}

// numberedLine is one source line as the tools show it: "  42 | text".
func numberedLine(width, n int, text string) string {
	if text == "" {
		return fmt.Sprintf("%*d |\n", width, n)
	}
	return fmt.Sprintf("%*d | %s\n", width, n, text)
}

func lastOr(xs []int, def int) int {
	if len(xs) == 0 {
		return def
	}
	return xs[len(xs)-1]
}

// clipLine cuts a long line at a rune boundary.
func clipLine(t string) string {
	t = strings.TrimRight(t, " \t")
	if len(t) <= maxLineWidth {
		return t
	}
	cut := maxLineWidth
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return t[:cut] + "…"
}

// quote shows a model-supplied string in an observation, shortened so a huge
// argument cannot blow the budget.
func quote(q string) string {
	q = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, q)
	if len(q) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut] + "…"
	}
	return "`" + q + "`"
}

// childIDs are the ids of a unit's children in edge order, without repeats.
func childIDs(u *index.Unit) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range u.Children {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e.ID)
		}
	}
	return out
}

// renderChildren lists child ids grouped by file, in the form
// find_child_unit takes (file_path, then definition names).
func renderChildren(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	shown := ids
	if len(shown) > maxChildrenShown {
		shown = shown[:maxChildrenShown]
	}
	var order []string
	byFile := map[string][]string{}
	for _, id := range shown {
		p, name := splitID(id)
		if _, ok := byFile[p]; !ok {
			order = append(order, p)
		}
		byFile[p] = append(byFile[p], name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "   children (%d):\n", len(ids))
	for _, p := range order {
		fmt.Fprintf(&b, "     in %s: %s\n", p, strings.Join(byFile[p], ", "))
	}
	if len(ids) > len(shown) {
		fmt.Fprintf(&b, "     ... %d more\n", len(ids)-len(shown))
	}
	return b.String()
}

// splitID splits "path:Qualified.name" at the colon after the path.
func splitID(id string) (string, string) {
	i := strings.LastIndex(id, ":")
	if i < 0 {
		return "", id
	}
	// A chunk id's name is "<chunk N>", which holds no colon; a path
	// seldom does, so the last colon is the separator.
	return id[:i], id[i+1:]
}

// unitHit builds the shown form of a unit result.
func (s *Searcher) unitHit(u *index.Unit, score float64, preview string) Hit {
	return Hit{
		UnitID: u.ID, Path: u.Path, Kind: u.Kind, Start: u.Start, End: u.End,
		Score: score, Children: childIDs(u), Preview: preview,
	}
}

// renderUnitHit is one numbered result block of find_code_def,
// find_child_unit and find_code_content.
func renderUnitHit(n int, h Hit, showScore bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d. %s  [%s, lines %d-%d", n, h.UnitID, h.Kind, h.Start, h.End)
	if showScore {
		fmt.Fprintf(&b, ", score %.2f", h.Score)
	}
	b.WriteString("]\n")
	b.WriteString(renderChildren(h.Children))
	writePreview(&b, h.Preview)
	return b.String()
}

// writePreview writes a hit's preview under its result line, indented,
// without blank lines.
func writePreview(b *strings.Builder, preview string) {
	for _, l := range strings.Split(strings.TrimRight(preview, "\n"), "\n") {
		if l != "" {
			b.WriteString("   " + l + "\n")
		}
	}
}

// page assembles an observation from a header, result blocks and a footer
// for results left out, within ObservationBudget. It returns how many blocks
// fit; the first always does (clipped if it must be).
func page(header string, blocks []string, more int, moreHint string) (string, int) {
	var b strings.Builder
	b.WriteString(header)
	shown := 0
	reserve := len(moreHint) + 40
	for i, blk := range blocks {
		if i > 0 && b.Len()+len(blk)+1+reserve > ObservationBudget {
			break
		}
		b.WriteString("\n")
		b.WriteString(blk)
		shown++
	}
	left := more + len(blocks) - shown
	if left > 0 {
		fmt.Fprintf(&b, "\n%d more not shown; %s\n", left, moreHint)
	}
	return clip(b.String()), shown
}

const clipNotice = "\n[output cut to fit the observation budget; narrow the query]\n"

// clip enforces ObservationBudget on any observation, cutting at a line
// boundary when it can.
func clip(obs string) string {
	if len(obs) <= ObservationBudget {
		return obs
	}
	cut := ObservationBudget - len(clipNotice)
	if i := strings.LastIndexByte(obs[:cut], '\n'); i > cut/2 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(obs[cut]) {
		cut--
	}
	return obs[:cut] + clipNotice
}

// failure is a Result for a wrong argument: the observation tells the model
// what to do next.
func failure(tool, query, msg string) Result {
	msg = clip(msg)
	return Result{Tool: tool, Query: query, Mode: ModeError, Observation: msg, Err: msg}
}

// FullCode is the whole source of a unit with line numbers: the deferred
// full-code load of the stage-2 re-ranking.
func (s *Searcher) FullCode(id string) (string, error) {
	u, ok := s.ix.Unit(id)
	if !ok {
		return "", fmt.Errorf("full code of %q: no such unit", id)
	}
	fi, ok := s.fileIdx[u.Path]
	if !ok {
		return "", fmt.Errorf("full code of %q: file %q not indexed", id, u.Path)
	}
	end := min(u.End, s.lineCount(fi))
	if end < u.Start {
		return "", fmt.Errorf("full code of %q: lines %d-%d are not in the indexed source of %s", id, u.Start, u.End, u.Path)
	}
	width := len(fmt.Sprint(end))
	var b strings.Builder
	for l := max(u.Start, 1); l <= end; l++ {
		b.WriteString(numberedLine(width, l, s.lineText(fi, l)))
	}
	return b.String(), nil
}
