package heuristic

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

var (
	// Names a reproduction script defines for itself: they are the
	// reporter's, not the repository's, unless the repository defines them
	// too (a subclass overriding a method).
	reLocalDef    = regexp.MustCompile(`(?m)^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:def|class|function\*?|const|let|var)[ \t]+([A-Za-z_$][\w$]*)`)
	reLocalAssign = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]*=[^=]`)
	reLocalAlias  = regexp.MustCompile(`\bas[ \t]+([A-Za-z_]\w*)`)

	// A test the issue names: "tests/test_io.py::TestReader::test_read_csv",
	// or test_read_csv alone. The code under test is named by what follows
	// "test_" (or "Test"), in a file named without it.
	reTestID   = regexp.MustCompile(`((?:[\w.-]+/)*(?:test_[\w-]+|[\w-]+_test)\.py)::(?:(\w+)::)?(\w+)`)
	reTestName = regexp.MustCompile(`\b(?:test_([a-z]\w{2,})|Test([A-Z]\w{2,}))\b`)

	// A log line: "ERROR: could not open the stream", "[WARNING] x y z",
	// "WARNING:pkg.mod:message".
	reLogLine = regexp.MustCompile(`(?m)^[ \t]*\[?(?:ERROR|WARNING|WARN|CRITICAL|FATAL|Error|Warning)\]?(?::[\w.]+)?[ \t]*[:\-][ \t]*(?:[\w.]+:)?[ \t]*(.{8,200})$`)
)

// localNames are the names the issue's code blocks define.
func localNames(issue string) map[string]bool {
	out := map[string]bool{}
	for _, m := range reFence.FindAllStringSubmatch(issue, -1) {
		code := m[1]
		for _, re := range []*regexp.Regexp{reLocalDef, reLocalAlias} {
			for _, sm := range re.FindAllStringSubmatch(code, -1) {
				out[sm[1]] = true
			}
		}
		for _, sm := range reLocalAssign.FindAllStringSubmatch(code, -1) {
			for _, name := range strings.Split(strings.SplitN(sm[0], "=", 2)[0], ",") {
				if n := strings.TrimSpace(name); reIdent.MatchString(n) {
					out[n] = true
				}
			}
		}
	}
	return out
}

// markLocal flags the entry points the issue's own code defines.
func (c *collector) markLocal(issue string) {
	for name := range localNames(issue) {
		if e, ok := c.byText[name]; ok {
			e.Local = true
		}
	}
}

// testNames takes the tests the issue names and points at the code they
// test: the test's name without its prefix, and the file without it.
func (c *collector) testNames(text string) {
	for _, m := range reTestID.FindAllStringSubmatchIndex(text, -1) {
		file := text[m[2]:m[3]]
		if under := untestedFile(file); under != "" {
			c.add(under, EntryTestName, m[2])
		}
		if m[4] >= 0 {
			c.testedName(strings.TrimPrefix(text[m[4]:m[5]], "Test"), m[4])
		}
		c.testedName(strings.TrimPrefix(text[m[6]:m[7]], "test_"), m[6])
	}
	for _, m := range reTestName.FindAllStringSubmatchIndex(text, -1) {
		for g := 2; g <= 4; g += 2 {
			if m[g] >= 0 {
				c.testedName(text[m[g]:m[g+1]], m[g])
			}
		}
	}
}

func (c *collector) testedName(name string, pos int) {
	if len(name) > 2 && reIdent.MatchString(name) && !strings.HasPrefix(name, "test") {
		c.add(name, EntryTestName, pos)
	}
}

// untestedFile is the module a test file tests: "tests/test_io.py" →
// "io.py", "io_test.py" → "io.py", "io.spec.ts" → "io.ts".
func untestedFile(p string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if rest, ok := strings.CutPrefix(base, "test_"); ok {
		return rest
	}
	for _, mark := range []string{"_test", ".test", ".spec"} {
		if rest, ok := strings.CutSuffix(stem, mark); ok && rest != "" {
			return rest + ext
		}
	}
	return ""
}

// logLines takes the literal start of each logged error or warning, as
// messages does for exceptions.
func (c *collector) logLines(issue string) {
	for _, m := range reLogLine.FindAllStringSubmatchIndex(issue, -1) {
		c.message(issue[m[2]:m[3]], m[2])
	}
}

// message adds the literal start of a message: up to where values begin
// (quotes, numbers, paths), if at least three words remain.
func (c *collector) message(msg string, pos int) {
	if loc := reMsgStop.FindStringIndex(msg); loc != nil {
		// Drop the whole word the value starts in ("src/x.py", "5px").
		msg = msg[:max(strings.LastIndexByte(msg[:loc[0]], ' '), 0)]
	}
	msg = strings.TrimRight(strings.TrimSpace(msg), ".,;!? ")
	if len(strings.Fields(msg)) >= 3 {
		c.add(msg, EntryMessage, pos)
	}
}

var (
	// A shell line in a code block: "$ tool sub --flag". The lines after
	// it, up to the next shell line, are what the command printed.
	reShellPrompt = regexp.MustCompile(`^[ \t]*\$[ \t]+([A-Za-z][\w.-]*)`)
	// An interactive Python session: what follows a ">>> expr" line (not
	// its "... " continuations) is what the interpreter printed for it.
	reREPLPrompt = regexp.MustCompile(`^[ \t]*>>>(?:[ \t]|\r?$)`)
	reREPLMore   = regexp.MustCompile(`^[ \t]*\.\.\.(?:[ \t]|\r?$)`)
	// Columns of printed tables are set apart by runs of spaces.
	reColumnGap = regexp.MustCompile(`[ \t]{2,}`)
	reHeadCell  = regexp.MustCompile(`^[A-Z][A-Za-z]*$`)
	// Where printed prose breaks: values (as for messages), sentence ends
	// and rules drawn with punctuation ("==== title ====", " * ").
	reOutputStop = regexp.MustCompile(`['"{}\\/:<>\[\]()]|\d|[.!?;](?:\s|$)|[=*#~_|+-]{2,}|(?:^|\s)[*>|-](?:\s|$)`)
	reProseWord  = regexp.MustCompile(`^[A-Za-z][a-z]*[,]?$`)
)

// outputs reads what the commands an issue runs printed. The repository's
// own program prints its words from string literals, so a table header or
// a sentence of its output leads to the code that prints it, as an error
// message leads to the code that raises it. Whose program ran is decided
// when searching (see dropForeignCommands). It returns the spans of the
// printed lines.
func (c *collector) outputs(issue string) (spans [][]int) {
	read := 0
	for _, m := range reFence.FindAllStringSubmatchIndex(issue, -1) {
		prog, pos := "", m[2]
		for _, line := range strings.SplitAfter(issue[m[2]:m[3]], "\n") {
			at := pos
			pos += len(line)
			switch p := reShellPrompt.FindStringSubmatch(line); {
			case p != nil:
				prog = p[1]
			case reREPLPrompt.MatchString(line):
				prog = interpreter
			case prog == interpreter && reREPLMore.MatchString(line):
			case strings.HasPrefix(strings.TrimSpace(line), "Traceback (most recent call last)"):
				// The traceback rules read it; its lines are no output.
				prog = ""
			case prog != "":
				if read < maxOutputLines {
					read++
					c.outputLine(strings.TrimRight(line, "\r\n"), prog, at)
				}
				if prog != interpreter {
					spans = append(spans, []int{at, pos})
				}
			}
		}
	}
	return spans
}

// maxOutputLines bounds the printed lines read as evidence: each costs a
// search of the whole repository, and a pasted log can run to thousands
// of lines, the first of which say what the command was doing.
const maxOutputLines = 40

// interpreter stands for the program of an interactive session, whose
// output is the repository's code speaking when it holds the words.
const interpreter = ">>>"

// outputLine adds a printed table header by its cells, else the longest
// run of plain words in the line.
func (c *collector) outputLine(line, prog string, pos int) {
	if cells := reColumnGap.Split(strings.TrimSpace(line), -1); len(cells) >= 3 && allMatch(cells, reHeadCell) {
		if e := c.add(strings.Join(cells, " "), EntryOutput, pos); e != nil && e.Kind == EntryOutput {
			e.ranBy(prog)
			e.Cells = cells
		}
		return
	}
	best := ""
	for _, frag := range reOutputStop.Split(line, -1) {
		frag = strings.TrimSpace(frag)
		if len(frag) > len(best) && proseLike(frag) {
			best = frag
		}
	}
	if best != "" {
		if e := c.add(best, EntryOutput, pos); e != nil && e.Kind == EntryOutput {
			e.ranBy(prog)
		}
	}
}

// proseLike reports whether a fragment reads as a sentence: at least three
// words, most of them plain words rather than names or values.
func proseLike(s string) bool {
	words := strings.Fields(s)
	plain := 0
	for _, w := range words {
		if reProseWord.MatchString(w) {
			plain++
		}
	}
	return plain >= 3 && 2*plain > len(words)
}

func allMatch(ss []string, re *regexp.Regexp) bool {
	for _, s := range ss {
		if !re.MatchString(s) {
			return false
		}
	}
	return true
}

// hasWord reports whether text holds word whole, in any case: not as part
// of a longer word.
func hasWord(text, word string) bool {
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		if f == strings.ToLower(word) {
			return true
		}
	}
	return false
}

func (e *EntryPoint) ranBy(prog string) {
	if !slices.Contains(e.Programs, prog) {
		e.Programs = append(e.Programs, prog)
	}
}
