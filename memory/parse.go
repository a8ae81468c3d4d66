package memory

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Item is one entry of a status-tagged markdown list, as the model wrote it.
type Item struct {
	Line    int    // 1-based line of the item's first line in the markdown
	Status  Status // Pending when the line had no tag
	Content string // text without bullet, tag or the annotations this package renders
	Tagged  bool   // the line carried a status tag
	Ref     string // id from a rendered annotation ("h2", "t3") the model copied back, if any
	Depth   int    // 0 for a top-level item, 1 for one nested under the item before it
}

// MaxItems and MaxBytes bound a list, so a runaway model cannot make parsing or matching slow.
const (
	MaxItems = 200
	MaxBytes = 256 << 10
)

// ParseStatusList reads a markdown list of status-tagged items, tolerating what models write:
//   - bullets "-", "*", "+", "•" or numbers "1." "1)", or no marker before a tag;
//   - tags with any inner spacing: "[ ]", "[]", "[  ]" pending; "[-]", "[~]", "[/]" in progress;
//     "[v]", "[V]", "[x]", "[X]", "[✓]", "[✔]" successful; "[!]" failed (see ParseStatus);
//   - a bulleted line without a tag is pending;
//   - a line that is not an item but follows one (indented, or directly below it) continues it;
//   - blank lines, headings, rules, code fences and prose before the first item are ignored;
//   - so is every line under a heading that starts with "Dropped" (how the renderers set apart
//     items kept only for their work) up to the next heading: moving such a line into the list
//     revives the item;
//   - if no line has a bullet or tag, every non-blank text line is a pending item;
//   - an item indented two or more columns deeper than the first item is nested (Depth 1) under
//     the top-level item before it; deeper nesting counts as Depth 1 too.
//
// Trailing annotations this package renders, "(h1, branch …)" or "(t2, checkpoint …)", are
// stripped from the content and their id is kept in Item.Ref. The order of the result is the order
// of the list. It fails, naming a line, when nothing parses or the list is too long.
func ParseStatusList(md string) ([]Item, error) {
	if len(md) > MaxBytes {
		return nil, fmt.Errorf("list is %d bytes: at most %d are read; shorten it", len(md), MaxBytes)
	}
	p := listParser{baseWidth: -1, cur: -1}
	for i, raw := range strings.Split(md, "\n") {
		p.line(i+1, strings.TrimRight(raw, "\r"))
	}
	for i, parts := range p.cont {
		if len(parts) > 0 {
			p.items[i].Content += " " + strings.Join(parts, " ")
		}
	}
	items, count := p.items, p.nItems
	if len(items) == 0 {
		items, count = p.plain, p.nPlain
	}
	if len(items) == 0 {
		if p.firstLine == 0 {
			return nil, fmt.Errorf("empty list: expected markdown lines like \"- [ ] do something\"")
		}
		return nil, fmt.Errorf("no list items found (line %d: %q): expected markdown lines like \"- [ ] do something\" or \"1. [v] done\"",
			p.firstLine, clip(p.firstText, 60))
	}
	if count > MaxItems {
		return nil, fmt.Errorf("list has %d items (line %d starts item %d): at most %d are kept; merge or drop some",
			count, items[MaxItems].Line, MaxItems+1, MaxItems)
	}
	for i := range items {
		// Again after joining continuations, so no content ends in an annotation.
		content, ref := stripAnnotation(normSpace(items[i].Content))
		items[i].Content = content
		if items[i].Ref == "" {
			items[i].Ref = ref
		}
	}
	return items, nil
}

type listParser struct {
	items     []Item
	plain     []Item // text lines kept in case the whole list has no bullets or tags
	nItems    int    // items seen; only the first MaxItems+1 are kept
	nPlain    int
	cont      [][]string // continuation lines of each item
	cur       int        // index of the item a continuation line would join, or -1
	prevBlank bool
	inDropped bool // under a "Dropped" heading
	baseWidth int  // indentation of the first item; -1 before it
	firstLine int  // first non-blank line, for the error when nothing parses
	firstText string
}

func (p *listParser) line(n int, raw string) {
	text := strings.TrimSpace(raw)
	if text == "" {
		p.prevBlank = true
		return
	}
	if p.firstLine == 0 {
		p.firstLine, p.firstText = n, text
	}
	blankBefore := p.prevBlank
	p.prevBlank = false
	if ignorable(text) {
		p.cur = -1
		if strings.HasPrefix(text, "#") {
			p.inDropped = droppedHeading.MatchString(text)
		}
		return
	}
	if p.inDropped {
		return
	}
	if it, ok := parseItemLine(n, text); ok {
		p.cur = -1
		if it.Content == "" {
			return // a bare "- [ ]" carries nothing to track
		}
		width := indentWidth(raw)
		if p.baseWidth < 0 {
			p.baseWidth = width
		}
		if width >= p.baseWidth+2 && len(p.items) > 0 {
			it.Depth = 1
		}
		p.nItems++
		if len(p.items) > MaxItems {
			return // already too many: only the count matters now
		}
		p.items = append(p.items, it)
		p.cont = append(p.cont, nil)
		p.cur = len(p.items) - 1
		return
	}
	indented := raw[0] == ' ' || raw[0] == '\t'
	if p.cur >= 0 && (indented || !blankBefore) {
		p.cont[p.cur] = append(p.cont[p.cur], text)
		return
	}
	p.cur = -1
	p.nPlain++
	if len(p.plain) <= MaxItems {
		content, ref := stripAnnotation(text)
		p.plain = append(p.plain, Item{Line: n, Status: Pending, Content: content, Ref: ref})
	}
}

// indentWidth is the column of the first non-space, with tabs at every 4 columns.
func indentWidth(raw string) int {
	w := 0
	for _, r := range raw {
		switch r {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// ignorable reports headings, horizontal rules, fences and table borders: structure, not items.
func ignorable(text string) bool {
	if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "```") || strings.HasPrefix(text, "~~~") {
		return true
	}
	if len(text) >= 3 && strings.Trim(text, "-*_= \t") == "" {
		return true
	}
	return false
}

// parseItemLine recognises "<marker> [tag] content" and "[tag] content".
func parseItemLine(n int, text string) (Item, bool) {
	rest, marked := cutMarker(text)
	status, tagged, after := cutTag(rest)
	if !marked && !tagged {
		return Item{}, false
	}
	if tagged {
		rest = after
	}
	content, ref := stripAnnotation(strings.TrimSpace(rest))
	return Item{Line: n, Status: status, Content: content, Tagged: tagged, Ref: ref}, true
}

// cutMarker removes a bullet or list number and the spaces after it.
func cutMarker(text string) (string, bool) {
	r, size := utf8.DecodeRuneInString(text)
	if r == '-' || r == '*' || r == '+' || r == '•' {
		if rest, ok := markerRest(text[size:]); ok {
			return rest, true
		}
		return text, false
	}
	digits := 0
	for digits < len(text) && digits < 4 && text[digits] >= '0' && text[digits] <= '9' {
		digits++
	}
	if digits > 0 && digits < len(text) && (text[digits] == '.' || text[digits] == ')') {
		if rest, ok := markerRest(text[digits+1:]); ok {
			return rest, true
		}
	}
	return text, false
}

// markerRest accepts what follows a marker: end of line, a space, or a tag glued to it ("-[ ]").
func markerRest(rest string) (string, bool) {
	if rest == "" {
		return "", true
	}
	if rest[0] == ' ' || rest[0] == '\t' {
		return strings.TrimLeft(rest, " \t"), true
	}
	if rest[0] == '[' {
		if _, ok, _ := cutTag(rest); ok {
			return rest, true
		}
	}
	return "", false
}

// cutTag parses a leading status tag; text without one is pending and untagged.
func cutTag(text string) (Status, bool, string) {
	if !strings.HasPrefix(text, "[") {
		return Pending, false, text
	}
	end := strings.IndexByte(text, ']')
	if end < 0 || end > 12 { // a tag holds one symbol and some spaces, not a link text
		return Pending, false, text
	}
	s, ok := ParseStatus(text[1:end])
	if !ok {
		return Pending, false, text
	}
	return s, true, text[end+1:]
}

var droppedHeading = regexp.MustCompile(`(?i)^#+\s*dropped\b`)

// stripAnnotation removes the trailing annotations this package renders, repeatedly, so that its
// result never ends in one (which keeps render and parse stable), and returns the last id found.
// An annotation is a parenthesized group after a space at the end of the text, holding an id and
// optional details ("(h1)", "(h1, branch x)", "(t2, checkpoint 3f2a1c4: msg (x))"), or only a
// namespaced branch or a checkpoint ("(branch swe-adept/r/h1)", "(checkpoint 3f2a1c4: msg)").
func stripAnnotation(text string) (string, string) {
	ref := ""
	for {
		rest, id, ok := cutAnnotation(text)
		if !ok {
			return text, ref
		}
		if ref == "" {
			ref = id
		}
		text = rest
	}
}

func cutAnnotation(text string) (rest, id string, ok bool) {
	t := strings.TrimRight(text, " \t")
	if !strings.HasSuffix(t, ")") {
		return text, "", false
	}
	open := matchingOpen(t)
	if open < 1 || (t[open-1] != ' ' && t[open-1] != '\t') {
		return text, "", false
	}
	head := strings.TrimRight(t[:open], " \t")
	if head == "" {
		return text, "", false // the annotation alone is the content
	}
	inner := t[open+1 : len(t)-1]
	if id, ok := annotationID(inner); ok {
		return head, id, true
	}
	if bareAnnotation(inner) {
		return head, "", true
	}
	return text, "", false
}

// matchingOpen is the index of the "(" that the final ")" of t closes, or -1.
func matchingOpen(t string) int {
	depth := 0
	for i := len(t) - 1; i >= 0; i-- {
		switch t[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// annotationID reads "h1" or "t12", alone or followed by a comma and details.
func annotationID(inner string) (string, bool) {
	if inner == "" || strings.IndexByte("hHtT", inner[0]) < 0 {
		return "", false
	}
	n := 1
	for n < len(inner) && inner[n] >= '0' && inner[n] <= '9' {
		n++
	}
	if n == 1 || (n < len(inner) && inner[n] != ',') {
		return "", false
	}
	return strings.ToLower(inner[:n]), true
}

// bareAnnotation accepts "branch <name with a slash>" and "checkpoint <hash>[: message]".
func bareAnnotation(inner string) bool {
	if name, ok := strings.CutPrefix(inner, "branch "); ok {
		return strings.Contains(name, "/") && !strings.ContainsAny(name, " \t")
	}
	rest, ok := strings.CutPrefix(inner, "checkpoint ")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && isHexByte(rest[n]) {
		n++
	}
	return n >= 4 && n <= 64 && (n == len(rest) || !isWordByte(rest[n]))
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isWordByte(c byte) bool {
	return isHexByte(c) || c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '_'
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
