// Package parse reads source files into raw code units, one file at a
// time: per language, a tree-sitter grammar and either a query or a walker
// in C (scan.h) that writes what extraction needs in one pass, and an
// extractor that turns that into definitions, chunks, calls and imports.
// It knows nothing of other files; index links the calls and caches the
// results.
package parse

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Language is everything parsing knows about one programming language.
// Adding a language means one more file that fills this in: its extensions,
// its grammar, how its files are read (one tree-sitter query, or a C walker:
// the script walker's table serves any grammar whose nodes the extractor
// names), and the extractor that turns what was read into raw units; and,
// in index, a linker for its calls.
type Language struct {
	name    string
	exts    []string
	grammar func() *sitter.Language
	// query is compiled once per parser goroutine (queries are not shared
	// across threads by the bindings).
	query string
	// scan names the C walker (scan.h) that parses and scans the
	// language's files and fills extraction.recs; scanNone for a language
	// read by query.
	scan int
	// extract turns one parsed file into raw units, calls and imports.
	extract func(x *extraction)
}

// The names of the languages, as File.Lang holds them. TypeScript's two
// grammars (.ts and .tsx) make one language.
const (
	Python     = "python"
	Go         = "go"
	JavaScript = "javascript"
	TypeScript = "typescript"
)

// Name is the language's name (Python, Go, ...).
func (l *Language) Name() string { return l.name }

// languages lists the supported languages.
var languages = []*Language{pythonLang, goLang, jsLang, tsLang, tsxLang}

// ForPath picks the language of a file by its extension.
func ForPath(p string) *Language {
	ext := strings.ToLower(path.Ext(p))
	for _, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// Names names the languages parsing reads, for messages.
func Names() []string {
	var out []string
	for _, l := range languages {
		if !slices.Contains(out, l.name) {
			out = append(out, l.name)
		}
	}
	return out
}
