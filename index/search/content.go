package search

import (
	"bytes"
	"fmt"
	"iter"
	"regexp"
	"sort"
	"strings"
)

// FindCodeContent finds an identifier (by its spelling variants) or a code
// snippet (whitespace-tolerant), or shows a line span of a file. Matches are
// grouped by their innermost containing unit.
func (s *Searcher) FindCodeContent(a FindCodeContentArgs) Result {
	const tool = nameFindCodeContent
	// Invalid UTF-8 cannot be in a regexp; it matches nothing anyway.
	q := strings.ToValidUTF8(strings.TrimSpace(a.Content), "\uFFFD")
	sc, msg := s.scopeOf(a.FilePath)
	if msg != "" {
		return failure(tool, q, msg)
	}
	lo, hi, msg := s.span(a, sc)
	if msg != "" {
		return failure(tool, q, msg)
	}
	if q == "" {
		if !sc.isFile() {
			return failure(tool, q, "content is empty. Give an identifier or a code snippet to search for, or a file_path with start_line and end_line to show those lines.\n")
		}
		return s.showSpan(tool, sc.file, lo, hi)
	}
	if len(q) > 4*maxQueryLen {
		return failure(tool, q, fmt.Sprintf("content is %d characters long; search for a shorter, distinctive part (at most %d characters).\n", len(q), 4*maxQueryLen))
	}
	inSpan := func(p posting) bool {
		return sc.has(p.file, s.files[p.file].Path) && (lo == 0 || int(p.line) >= lo && int(p.line) <= hi)
	}
	if isIdentifierQuery(q) {
		if r, ok := s.variantSearch(tool, q, inSpan); ok {
			return r
		}
	}
	return s.snippetSearch(tool, q, sc, inSpan)
}

// span validates start_line/end_line; 0, 0 means no span.
func (s *Searcher) span(a FindCodeContentArgs, sc scope) (int, int, string) {
	if a.StartLine == 0 && a.EndLine == 0 {
		return 0, 0, ""
	}
	if !sc.isFile() {
		return 0, 0, "start_line and end_line need file_path to name one file.\n"
	}
	n := s.lineCount(sc.file)
	p := s.files[sc.file].Path
	lo, hi := a.StartLine, a.EndLine
	if lo <= 0 {
		lo = 1
	}
	if hi == 0 {
		hi = min(n, lo+spanLines-1)
	}
	switch {
	case lo > n:
		return 0, 0, fmt.Sprintf("start_line %d is past the end of %s, which has %d lines.\n", lo, p, n)
	case hi < lo:
		return 0, 0, fmt.Sprintf("end_line %d is before start_line %d; give a span with start_line <= end_line (%s has %d lines).\n", hi, lo, p, n)
	}
	return lo, min(hi, n), ""
}

// spanLines is the most lines one span observation shows.
const spanLines = 80

// variantSearch looks an identifier up in the postings: every spelling
// variant, else identifiers containing it. ok is false when nothing matched.
func (s *Searcher) variantSearch(tool, q string, keep func(posting) bool) (Result, bool) {
	key := string(normIdent([]byte(q), nil))
	post := s.postings()
	ps := filterPostings(post[key], keep)
	partial := false
	head := ""
	if len(ps) > 0 {
		head = fmt.Sprintf("%s %s: identifier and its case/separator variants", tool, quote(q))
	} else {
		keys := s.partialKeys(key)
		lists := make([][]posting, 0, len(keys))
		for _, k := range keys {
			lists = append(lists, filterPostings(post[k], keep))
		}
		ps = mergePostings(lists)
		if len(ps) == 0 {
			return Result{}, false
		}
		partial = true
		head = fmt.Sprintf("%s %s: no identifier spelled like that; identifiers containing it", tool, quote(q))
	}
	forms := s.variantForms(ps, key, partial)
	return s.contentResult(tool, q, ModeVariant, ps, head, forms, func(t string) bool { return definesIdent(t, key) }), true
}

func filterPostings(ps []posting, keep func(posting) bool) []posting {
	var out []posting
	for _, p := range ps {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// definesIdent tells whether line t assigns or defines the identifier with
// normalized form key (`key = ...`, `key: ...`, `def key`, `class key`), so
// definition sites rank above uses.
func definesIdent(t, key string) bool {
	if !strings.ContainsAny(t, "=:") && !strings.Contains(t, "def") && !strings.Contains(t, "class") && !strings.Contains(t, "func") {
		return false
	}
	for j, k := range identTokens(t) {
		if normEqual(t[j:k], key) {
			before := strings.TrimSpace(t[:j])
			after := strings.TrimLeft(t[k:], " \t")
			if strings.HasSuffix(before, "def") || strings.HasSuffix(before, "class") || strings.HasSuffix(before, "func") ||
				strings.HasPrefix(after, ":") && !strings.HasPrefix(after, ":=") && before == "" ||
				strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") || strings.HasPrefix(after, ":=") {
				return true
			}
		}
	}
	return false
}

// normEqual tells whether normIdent(tok) == key without building it.
func normEqual(tok, key string) bool {
	lead := 0
	for lead < len(tok) && tok[lead] == '_' {
		lead++
	}
	trail := len(tok)
	for trail > lead && tok[trail-1] == '_' {
		trail--
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if (c == '_' || c == '-') && i >= lead && i < trail {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if n >= len(key) || key[n] != c {
			return false
		}
		n++
	}
	return n == len(key)
}

// identTokens yields the start and end offsets of each identifier in t.
// A number is skipped whole, so 0x1F holds no identifier.
func identTokens(t string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for j := 0; j < len(t); {
			if !isIdentStart(t[j]) {
				j = skipNonIdent(t, j)
				continue
			}
			k := j + 1
			for k < len(t) && isIdentByte(t[k]) {
				k++
			}
			if !yield(j, k) {
				return
			}
			j = k
		}
	}
}

// skipNonIdent moves past one non-identifier byte, or a whole number.
func skipNonIdent(t string, j int) int {
	if isIdentByte(t[j]) {
		for j < len(t) && isIdentByte(t[j]) {
			j++
		}
		return j
	}
	return j + 1
}

// variantForms counts how the identifier is spelled on the matched lines,
// e.g. "max_retries ×20, MAX_RETRIES ×3" (first 2,000 lines). partial
// counts the identifiers that contain key rather than equal it.
func (s *Searcher) variantForms(ps []posting, key string, partial bool) string {
	counts := map[string]int{}
	var buf []byte
	for i, p := range ps {
		if i == 2000 {
			break
		}
		t := s.lineText(p.file, int(p.line))
		for j, k := range identTokens(t) {
			buf = normIdent([]byte(t[j:k]), buf)
			if string(buf) == key || partial && strings.Contains(string(buf), key) {
				counts[t[j:k]]++
			}
		}
	}
	forms := make([]string, 0, len(counts))
	for f := range counts {
		forms = append(forms, f)
	}
	sort.Slice(forms, func(i, j int) bool {
		if counts[forms[i]] != counts[forms[j]] {
			return counts[forms[i]] > counts[forms[j]]
		}
		return forms[i] < forms[j]
	})
	var parts []string
	for i, f := range forms {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("+%d more", len(forms)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", f, counts[f]))
	}
	return strings.Join(parts, ", ")
}

// snippetSearch finds content as code, tolerant of whitespace: any run of
// spaces and line breaks in the query matches any run in the source, and
// space around punctuation is optional.
func (s *Searcher) snippetSearch(tool, q string, sc scope, keep func(posting) bool) Result {
	sn, err := compileSnippet(q)
	if err != nil {
		return failure(tool, q, fmt.Sprintf("cannot search for %s (%v); search for a shorter part of it.\n", quote(q), err))
	}
	ps := s.snippetLines(sn, sn.re, sc, keep)
	mode := ModeSnippet
	head := fmt.Sprintf("%s %s: code snippet (whitespace-tolerant)", tool, quote(q))
	if len(ps) == 0 {
		if ci, err := regexp.Compile("(?i)" + sn.re.String()); err == nil {
			ps = s.snippetLines(sn, ci, sc, keep)
			head = fmt.Sprintf("%s %s: no exact snippet; matches ignoring case", tool, quote(q))
		}
	}
	if len(ps) == 0 && len(sn.idents) > 0 {
		// self.maxRetries written where the code has self.max_retries.
		if vr, err := compileSnippetWith(q, variantPattern); err == nil {
			ps = s.snippetLines(sn, vr.re, sc, keep)
			head = fmt.Sprintf("%s %s: no exact snippet; matches with identifier spelling variants", tool, quote(q))
		}
	}
	if len(ps) == 0 {
		return Result{Tool: tool, Query: q, Mode: mode, Observation: clip(fmt.Sprintf(
			"%s %s: no match in %s. Search for a shorter, distinctive part (one identifier finds its variants), or find_code_def for a definition by name.\n",
			tool, quote(q), s.scopeName(sc)))}
	}
	return s.contentResult(tool, q, mode, ps, head, "", nil)
}

// snippetLines finds the lines re matches: around the lines of the
// snippet's rarest identifier when it has one (from the postings), else by
// scanning the files in scope that contain its longest literal piece.
func (s *Searcher) snippetLines(sn snippet, re *regexp.Regexp, sc scope, keep func(posting) bool) []posting {
	// The literal prefilter is case-sensitive: only the exact pass may use it.
	lit := ""
	if re == sn.re {
		lit = sn.lit
	}
	// Without the postings to narrow it, a case-blind pass over a big
	// scope is too slow (Go's regexp has no fast path for it): skip it.
	scan := func() []posting {
		if re != sn.re && s.scopeBytes(sc) > caseFoldScanLimit {
			return nil
		}
		return s.regexLines(sn, re, lit, sc, keep)
	}
	if len(sn.idents) == 0 {
		return scan()
	}
	post := s.postings()
	var rare []posting
	for i, id := range sn.idents {
		ps := post[string(normIdent([]byte(id), nil))]
		if i == 0 || len(ps) < len(rare) {
			rare = ps
		}
	}
	if len(rare) > maxWindowLines {
		// Only common words: one pass per file beats a window per line.
		return scan()
	}
	var out []posting
	seen := map[posting]bool{}
	for _, w := range s.windows(rare, sc, sn.newlines+2) {
		for _, l := range s.windowMatches(sn, re, w) {
			m := posting{w.file, int32(l)}
			if !seen[m] && keep(m) {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sortPostings(out)
	return out
}

// window is a run of lines of one file to search.
type window struct {
	file   int32
	lo, hi int
}

// maxWindowSpan caps a merged window, so the regexp stays on its fast
// backtracking engine, which only takes small inputs.
const maxWindowSpan = 48

// windows turns candidate lines (sorted by file and line) into windows of
// slack lines either side, merging those that overlap. Windows cut at
// maxWindowSpan overlap by slack lines, so no match is lost at a cut.
func (s *Searcher) windows(lines []posting, sc scope, slack int) []window {
	var out []window
	for _, p := range lines {
		if !sc.has(p.file, s.files[p.file].Path) {
			continue
		}
		n := s.lineCount(p.file)
		lo, hi := max(1, int(p.line)-slack), min(n, int(p.line)+slack)
		if k := len(out) - 1; k >= 0 && out[k].file == p.file && lo <= out[k].hi+1 {
			if hi-out[k].lo < maxWindowSpan {
				out[k].hi = max(out[k].hi, hi)
				continue
			}
			lo = max(lo, out[k].hi-slack)
		}
		out = append(out, window{p.file, lo, hi})
	}
	return out
}

// maxWindowLines is the most candidate lines searched window by window.
// Past it (a snippet of only common words, like "self = self") one pass per
// file with the regexp's literal-prefix scan is faster, and the case-blind
// retries, which have no such scan, are skipped on large scopes.
const maxWindowLines = 20000

// windowMatches runs re on a window and returns the lines its matches
// touch (at most 5 per match).
func (s *Searcher) windowMatches(sn snippet, re *regexp.Regexp, w window) []int {
	offs := s.lines[w.file]
	src, _ := s.ix.Source(s.files[w.file].Path)
	start, end := int(offs[w.lo-1]), len(src)
	if w.hi < len(offs) {
		end = int(offs[w.hi])
	}
	var out []int
	for _, m := range re.FindAllIndex(src[start:end], -1) {
		if !sn.bounded(src, start+m[0], start+m[1]) {
			continue
		}
		first, last := s.lineAt(w.file, start+m[0]), s.lineAt(w.file, start+max(m[0], m[1]-1))
		for l := first; l <= last && l < first+5; l++ {
			out = append(out, l)
		}
	}
	return out
}

// caseFoldScanLimit bounds the case-insensitive retry of a snippet: Go's
// regexp has no fast path for (?i), so only a file or small folder gets it.
const caseFoldScanLimit = 4 << 20

func (s *Searcher) scopeBytes(sc scope) int {
	n := 0
	for i, f := range s.files {
		if sc.has(int32(i), f.Path) {
			n += int(f.Size)
			if f.Size == 0 {
				src, _ := s.ix.Source(f.Path)
				n += len(src)
			}
		}
	}
	return n
}

func (s *Searcher) scopeName(sc scope) string {
	switch {
	case sc.isFile():
		return s.files[sc.file].Path
	case sc.dir != "":
		return sc.dir + "/"
	}
	return "the repository"
}

// snippet is a compiled whitespace-tolerant code snippet.
type snippet struct {
	re       *regexp.Regexp
	lit      string   // longest word piece, which every match contains
	idents   []string // identifier pieces, to find candidate lines in the postings
	newlines int      // line breaks in the query, to size search windows
	// wordStart and wordEnd ask for a token boundary before and after a
	// match, checked by hand: a leading \b would cost the regexp its fast
	// literal-prefix scan.
	wordStart, wordEnd bool
}

// bounded tells whether src[m0:m1] starts and ends at token boundaries
// where the snippet asks for them.
func (sn snippet) bounded(src []byte, m0, m1 int) bool {
	if sn.wordStart && m0 > 0 && isIdentByte(src[m0-1]) {
		return false
	}
	return !sn.wordEnd || m1 >= len(src) || !isIdentByte(src[m1])
}

// compileSnippet builds the whitespace-tolerant pattern for a snippet.
func compileSnippet(q string) (snippet, error) { return compileSnippetWith(q, tokenPattern) }

// compileSnippetWith builds it with pattern deciding how each token matches.
func compileSnippetWith(q string, pattern func(string) string) (snippet, error) {
	var b strings.Builder
	sn := snippet{newlines: strings.Count(q, "\n")}
	prevWord, space, first := false, false, true
	for i := 0; i < len(q); {
		if c := q[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = true
			i++
			continue
		}
		tok, word := nextToken(q, i)
		if !first {
			b.WriteString(tokenGap(prevWord, word, space))
		}
		if word && len(tok) > len(sn.lit) {
			sn.lit = tok
		}
		if word && isIdentStart(tok[0]) {
			sn.idents = append(sn.idents, tok)
		}
		b.WriteString(pattern(tok))
		first, prevWord, space = false, word, false
		i += len(tok)
	}
	// Whole tokens only at the ends, as the postings see them: "add_line("
	// does not match inside "readd_line(".
	sn.wordStart = q != "" && isIdentByte(q[0])
	sn.wordEnd = q != "" && isIdentByte(q[len(q)-1])
	re, err := regexp.Compile(b.String())
	if err != nil {
		return snippet{}, fmt.Errorf("compile snippet: %w", err)
	}
	sn.re = re
	return sn, nil
}

// nextToken is the word (identifier or number) or single other byte at i.
func nextToken(q string, i int) (string, bool) {
	if !isIdentByte(q[i]) {
		return q[i : i+1], false
	}
	j := i + 1
	for j < len(q) && isIdentByte(q[j]) {
		j++
	}
	return q[i:j], true
}

// tokenGap is what may stand between two snippet tokens: words the query
// spaced apart need some space, anything next to punctuation may have any.
func tokenGap(prevWord, word, space bool) string {
	switch {
	case word && prevWord && space:
		return `\s+`
	case word && prevWord:
		return ""
	}
	return `\s*`
}

// tokenPattern matches one token; a quote matches either quote, as Python
// and JS write strings either way.
func tokenPattern(tok string) string {
	if tok == "'" || tok == "\"" {
		return `["']`
	}
	return regexp.QuoteMeta(tok)
}

// variantPattern matches an identifier token in any of its spellings
// (maxRetries, max_retries, MAX-RETRIES); other tokens as tokenPattern.
func variantPattern(tok string) string {
	if !isIdentStart(tok[0]) {
		return tokenPattern(tok)
	}
	words := splitWords(tok)
	if len(words) == 0 {
		return tokenPattern(tok)
	}
	lead := tok[:len(tok)-len(strings.TrimLeft(tok, "_"))]
	trail := tok[len(strings.TrimRight(tok, "_")):]
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return lead + "(?i:" + strings.Join(words, "[_-]?") + ")" + trail
}

// splitWords cuts an identifier into its words at underscores, dashes and
// case changes: "HTTPServerError_code" gives HTTP, Server, Error, code.
func splitWords(tok string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, tok[start:end])
		}
		start = -1
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c == '_' || c == '-' {
			flush(i)
			continue
		}
		if start >= 0 && isUpper(c) && i > start && (!isUpper(tok[i-1]) || i+1 < len(tok) && isLower(tok[i+1])) {
			flush(i)
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(tok))
	return words
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// regexLines runs re over the files in scope that contain lit and returns
// every line a match touches (at most 5 per match).
func (s *Searcher) regexLines(sn snippet, re *regexp.Regexp, lit string, sc scope, keep func(posting) bool) []posting {
	var out []posting
	blit := []byte(lit)
	for i, f := range s.files {
		fi := int32(i)
		if !sc.has(fi, f.Path) {
			continue
		}
		src, _ := s.ix.Source(f.Path)
		if len(blit) > 0 && !bytes.Contains(src, blit) {
			continue
		}
		for _, m := range re.FindAllIndex(src, -1) {
			if !sn.bounded(src, m[0], m[1]) {
				continue
			}
			first, last := s.lineAt(fi, m[0]), s.lineAt(fi, max(m[0], m[1]-1))
			for l := first; l <= last && l < first+5; l++ {
				p := posting{fi, int32(l)}
				if keep(p) && (len(out) == 0 || out[len(out)-1] != p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// lineAt is the 1-based line holding byte offset off of file fi.
func (s *Searcher) lineAt(fi int32, off int) int {
	offs := s.lines[fi]
	return sort.Search(len(offs), func(i int) bool { return int(offs[i]) > off })
}
