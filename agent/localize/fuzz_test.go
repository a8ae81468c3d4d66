package localize

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index/search"
)

// FuzzToolCalls feeds the localization tools arbitrary arguments, as a
// model may write them: nothing may panic, and the tree must stay a tree.
func FuzzToolCalls(f *testing.F) {
	seeds := []struct {
		tool uint8
		args string
	}{
		{0, `{"file_name":"money.py"}`},
		{1, `{"definition_name":"Cart.total"}`},
		{1, `{"definition_name":"","file_path":"shop"}`},
		{2, `{"content":"round_money","file_path":"shop/money.py","start_line":-3,"end_line":99999}`},
		{3, `{"definition_name":"shop/money.py:round_money","file_path":""}`},
		{3, `{"definition_name":"../../etc/passwd","file_path":"/etc"}`},
		{1, `{"definition_name":"(((["}`},
		{4, `{"locations":["shop/money.py",""," ./shop/cart.py:Cart.total "]}`},
		{5, `{"files":["x"],"functions":["shop/money.py"]}`},
		{1, `not json`},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	names := []string{search.FindFile.Name, search.FindCodeDef.Name, search.FindCodeContent.Name, search.FindChildUnit.Name, ToolShortlist, ToolRankLocations}
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		ix, s := sample(t)
		a := newAgent(Config{Index: ix, Searcher: s})
		name := names[int(tool)%len(names)]
		call := llm.ToolCall{ID: "f", Name: name, Arguments: args}
		switch name {
		case ToolShortlist:
			var sl ShortlistArgs
			if decode(args, &sl) {
				a.checkLocations(sl.Locations, sl.Reasons)
			}
		case ToolRankLocations:
			var rk RankArgs
			if decode(args, &rk) {
				a.checkRanking(rk.Files, rk.Functions)
			}
		default:
			_, _ = a.searchTools().Call(context.Background(), call)
		}
		for _, n := range a.tree.Nodes() {
			if n.Parent != "" && !a.tree.Has(n.Parent) {
				t.Fatalf("node %s has an unknown parent %s", n.ID, n.Parent)
			}
		}
	})
}

func decode(s string, v any) bool { return json.Unmarshal([]byte(s), v) == nil }
