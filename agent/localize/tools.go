package localize

import (
	"context"
	"fmt"

	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/index/search"
)

// The filter stages' tools. The search tools are declared in index/search.
const (
	ToolShortlist     = "shortlist"
	ToolRankLocations = "rank_locations"
)

const dedupeAdvice = "Try a child unit from a preview, another entry point, or finish_search."

// searchTools are the localization tools the search phase offers the model,
// as index/search declares them.
func (a *agent) searchTools() *tool.Registry {
	return tool.NewRegistry(
		searchTool(a, search.FindFile, false),
		searchTool(a, search.FindCodeDef, false),
		searchTool(a, search.FindCodeContent, false),
		searchTool(a, search.FindChildUnit, true),
		tool.New(search.FinishSearch.Name, search.FinishSearch.Description,
			func(_ context.Context, _ search.FinishSearchArgs) (tool.Output, error) {
				n := len(a.tree.nodes)
				return tool.Output{Text: fmt.Sprintf("Search finished with %d units and files seen.", n), Stop: true}, nil
			}),
	)
}

// searchTool is one search as the model calls it: its answer becomes the
// observation and is recorded in the DFS tree; a child's hits are edges
// from the unit whose preview listed them.
func searchTool[A any](a *agent, t search.Tool[A], child bool) tool.Tool {
	return tool.New(t.Name, t.Description, func(_ context.Context, p A) (tool.Output, error) {
		return a.observe(t.Run(a.cfg.Searcher, p), child), nil
	})
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
			a.tree.addRoot(id, kind, preview, r.Tool+" "+r.Query, children, len(r.Hits) == 1)
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
		noun := "units"
		if len(units) == 1 {
			noun = "unit"
		}
		return h.Path, string(search.KindFile), units, fmt.Sprintf("%s (%d %s)", h.Path, len(units), noun)
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
