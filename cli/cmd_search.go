package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

func init() {
	register(&command{
		name:    "search",
		summary: "run one localization search tool by hand and print what the model would see",
		usage:   "--repo DIR file|def|content|child [NAME] [--file PATH] [--dir D] [--start N --end M] [--json]",
		flags:   searchFlagsDecl,
	})
}

// searchFlags are the search command's options.
type searchFlags struct {
	repo, file, dir string
	start, end      int
	asJSON          bool
}

// searchFlagsDecl declares the flags of search and returns the command.
func searchFlagsDecl(fs *flag.FlagSet) func(context.Context, []string, streams) error {
	var f searchFlags
	fs.StringVar(&f.repo, "repo", ".", "repository to index and search")
	fs.StringVar(&f.file, "file", "", "file_path: restrict to this file or folder (def, content, child)")
	fs.StringVar(&f.dir, "dir", "", "dir_path: restrict find_file to this folder")
	fs.IntVar(&f.start, "start", 0, "start_line of a span (content)")
	fs.IntVar(&f.end, "end", 0, "end_line of a span (content)")
	fs.BoolVar(&f.asJSON, "json", false, "print the structured result instead of the observation")
	return func(ctx context.Context, pos []string, std streams) error {
		w := std.out
		if len(pos) == 0 {
			return usagef("name a tool: file, def, content or child")
		}
		if len(pos) > 2 {
			return usagef("too many arguments %q: quote a snippet that has spaces", pos[2:])
		}
		tool, query := pos[0], ""
		if len(pos) == 2 {
			query = pos[1]
		}
		run, err := cliTool(tool)
		if err != nil {
			return err
		}
		if err := checkDir("--repo", f.repo); err != nil {
			return err
		}
		ix, err := index.Build(ctx, f.repo, index.Options{})
		if err != nil {
			return fmt.Errorf("search %s: %w", f.repo, err)
		}
		res := run(search.NewSearcher(ix), query, f)
		if res.Err != "" {
			return usagef("%s", cliWords(res.Err))
		}
		return printResult(w, res, f.asJSON)
	}
}

// cliWords puts the command line's names where a search error uses the
// tool arguments' names the model sees.
func cliWords(s string) string {
	return argName.ReplaceAllStringFunc(s, func(w string) string { return cliName[w] })
}

var (
	cliName = map[string]string{"file_path": "--file", "dir_path": "--dir", "start_line": "--start", "end_line": "--end",
		"definition_name": "NAME", "file_name": "NAME", "content": "SNIPPET"}
	argName = regexp.MustCompile(`\b(file_path|dir_path|start_line|end_line|definition_name|file_name|content)\b`)
)

// cliTools are the search tools the command runs, by the short name the
// command line gives each, with how its flags fill the tool's arguments;
// the tools themselves are the ones the localization agent calls.
var cliTools = []struct {
	short string
	run   func(s *search.Searcher, query string, f searchFlags) search.Result
}{
	{"file", func(s *search.Searcher, q string, f searchFlags) search.Result {
		return search.FindFile.Run(s, search.FindFileArgs{FileName: q, DirPath: f.dir})
	}},
	{"def", func(s *search.Searcher, q string, f searchFlags) search.Result {
		return search.FindCodeDef.Run(s, search.FindCodeDefArgs{DefinitionName: q, FilePath: f.file})
	}},
	{"content", func(s *search.Searcher, q string, f searchFlags) search.Result {
		return search.FindCodeContent.Run(s, search.FindCodeContentArgs{Content: q, FilePath: f.file, StartLine: f.start, EndLine: f.end})
	}},
	{"child", func(s *search.Searcher, q string, f searchFlags) search.Result {
		return search.FindChildUnit.Run(s, search.FindChildUnitArgs{DefinitionName: q, FilePath: f.file})
	}},
}

// cliTool is the search a short name runs.
func cliTool(short string) (func(s *search.Searcher, query string, f searchFlags) search.Result, error) {
	var shorts []string
	for _, t := range cliTools {
		if t.short == short {
			return t.run, nil
		}
		shorts = append(shorts, t.short)
	}
	return nil, usagef("unknown tool %q: use %s or %s", short, strings.Join(shorts[:len(shorts)-1], ", "), shorts[len(shorts)-1])
}

func printResult(w io.Writer, res search.Result, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(jsonOut(w))
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("print result: %w", err)
		}
		return nil
	}
	if _, err := io.WriteString(textOut(w), res.Observation); err != nil {
		return fmt.Errorf("print result: %w", err)
	}
	return nil
}
