package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

// shopRoot is a small Python repository used by the search tests.
const shopRoot = "../../testdata/search/shop"

// spec is one hand-written unit: id, kind, span and its edges as
// "rel:line:childID".
type spec struct {
	id         string
	kind       index.Kind
	start, end int
	edges      []string
}

// shopUnits is the shop repository's index written out by hand, as the
// builder would produce it, so the search tests do not depend on parsing.
var shopUnits = []spec{
	{"shop/__init__.py:<chunk 1>", index.KindChunk, 1, 5, nil},
	{"shop/orders/gift.py:<chunk 1>", index.KindChunk, 1, 1, nil},
	{"shop/orders/gift.py:GiftOrder", index.KindClass, 4, 12, []string{"c:7:shop/orders/gift.py:GiftOrder.__init__", "c:11:shop/orders/gift.py:GiftOrder.wrap"}},
	{"shop/orders/gift.py:GiftOrder.__init__", index.KindMethod, 7, 9, []string{"i:8:shop/orders/models.py:Order.__init__"}},
	{"shop/orders/gift.py:GiftOrder.wrap", index.KindMethod, 11, 12, []string{"i:12:shop/orders/models.py:Order.total"}},
	{"shop/orders/models.py:<chunk 1>", index.KindChunk, 1, 3, nil},
	{"shop/orders/models.py:OrderLine", index.KindClass, 6, 15, []string{"c:9:shop/orders/models.py:OrderLine.__init__", "c:14:shop/orders/models.py:OrderLine.total"}},
	{"shop/orders/models.py:OrderLine.__init__", index.KindMethod, 9, 12, nil},
	{"shop/orders/models.py:OrderLine.total", index.KindMethod, 14, 15, nil},
	{"shop/orders/models.py:Order", index.KindClass, 18, 41, []string{
		"c:23:shop/orders/models.py:Order.__init__", "c:28:shop/orders/models.py:Order.add_line", "c:33:shop/orders/models.py:Order.total",
		"c:36:shop/orders/models.py:Order.filter_lines", "c:40:shop/orders/models.py:Order.is_empty"}},
	{"shop/orders/models.py:Order.__init__", index.KindMethod, 23, 26, nil},
	{"shop/orders/models.py:Order.add_line", index.KindMethod, 28, 31, []string{"i:29:shop/orders/models.py:OrderLine"}},
	{"shop/orders/models.py:Order.total", index.KindMethod, 33, 34, []string{"i:34:shop/orders/models.py:OrderLine.total"}},
	{"shop/orders/models.py:Order.filter_lines", index.KindMethod, 36, 37, nil},
	{"shop/orders/models.py:Order.is_empty", index.KindMethod, 39, 41, nil},
	{"shop/orders/models.py:merge_orders", index.KindFunction, 44, 48, []string{"i:45:shop/orders/models.py:Order", "i:47:shop/orders/models.py:Order.add_line"}},
	{"shop/payments.py:<chunk 1>", index.KindChunk, 1, 3, nil},
	{"shop/payments.py:PaymentError", index.KindClass, 6, 7, nil},
	{"shop/payments.py:Gateway", index.KindClass, 10, 15, []string{"c:11:shop/payments.py:Gateway.__init__", "c:14:shop/payments.py:Gateway.send"}},
	{"shop/payments.py:Gateway.__init__", index.KindMethod, 11, 12, nil},
	{"shop/payments.py:Gateway.send", index.KindMethod, 14, 15, nil},
	{"shop/payments.py:charge", index.KindFunction, 18, 29, []string{"i:20:shop/orders/models.py:Order.total", "i:23:shop/payments.py:Gateway.send"}},
	{"shop/payments.py:refund", index.KindFunction, 32, 33, []string{"i:33:shop/payments.py:Gateway.send"}},
	{"shop/settings.py:<chunk 1>", index.KindChunk, 1, 4, nil},
	{"shop/views/cart.py:<chunk 1>", index.KindChunk, 1, 1, nil},
	{"shop/views/cart.py:cart_view", index.KindFunction, 4, 6, []string{"i:5:shop/orders/models.py:Order", "i:6:shop/orders/models.py:Order.total"}},
	{"shop/views/checkout.py:<chunk 1>", index.KindChunk, 1, 2, nil},
	{"shop/views/checkout.py:checkout_view", index.KindFunction, 5, 15, []string{
		"i:6:shop/orders/models.py:Order", "i:8:shop/orders/models.py:Order.add_line",
		"i:12:shop/payments.py:charge", "i:12:shop/payments.py:Gateway"}},
	{"tests/test_orders.py:<chunk 1>", index.KindChunk, 1, 1, nil},
	{"tests/test_orders.py:test_total", index.KindFunction, 4, 7, []string{"i:5:shop/orders/models.py:Order", "i:6:shop/orders/models.py:Order.add_line", "i:7:shop/orders/models.py:Order.total"}},
	{"tests/test_orders.py:test_merge_orders", index.KindFunction, 10, 14, []string{"i:11:shop/orders/models.py:Order", "i:12:shop/orders/models.py:Order.add_line", "i:14:shop/orders/models.py:merge_orders"}},
	{"tests/test_payments.py:<chunk 1>", index.KindChunk, 1, 1, nil},
	{"tests/test_payments.py:FlakyGateway", index.KindClass, 4, 12, []string{"c:5:tests/test_payments.py:FlakyGateway.__init__", "c:8:tests/test_payments.py:FlakyGateway.send"}},
	{"tests/test_payments.py:FlakyGateway.__init__", index.KindMethod, 5, 6, nil},
	{"tests/test_payments.py:FlakyGateway.send", index.KindMethod, 8, 12, []string{"i:11:shop/payments.py:PaymentError"}},
	{"tests/test_payments.py:test_charge_retries", index.KindFunction, 15, 19, []string{
		"i:17:shop/orders/models.py:Order", "i:18:shop/orders/models.py:Order.add_line", "i:19:shop/payments.py:charge", "i:19:tests/test_payments.py:FlakyGateway"}},
}

var shopFiles = []string{
	"shop/__init__.py", "shop/orders/__init__.py", "shop/orders/gift.py", "shop/orders/models.py", "shop/payments.py",
	"shop/settings.py", "shop/views/__init__.py", "shop/views/cart.py", "shop/views/checkout.py",
	"tests/test_orders.py", "tests/test_payments.py",
}

// handIndex assembles the shop index through New, the way Build does.
func handIndex(t testing.TB) *index.Index {
	t.Helper()
	root, err := filepath.Abs(shopRoot)
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{}
	files := map[string]*index.File{}
	var fileList []*index.File
	for _, p := range shopFiles {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("read fixture: %v", err)
		}
		sources[p] = b
		f := &index.File{Path: p, Lang: "python", Lines: strings.Count(string(b), "\n"), Size: int64(len(b))}
		files[p] = f
		fileList = append(fileList, f)
	}
	var units []*index.Unit
	for _, sp := range shopUnits {
		units = append(units, specUnit(sp, sources))
	}
	for _, u := range units {
		files[u.Path].Units = append(files[u.Path].Units, u.ID)
	}
	return index.New(root, fileList, units, sources)
}

func specUnit(sp spec, sources map[string][]byte) *index.Unit {
	p, qual := splitID(sp.id)
	u := &index.Unit{ID: sp.id, Kind: sp.kind, Path: p, QualName: qual, Name: qual, Start: sp.start, End: sp.end}
	if i := strings.LastIndex(qual, "."); i >= 0 {
		u.Name = qual[i+1:]
		u.Parent = p + ":" + qual[:i]
	}
	if sp.kind == index.KindClass {
		// The base list as written, as the builder keeps it.
		line := strings.Split(string(sources[p]), "\n")[sp.start-1]
		if i, j := strings.Index(line, "("), strings.LastIndex(line, ")"); i > 0 && j > i {
			for _, b := range strings.Split(line[i+1:j], ",") {
				u.Bases = append(u.Bases, strings.TrimSpace(b))
			}
		}
	}
	lines := strings.Split(string(sources[p]), "\n")
	for l := sp.start; l <= sp.end && sp.kind != index.KindChunk; l++ {
		if t := strings.TrimSpace(lines[l-1]); !strings.HasPrefix(t, "@") {
			u.Signature = strings.TrimSuffix(t, ":")
			break
		}
	}
	for _, e := range sp.edges {
		parts := strings.SplitN(e, ":", 3)
		rel := index.Contains
		if parts[0] == "i" {
			rel = index.Invokes
		}
		var line int
		for _, c := range parts[1] {
			line = line*10 + int(c-'0')
		}
		u.Children = append(u.Children, index.Edge{ID: parts[2], Rel: rel, Line: line})
	}
	return u
}
