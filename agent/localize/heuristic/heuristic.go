package heuristic

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// Heuristic is an offline localizer that needs no model. It speaks the
// localization agent's tool-call protocol, so it drives the same loop,
// events and panes as a real model: it pulls entry points from the issue,
// searches them with the same tools, follows the child whose text best
// matches the issue depth-first with backtracking, finishes, and answers the
// filter stages with a ranking of what it saw. It serves one conversation at
// a time; a new conversation (or a new issue) starts it afresh.
type Heuristic struct {
	ix *index.Index
	s  *search.Searcher
	p  Params

	// lex is shared by every copy WithParams makes: the corpus depends on
	// the index only.
	lex    func() *corpus // built on first use, once
	corpus *corpus
	// hist is shared the same way: the history depends on the repository
	// only.
	hist *histSource
	// layout is shared too: what each folder holds depends on the tree.
	layout func() *layout // learned on first use, once

	mu sync.Mutex
	st *hstate
}

var _ llm.Model = (*Heuristic)(nil)

// NewHeuristic makes the offline localizer over an index and its searcher.
func New(ix *index.Index, s *search.Searcher) *Heuristic {
	return NewWithParams(ix, s, DefaultParams())
}

// NewWithParams makes the offline localizer with its own weights.
func NewWithParams(ix *index.Index, s *search.Searcher, p Params) *Heuristic {
	if s == nil {
		s = search.NewSearcher(ix)
	}
	return &Heuristic{ix: ix, s: s, p: p, hist: &histSource{},
		lex:    sync.OnceValue(func() *corpus { return newCorpus(ix) }),
		layout: sync.OnceValue(func() *layout { return learnLayout(ix) })}
}

// WithParams is a localizer over the same index and corpus with other
// weights, for evaluating many weights without rebuilding the corpus.
func (h *Heuristic) WithParams(p Params) *Heuristic {
	return &Heuristic{ix: h.ix, s: h.s, p: p, lex: h.lex, hist: h.hist, layout: h.layout}
}

// Searcher is the searcher the heuristic scores with, so a caller running
// the tools over the same index need not build another.
func (h *Heuristic) Searcher() *search.Searcher { return h.s }

// Name is "heuristic".
func (h *Heuristic) Name() string { return "heuristic" }

// The filter stages' tool names. The localize package declares them too:
// its tests import this package, which therefore cannot import it. The
// search tools come from index/search.
const (
	hShortlist = "shortlist"
	hRank      = "rank_locations"
)

// Complete answers one turn: the tools offered say which phase it is in.
func (h *Heuristic) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.corpus = h.lex()
	issue, budget := issueOf(req.Messages)
	// A conversation that has only its opening turns is a new run, even of
	// the same issue.
	if h.st == nil || h.st.issue != issue || len(req.Messages) <= 2 {
		h.st = newHState(ctx, h, issue, budget)
	}
	st := h.st
	st.readNotes(req.Messages)
	var msg llm.Message
	switch {
	case llmOffers(req.Tools, hRank):
		msg = st.rankTurn()
	case llmOffers(req.Tools, hShortlist):
		msg = st.shortlistTurn()
	case llmOffers(req.Tools, search.FindChildUnit.Name) || llmOffers(req.Tools, search.FindCodeDef.Name):
		msg = st.searchTurn()
	default:
		msg = llm.Message{Role: llm.Assistant, Content: "The heuristic localizer only answers the localization tools."}
	}
	return llm.Response{Message: msg, Usage: llm.Usage{Priced: true}}, nil
}

var (
	reIssueTag = regexp.MustCompile(`(?s)<issue>\n?(.*?)\n?</issue>`)
	reTurns    = regexp.MustCompile(`at most (\d+) turns`)
)

// defaultBudget is the search turns the heuristic plans for when the
// prompt does not say.
const defaultBudget = 20

// issueOf finds the issue in the first user message (inside <issue> tags
// when the prompt uses them) and the turn budget the prompt states.
func issueOf(msgs []llm.Message) (string, int) {
	for _, m := range msgs {
		if m.Role != llm.User {
			continue
		}
		text, budget := m.Content, defaultBudget
		if sm := reIssueTag.FindStringSubmatch(text); sm != nil {
			text = sm[1]
		}
		if sm := reTurns.FindStringSubmatch(m.Content); sm != nil {
			if n, err := strconv.Atoi(sm[1]); err == nil && n > 0 {
				budget = n
			}
		}
		return text, budget
	}
	return "", defaultBudget
}

// call makes one tool call with a fresh id.
func (st *hstate) call(name string, args any) llm.ToolCall {
	st.callN++
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: fmt.Sprintf("heuristic-%d", st.callN), Name: name, Arguments: string(b)}
}

func shortList(xs []string, n int) string {
	if len(xs) > n {
		return strings.Join(xs[:n], ", ") + ", ..."
	}
	return strings.Join(xs, ", ")
}

// llmOffers reports whether a request's tools include the named one.
func llmOffers(tools []llm.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
