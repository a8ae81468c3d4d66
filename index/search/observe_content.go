package search

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// lineGroup is the matched lines of one unit (or of a file's lines outside
// every unit, unit -1).
type lineGroup struct {
	file    int32
	unit    int32
	lines   []int
	defines bool
}

// contentResult groups matched lines by innermost unit, ranks the groups
// (code before tests, definition sites first, then most matches) and renders
// each as the unit's signature plus its matched lines.
func (s *Searcher) contentResult(tool, q, mode string, ps []posting, head, forms string, isDef func(string) bool) Result {
	groups := s.groupLines(ps, isDef)
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if ta, tb := s.isTest[a.file], s.isTest[b.file]; ta != tb {
			return !ta
		}
		if a.defines != b.defines {
			return a.defines
		}
		return len(a.lines) > len(b.lines)
	})
	head = fmt.Sprintf("%s: %s in %s", head, plural(len(ps), "line", "lines"), plural(len(groups), "unit", "units"))
	if forms != "" {
		head += "\nspellings: " + forms
	}
	more := 0
	if len(groups) > MaxHits {
		more = len(groups) - MaxHits
		groups = groups[:MaxHits]
	}
	hits := make([]Hit, 0, len(groups))
	blocks := make([]string, 0, len(groups))
	for i, g := range groups {
		h := s.groupHit(g)
		hits = append(hits, h)
		blocks = append(blocks, renderContentHit(i+1, h))
	}
	obs, shown := page(head+"\n", blocks, more, "narrow with file_path (a file or folder) or a longer snippet.")
	return Result{Tool: tool, Query: q, Mode: mode, Hits: hits[:shown], More: more + len(groups) - shown, Observation: obs}
}

// maxDefChecks bounds the lines read to rank definition sites first: an
// identifier on 100k lines (self) defines nothing worth the reads.
const maxDefChecks = 5000

func (s *Searcher) groupLines(ps []posting, isDef func(string) bool) []*lineGroup {
	type gkey struct{ file, unit int32 }
	byKey := map[gkey]*lineGroup{}
	var groups []*lineGroup
	var last *lineGroup
	checks := 0
	for _, p := range ps {
		own := s.owner[p.file]
		u := int32(-1)
		if int(p.line) < len(own) {
			u = own[p.line]
		}
		k := gkey{p.file, u}
		// Postings come in line order, so most lines join the group of
		// the line before; the map is for returns to an outer unit.
		g := last
		if g == nil || g.file != k.file || g.unit != k.unit {
			var ok bool
			if g, ok = byKey[k]; !ok {
				g = &lineGroup{file: p.file, unit: u}
				byKey[k] = g
				groups = append(groups, g)
			}
			last = g
		}
		g.lines = append(g.lines, int(p.line))
		if isDef != nil && !g.defines && len(g.lines) <= 10 && checks < maxDefChecks {
			checks++
			g.defines = isDef(s.lineText(p.file, int(p.line)))
		}
	}
	return groups
}

func (s *Searcher) groupHit(g *lineGroup) Hit {
	if g.unit < 0 {
		f := s.files[g.file]
		return Hit{Path: f.Path, Start: g.lines[0], End: g.lines[len(g.lines)-1], Lines: g.lines,
			Preview: s.numbered(g.file, nil, g.lines, PreviewLines)}
	}
	u := s.units[g.unit]
	var preview string
	if u.Kind == index.KindChunk {
		preview = s.numbered(g.file, nil, g.lines, PreviewLines)
	} else {
		preview = s.renderLines(u, g.lines)
	}
	h := s.unitHit(u, 0, preview)
	h.Lines = g.lines
	return h
}

func renderContentHit(n int, h Hit) string {
	var b strings.Builder
	if h.UnitID == "" {
		fmt.Fprintf(&b, "%d. %s  [outside any unit, %s]\n", n, h.Path, plural(len(h.Lines), "matching line", "matching lines"))
	} else {
		fmt.Fprintf(&b, "%d. %s  [%s, lines %d-%d, %s]\n", n, h.UnitID, h.Kind, h.Start, h.End, plural(len(h.Lines), "matching line", "matching lines"))
		b.WriteString(renderChildren(h.Children))
	}
	writePreview(&b, h.Preview)
	return b.String()
}

// maxSpanUnits bounds the units named above a span's lines.
const maxSpanUnits = 8

// showSpan shows lines lo..hi of a file (the first spanLines lines when no
// span is given), with the units they belong to.
func (s *Searcher) showSpan(tool string, fi int32, lo, hi int) Result {
	n := s.lineCount(fi)
	f := s.files[fi]
	if lo == 0 {
		lo, hi = 1, min(n, spanLines)
	}
	if n == 0 {
		return Result{Tool: tool, Query: f.Path, Mode: ModeSpan, Observation: fmt.Sprintf("%s: %s is empty.\n", tool, f.Path)}
	}
	cut := 0
	if hi-lo+1 > spanLines {
		cut, hi = hi, lo+spanLines-1
	}
	var hits []Hit
	var units []string
	seen := map[int32]bool{}
	for l := lo; l <= hi; l++ {
		if u := s.owner[fi][l]; u >= 0 && !seen[u] {
			seen[u] = true
			uu := s.units[u]
			hits = append(hits, s.unitHit(uu, 0, ""))
			units = append(units, fmt.Sprintf("%s [%s, %d-%d]", uu.ID, uu.Kind, uu.Start, uu.End))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: lines %d-%d of %s (%d lines)\n", tool, lo, hi, f.Path, n)
	if len(units) > maxSpanUnits {
		units = append(units[:maxSpanUnits], fmt.Sprintf("... %d more", len(units)-maxSpanUnits))
	}
	if len(units) > 0 {
		fmt.Fprintf(&b, "units: %s\n", strings.Join(units, ", "))
	}
	width := len(fmt.Sprint(hi))
	footer := ""
	if cut > 0 {
		footer = fmt.Sprintf("(span cut at line %d; continue with start_line=%d)\n", hi, hi+1)
	}
	for l := lo; l <= hi; l++ {
		line := numberedLine(width, l, clipLine(s.lineText(fi, l)))
		if b.Len()+len(line)+len(footer)+60 > ObservationBudget {
			footer = fmt.Sprintf("(span cut at line %d to fit the budget; continue with start_line=%d)\n", l-1, l)
			break
		}
		b.WriteString(line)
	}
	b.WriteString(footer)
	return Result{Tool: tool, Query: fmt.Sprintf("%s:%d-%d", f.Path, lo, hi), Mode: ModeSpan, Hits: hits, Observation: clip(b.String())}
}
