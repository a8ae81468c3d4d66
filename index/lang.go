package index

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// language is everything parsing knows about one programming language.
// Adding a language means one more file that fills this in: its extensions,
// its grammar, how its files are read (one tree-sitter query, or a C walker:
// the script walker's table serves any grammar whose nodes the extractor
// names), and the extractor that turns what was read into raw units; and a
// linker for its calls (see linkers).
type language struct {
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

// languages lists the supported languages.
var languages = []*language{pythonLang, goLang, jsLang, tsLang, tsxLang}

// langForPath picks the language of a file by its extension.
func langForPath(p string) *language {
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

// Languages names the languages the index reads, for messages.
func Languages() []string {
	var out []string
	for _, l := range languages {
		if !slices.Contains(out, l.name) {
			out = append(out, l.name)
		}
	}
	return out
}
