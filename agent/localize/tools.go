package localize

import (
	"context"
	"fmt"

	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/index/search"
)

// Tool names, shared with the prompts and the heuristic model.
const (
	ToolFindFile        = "find_file"
	ToolFindCodeDef     = "find_code_def"
	ToolFindCodeContent = "find_code_content"
	ToolFindChildUnit   = "find_child_unit"
	ToolFinishSearch    = "finish_search"
	ToolShortlist       = "shortlist"
	ToolRankLocations   = "rank_locations"
)

const dedupeAdvice = "Try a child unit from a preview, another entry point, or finish_search."

// FinishArgs are finish_search's parameters: none.
type FinishArgs struct{}

func (a *agent) searchTools() *tool.Registry {
	s := a.cfg.Searcher
	return tool.NewRegistry(
		tool.New(ToolFindFile,
			"Search files by exact file name, path suffix or glob pattern, or list the files of a folder. Returns matched paths, each with a skeleton of the class and function signatures it defines.",
			func(_ context.Context, p search.FindFileArgs) (tool.Output, error) {
				return a.observe(s.FindFile(p), false), nil
			}),
		tool.New(ToolFindCodeDef,
			"Search a class or function definition by exact name, falling back to regex and fuzzy matching; or list a file's units. Returns ranked units with path, line span, child-unit ids and a concise preview (signature plus the lines that reach each child).",
			func(_ context.Context, p search.FindCodeDefArgs) (tool.Output, error) {
				return a.observe(s.FindCodeDef(p), false), nil
			}),
		tool.New(ToolFindCodeContent,
			"Search an identifier (robust to camelCase/snake_case variants) or an exact code snippet; or show a span of lines. Returns each match's containing unit with path, line span, child-unit ids and a preview with the matched lines.",
			func(_ context.Context, p search.FindCodeContentArgs) (tool.Output, error) {
				return a.observe(s.FindCodeContent(p), false), nil
			}),
		tool.New(ToolFindChildUnit,
			"Open one child unit listed in a preview, by its file path and qualified name (the child id path:Qualified.name split at the colon). Returns its path, line span, its own child-unit ids and preview. Use it to follow one dependency path depth-first.",
			func(_ context.Context, p search.FindChildUnitArgs) (tool.Output, error) {
				return a.observe(s.FindChildUnit(p), true), nil
			}),
		tool.New(ToolFinishSearch,
			"End the search once you have enough context; filtering and ranking of what you saw follows.",
			func(_ context.Context, _ FinishArgs) (tool.Output, error) {
				n := len(a.tree.nodes)
				return tool.Output{Text: fmt.Sprintf("Search finished with %d units and files seen.", n), Stop: true}, nil
			}),
	)
}

// observe records a search result in the DFS tree and turns it into the
// model's observation. A find_child_unit hit is an edge from the unit whose
// preview listed it; any other hit is an entry point.
func (a *agent) observe(r search.Result, child bool) tool.Output {
	out := tool.Output{Text: r.Observation, Failed: r.Err != "", Data: r}
	if r.Err != "" {
		return out
	}
	for _, h := range r.Hits {
		id, kind, children, preview := a.hitNode(h)
		if child {
			a.tree.addChild(id, kind, preview, r.Query, children)
		} else {
			a.tree.addRoot(id, kind, preview, r.Tool+" "+r.Query, children)
		}
	}
	out.Summary = summarize(r)
	return out
}

// hitNode names a hit as a tree node. A file hit's children are its units,
// which its skeleton shows by name.
func (a *agent) hitNode(h search.Hit) (id, kind string, children []string, preview string) {
	if h.UnitID == "" {
		var units []string
		if f, ok := a.cfg.Index.File(h.Path); ok {
			units = f.Units
		}
		return h.Path, string(search.KindFile), units, fmt.Sprintf("%s (%d units)", h.Path, len(units))
	}
	preview = h.Preview
	if u, ok := a.cfg.Index.Unit(h.UnitID); ok && u.Signature != "" {
		preview = u.Signature
	}
	return h.UnitID, string(h.Kind), h.Children, preview
}

func summarize(r search.Result) string {
	switch n := len(r.Hits); {
	case n == 0:
		return fmt.Sprintf("%s %s: nothing found", r.Tool, r.Query)
	case n == 1:
		id := r.Hits[0].UnitID
		if id == "" {
			id = r.Hits[0].Path
		}
		return fmt.Sprintf("%s %s: %s", r.Tool, r.Query, id)
	default:
		return fmt.Sprintf("%s %s: %d hits (%s)", r.Tool, r.Query, n+r.More, r.Mode)
	}
}
