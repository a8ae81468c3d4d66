package heuristic

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// EntryKind says where in the issue an entry point was found. The kind sets
// how much the heuristic localizer trusts it: a traceback frame names the
// code that ran, a CamelCase word in prose may be anything.
type EntryKind string

const (
	EntryTraceback EntryKind = "traceback" // File "…/mod.py", line N, in func
	EntryFile      EntryKind = "file"      // x.py, pkg/mod.py
	EntryDotted    EntryKind = "dotted"    // a.b.C
	EntryQuoted    EntryKind = "quoted"    // `name`, 'name', "name"
	EntryCode      EntryKind = "code"      // a call or attribute inside a ``` block
	EntryCamel     EntryKind = "camel"     // CamelCase or camelCase word in prose
	EntrySnake     EntryKind = "snake"     // snake_case word in prose
	EntryMessage   EntryKind = "message"   // the literal start of an error message
	EntryTestName  EntryKind = "tested"    // what a test the issue names tests
	EntryCommand   EntryKind = "command"   // $ prog sub: the subcommand a shell line runs
	EntryOutput    EntryKind = "output"    // text a command the issue runs printed
)

// kindWeight is the prior trust of each kind.
var kindWeight = map[EntryKind]float64{
	EntryTraceback: 3.0,
	EntryFile:      2.5,
	EntryDotted:    2.2,
	EntryQuoted:    2.0,
	EntryCode:      1.6,
	EntryCamel:     1.3,
	EntrySnake:     1.2,
	EntryMessage:   2.0,
	EntryTestName:  1.4,
	EntryCommand:   2.0,
	EntryOutput:    2.0,
}

// EntryPoint is a code entity the issue names: a search to start from.
type EntryPoint struct {
	Text   string    // identifier, dotted path or file path
	Kind   EntryKind // the strongest kind it was seen as
	Weight float64   // kind weight plus a bonus for repeated mentions
	Count  int       // mentions
	First  int       // byte offset of the first mention, for stable order
	// Traceback frames only.
	File  string // the frame's file as written (absolute paths included)
	Line  int
	Frame int // 1 for the innermost frame (where it raised), 2 for its caller, ...
	// Local is set when the issue's own code defines the name (a class or
	// function of the reproduction script, a variable).
	Local bool
	// Programs are the programs shell lines run with Text as their first
	// argument ("$ tool export": Text may be a subcommand of tool), or
	// that printed Text.
	Programs []string
	// Cells are the column names of a table header a command printed
	// (EntryOutput only): the code that prints it holds each as a string.
	Cells []string
}

var (
	reFrame = regexp.MustCompile(`File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?`)
	// reStackFrame is a V8 stack frame: "at Repo.find (/app/src/repo.ts:15:23)"
	// or, for an anonymous function, "at /app/src/repo.ts:15:23".
	reStackFrame = regexp.MustCompile(`\bat (?:async )?(?:new )?(?:([\w$.<>]+) \()?(?:file://)?([^\s():]+\.[cm]?[jt]sx?):(\d+):\d+\)?`)
	reFence      = regexp.MustCompile("(?s)```[^\n]*\n(.*?)(?:```|$)")
	reBacktick   = regexp.MustCompile("`([^`\n]{1,200})`")
	reQuoted     = regexp.MustCompile(`(?:^|[\s(\[,=:])(?:'([^'\n]{2,80})'|"([^"\n]{2,80})")`)
	reFileName   = regexp.MustCompile(`(?:^|[^\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyx|pyi|go|js|ts|tsx|jsx|java|rb|rs|c|h|cc|cpp|hpp|php|cs|kt|scala|swift|cfg|toml|ini|yaml|yml))\b`)
	reDotted     = regexp.MustCompile(`\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b`)
	reCamel      = regexp.MustCompile(`\b(?:[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z][A-Za-z0-9]*)\b`)
	reSnake      = regexp.MustCompile(`\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_*\b`)
	reCodeCall   = regexp.MustCompile(`(?:\.|\b)([A-Za-z_]\w*)\s*\(`)
	reCodeAttr   = regexp.MustCompile(`\.([A-Za-z_]\w*)`)
	reImport     = regexp.MustCompile(`(?m)^\s*(?:from\s+([\w.]+)\s+)?import\s+([\w., ]+)`)
	reIdent      = regexp.MustCompile(`^[A-Za-z_]\w*$`)
	// A shell line running a program with a plain word first:
	// "$ tool export --all". The word may be a subcommand.
	reShellLine = regexp.MustCompile(`(?m)^[ \t]*\$[ \t]+([A-Za-z][\w.-]*)[ \t]+([A-Za-z][A-Za-z0-9_-]*)[ \t]*(?:$|[ \t\r-])`)
	// An exception line: "ValueError: discount rate 50 is not ...".
	reErrLine = regexp.MustCompile(`(?m)^[ \t]*[A-Za-z_][\w.]*(?:Error|Exception|Warning):[ \t]+(.{8,200})$`)
	// Where a message's literal text stops: quotes, braces, paths, numbers.
	reMsgStop = regexp.MustCompile(`['"{}\\/:<>\[\](]|\d`)

	// A file and a line: "x.py:227", "x.py at line 227", "line 227 of
	// x.py", and GitHub permalinks ".../blob/<ref>/pkg/x.py#L227".
	srcExt       = `\.(?:py|pyx|go|js|ts|tsx|jsx|java|rb|rs|c|h|cc|cpp|hpp|php|cs|kt|scala|swift)\b`
	srcPath      = `((?:[\w.-]+/)*[\w-]+` + srcExt + `)`
	reFileColon  = regexp.MustCompile(srcPath + `:(\d+)`)
	reFileAtLine = regexp.MustCompile(srcPath + "[`'\"]?[ \t]+(?:[A-Za-z]+[ \t]+){0,3}?line[ \t]+(\\d+)")
	reLineOfFile = regexp.MustCompile("\\bline[ \t]+(\\d+)[ \t]+(?:of|in)[ \t]+[`'\"]?" + srcPath)
	rePermalink  = regexp.MustCompile(`github\.com/[\w.-]+/[\w.-]+/blob/[\w.-]+/([^\s#?)\]]+` + srcExt + `)(?:#L(\d+))?`)
)

// dottedNoise are dotted words of prose that are not code.
var dottedNoise = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "a.k.a": true,
}

// commonWords are identifiers that occur in nearly every code base and say
// nothing about where the issue lives.
var commonWords = map[string]bool{
	"self": true, "cls": true, "print": true, "len": true, "str": true, "int": true,
	"list": true, "dict": true, "set": true, "tuple": true, "range": true, "type": true,
	"isinstance": true, "super": true, "object": true, "None": true, "True": true,
	"False": true, "return": true, "import": true, "from": true, "def": true, "class": true,
	"assert": true, "append": true, "format": true, "join": true, "get": true, "items": true,
	"keys": true, "values": true, "open": true, "float": true, "bool": true, "map": true,
	"zip": true, "sorted": true, "min": true, "max": true, "sum": true, "abs": true,
	"np": true, "numpy": true, "pd": true, "pandas": true, "os": true, "sys": true,
	"python": true, "Python": true, "pip": true, "main": true, "init": true, "__init__": true,
	"TypeError": true, "ValueError": true, "KeyError": true, "AttributeError": true,
	"IndexError": true, "RuntimeError": true, "Exception": true, "Traceback": true,
	"GitHub": true, "iPhone": true, "macOS": true, "JavaScript": true, "TypeScript": true,
	"array": true, "shape": true, "dtype": true, "copy": true, "file": true, "path": true,
	"name": true, "value": true, "data": true, "test": true, "args": true, "kwargs": true,
}

// ExtractEntryPoints pulls the code entities an issue names, strongest first.
func ExtractEntryPoints(issue string) []EntryPoint {
	c := &collector{byText: map[string]*EntryPoint{}}
	c.tracebacks(issue)
	c.stackFrames(issue)
	prose := blank(blank(issue, reFrame.FindAllStringIndex(issue, -1)), reStackFrame.FindAllStringIndex(issue, -1))
	c.fileLines(prose)
	c.messages(issue)
	c.logLines(issue)
	c.testNames(prose)
	c.commands(issue)
	// What a command printed is not code the reporter wrote.
	code := blank(prose, c.outputs(issue))
	fences := reFence.FindAllStringSubmatchIndex(prose, -1)
	for _, m := range fences {
		c.codeBlock(code[m[2]:m[3]], m[2])
	}
	prose = blank(prose, fences)
	c.quoted(prose)
	c.words(prose, false)
	c.markLocal(issue)
	return c.sorted(issue[:titleEnd(issue)])
}

// titleBonus is added to names in the issue's title: a title names what
// the reporter thinks is broken, which beats where a traceback ended.
const titleBonus = 0.5

// titleEnd is the length of the first line when it reads as a title.
func titleEnd(issue string) int {
	i := strings.IndexByte(issue, '\n')
	if i < 0 || i > 200 || strings.TrimSpace(issue[:i]) != issue[:i] || reFrame.MatchString(issue[:i]) {
		return 0
	}
	return i
}

// blank replaces the given spans with spaces, keeping offsets, so text read
// once (traceback frames, code blocks) is not counted again as prose.
func blank(s string, spans [][]int) string {
	if len(spans) == 0 {
		return s
	}
	b := []byte(s)
	for _, m := range spans {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

type collector struct {
	byText map[string]*EntryPoint
}

func (c *collector) add(text string, kind EntryKind, pos int) *EntryPoint {
	text = strings.TrimSpace(text)
	if text == "" || len(text) > 200 || commonWords[text] {
		return nil
	}
	e, ok := c.byText[text]
	if !ok {
		e = &EntryPoint{Text: text, Kind: kind, First: pos}
		c.byText[text] = e
	}
	e.Count++
	if kindWeight[kind] > kindWeight[e.Kind] {
		e.Kind = kind
	}
	if pos < e.First {
		e.First = pos
	}
	return e
}

// tracebacks numbers frames from the innermost: in a Python traceback the
// last frame printed is where the exception was raised.
func (c *collector) tracebacks(issue string) {
	ms := reFrame.FindAllStringSubmatchIndex(issue, -1)
	for i, m := range ms {
		file := issue[m[2]:m[3]]
		line, _ := strconv.Atoi(issue[m[4]:m[5]])
		var fn string
		if m[6] >= 0 && !strings.HasPrefix(issue[m[6]:m[7]], "<") { // <module>, <lambda>
			fn = issue[m[6]:m[7]]
		}
		c.frame(file, m[0], fn, m[6], line, len(ms)-i)
	}
}

// frame adds one traceback frame: its file and, when named, its function.
func (c *collector) frame(file string, filePos int, fn string, fnPos, line, frame int) {
	if e := c.add(frameFile(file), EntryFile, filePos); e != nil {
		c.traceFrame(e, file, line, frame)
	}
	if fn == "" {
		return
	}
	if e := c.add(fn, EntryTraceback, fnPos); e != nil {
		c.traceFrame(e, file, line, frame)
	}
}

// stackFrames reads JavaScript stack traces, which print the innermost
// frame first. Frames in installed packages or the runtime are kept only
// as far as frameFile can map them into the repository.
func (c *collector) stackFrames(issue string) {
	for i, m := range reStackFrame.FindAllStringSubmatchIndex(issue, -1) {
		file := issue[m[4]:m[5]]
		if strings.HasPrefix(file, "node:") || strings.HasPrefix(file, "internal/") {
			continue
		}
		line, _ := strconv.Atoi(issue[m[6]:m[7]])
		var fn string
		if m[2] >= 0 && !strings.Contains(issue[m[2]:m[3]], "<") { // Object.<anonymous>
			fn = strings.TrimPrefix(issue[m[2]:m[3]], "Object.")
		}
		c.frame(file, m[4], fn, m[2], line, i+1)
	}
}

// messages takes the literal start of each exception message: the code
// that raised it holds the same words. Messages Python itself writes
// ("'NoneType' object is not subscriptable") start with a quote or are
// not in the repository; searching finds nothing and they are dropped.
func (c *collector) messages(issue string) {
	for _, m := range reErrLine.FindAllStringSubmatchIndex(issue, -1) {
		c.message(issue[m[2]:m[3]], m[2])
	}
}

// commands takes the first word after the program of each shell line:
// when the program is the repository's own, the word names the command
// the issue is about.
func (c *collector) commands(issue string) {
	for _, m := range reShellLine.FindAllStringSubmatchIndex(issue, -1) {
		if e := c.add(issue[m[4]:m[5]], EntryCommand, m[4]); e != nil && e.Kind == EntryCommand {
			e.ranBy(issue[m[2]:m[3]])
		}
	}
}

// fileLines takes files named with a line number. The line points into
// the unit to look at, much like a traceback frame.
func (c *collector) fileLines(text string) {
	type form struct {
		re         *regexp.Regexp
		file, line int // submatch groups
	}
	for _, f := range []form{{rePermalink, 1, 2}, {reFileColon, 1, 2}, {reFileAtLine, 1, 2}, {reLineOfFile, 2, 1}} {
		for _, m := range f.re.FindAllStringSubmatchIndex(text, -1) {
			fs, fe := m[2*f.file], m[2*f.file+1]
			e := c.add(text[fs:fe], EntryFile, fs)
			if e == nil || m[2*f.line] < 0 {
				continue
			}
			if line, err := strconv.Atoi(text[m[2*f.line]:m[2*f.line+1]]); err == nil && e.Line == 0 && line > 0 {
				e.File, e.Line = e.Text, line
			}
		}
	}
}

func (c *collector) traceFrame(e *EntryPoint, file string, line, frame int) {
	if e.Frame == 0 || frame < e.Frame {
		e.File, e.Line, e.Frame = file, line, frame
	}
}

// frameFile keeps the part of a frame's path that can match the repository:
// after site-packages or dist-packages, else the last three segments.
func frameFile(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for _, mark := range []string{"site-packages/", "dist-packages/", "node_modules/"} {
		if i := strings.LastIndex(p, mark); i >= 0 {
			return p[i+len(mark):]
		}
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(segs) > 3 {
		segs = segs[len(segs)-3:]
	}
	return strings.Join(segs, "/")
}

func (c *collector) codeBlock(code string, base int) {
	for _, m := range reImport.FindAllStringSubmatchIndex(code, -1) {
		if m[2] >= 0 {
			c.add(code[m[2]:m[3]], EntryDotted, base+m[2])
		}
		for _, name := range strings.Split(code[m[4]:m[5]], ",") {
			name, _, _ = strings.Cut(strings.TrimSpace(name), " ")
			if reIdent.MatchString(name) {
				c.add(name, EntryCode, base+m[4])
			}
		}
	}
	for _, re := range []*regexp.Regexp{reCodeCall, reCodeAttr} {
		for _, m := range re.FindAllStringSubmatchIndex(code, -1) {
			if name := code[m[2]:m[3]]; len(name) > 2 && !isKeyword(name) {
				c.add(name, EntryCode, base+m[2])
			}
		}
	}
	c.words(code, true)
}

func (c *collector) quoted(prose string) {
	for _, m := range reBacktick.FindAllStringSubmatchIndex(prose, -1) {
		c.quotedText(prose[m[2]:m[3]], m[2])
	}
	for _, m := range reQuoted.FindAllStringSubmatchIndex(prose, -1) {
		for g := 2; g <= 4; g += 2 {
			if m[g] >= 0 {
				c.quotedText(prose[m[g]:m[g+1]], m[g])
			}
		}
	}
}

// quotedText takes a quoted span: an identifier or dotted path as it is,
// otherwise the calls and names inside it.
func (c *collector) quotedText(s string, pos int) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "()"))
	switch {
	case reIdent.MatchString(s) && len(s) > 1:
		c.add(s, EntryQuoted, pos)
	case reFileName.MatchString(" "+s) && !strings.ContainsAny(s, " ("):
		c.add(s, EntryFile, pos)
	case isDotted(s):
		c.add(s, EntryQuoted, pos)
	case len(strings.Fields(s)) >= 3 && !strings.ContainsAny(s, "(=[{"):
		c.message(s, pos) // a message quoted in prose: "could not find the key"
	default:
		for _, m := range reCodeCall.FindAllStringSubmatchIndex(s, -1) {
			if name := s[m[2]:m[3]]; len(name) > 2 && !isKeyword(name) {
				c.add(name, EntryCode, pos+m[2])
			}
		}
	}
}

// words takes names from running text. In code (a reproduction script),
// a dotted name is mostly a variable's attribute (cart.total), weaker
// than a dotted path written in prose, so it counts as code.
func (c *collector) words(text string, inCode bool) {
	dotted := EntryDotted
	if inCode {
		dotted = EntryCode
	}
	for _, m := range reFileName.FindAllStringSubmatchIndex(text, -1) {
		c.add(text[m[2]:m[3]], EntryFile, m[2])
	}
	for _, m := range reDotted.FindAllStringIndex(text, -1) {
		if s := text[m[0]:m[1]]; isDotted(s) && !looksLikeFile(s) && !isURLPart(text, m[0]) {
			c.add(s, dotted, m[0])
		}
	}
	for _, m := range reCamel.FindAllStringIndex(text, -1) {
		c.add(text[m[0]:m[1]], EntryCamel, m[0])
	}
	for _, m := range reSnake.FindAllStringIndex(text, -1) {
		if s := text[m[0]:m[1]]; !isURLPart(text, m[0]) {
			c.add(s, EntrySnake, m[0])
		}
	}
}

func (c *collector) sorted(title string) []EntryPoint {
	out := make([]EntryPoint, 0, len(c.byText))
	for _, e := range c.byText {
		e.Weight = kindWeight[e.Kind] + 0.25*float64(min(e.Count-1, 4))
		// A subcommand is a plain word, which the title's prose is not
		// searched for: "tool export drops ..." names the command too.
		if e.First < len(title) || e.Kind == EntryCommand && hasWord(title, e.Text) {
			e.Weight += titleBonus
		}
		switch {
		case e.Frame > 0:
			e.Weight += 1.0 / float64(e.Frame)
		case e.Line > 0:
			e.Weight += 0.5
		}
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		if out[i].First != out[j].First {
			return out[i].First < out[j].First
		}
		return out[i].Text < out[j].Text
	})
	return out
}

func isDotted(s string) bool {
	if !strings.Contains(s, ".") || dottedNoise[strings.ToLower(strings.TrimSuffix(s, "."))] {
		return false
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if !reIdent.MatchString(p) {
			return false
		}
	}
	// "np.array" style is code; "Hello.World" in prose is rare, but a lone
	// pair of all-lowercase short words ("i.e", "etc.") is not.
	return len(parts) >= 2 && len(s) >= 4
}

func looksLikeFile(s string) bool {
	return reFileName.MatchString(" " + s)
}

// isURLPart skips words inside URLs (github.com/org/repo_name).
func isURLPart(text string, pos int) bool {
	start := strings.LastIndexAny(text[:pos], " \t\n(<[\"'")
	word := text[start+1 : pos]
	return strings.Contains(word, "://") || strings.Contains(word, "www.") || strings.Contains(word, "/")
}

var keywords = map[string]bool{
	"if": true, "for": true, "while": true, "with": true, "print": true, "return": true,
	"and": true, "not": true, "lambda": true, "elif": true, "except": true, "raise": true,
}

func isKeyword(s string) bool { return keywords[s] || commonWords[s] }
