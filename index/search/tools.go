package search

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ToolSpec describes one search tool for a model's tool list. Args is the
// zero value of the argument struct; its json and description tags give
// the parameter schema (go-openai's jsonschema.GenerateSchemaForType reads
// them; fields without omitempty are required).
type ToolSpec struct {
	Name        string
	Description string
	Args        any
}

// Tool names, as the model calls them.
const (
	ToolFindFile        = "find_file"
	ToolFindCodeDef     = "find_code_def"
	ToolFindCodeContent = "find_code_content"
	ToolFindChildUnit   = "find_child_unit"
)

// SearchTools are the four search tools of the localization agent, in the
// order the paper lists them. finish_search has no search behind it and is
// left to the agent.
func SearchTools() []ToolSpec {
	return []ToolSpec{
		{ToolFindFile, "Search files by exact file name, path suffix or glob pattern, or list the files of a folder. Returns matched paths, each with a skeleton of its classes and functions (signatures and line spans).", FindFileArgs{}},
		{ToolFindCodeDef, "Search class/function definitions by exact name (name, Class.method, module.path.name or id path:Qualified.name), falling back to regex and then fuzzy matching (ranked, scores shown); with only file_path, list that file's units. Returns ids, line spans, child-unit ids and a preview: signature plus the lines where it invokes its children.", FindCodeDefArgs{}},
		{ToolFindCodeContent, "Search code text: an identifier (robust to camelCase/snake_case/kebab-case/UPPER_CASE variants) or an exact snippet (whitespace-tolerant); or show the lines of a file span. Matches are grouped by containing unit, with its id, span, child ids and the matched lines.", FindCodeContentArgs{}},
		{ToolFindChildUnit, "Open one child unit listed under a search result, by its file_path and definition_name (the two parts of the child id path:Name). Returns the unit's span, its own child ids and preview, for depth-first exploration.", FindChildUnitArgs{}},
	}
}

// Call runs a tool by name with the model's JSON arguments. Malformed
// arguments and unknown tools come back as error observations, so a model's
// mistake is something it can read and fix.
func (s *Searcher) Call(name string, args []byte) Result {
	fields, msg := decodeArgs(args)
	if msg != "" {
		return failure(name, string(args), msg)
	}
	str := func(k string) string { return argString(fields[k]) }
	num := func(k string) (int, string) { return argInt(k, fields[k]) }
	switch name {
	case ToolFindFile:
		return s.FindFile(FindFileArgs{FileName: str("file_name"), DirPath: str("dir_path")})
	case ToolFindCodeDef:
		return s.FindCodeDef(FindCodeDefArgs{DefinitionName: str("definition_name"), FilePath: str("file_path")})
	case ToolFindChildUnit:
		return s.FindChildUnit(FindChildUnitArgs{DefinitionName: str("definition_name"), FilePath: str("file_path")})
	case ToolFindCodeContent:
		start, m1 := num("start_line")
		end, m2 := num("end_line")
		if m1+m2 != "" {
			return failure(name, string(args), m1+m2)
		}
		return s.FindCodeContent(FindCodeContentArgs{Content: str("content"), FilePath: str("file_path"), StartLine: start, EndLine: end})
	}
	names := make([]string, 0, 4)
	for _, t := range SearchTools() {
		names = append(names, t.Name)
	}
	return failure(name, string(args), fmt.Sprintf("unknown tool %s; the search tools are %s.\n", quote(name), strings.Join(names, ", ")))
}

// decodeArgs reads a flat JSON object; empty input means no arguments.
func decodeArgs(args []byte) (map[string]any, string) {
	fields := map[string]any{}
	if strings.TrimSpace(string(args)) == "" {
		return fields, ""
	}
	if err := json.Unmarshal(args, &fields); err != nil {
		return nil, fmt.Sprintf("the arguments are not a JSON object (%v); send e.g. {\"definition_name\": \"Foo\", \"file_path\": \"pkg/mod.py\"}.\n", err)
	}
	return fields, ""
}

// argString accepts a string, or a number or bool a model sent instead.
func argString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// argInt accepts a number or a numeric string for a line argument.
func argInt(name string, v any) (int, string) {
	switch x := v.(type) {
	case nil:
		return 0, ""
	case float64:
		if x == float64(int(x)) && x < 1e9 && x > -1e9 {
			return int(x), ""
		}
	case string:
		if strings.TrimSpace(x) == "" {
			return 0, ""
		}
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n < 1e9 && n > -1e9 {
			return n, ""
		}
	}
	return 0, fmt.Sprintf("%s must be a whole line number (1-based), not %s.\n", name, quote(argString(v)))
}
