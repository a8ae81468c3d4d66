package index

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// language is everything the index knows about one programming language.
// Adding a language means one more file that fills this in: its extensions,
// its grammar, how its files are read (one tree-sitter query, or a C walker:
// the script walker's table serves any grammar whose nodes the extractor
// names), the extractor that turns what was read into raw units, and the
// resolver that links its calls.
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
	// resolve links the calls of this language's files once every file is
	// known; it runs after all files are extracted. Dialects that share a
	// resolver leave it nil on all but one.
	resolve func(r *resolver)
}

// languages lists the supported languages; the order is the order of
// resolution and of nothing else.
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
