package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/tool"
)

// lines splits text into lines without their newlines; a final newline
// does not make an extra empty line.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func lineCount(text string) int { return len(lines(text)) }

// numbered renders lines from..to (1-based, inclusive) as cat -n does.
func numbered(text string, from, to int) string {
	ls := lines(text)
	var b strings.Builder
	for i := max(from, 1); i <= min(to, len(ls)); i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, ls[i-1])
	}
	return b.String()
}

func (e *Editor) view(rel string, rng []int) (tool.Output, error) {
	f, err := e.ws.Open(rel, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fail("%s does not exist. View the directory to find the right path, or use create for a new file.", rel), nil
	}
	if err != nil {
		return tool.Output{}, wrapUnlessPath(err, "view "+rel)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		if len(rng) > 0 {
			return fail("view_range applies to files; %s is a directory", rel), nil
		}
		return e.viewDir(f, rel)
	}
	text, o, err := readText(f, rel)
	if o != nil || err != nil {
		return deref(o), err
	}
	n := lineCount(text)
	from, to := 1, n
	if len(rng) > 0 {
		if len(rng) != 2 {
			return fail("view_range needs two numbers, [start, end]; got %v", rng), nil
		}
		from, to = rng[0], rng[1]
		if to == -1 {
			to = n
		}
		if from < 1 || from > max(n, 1) || to < from || to > n && n > 0 {
			return fail("view_range %v is outside %s, which has %d lines; use 1 ≤ start ≤ end ≤ %d (end -1 for the last line)", rng, rel, n, n), nil
		}
	}
	body := numbered(text, from, to)
	note := ""
	if len(body) > e.maxView {
		if cut := strings.LastIndexByte(body[:e.maxView], '\n'); cut >= 0 {
			body = body[:cut+1]
		} else {
			body = strings.ToValidUTF8(body[:e.maxView], "") + "\n" // one line longer than a page
		}
		shown := from + strings.Count(body, "\n") - 1
		next := shown + max(shown-from+1, 1)
		note = fmt.Sprintf("[clipped: %s has %d lines; shown %d-%d. See the rest a page at a time with view_range [%d, %d], and so on, or grep -n to find what you need.]\n",
			rel, n, from, shown, shown+1, min(next, to))
	}
	if n == 0 {
		body = "(empty file)\n"
	}
	return tool.Output{Text: fmt.Sprintf("Here is %s (cat -n):\n%s%s", rel, body, note), Summary: fmt.Sprintf("view %s:%d-%d", rel, from, to)}, nil
}

// viewDir lists a directory two levels deep, without hidden entries. Each
// subdirectory is opened as the editor opens files, so one that leads into
// a git directory is listed but not looked into.
func (e *Editor) viewDir(dir *os.File, rel string) (tool.Output, error) {
	top, err := dir.ReadDir(-1)
	if err != nil {
		return tool.Output{}, fmt.Errorf("view %s: %w", rel, err)
	}
	var out []string
	for _, d := range top {
		if skipInListing(d) {
			continue
		}
		entry := path.Join(filepath.ToSlash(rel), d.Name())
		if !d.IsDir() {
			out = append(out, entry)
			continue
		}
		out = append(out, entry+"/")
		for _, sub := range e.listSub(entry) {
			switch {
			case skipInListing(sub):
			case sub.IsDir():
				out = append(out, path.Join(entry, sub.Name())+"/")
			default:
				out = append(out, path.Join(entry, sub.Name()))
			}
		}
	}
	sort.Strings(out)
	if len(out) > 400 {
		out = append(out[:400], fmt.Sprintf("[... %d more entries; view a subdirectory]", len(out)-400))
	}
	return tool.Output{Text: fmt.Sprintf("Files and directories up to 2 levels deep in %s, hidden ones left out:\n%s\n", rel, strings.Join(out, "\n")), Summary: "view " + rel + "/"}, nil
}

func skipInListing(d fs.DirEntry) bool {
	return strings.HasPrefix(d.Name(), ".") || d.Name() == "__pycache__" || d.Name() == "node_modules"
}

// listSub reads the entries of a subdirectory, or none when it cannot be
// opened (unreadable, or a git directory).
func (e *Editor) listSub(rel string) []fs.DirEntry {
	f, err := e.ws.Open(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	return ents
}

func (e *Editor) replace(rel, old, repl string) (tool.Output, error) {
	if old == "" {
		return fail("str_replace needs old_str: the exact text to replace (to add text, use insert)"), nil
	}
	f, text, o, err := e.openText(rel, os.O_RDWR)
	if o != nil || err != nil {
		return deref(o), err
	}
	defer f.Close()
	switch n := strings.Count(text, old); {
	case n == 0:
		return fail("No replacement: old_str does not occur verbatim in %s.%s View the lines and copy them exactly, whitespace included.", rel, nearMiss(text, old)), nil
	case n > 1:
		return fail("No replacement: old_str occurs %d times in %s, starting at lines %s. Include more surrounding lines so it occurs exactly once.", n, rel, joinInts(occurrenceLines(text, old))), nil
	}
	if old == repl {
		return fail("old_str and new_str are the same; nothing would change"), nil
	}
	at := strings.Index(text, old)
	after := text[:at] + repl + text[at+len(old):]
	if err := e.write(f, rel, text, after); err != nil {
		return tool.Output{}, err
	}
	start := strings.Count(text[:at], "\n") + 1
	end := start + strings.Count(repl, "\n")
	return edited(rel, after, start, end, "replace"), nil
}

func (e *Editor) insert(rel string, at *int, add string) (tool.Output, error) {
	if at == nil {
		return fail("insert needs insert_line: new_str goes after that line (0 puts it at the top)"), nil
	}
	if add == "" {
		return fail("insert needs new_str: the text to insert"), nil
	}
	f, text, o, err := e.openText(rel, os.O_RDWR)
	if o != nil || err != nil {
		return deref(o), err
	}
	defer f.Close()
	ls := lines(text)
	if *at < 0 || *at > len(ls) {
		return fail("insert_line %d is outside %s, which has %d lines; use 0 to %d", *at, rel, len(ls), len(ls)), nil
	}
	ins := lines(add)
	if len(ins) == 0 {
		ins = []string{""}
	}
	merged := append(append(append([]string{}, ls[:*at]...), ins...), ls[*at:]...)
	after := strings.Join(merged, "\n")
	if strings.HasSuffix(text, "\n") || text == "" || *at == len(ls) {
		after += "\n"
	}
	if err := e.write(f, rel, text, after); err != nil {
		return tool.Output{}, err
	}
	return edited(rel, after, *at+1, *at+len(ins), "insert"), nil
}

// edited shows the changed lines with a few lines of context.
func edited(rel, after string, start, end int, what string) tool.Output {
	snip := numbered(after, start-snippetLines, end+snippetLines)
	text := fmt.Sprintf("Edited %s. Lines %d-%d now read:\n%sCheck the result (indentation, no duplicated lines); undo_edit reverts it.", rel, max(start-snippetLines, 1), min(end+snippetLines, lineCount(after)), snip)
	return tool.Output{Text: text, Summary: fmt.Sprintf("%s %s:%d", what, rel, start)}
}

func occurrenceLines(text, sub string) []int {
	var out []int
	off := 0
	for {
		i := strings.Index(text[off:], sub)
		if i < 0 {
			return out
		}
		out = append(out, strings.Count(text[:off+i], "\n")+1)
		off += i + max(len(sub), 1)
	}
}

// nearMiss points at lines that match old_str's first line when spacing is
// ignored: the usual cause of a failed replacement.
func nearMiss(text, old string) string {
	first := ""
	for _, l := range lines(old) {
		if strings.TrimSpace(l) != "" {
			first = strings.Join(strings.Fields(l), " ")
			break
		}
	}
	if first == "" {
		return ""
	}
	var at []int
	for i, l := range lines(text) {
		if strings.Join(strings.Fields(l), " ") == first {
			at = append(at, i+1)
		}
	}
	if len(at) == 0 || len(at) > 10 {
		return ""
	}
	return fmt.Sprintf(" Its first line, ignoring spacing, is at line %s: the whitespace or the following lines differ.", joinInts(at))
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
