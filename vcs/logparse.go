package vcs

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// parseLog reads the output of ReadLog's git log: each commit is
// "\0\0HASH\0TIME\0MESSAGE\0" followed by its patch. The message is the
// only free text; it ends at the first NUL, and a diff line never holds one
// (git calls such a file binary). Anything that does not parse is passed
// over: the text is the repository's and may be hostile.
func parseLog(r *bufio.Reader, each func(LogCommit) error) error {
	var p logParser
	for {
		line, err := readLine(r)
		if len(line) > 0 || err == nil {
			if done := p.line(line, r); done != nil {
				if cerr := each(*done); cerr != nil {
					return cerr
				}
			}
		}
		if err == io.EOF {
			if done := p.finish(); done != nil {
				return each(*done)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine is the next line without its newline, cut at maxLogLine.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, err := r.ReadSlice('\n')
		if b.Len() < maxLogLine {
			b.Write(chunk[:min(len(chunk), maxLogLine-b.Len())])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimSuffix(b.String(), "\n"), err
	}
}

type logParser struct {
	cur  *LogCommit
	file *FileChange
	hunk *Hunk
}

// line takes one line; it returns the previous commit when this line
// starts the next.
func (p *logParser) line(line string, r *bufio.Reader) *LogCommit {
	if strings.HasPrefix(line, "\x00\x00") {
		done := p.finish()
		p.cur = p.header(line[2:], r)
		return done
	}
	if p.cur == nil {
		return nil
	}
	p.diffLine(line)
	return nil
}

// header parses "HASH\0TIME\0MESSAGE..." where the message may go on over
// further lines up to its closing NUL.
func (p *logParser) header(rest string, r *bufio.Reader) *LogCommit {
	c := &LogCommit{}
	hash, rest, _ := strings.Cut(rest, "\x00")
	ts, msg, _ := strings.Cut(rest, "\x00")
	c.Hash = hash
	c.Time, _ = strconv.ParseInt(ts, 10, 64)
	var b strings.Builder
	for {
		if body, _, closed := strings.Cut(msg, "\x00"); closed {
			appendCapped(&b, body)
			break
		}
		appendCapped(&b, msg+"\n")
		next, err := readLine(r)
		if err != nil && next == "" {
			break
		}
		msg = next
	}
	c.Message = strings.TrimSpace(b.String())
	if !validHash(c.Hash) {
		c.Hash = ""
	}
	return c
}

func appendCapped(b *strings.Builder, s string) {
	if room := maxLogMessage - b.Len(); room > 0 {
		b.WriteString(s[:min(len(s), room)])
	}
}

func validHash(h string) bool {
	if len(h) != 40 && len(h) != 64 {
		return false
	}
	for _, r := range h {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// finish closes the commit being read and returns it (nil if none, or if
// its header did not parse).
func (p *logParser) finish() *LogCommit {
	c := p.cur
	p.closeFile()
	p.cur = nil
	if c == nil || c.Hash == "" {
		return nil
	}
	return c
}

func (p *logParser) closeFile() {
	p.closeHunk()
	if p.file != nil && p.cur != nil && (p.file.Path != "" || p.file.OldPath != "") {
		p.cur.Files = append(p.cur.Files, *p.file)
	}
	p.file = nil
}

func (p *logParser) closeHunk() {
	if p.hunk != nil && p.file != nil {
		p.file.Hunks = append(p.file.Hunks, *p.hunk)
	}
	p.hunk = nil
}

// diffLine takes one line of a commit's patch.
func (p *logParser) diffLine(line string) {
	if p.hunk != nil {
		switch {
		case strings.HasPrefix(line, "+"):
			p.hunk.Added = append(p.hunk.Added, line[1:])
			return
		case strings.HasPrefix(line, "-"):
			p.hunk.Removed = append(p.hunk.Removed, line[1:])
			return
		case strings.HasPrefix(line, `\`):
			return // "\ No newline at end of file"
		}
		p.closeHunk()
	}
	switch {
	case strings.HasPrefix(line, "diff --git "):
		p.closeFile()
		p.file = &FileChange{}
		p.file.OldPath, p.file.Path = gitHeaderPaths(line[len("diff --git "):])
	case p.file == nil:
	case strings.HasPrefix(line, "@@ "):
		if h, ok := parseHunkHeader(line); ok {
			p.hunk = &h
		}
	case strings.HasPrefix(line, "--- "):
		p.file.OldPath = patchPath(line[4:], "a/", p.file.OldPath)
	case strings.HasPrefix(line, "+++ "):
		p.file.Path = patchPath(line[4:], "b/", p.file.Path)
	case strings.HasPrefix(line, "rename from "):
		p.file.OldPath = unquotePath(line[len("rename from "):])
	case strings.HasPrefix(line, "rename to "):
		p.file.Path = unquotePath(line[len("rename to "):])
	case strings.HasPrefix(line, "new file mode"):
		p.file.OldPath = ""
	case strings.HasPrefix(line, "deleted file mode"):
		p.file.Path = ""
	case strings.HasPrefix(line, "Binary files "):
		p.file.Binary = true
	}
}

// gitHeaderPaths reads "a/X b/Y" when it is unambiguous: both quoted, or
// the same unquoted path twice. Otherwise the ---/+++ or rename lines
// that follow name the paths.
func gitHeaderPaths(s string) (old, cur string) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok {
			return "", ""
		}
		b, _, _ := cutQuoted(strings.TrimPrefix(rest, " "))
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
	}
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:]
		}
	}
	return "", ""
}

// patchPath reads the path of a "---" or "+++" line; /dev/null keeps
// what is known.
func patchPath(s, prefix, known string) string {
	if s == "/dev/null" {
		return ""
	}
	p := unquotePath(s)
	if q, ok := strings.CutPrefix(p, prefix); ok {
		return q
	}
	return known
}

// unquotePath undoes git's C-style quoting of unusual paths; a quoted path
// that does not parse is dropped.
func unquotePath(s string) string {
	s = strings.TrimRight(s, "\t")
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	q, _, ok := cutQuoted(s)
	if !ok {
		return ""
	}
	return q
}

// cutQuoted unquotes the quoted string s starts with and returns what
// follows it.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			q, err := strconv.Unquote(s[:i+1])
			return q, s[i+1:], err == nil
		}
	}
	return "", "", false
}

// parseHunkHeader reads "@@ -a,b +c,d @@ func".
func parseHunkHeader(line string) (Hunk, bool) {
	body, fn, ok := strings.Cut(line[3:], " @@")
	if !ok {
		return Hunk{}, false
	}
	oldR, newR, ok := strings.Cut(body, " ")
	if !ok || !strings.HasPrefix(oldR, "-") || !strings.HasPrefix(newR, "+") {
		return Hunk{}, false
	}
	var h Hunk
	var ok1, ok2 bool
	h.OldStart, h.OldLines, ok1 = hunkRange(oldR[1:])
	h.NewStart, h.NewLines, ok2 = hunkRange(newR[1:])
	h.Func = strings.TrimSpace(fn)
	return h, ok1 && ok2
}

func hunkRange(s string) (start, n int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, false
		}
	}
	return start, n, true
}
