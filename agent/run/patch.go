package run

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swe-adept/swe-adept/agent/resolve"
)

// fileDiff is one file's section of a git patch.
type fileDiff struct {
	Path  string // the new path ("b/" side), or the old one for a deletion
	Added bool   // "new file mode"
	Text  string // the whole section, header included
}

// splitPatch cuts a git patch into per-file sections.
func splitPatch(patch string) []fileDiff {
	var out []fileDiff
	for _, sec := range splitSections(patch) {
		out = append(out, parseSection(sec))
	}
	return out
}

func splitSections(patch string) []string {
	var secs []string
	start := -1
	for i := 0; i < len(patch); {
		end := strings.IndexByte(patch[i:], '\n')
		next := len(patch)
		if end >= 0 {
			next = i + end + 1
		}
		if strings.HasPrefix(patch[i:], "diff --git ") {
			if start >= 0 {
				secs = append(secs, patch[start:i])
			}
			start = i
		}
		i = next
	}
	if start >= 0 {
		secs = append(secs, patch[start:])
	}
	return secs
}

func parseSection(sec string) fileDiff {
	d := fileDiff{Text: sec}
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "new file mode"):
			d.Added = true
		case strings.HasPrefix(line, "+++ b/"):
			d.Path = strings.TrimPrefix(line, "+++ b/")
		case strings.HasPrefix(line, "--- a/") && d.Path == "":
			d.Path = strings.TrimPrefix(line, "--- a/")
		case strings.HasPrefix(line, "@@"):
			return withHeaderPath(d)
		}
	}
	return withHeaderPath(d)
}

// withHeaderPath reads the path from "diff --git a/x b/x" when the section
// has no ---/+++ lines (binary files, mode changes, empty new files).
func withHeaderPath(d fileDiff) fileDiff {
	if d.Path != "" {
		return d
	}
	first, _, _ := strings.Cut(d.Text, "\n")
	if i := strings.LastIndex(first, " b/"); i >= 0 {
		d.Path = first[i+3:]
	}
	return d
}

// leftOut reports a section the final patch leaves out: a scratch file the
// agent added and did not keep.
func leftOut(d fileDiff, keep []string) bool {
	return d.Added && resolve.IsScratch(d.Path) && !slices.Contains(keep, d.Path)
}

// scratchOf lists the files a patch adds that are scratch work and not kept.
func scratchOf(patch string, keep []string) []string {
	var out []string
	for _, d := range splitPatch(patch) {
		if leftOut(d, keep) {
			out = append(out, d.Path)
		}
	}
	return out
}

// finalPatch is the solution's patch: the sections of patch without the
// scratch files the agent added, plus the kept files' sections from extra
// (the merged branch) when patch lacks them.
func finalPatch(patch, extra string, keep []string) (string, []string) {
	var b strings.Builder
	var dropped []string
	have := map[string]bool{}
	for _, d := range splitPatch(patch) {
		if leftOut(d, keep) {
			dropped = append(dropped, d.Path)
			continue
		}
		have[d.Path] = true
		b.WriteString(d.Text)
	}
	for _, d := range splitPatch(extra) {
		if slices.Contains(keep, d.Path) && !have[d.Path] {
			b.WriteString(d.Text)
		}
	}
	return b.String(), dropped
}

// patchStat is git's --shortstat line for a patch.
func patchStat(patch string) string {
	files, ins, del := 0, 0, 0
	for _, d := range splitPatch(patch) {
		files++
		inHunk := false
		for _, line := range strings.Split(d.Text, "\n") {
			switch {
			case strings.HasPrefix(line, "@@"):
				inHunk = true
			case !inHunk:
			case strings.HasPrefix(line, "+"):
				ins++
			case strings.HasPrefix(line, "-"):
				del++
			}
		}
	}
	if files == 0 {
		return "no changes"
	}
	return fmt.Sprintf("%d %s changed, %d %s(+), %d %s(-)", files, plural(files, "file", "files"),
		ins, plural(ins, "insertion", "insertions"), del, plural(del, "deletion", "deletions"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
