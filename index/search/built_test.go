package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

// builtCalls run on the shop repository as Build indexes it, so the tools
// are checked against the real builder's units, spans and edges too.
var builtCalls = []call{
	{"def_exact", ToolFindCodeDef, `{"definition_name": "Order.add_line"}`},
	{"def_module_path", ToolFindCodeDef, `{"definition_name": "shop.payments.charge"}`},
	{"def_inherited", ToolFindCodeDef, `{"definition_name": "GiftOrder.total"}`},
	{"def_alias_method", ToolFindCodeDef, `{"definition_name": "Processor.send"}`},
	{"def_regex", ToolFindCodeDef, `{"definition_name": "_view$"}`},
	{"def_fuzzy", ToolFindCodeDef, `{"definition_name": "chekout_veiw"}`},
	{"def_enumerate", ToolFindCodeDef, `{"file_path": "shop/orders/models.py"}`},
	{"file_glob", ToolFindFile, `{"file_name": "**/orders/*.py"}`},
	{"content_variant", ToolFindCodeContent, `{"content": "maxRetries"}`},
	{"content_snippet", ToolFindCodeContent, `{"content": "order.add_line(item['sku'],"}`},
	{"content_span", ToolFindCodeContent, `{"file_path": "shop/orders/gift.py", "start_line": 4, "end_line": 12}`},
	{"child_exact", ToolFindChildUnit, `{"definition_name": "GiftOrder.wrap", "file_path": "shop/orders/gift.py"}`},
	{"err_child_missing", ToolFindChildUnit, `{"definition_name": "GiftOrder.unwrap", "file_path": "shop/orders/gift.py"}`},
}

func TestSearchGoldenBuilt(t *testing.T) {
	runGolden(t, builtShop(t), "built_", builtCalls)
}

// builtShop is a searcher over the shop repository as Build indexes it.
func builtShop(t testing.TB) *Searcher {
	t.Helper()
	root, err := filepath.Abs(shopRoot)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Build(context.Background(), root, index.Options{NoCache: true})
	if err != nil {
		t.Fatalf("index the shop repository: %v", err)
	}
	return NewSearcher(ix)
}
