package heuristic

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

// sampleIndex indexes a sample repository once per test binary, for the
// tests that read it.
func sampleIndex(dir string) func(testing.TB) *index.Index {
	var (
		once sync.Once
		ix   *index.Index
		err  error
	)
	return func(t testing.TB) *index.Index {
		t.Helper()
		once.Do(func() { ix, err = index.Build(context.Background(), dir, index.Options{NoCache: true}) })
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
}

var heurShop = sampleIndex("../../../testdata/localize/shop")

func htools(names ...string) []llm.Tool {
	out := make([]llm.Tool, len(names))
	for i, n := range names {
		out[i] = llm.Tool{Name: n}
	}
	return out
}

var heurSearchTools = htools(search.FindFile.Name, search.FindCodeDef.Name, search.FindCodeContent.Name, search.FindChildUnit.Name, search.FinishSearch.Name)

// converse plays the heuristic through the three phases the way the loop
// does, answering every call with a stub observation, and returns the
// search calls and the final ranking.
func heurConverse(t *testing.T, h *Heuristic, issue string) (calls []llm.ToolCall, files, funcs []string) {
	t.Helper()
	msgs := []llm.Message{{Role: llm.System, Content: "localize"}, {Role: llm.User, Content: "Localize this. You have at most 20 turns.\n\n<issue>\n" + issue + "\n</issue>"}}
	step := func(ts []llm.Tool) llm.Message {
		resp, err := h.Complete(context.Background(), llm.Request{Messages: msgs, Tools: ts})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			if !json.Valid([]byte(c.Arguments)) {
				t.Fatalf("invalid arguments %q", c.Arguments)
			}
			msgs = append(msgs, llm.Message{Role: llm.ToolRole, ToolCallID: c.ID, Content: "ok"})
		}
		return resp.Message
	}
	for i := 0; i < 25; i++ {
		m := step(heurSearchTools)
		if len(m.ToolCalls) == 0 {
			t.Fatalf("turn %d without a tool call: %q", i+1, m.Content)
		}
		calls = append(calls, m.ToolCalls...)
		if m.ToolCalls[0].Name == search.FinishSearch.Name {
			break
		}
	}
	if calls[len(calls)-1].Name != search.FinishSearch.Name {
		t.Fatalf("no finish_search in %d calls", len(calls))
	}
	if sl := step(htools(hShortlist)); len(sl.ToolCalls) != 1 || sl.ToolCalls[0].Name != hShortlist {
		t.Fatalf("stage 1 answered %+v", sl)
	}
	rk := step(htools(hRank))
	if len(rk.ToolCalls) != 1 || rk.ToolCalls[0].Name != hRank {
		t.Fatalf("stage 2 answered %+v", rk)
	}
	var r struct{ Files, Functions []string }
	if err := json.Unmarshal([]byte(rk.ToolCalls[0].Arguments), &r); err != nil {
		t.Fatal(err)
	}
	return calls, r.Files, r.Functions
}

func TestHeuristicTraceback(t *testing.T) {
	ix := heurShop(t)
	issue := "Discounts given in percent crash checkout\n\nTraceback (most recent call last):\n" +
		"  File \"/app/checkout.py\", line 3, in <module>\n" +
		"  File \"/venv/lib/python3.11/site-packages/shop/cart.py\", line 33, in total\n" +
		"  File \"/venv/lib/python3.11/site-packages/shop/pricing.py\", line 8, in price_items\n" +
		"  File \"/venv/lib/python3.11/site-packages/shop/pricing.py\", line 14, in apply_discount\n" +
		"ValueError: discount rate 50 is not between 0 and 1\n"
	calls, files, funcs := heurConverse(t, New(ix, nil), issue)
	if len(funcs) == 0 || funcs[0] != "shop/pricing.py:apply_discount" {
		t.Errorf("functions %v: the raising frame should rank first", funcs)
	}
	if len(files) == 0 || files[0] != "shop/pricing.py" {
		t.Errorf("files %v", files)
	}
	var args []string
	for _, c := range calls {
		args = append(args, c.Name+" "+c.Arguments)
	}
	joined := strings.Join(args, "\n")
	if !strings.Contains(joined, `"file_name":"shop/pricing.py"`) || !strings.Contains(joined, `"definition_name":"apply_discount","file_path":"shop/pricing.py"`) {
		t.Errorf("traceback frames were not searched:\n%s", joined)
	}
	if strings.Contains(joined, "checkout.py") {
		t.Errorf("a frame outside the repository was searched:\n%s", joined)
	}
}

// TestHeuristicFileAndLine: a path from the reporter's machine with a line
// number leads to the unit holding that line.
func TestHeuristicFileAndLine(t *testing.T) {
	calls, _, funcs := heurConverse(t, New(heurShop(t), nil),
		"Wrong cents\n\nThe culprit is /home/me/work/shop/shop/money.py:8 I think.")
	if len(funcs) == 0 || funcs[0] != "shop/money.py:round_money" {
		t.Errorf("functions %v", funcs)
	}
	found := false
	for _, c := range calls {
		found = found || (c.Name == search.FindCodeDef.Name && strings.Contains(c.Arguments, "shop/money.py:round_money"))
	}
	if !found {
		t.Errorf("the unit at the line was not opened: %+v", calls)
	}
}

// TestHeuristicErrorMessage: the unit holding a quoted message's text is
// searched and ranks first.
func TestHeuristicErrorMessage(t *testing.T) {
	calls, _, funcs := heurConverse(t, New(heurShop(t), nil),
		"Strange failure at checkout\n\nRuntimeError: Round an amount to whole cents\n")
	if len(funcs) == 0 || funcs[0] != "shop/money.py:round_money" {
		t.Errorf("functions %v", funcs)
	}
	if calls[0].Name != search.FindCodeContent.Name || !strings.Contains(calls[0].Arguments, "Round an amount") {
		t.Errorf("first call %+v", calls[0])
	}
}

func TestHeuristicNoNames(t *testing.T) {
	ix := heurShop(t)
	calls, _, funcs := heurConverse(t, New(ix, nil), "restocking the warehouse never adds to the available stock")
	if calls[0].Name != search.FindCodeDef.Name {
		t.Errorf("first call %+v: pattern search by BM25 expected", calls[0])
	}
	if len(funcs) == 0 || !strings.HasPrefix(funcs[0], "shop/inventory.py:Inventory.") {
		t.Errorf("functions %v", funcs)
	}
}

func TestHeuristicResetsOnNewIssue(t *testing.T) {
	ix := heurShop(t)
	h := New(ix, nil)
	_, _, first := heurConverse(t, h, "restocking the warehouse never adds to the available stock")
	_, _, second := heurConverse(t, h, "format_money prints the currency before the amount")
	if len(second) == 0 || second[0] != "shop/money.py:format_money" {
		t.Errorf("second issue ranked %v (first %v)", second, first)
	}
}

func TestHeuristicRerunSameIssue(t *testing.T) {
	h := New(heurShop(t), nil)
	issue := "format_money prints the currency before the amount"
	a, _, first := heurConverse(t, h, issue)
	b, _, second := heurConverse(t, h, issue)
	if len(a) != len(b) || strings.Join(first, " ") != strings.Join(second, " ") {
		t.Errorf("a second run of the same issue differs: %d calls %v, then %d calls %v", len(a), first, len(b), second)
	}
}

func TestHeuristicOtherTools(t *testing.T) {
	h := New(heurShop(t), nil)
	resp, err := h.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "fix it"}}, Tools: htools("bash")})
	if err != nil || len(resp.Message.ToolCalls) != 0 || h.Name() != "heuristic" {
		t.Errorf("unknown phase answered %+v, %v", resp, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Complete(ctx, llm.Request{}); err == nil {
		t.Error("a cancelled call must fail")
	}
}

func BenchmarkExtractEntryPoints(b *testing.B) {
	issue := strings.Repeat("The `Cart.total()` of shop/cart.py calls apply_discount and RoundMoney.\n"+
		"  File \"/x/shop/pricing.py\", line 14, in apply_discount\n```python\ncart.add_item(Item('pen', 1.99))\n```\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		ExtractEntryPoints(issue)
	}
}

func BenchmarkHeuristicCorpus(b *testing.B) {
	ix := heurShop(b)
	b.ReportAllocs()
	for b.Loop() {
		newCorpus(ix)
	}
}

// TestHeuristicChunksOnly: in a repository the index holds only as plain
// chunks, no unit is a candidate, and files rank by their whole text.
func TestHeuristicChunksOnly(t *testing.T) {
	ix, err := index.Build(context.Background(), "../../../testdata/localize/shop", index.Options{NoCache: true, MaxFileSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range ix.Units() {
		if u.Kind != index.KindChunk {
			t.Fatalf("%s is a %s, want only chunks", u.ID, u.Kind)
		}
	}
	_, files, _ := heurConverse(t, New(ix, nil), "Rounding of money amounts loses a cent: round_money rounds half down.")
	if len(files) == 0 || files[0] != "shop/money.py" {
		t.Errorf("files %v: money.py should rank first on its text", files)
	}
}
