package resolve

import "strings"

// segment is one simple command of a shell line: its words with quotes
// removed, in order. Redirection targets stay as words ("> out.txt" gives
// ">" and "out.txt") so path checks see them.
type segment []string

// splitCommand cuts a shell command into simple commands at ; & | && ||,
// newlines, $( ) and backticks, honouring single and double quotes and
// backslashes. It is not a shell parser; it is conservative enough for a
// permission check, whose mistakes are asks or refusals with a reason, never
// silent runs of something unseen: quoted text is also scanned separately
// (see rawWords).
func splitCommand(cmd string) []segment {
	var (
		segs  []segment
		cur   segment
		word  strings.Builder
		inW   bool
		quote rune
		esc   bool
	)
	endWord := func() {
		if inW {
			cur = append(cur, word.String())
			word.Reset()
			inW = false
		}
	}
	endSeg := func() {
		endWord()
		if len(cur) > 0 {
			segs = append(segs, cur)
		}
		cur = nil
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case esc:
			word.WriteRune(r)
			inW, esc = true, false
		case r == '\\' && quote != '\'':
			esc, inW = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inW = r, true
		case r == ';' || r == '&' || r == '|' || r == '\n' || r == '`' || r == '(' || r == ')':
			endSeg()
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			endSeg()
			i++
		case r == '>' || r == '<':
			endWord()
			op := string(r)
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&' || rs[i+1] == '<') {
				i++
				op += string(rs[i])
			}
			cur = append(cur, op)
		case r == ' ' || r == '\t' || r == '\r':
			endWord()
		default:
			word.WriteRune(r)
			inW = true
		}
	}
	endSeg()
	return segs
}

// rawWords splits the whole command into words at every quote, space and
// operator, so names hidden inside quoted code (python -c "os.system('curl
// ...')") are seen too.
func rawWords(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool {
		return strings.ContainsRune(" \t\r\n;&|`()'\"<>{}[],=", r)
	})
}

// commandWords drops what runs before the real program: variable
// assignments (FOO=1 cmd), and wrappers that only change how it runs
// (env, time, timeout 10, nice, nohup, command, exec, xargs).
func commandWords(s segment) []string {
	w := []string(s)
	for len(w) > 0 {
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case w[0] == "env" || w[0] == "time" || w[0] == "nice" || w[0] == "nohup" || w[0] == "command" || w[0] == "exec" || w[0] == "xargs" || w[0] == "stdbuf":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		case w[0] == "timeout":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		default:
			return w
		}
	}
	return w
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// progName is the base name of a program word: /usr/bin/python3 → python3.
func progName(w string) string {
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		return w[i+1:]
	}
	return w
}

// stripHeredocs removes the bodies of here-documents (cat <<'EOF' ... EOF):
// they are data, not commands, and code in them (a / b) would read as paths.
// The permission check still scans the whole text for network programs and
// absolute paths (rawWords).
func stripHeredocs(cmd string) string {
	lines := strings.Split(cmd, "\n")
	out := make([]string, 0, len(lines))
	delim := ""
	for _, line := range lines {
		if delim != "" {
			if strings.TrimLeft(line, "\t") == delim {
				delim = ""
				out = append(out, "")
			}
			continue
		}
		out = append(out, line)
		delim = heredocDelimiter(line)
	}
	return strings.Join(out, "\n")
}

// heredocDelimiter returns the word that ends a here-document started on
// line, or "".
func heredocDelimiter(line string) string {
	i := strings.Index(line, "<<")
	for i >= 0 && strings.HasPrefix(line[i:], "<<<") {
		next := strings.Index(line[i+3:], "<<")
		if next < 0 {
			return ""
		}
		i += 3 + next
	}
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(strings.TrimPrefix(line[i+2:], "-"), " \t")
	rest = strings.TrimLeft(rest, `'"\`)
	end := strings.IndexAny(rest, `'" ;&|<>)`+"\t")
	if end >= 0 {
		rest = rest[:end]
	}
	return rest
}
