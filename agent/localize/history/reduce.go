package history

import (
	"regexp"
	"sort"
	"unicode/utf8"

	"github.com/swe-adept/swe-adept/vcs"
)

// Limits on what one commit keeps: a message longer than a few screens,
// or a vendored drop of thousands of identifiers, says no more about
// where an issue lives than its first part does.
const (
	maxMessage  = 4 << 10
	maxIdents   = 200
	maxFuncs    = 64 // per file
	minIdentLen = 3
)

var (
	reIdent = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	// reDef is a definition line of the languages the index reads: Python
	// def and class, Go func and type, JavaScript and TypeScript function
	// and class.
	reDef = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class|function\*?|type)\s+([A-Za-z_$][\w$]*)|^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^\s*(?:export\s+)?(?:default\s+)?class\s+([A-Za-z_$][\w$]*)`)
)

// reduce keeps what localization uses of a commit.
func reduce(c vcs.LogCommit) Commit {
	out := Commit{Hash: c.Hash, Time: c.Time, Message: cut(c.Message, maxMessage)}
	counts := map[string]int32{}
	for _, f := range c.Files {
		t := Touch{Path: f.Path}
		if f.OldPath != f.Path {
			t.OldPath = f.OldPath
		}
		funcs := map[string]bool{}
		for _, h := range f.Hunks {
			t.Added += int32(len(h.Added))
			t.Removed += int32(len(h.Removed))
			for _, name := range hunkFuncs(h) {
				if len(funcs) < maxFuncs {
					funcs[name] = true
				}
			}
			countIdents(counts, h.Added)
			countIdents(counts, h.Removed)
		}
		for name := range funcs {
			t.Funcs = append(t.Funcs, name)
		}
		sort.Strings(t.Funcs)
		out.Files = append(out.Files, t)
	}
	out.Idents = topIdents(counts, maxIdents)
	return out
}

// hunkFuncs are the definitions a hunk spans: the one enclosing its first
// line (git's hunk header), unless the hunk starts by defining its own,
// and every definition on its changed lines.
func hunkFuncs(h vcs.Hunk) []string {
	var out []string
	first := ""
	if len(h.Removed) > 0 {
		first = h.Removed[0]
	} else if len(h.Added) > 0 {
		first = h.Added[0]
	}
	if name := defName(h.Func); name != "" && defName(first) == "" {
		out = append(out, name)
	}
	for _, lines := range [][]string{h.Removed, h.Added} {
		for _, l := range lines {
			if name := defName(l); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// defName is the name a definition line defines, or "".
func defName(line string) string {
	m := reDef.FindStringSubmatch(line)
	for _, g := range m[min(1, len(m)):] {
		if g != "" {
			return g
		}
	}
	return ""
}

func countIdents(counts map[string]int32, lines []string) {
	for _, l := range lines {
		for _, id := range reIdent.FindAllString(l, -1) {
			if len(id) >= minIdentLen {
				counts[id]++
			}
		}
	}
}

// topIdents are the n most used identifiers, most used first.
func topIdents(counts map[string]int32, n int) []Ident {
	out := make([]Ident, 0, len(counts))
	for name, c := range counts {
		out = append(out, Ident{Name: name, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(len(out), n)]
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1] // do not end inside a UTF-8 sequence
	}
	return s
}
