package swebench

import (
	"strconv"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// PatchLines is what a unified diff touches in the old (base) files: for
// each path, the base line numbers it removes or inserts next to.
type PatchLines map[string][]int

// ParsePatch reads a unified diff. An added line is attributed to the base
// line it follows, so an insertion at the end of a body (just before the
// next def) or right after a def line still lands in its own definition.
func ParsePatch(patch string) (files []string, lines PatchLines) {
	lines = PatchLines{}
	var cur string
	old := 0
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur = ""
		case strings.HasPrefix(l, "--- "):
			continue
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimPrefix(strings.TrimSpace(l[4:]), "b/")
			if cur == "/dev/null" {
				cur = ""
				continue
			}
			if _, seen := lines[cur]; !seen {
				files = append(files, cur)
				lines[cur] = nil
			}
		case strings.HasPrefix(l, "@@"):
			old = hunkOldStart(l)
		case cur == "" || old == 0:
			continue
		case strings.HasPrefix(l, "-"):
			lines[cur] = append(lines[cur], old)
			old++
		case strings.HasPrefix(l, "+"):
			lines[cur] = append(lines[cur], max(old-1, 1))
		case strings.HasPrefix(l, " ") || l == "":
			old++
		}
	}
	return files, lines
}

func hunkOldStart(h string) int {
	f := strings.Fields(h)
	if len(f) < 2 || !strings.HasPrefix(f[1], "-") {
		return 0
	}
	start, _, _ := strings.Cut(f[1][1:], ",")
	n, err := strconv.Atoi(start)
	if err != nil {
		return 0
	}
	return max(n, 1)
}

// Gold is an instance's gold locations.
type Gold struct {
	Files     []string `json:"files"`
	Functions []string `json:"functions"`
}

// GoldOf returns the instance's gold, from its gold fields when present,
// else derived from its patch with the base index (ix may be nil when the
// instance carries gold_functions).
func GoldOf(in Instance, ix *index.Index) Gold {
	g := Gold{Files: in.GoldFiles, Functions: in.GoldFunctions}
	if len(g.Files) > 0 && (in.GoldFunctions != nil || ix == nil) {
		return g
	}
	files, lines := ParsePatch(in.Patch)
	if len(g.Files) == 0 {
		g.Files = files
	}
	if in.GoldFunctions == nil && ix != nil {
		g.Functions = functionsAt(ix, files, lines)
	}
	return g
}

// functionsAt maps changed base lines to the outermost enclosing function
// or method, the gold convention (nested defs fold into their outermost
// function; edits outside every def name no function).
func functionsAt(ix *index.Index, files []string, lines PatchLines) []string {
	seen := map[string]bool{}
	var out []string
	for _, path := range files {
		for _, ln := range lines[path] {
			u := innermost(ix, path, ln)
			if u == nil {
				continue
			}
			id := Outermost(ix, u.ID)
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func innermost(ix *index.Index, path string, line int) *index.Unit {
	f, ok := ix.File(path)
	if !ok {
		return nil
	}
	var best *index.Unit
	for _, id := range f.Units {
		u, ok := ix.Unit(id)
		if !ok || (u.Kind != index.KindFunction && u.Kind != index.KindMethod) {
			continue
		}
		if u.Start <= line && line <= u.End && (best == nil || u.End-u.Start < best.End-best.Start) {
			best = u
		}
	}
	return best
}

// Outermost folds a unit id to the gold granularity: a def nested in a
// function or method counts as that outermost function or method. Unknown
// ids are returned as they are.
func Outermost(ix *index.Index, id string) string {
	if ix == nil {
		return id
	}
	u, ok := ix.Unit(id)
	for ok && u.Parent != "" {
		p, found := ix.Unit(u.Parent)
		if !found || (p.Kind != index.KindFunction && p.Kind != index.KindMethod) {
			break
		}
		u = p
	}
	if !ok {
		return id
	}
	return u.ID
}

// Normalize maps predicted functions to the gold granularity and drops the
// duplicates that mapping makes, keeping the first (best) rank.
func Normalize(ix *index.Index, preds []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(preds))
	for _, p := range preds {
		id := Outermost(ix, p)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
