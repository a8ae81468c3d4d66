package localize

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
	"github.com/swe-adept/swe-adept/internal/golden"
)

const sampleRepo = "../../testdata/localize/shop"

var (
	sampleOnce sync.Once
	sampleIx   *index.Index
	sampleS    *search.Searcher
	sampleErr  error
)

// sample is the indexed sample repository, built once per test binary.
func sample(t *testing.T) (*index.Index, *search.Searcher) {
	t.Helper()
	sampleOnce.Do(func() {
		sampleIx, sampleErr = index.Build(context.Background(), sampleRepo, index.Options{NoCache: true})
		if sampleErr == nil {
			sampleS = search.NewSearcher(sampleIx)
		}
	})
	if sampleErr != nil {
		t.Fatalf("index sample repo: %v", sampleErr)
	}
	return sampleIx, sampleS
}

func sampleIssue(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/localize/issue.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeModel answers with the given turns in order and keeps every request.
type fakeModel struct {
	turns []llm.Message
	reqs  []llm.Request
	n     int
}

func (f *fakeModel) Name() string { return "fake" }

func (f *fakeModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	f.reqs = append(f.reqs, req)
	if f.n >= len(f.turns) {
		return llm.Response{}, fmt.Errorf("fake model: no turn %d", f.n+1)
	}
	m := f.turns[f.n]
	f.n++
	m.Role = llm.Assistant
	for i := range m.ToolCalls {
		m.ToolCalls[i].ID = fmt.Sprintf("call-%d-%d", f.n, i)
	}
	return llm.Response{Message: m, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, Priced: true}}, nil
}

func call(name, args string) llm.Message {
	return llm.Message{ToolCalls: []llm.ToolCall{{Name: name, Arguments: args}}}
}

// runWith localizes the sample issue with m and returns the locations and
// the events it emitted.
func runWith(t *testing.T, m llm.Model, iterations int) (*Locations, []event.Event, error) {
	t.Helper()
	ix, s := sample(t)
	var log bytes.Buffer
	bus := event.NewBus(&log)
	loc, err := Run(context.Background(), Config{Index: ix, Searcher: s, Model: m, Bus: bus, Issue: sampleIssue(t), MaxIterations: iterations})
	bus.Close()
	evs, rerr := event.ReadAll(&log)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return loc, evs, err
}

func scripted(t *testing.T) llm.Model {
	t.Helper()
	sc, err := llm.LoadAgentScript("../../testdata/localize/script.json", "localize")
	if err != nil {
		t.Fatalf("load script: %v", err)
	}
	return llm.NewScripted(sc)
}

func node(t *testing.T, loc *Locations, id string) event.Node {
	t.Helper()
	for _, n := range loc.Tree {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("node %s not in the tree %+v", id, loc.Tree)
	return event.Node{}
}

func TestScriptedDFS(t *testing.T) {
	loc, evs, err := runWith(t, scripted(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Status != "submitted" {
		t.Errorf("status %q, want submitted", loc.Status)
	}
	edges := []struct {
		id, parent string
		depth      int
		dead       bool
	}{
		{"shop/cart.py:Cart.total", "", 0, false},
		{"shop/pricing.py:price_items", "shop/cart.py:Cart.total", 1, false},
		{"shop/pricing.py:apply_discount", "shop/pricing.py:price_items", 2, false},
		{"shop/money.py:round_money", "shop/pricing.py:apply_discount", 3, false},
		{"shop/money.py", "", 0, false},
		// Opened from the file's skeleton, and left out of the ranking.
		{"shop/money.py:format_money", "shop/money.py", 1, true},
	}
	for _, e := range edges {
		n := node(t, loc, e.id)
		if n.Parent != e.parent || n.Depth != e.depth || n.DeadEnd != e.dead {
			t.Errorf("%s: parent %q depth %d dead %v; want %q %d %v", e.id, n.Parent, n.Depth, n.DeadEnd, e.parent, e.depth, e.dead)
		}
	}
	if loc.MaxDepth != 3 {
		t.Errorf("max depth %d, want 3", loc.MaxDepth)
	}
	wantCalls := map[string]int{"find_code_def": 1, "find_child_unit": 4, "find_file": 1, "finish_search": 1, "shortlist": 1, "rank_locations": 1}
	for k, v := range wantCalls {
		if loc.ToolCalls[k] != v {
			t.Errorf("calls of %s: %d, want %d (all: %v)", k, loc.ToolCalls[k], v, loc.ToolCalls)
		}
	}
	if got := strings.Join(loc.Functions, " "); got != "shop/money.py:round_money shop/pricing.py:apply_discount" {
		t.Errorf("functions %q", got)
	}
	if got := strings.Join(loc.Shortlist, " "); !strings.HasPrefix(got, "shop/money.py:round_money") || len(loc.Reasons) != 3 {
		t.Errorf("shortlist %q reasons %q", got, loc.Reasons)
	}
	checkEvents(t, evs)
	checkGolden(t, "scripted", loc)
	want := "files:\n  1. shop/money.py\nfunctions:\n  1. shop/money.py:round_money\n"
	if got := loc.Format(1); got != want {
		t.Errorf("Format(1) = %q, want %q", got, want)
	}
}

// checkEvents wants the phases in order, a node event per tree node, a
// dead-end update, and the shortlist before the final ranking.
func checkEvents(t *testing.T, evs []event.Event) {
	t.Helper()
	var phases []string
	nodes, dead := map[string]bool{}, 0
	shortlistAt, rankedAt := -1, -1
	for i, e := range evs {
		if e.Agent != event.Localizer {
			t.Errorf("event %d (%s) from agent %q", i, e.Type, e.Agent)
		}
		switch e.Type {
		case event.PhaseChanged:
			phases = append(phases, e.Phase)
		case event.SearchNode:
			nodes[e.Node.ID] = true
			if e.Node.DeadEnd {
				dead++
			}
		case event.Shortlist:
			shortlistAt = i
		case event.Ranked:
			rankedAt = i
		}
	}
	if strings.Join(phases, ",") != "localize,filter" {
		t.Errorf("phases %v", phases)
	}
	if len(nodes) == 0 || dead == 0 {
		t.Errorf("node events %d, dead-end updates %d", len(nodes), dead)
	}
	if shortlistAt < 0 || rankedAt < shortlistAt {
		t.Errorf("shortlist event at %d, ranked at %d", shortlistAt, rankedAt)
	}
}

// checkGolden compares the ranking and the tree with a golden file.
func checkGolden(t *testing.T, name string, loc *Locations) {
	t.Helper()
	view := struct {
		Files     []string       `json:"files"`
		Functions []string       `json:"functions"`
		Tree      []event.Node   `json:"tree"`
		MaxDepth  int            `json:"max_depth"`
		ToolCalls map[string]int `json:"tool_calls"`
		Status    string         `json:"status"`
	}{loc.Files, loc.Functions, loc.Tree, loc.MaxDepth, loc.ToolCalls, loc.Status}
	got, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, t.Name()+"/"+name, string(got)+"\n")
}

func TestLoopGuardAndRepair(t *testing.T) {
	m := &fakeModel{turns: []llm.Message{
		call("find_code_def", `{"definition_name": "Cart.total"}`),
		call("find_child_unit", `{"definition_name": "price_items", "file_path": `), // malformed JSON
		call("find_child_unit", `{"definition_name": "price_items", "file_path": "shop/pricing.py"}`),
		call("find_code_def", `{"definition_name":"Cart.total"}`), // a repeat
		call("finish_search", ``),
		call("shortlist", `{"locations": ["shop/pricing.py:price_items", "nowhere.py:ghost"]}`),
		call("rank_locations", `{"files": [], "functions": ["shop/pricing.py:price_items"]}`),
	}}
	loc, _, err := runWith(t, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	obs := toolAnswers(m.reqs)
	if !strings.Contains(obs[1], "Malformed tool call") {
		t.Errorf("malformed call answered %q", obs[1])
	}
	if !strings.Contains(obs[2], "price_items") || strings.Contains(obs[2], "Malformed") {
		t.Errorf("repaired call answered %q", obs[2])
	}
	if !strings.Contains(obs[3], "Already seen") || !strings.Contains(obs[3], dedupeAdvice) {
		t.Errorf("repeat answered %q", obs[3])
	}
	if !strings.Contains(obs[5], "Dropped unknown ids: nowhere.py:ghost") {
		t.Errorf("shortlist answered %q", obs[5])
	}
	stage2 := m.reqs[len(m.reqs)-1].Messages
	if last := stage2[len(stage2)-1]; last.Role != llm.User || !strings.Contains(last.Content, "6 | def price_items(items):") {
		t.Errorf("stage 2 should open with the shortlist's full code, got %q", last.Content)
	}
	if n := node(t, loc, "shop/pricing.py:price_items"); n.Parent != "shop/cart.py:Cart.total" || n.Depth != 1 {
		t.Errorf("price_items node %+v", n)
	}
	if strings.Join(loc.Files, " ") != "shop/pricing.py" {
		t.Errorf("files %v: the function's file should be added", loc.Files)
	}
	if loc.Usage.Calls != 7 || loc.Usage.PromptTokens != 70 {
		t.Errorf("usage %+v", loc.Usage)
	}
}

// toolAnswers lists the tool observations in the order the model got them.
func toolAnswers(reqs []llm.Request) []string {
	last := reqs[len(reqs)-1].Messages
	var out []string
	for _, m := range last {
		if m.Role == llm.ToolRole {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestFallbacks(t *testing.T) {
	search := []llm.Message{
		call("find_code_def", `{"definition_name": "Cart.total"}`),
		call("find_child_unit", `{"definition_name": "price_items", "file_path": "shop/pricing.py"}`),
		call("finish_search", `{}`),
	}
	prose := llm.Message{Content: "I think it is round_money."}
	tests := []struct {
		name       string
		turns      []llm.Message
		iterations int
		status     string
		functions  string
	}{
		{
			name:      "no shortlist",
			turns:     append(append([]llm.Message{}, search...), prose, prose, prose, prose),
			status:    "submitted; shortlist ended exit_no_tool: ranked the visited units by visit order",
			functions: "shop/pricing.py:price_items shop/cart.py:Cart.total",
		},
		{
			name: "no ranking",
			turns: append(append([]llm.Message{}, search...),
				call("shortlist", `{"locations": ["shop/cart.py:Cart.total", "shop/money.py"]}`),
				call("rank_locations", `{"files": ["x.py"], "functions": ["y"]}`),
				call("rank_locations", `{"files": ["x.py"], "functions": ["y"]}`),
				call("rank_locations", `{"files": ["x.py"], "functions": ["y"]}`),
				call("rank_locations", `{"files": ["x.py"], "functions": ["y"]}`)),
			status:    "submitted; rank ended exit_iterations: kept the shortlist order",
			functions: "shop/cart.py:Cart.total",
		},
		{
			name:       "iteration limit then stages",
			turns:      append(append([]llm.Message{}, search[:2]...), call("shortlist", `{"locations": ["shop/pricing.py:price_items"]}`), call("rank_locations", `{"files": ["shop/pricing.py"], "functions": ["shop/pricing.py:price_items"]}`)),
			iterations: 2,
			status:     "exit_iterations",
			functions:  "shop/pricing.py:price_items",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, _, err := runWith(t, &fakeModel{turns: tc.turns}, tc.iterations)
			if err != nil {
				t.Fatal(err)
			}
			if loc.Status != tc.status {
				t.Errorf("status %q, want %q", loc.Status, tc.status)
			}
			if got := strings.Join(loc.Functions, " "); got != tc.functions {
				t.Errorf("functions %q, want %q", got, tc.functions)
			}
		})
	}
}

func TestModelErrorKeepsVisited(t *testing.T) {
	m := &fakeModel{turns: []llm.Message{call("find_code_def", `{"definition_name": "Cart.total"}`)}}
	loc, _, err := runWith(t, m, 0)
	if err == nil || loc == nil {
		t.Fatalf("want locations and an error, got %v, %v", loc, err)
	}
	if !strings.Contains(loc.Status, "search failed") || len(loc.Functions) != 1 {
		t.Errorf("status %q functions %v", loc.Status, loc.Functions)
	}
}

func TestCancelled(t *testing.T) {
	ix, s := sample(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Index: ix, Searcher: s, Model: &fakeModel{}, Issue: "x"})
	if err == nil {
		t.Fatal("a cancelled run must fail")
	}
}

func TestLocationsRoundTrip(t *testing.T) {
	loc, _, err := runWith(t, scripted(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "locations.json")
	if err := loc.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadLocations(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(loc)
	b, _ := json.Marshal(back)
	if !bytes.Equal(a, b) {
		t.Errorf("round trip changed the locations:\n%s\n%s", a, b)
	}
	if _, err := LoadLocations(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("loading a missing file must fail")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	if _, err := LoadLocations(bad); err == nil {
		t.Error("loading broken JSON must fail")
	}
}

// TestEmptyArgumentsEnumerate: an empty name with a file lists the file's
// units, and an empty content with a span shows the lines; neither is a
// malformed call.
func TestEmptyArgumentsEnumerate(t *testing.T) {
	m := &fakeModel{turns: []llm.Message{
		call("find_code_def", `{"definition_name": "", "file_path": "shop/money.py"}`),
		call("find_code_content", `{"file_path": "shop/money.py", "start_line": 6, "end_line": 8}`),
		call("finish_search", `{}`),
		call("shortlist", `{"locations": ["shop/money.py:round_money"]}`),
		call("rank_locations", `{"files": ["shop/money.py"], "functions": ["shop/money.py:round_money"]}`),
	}}
	if _, _, err := runWith(t, m, 0); err != nil {
		t.Fatal(err)
	}
	obs := toolAnswers(m.reqs)
	for i, o := range obs[:2] {
		if strings.Contains(o, "Malformed") || !strings.Contains(o, "round_money") {
			t.Errorf("call %d answered %q", i+1, o)
		}
	}
}
