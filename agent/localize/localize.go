// Package localize is the issue localization agent: in its own context
// window it searches the code depth-first with five tools that return
// skeletons and previews, then filters what it saw in two stages (a
// shortlist from previews, a re-ranking on full code) into ranked files and
// functions, saved as locations.json for the resolution agent.
package localize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// DefaultMaxIterations is the paper's limit on search turns per issue.
const DefaultMaxIterations = 20

// Config is what one localization needs.
type Config struct {
	Index    *index.Index
	Searcher *search.Searcher // nil: built from Index
	Model    llm.Model
	Bus      *event.Bus  // nil: no events
	Gate     *event.Gate // nil: never paused
	Issue    string
	// MaxIterations bounds the search phase's model calls; 0 means 20.
	// Each filter stage has its own small budget for repairs.
	MaxIterations int
	MaxTokens     int     // over all phases; 0: no limit
	MaxCost       float64 // dollars over all phases; 0: no limit
}

// Locations is the agent's answer, as saved in locations.json.
type Locations struct {
	Issue     string         `json:"issue,omitempty"`
	Model     string         `json:"model,omitempty"`
	Files     []string       `json:"files"`
	Functions []string       `json:"functions"` // path:Qualified.name, best first
	Shortlist []string       `json:"shortlist,omitempty"`
	Reasons   []string       `json:"reasons,omitempty"` // stage-1 reasons, aligned with Shortlist
	Tree      []event.Node   `json:"tree"`
	MaxDepth  int            `json:"max_depth"`
	ToolCalls map[string]int `json:"tool_calls"`
	// Status is how the search ended ("submitted", "exit_iterations", ...),
	// followed by "; " and a note when a filter stage fell back.
	Status     string          `json:"status"`
	Iterations int             `json:"iterations"`
	Usage      event.UsageInfo `json:"usage"`
}

// Save writes the locations as indented JSON, atomically.
func (l *Locations) Save(path string) error {
	if err := atomicfile.WriteJSON(path, l); err != nil {
		return fmt.Errorf("save locations: %w", err)
	}
	return nil
}

// LoadLocations reads a saved locations.json.
func LoadLocations(path string) (*Locations, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load locations: %w", err)
	}
	var l Locations
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("load locations %s: %w", path, err)
	}
	return &l, nil
}

// Run localizes the issue. The search and both filter stages share one
// conversation. The error is non-nil when the run was cancelled or the model
// failed; with a model failure the locations ranked so far (visited units by
// visit order) are still returned so the caller can save them.
func Run(ctx context.Context, cfg Config) (*Locations, error) {
	if cfg.Index == nil || cfg.Model == nil {
		return nil, errors.New("localize: Index and Model are required")
	}
	if cfg.Searcher == nil {
		cfg.Searcher = searcherFor(cfg)
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	a := newAgent(cfg)
	return a.run(ctx)
}

// searcherFor reuses the model's searcher when it has one over the same
// index (the heuristic builds one), else builds one.
func searcherFor(cfg Config) *search.Searcher {
	if m, ok := cfg.Model.(interface{ Searcher() *search.Searcher }); ok {
		if s := m.Searcher(); s != nil && s.Index() == cfg.Index {
			return s
		}
	}
	return search.NewSearcher(cfg.Index)
}

// agent is one localization run's state.
type agent struct {
	cfg   Config
	tree  *Tree
	calls map[string]int
	usage event.UsageInfo
	msgs  []llm.Message
}

func newAgent(cfg Config) *agent {
	a := &agent{cfg: cfg, calls: map[string]int{}, usage: event.UsageInfo{Priced: true}}
	a.tree = newTree(func(n event.Node) {
		nn := n
		a.emit(event.Event{Type: event.SearchNode, Node: &nn})
	})
	return a
}

func (a *agent) run(ctx context.Context) (*Locations, error) {
	a.emit(event.Event{Type: event.PhaseChanged, Phase: "localize"})
	res, err := a.search(ctx)
	loc := &Locations{Issue: a.cfg.Issue, Model: a.cfg.Model.Name(), Status: string(res.Status), Iterations: res.Iterations}
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("localize: %w", err)
	}
	if err != nil {
		a.fallback(loc, "search failed: ranked the visited units by visit order")
		return a.finish(loc), fmt.Errorf("localize search: %w", err)
	}
	a.emit(event.Event{Type: event.PhaseChanged, Phase: "filter"})
	if err := a.filter(ctx, loc); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("localize: %w", err)
		}
		return a.finish(loc), fmt.Errorf("localize filter: %w", err)
	}
	return a.finish(loc), nil
}

// search is the depth-first phase, ended by finish_search or a limit.
func (a *agent) search(ctx context.Context) (tool.Result, error) {
	loop := tool.NewLoop(a.loopConfig(a.searchTools(), a.cfg.MaxIterations, dedupeAdvice),
		llm.Message{Role: llm.System, Content: systemPrompt},
		llm.Message{Role: llm.User, Content: issueMessage(a.cfg.Issue, a.cfg.MaxIterations)})
	res, err := loop.Run(ctx)
	a.msgs = loop.Messages
	return res, err
}

func (a *agent) loopConfig(reg *tool.Registry, iterations int, dedupe string) tool.Config {
	return tool.Config{
		Agent:         event.Localizer,
		Model:         a.cfg.Model,
		Tools:         reg,
		Bus:           a.cfg.Bus,
		Gate:          a.cfg.Gate,
		MaxIterations: iterations,
		MaxTokens:     a.cfg.MaxTokens,
		MaxCost:       a.cfg.MaxCost,
		Dedupe:        dedupe,
		Usage:         &a.usage,
		AfterCall: func(_ context.Context, c llm.ToolCall, _ tool.Output) {
			a.calls[c.Name]++
		},
	}
}

// finish marks dead ends against the final ranking and fills the tree,
// depth, calls and usage into the answer.
func (a *agent) finish(loc *Locations) *Locations {
	kept := map[string]bool{}
	for _, f := range loc.Files {
		kept[f] = true
	}
	for _, f := range loc.Functions {
		kept[f] = true
	}
	a.tree.markDeadEnds(func(id string) bool { return kept[id] })
	loc.Tree = a.tree.Nodes()
	loc.MaxDepth = a.tree.MaxDepth()
	loc.ToolCalls = a.calls
	loc.Usage = a.usage
	if loc.Files == nil {
		loc.Files = []string{}
	}
	if loc.Functions == nil {
		loc.Functions = []string{}
	}
	a.emit(event.Event{Type: event.Ranked, Ranking: &event.Ranking{Files: loc.Files, Functions: loc.Functions}})
	u := a.usage
	a.emit(event.Event{Type: event.Usage, Usage: &u})
	return loc
}

func (a *agent) emit(e event.Event) {
	if a.cfg.Bus == nil {
		return
	}
	e.Agent = event.Localizer
	a.cfg.Bus.Emit(e)
}

// Format renders the ranking as numbered lists, at most k entries each
// (k <= 0: all), for a terminal or a resolution agent's first message.
func (l *Locations) Format(k int) string {
	var b strings.Builder
	list := func(title string, xs []string) {
		b.WriteString(title + ":\n")
		if len(xs) == 0 {
			b.WriteString("  (none)\n")
		}
		for i, x := range xs {
			if k > 0 && i >= k {
				break
			}
			fmt.Fprintf(&b, "%3d. %s\n", i+1, x)
		}
	}
	list("files", l.Files)
	list("functions", l.Functions)
	return b.String()
}
