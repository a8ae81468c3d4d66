package search

// Tool is one localization tool, declared once: the name the model calls,
// the description it reads, its arguments (the json and description tags
// of A give the parameter schema; fields without omitempty are required),
// and the search that answers it. The localization agent's tools, the
// offline heuristic's calls and the search command are all made from these
// values.
type Tool[A any] struct {
	Name        string
	Description string
	// Run answers a call; nil for FinishSearch, which the agent answers.
	Run func(s *Searcher, args A) Result
}

// The tools' names, as the model calls them. The searches name their
// results with them, so they are constants beside the tools rather than
// read from the tools, which refer to the searches.
const (
	nameFindFile        = "find_file"
	nameFindCodeDef     = "find_code_def"
	nameFindCodeContent = "find_code_content"
	nameFindChildUnit   = "find_child_unit"
)

// The localization tools, in the order the paper lists them.
var (
	FindFile = Tool[FindFileArgs]{
		Name:        nameFindFile,
		Description: "Search files by exact file name, path suffix or glob pattern, or list the files of a folder. Returns matched paths, each with a skeleton of its classes and functions (signatures and line spans).",
		Run:         (*Searcher).FindFile,
	}
	FindCodeDef = Tool[FindCodeDefArgs]{
		Name:        nameFindCodeDef,
		Description: "Search class/function definitions by exact name (name, Class.method, module.path.name or id path:Qualified.name), falling back to regex and then fuzzy matching (ranked, scores shown); with only file_path, list that file's units. Returns ids, line spans, child-unit ids and a preview: signature plus the lines where it invokes its children.",
		Run:         (*Searcher).FindCodeDef,
	}
	FindCodeContent = Tool[FindCodeContentArgs]{
		Name:        nameFindCodeContent,
		Description: "Search code text: an identifier (robust to camelCase/snake_case/kebab-case/UPPER_CASE variants) or an exact snippet (whitespace-tolerant); or show the lines of a file span. Matches are grouped by containing unit, with its id, span, child ids and the matched lines.",
		Run:         (*Searcher).FindCodeContent,
	}
	FindChildUnit = Tool[FindChildUnitArgs]{
		Name:        nameFindChildUnit,
		Description: "Open one child unit listed in a preview, by its file path and qualified name (the child id path:Qualified.name split at the colon). Returns its path, line span, its own child-unit ids and preview. Use it to follow one dependency path depth-first.",
		Run:         (*Searcher).FindChildUnit,
	}
	// FinishSearch has no search behind it: it ends the search, and the
	// localization agent, which knows what the search saw, answers it.
	FinishSearch = Tool[FinishSearchArgs]{
		Name:        "finish_search",
		Description: "End the search once you have enough context; filtering and ranking of what you saw follows.",
	}
)

// FindFileArgs are find_file's parameters.
type FindFileArgs struct {
	FileName string `json:"file_name,omitempty" description:"File name, path suffix (db/models/query.py) or glob (*.py, **/views/*.py). Leave empty to list the files of dir_path."`
	DirPath  string `json:"dir_path,omitempty" description:"Only search under this folder, relative to the repository root."`
}

// FindCodeDefArgs are find_code_def's parameters.
type FindCodeDefArgs struct {
	DefinitionName string `json:"definition_name,omitempty" description:"Class or function name, Class.method, module.path.func, or a full id path:Qualified.name. Falls back to regex, then fuzzy matching. Leave empty with file_path to list that file's units."`
	FilePath       string `json:"file_path,omitempty" description:"Only search in this file (or folder)."`
}

// FindCodeContentArgs are find_code_content's parameters.
type FindCodeContentArgs struct {
	Content   string `json:"content,omitempty" description:"An identifier (matches its camelCase, snake_case, kebab-case and UPPER_CASE variants) or an exact code snippet (whitespace-tolerant). Leave empty with file_path, start_line and end_line to show those lines."`
	FilePath  string `json:"file_path,omitempty" description:"Only search in this file (or folder)."`
	StartLine int    `json:"start_line,omitempty" description:"First line (1-based) of the span to search or show; needs file_path."`
	EndLine   int    `json:"end_line,omitempty" description:"Last line (inclusive) of the span to search or show; needs file_path."`
}

// FindChildUnitArgs are find_child_unit's parameters.
type FindChildUnitArgs struct {
	DefinitionName string `json:"definition_name" description:"Qualified name of the child unit as listed in its parent's children (Class.method), or the whole id path:Qualified.name."`
	FilePath       string `json:"file_path" description:"File of the child unit, as listed in its parent's children."`
}

// FinishSearchArgs are finish_search's parameters: none.
type FinishSearchArgs struct{}
