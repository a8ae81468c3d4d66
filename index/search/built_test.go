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
	{"def_exact", FindCodeDef.Name, `{"definition_name": "Order.add_line"}`},
	{"def_module_path", FindCodeDef.Name, `{"definition_name": "shop.payments.charge"}`},
	{"def_inherited", FindCodeDef.Name, `{"definition_name": "GiftOrder.total"}`},
	{"def_alias_method", FindCodeDef.Name, `{"definition_name": "Processor.send"}`},
	{"def_regex", FindCodeDef.Name, `{"definition_name": "_view$"}`},
	{"def_fuzzy", FindCodeDef.Name, `{"definition_name": "chekout_veiw"}`},
	{"def_enumerate", FindCodeDef.Name, `{"file_path": "shop/orders/models.py"}`},
	{"file_glob", FindFile.Name, `{"file_name": "**/orders/*.py"}`},
	{"content_variant", FindCodeContent.Name, `{"content": "maxRetries"}`},
	{"content_snippet", FindCodeContent.Name, `{"content": "order.add_line(item['sku'],"}`},
	{"content_span", FindCodeContent.Name, `{"file_path": "shop/orders/gift.py", "start_line": 4, "end_line": 12}`},
	{"child_exact", FindChildUnit.Name, `{"definition_name": "GiftOrder.wrap", "file_path": "shop/orders/gift.py"}`},
	{"err_child_missing", FindChildUnit.Name, `{"definition_name": "GiftOrder.unwrap", "file_path": "shop/orders/gift.py"}`},
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
