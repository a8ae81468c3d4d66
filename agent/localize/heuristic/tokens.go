package heuristic

import (
	"strings"
	"unicode"
)

// identTokens splits text into lower-case search tokens: every identifier
// whole, and its camelCase / snake_case parts. (A corpus goes through
// termTable, which splits each distinct word once.)
func identTokens(text string) []string {
	var out []string
	scanWords(text, func(w string) { out = append(out, wordTokens(w)...) }, nil)
	return out
}

// scanWords calls word with each word of text, a run of ASCII letters,
// digits and underscores (every other byte, each byte of a multi-byte
// character included, separates words), and newline, when not nil, at
// each "\n".
func scanWords(text string, word func(string), newline func()) {
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\n' && newline != nil {
			newline()
		}
		if !isWordByte(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		word(text[i:j])
		i = j
	}
}

// wordTokens are one identifier's tokens: itself when it has parts, and
// its parts, stemmed, less stop words.
func wordTokens(w string) []string {
	var out []string
	parts := splitIdent(w)
	if len(parts) > 1 {
		out = append(out, strings.ToLower(strings.Trim(w, "_")))
	}
	for _, p := range parts {
		if len(p) > 1 && !stopWords[p] {
			out = append(out, stem(p))
		}
	}
	return out
}

// splitIdent splits an identifier at underscores and case changes into
// lower-case parts: "parseHTTPHeader_v2" → parse, http, header, v2.
func splitIdent(w string) []string {
	var parts []string
	for _, seg := range strings.Split(w, "_") {
		if seg == "" {
			continue
		}
		rs := []rune(seg)
		from := 0
		for i := 1; i < len(rs); i++ {
			lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
			digitEdge := unicode.IsDigit(rs[i-1]) != unicode.IsDigit(rs[i]) && !unicode.IsDigit(rs[i])
			if lowerToUpper || acronymEnd || digitEdge {
				parts = append(parts, strings.ToLower(string(rs[from:i])))
				from = i
			}
		}
		parts = append(parts, strings.ToLower(string(rs[from:])))
	}
	return parts
}

// stopWords are English and Python words too common to rank by.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "to": true,
	"in": true, "is": true, "it": true, "this": true, "that": true, "for": true, "on": true,
	"with": true, "as": true, "be": true, "are": true, "was": true, "by": true, "at": true,
	"not": true, "but": true, "if": true, "from": true, "we": true, "you": true, "can": true,
	"should": true, "would": true, "when": true, "which": true, "have": true, "has": true,
	"self": true, "def": true, "return": true, "none": true, "true": true, "false": true,
	"import": true, "class": true, "there": true, "then": true, "so": true, "do": true,
	"does": true, "my": true, "i": true, "me": true, "its": true, "also": true, "will": true,
	"all": true, "any": true, "no": true, "yes": true, "use": true, "used": true, "using": true,
	"get": true, "set": true, "like": true, "what": true, "how": true, "here": true, "some": true,
	"one": true, "two": true, "than": true, "into": true, "only": true, "just": true, "more": true,
	"other": true, "these": true, "those": true, "been": true, "being": true, "such": true,
	"elif": true, "else": true, "try": true, "except": true, "raise": true, "pass": true,
	"py": true, "line": true, "file": true, "files": true, "issue": true, "version": true,
	"error": true, "expected": true, "actual": true, "example": true, "following": true,
	"cls": true, "args": true, "kwargs": true, "lib": true, "site": true, "packages": true,
}

// stem strips the commonest English inflections so "rounded", "rounding"
// and "round" meet. It is deliberately crude: both sides of every
// comparison go through it, so consistency matters more than linguistics.
func stem(w string) string {
	if len(w) <= 4 {
		return w
	}
	for _, suf := range []string{"ing", "ed"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// termTable interns tokens as dense ids, and remembers each distinct word's
// tokens so a word the corpus repeats thousands of times is split once.
type termTable struct {
	ids   map[string]int32
	words map[string][]int32 // word -> its tokens' ids, as wordTokens gives them
}

func newTermTable() *termTable {
	return &termTable{ids: map[string]int32{}, words: map[string][]int32{}}
}

// token is a token's id, entering it if new.
func (tt *termTable) token(t string) int32 {
	id, ok := tt.ids[t]
	if !ok {
		id = int32(len(tt.ids))
		tt.ids[t] = id
	}
	return id
}

func (tt *termTable) word(w string) []int32 {
	if ids, ok := tt.words[w]; ok {
		return ids
	}
	if tt.words == nil {
		tt.words = map[string][]int32{}
	}
	toks := wordTokens(w)
	ids := make([]int32, len(toks))
	for i, t := range toks {
		ids[i] = tt.token(t)
	}
	tt.words[strings.Clone(w)] = ids
	return ids
}

// forgetWords drops the words' splits once a corpus is built: its
// queries look tokens up, and the splits are a large table to keep.
func (tt *termTable) forgetWords() { tt.words = nil }

// isWordByte reports whether c is part of a word: an ASCII letter, digit
// or underscore.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// text appends the ids of text's tokens: identTokens, as ids.
func (tt *termTable) text(out []int32, text string) []int32 {
	scanWords(text, func(w string) { out = append(out, tt.word(w)...) }, nil)
	return out
}

// lineTokens is a text's tokens as ids, line by line.
type lineTokens struct {
	ids    []int32
	starts []int32 // starts[l-1]: where line l's tokens begin in ids
}

// lines tokenizes text once, noting where each line's tokens begin. Lines
// are split at "\n" as strings.Split splits them, so a text ending in a
// newline has an empty last line.
func (tt *termTable) lines(text string) *lineTokens {
	lt := &lineTokens{ids: make([]int32, 0, len(text)/8), starts: make([]int32, 1, len(text)/32+1)}
	scanWords(text, func(w string) { lt.ids = append(lt.ids, tt.word(w)...) },
		func() { lt.starts = append(lt.starts, int32(len(lt.ids))) })
	return lt
}

// count is how many lines the text has.
func (lt *lineTokens) count() int { return len(lt.starts) }

// line is line l's token ids, 1-based.
func (lt *lineTokens) line(l int) []int32 {
	end := len(lt.ids)
	if l < len(lt.starts) {
		end = int(lt.starts[l])
	}
	return lt.ids[lt.starts[l-1]:end]
}
