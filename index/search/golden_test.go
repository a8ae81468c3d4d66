package search

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir holds one file per tool call: the call, then the observation.
const goldenDir = "../../testdata/search/golden"

var update = flag.Bool("update", false, "rewrite golden files")

// call is one tool call of a golden case, as a model would send it.
type call struct {
	name, tool, args string
}

// shopCalls cover every tool and every path through it on the hand-made
// shop index: exact, regex, fuzzy, enumerate, variants, snippet, span and
// each kind of wrong argument.
var shopCalls = []call{
	{"def_exact_name", ToolFindCodeDef, `{"definition_name": "Order"}`},
	{"def_exact_qualified", ToolFindCodeDef, `{"definition_name": "Order.total"}`},
	{"def_exact_several", ToolFindCodeDef, `{"definition_name": "total"}`},
	{"def_exact_module_path", ToolFindCodeDef, `{"definition_name": "shop.payments.charge"}`},
	{"def_exact_module_loose", ToolFindCodeDef, `{"definition_name": "orders.Order"}`},
	{"def_exact_id", ToolFindCodeDef, `{"definition_name": "shop/payments.py:charge"}`},
	{"def_exact_pytest_id", ToolFindCodeDef, `{"definition_name": "shop/orders/models.py::Order::total"}`},
	{"def_exact_wrapped", ToolFindCodeDef, "{\"definition_name\": \"`def merge_orders()`\"}"},
	{"def_exact_in_file", ToolFindCodeDef, `{"definition_name": "total", "file_path": "shop/orders/models.py"}`},
	{"def_exact_in_folder", ToolFindCodeDef, `{"definition_name": "send", "file_path": "tests"}`},
	{"def_exact_abs_path", ToolFindCodeDef, `{"definition_name": "charge", "file_path": "/testbed/shop/payments.py"}`},
	{"def_inherited", ToolFindCodeDef, `{"definition_name": "GiftOrder.total"}`},
	{"def_inherited_module_path", ToolFindCodeDef, `{"definition_name": "shop.orders.gift.GiftOrder.add_line"}`},
	{"def_alias", ToolFindCodeDef, `{"definition_name": "Processor"}`},
	{"def_alias_method", ToolFindCodeDef, `{"definition_name": "Processor.send"}`},
	{"def_regex", ToolFindCodeDef, `{"definition_name": "add_.*"}`},
	{"def_regex_smart_case", ToolFindCodeDef, `{"definition_name": "order"}`},
	{"def_regex_case_retry", ToolFindCodeDef, `{"definition_name": "ORDERLINE"}`},
	{"def_fuzzy", ToolFindCodeDef, `{"definition_name": "merge_ordrs"}`},
	{"def_fuzzy_dotted", ToolFindCodeDef, `{"definition_name": "shop.Ordr.totl"}`},
	{"def_fuzzy_in_file", ToolFindCodeDef, `{"definition_name": "gatway", "file_path": "shop/payments.py"}`},
	{"def_fuzzy_in_folder", ToolFindCodeDef, `{"definition_name": "Gatewey.sned", "file_path": "tests/"}`},
	{"def_fuzzy_nothing", ToolFindCodeDef, `{"definition_name": "qqqzzz"}`},
	{"def_enumerate", ToolFindCodeDef, `{"definition_name": "", "file_path": "shop/orders/models.py"}`},
	{"def_path_as_name", ToolFindCodeDef, `{"definition_name": "shop/views/cart.py"}`},
	{"def_enumerate_empty_file", ToolFindCodeDef, `{"file_path": "shop/views/__init__.py"}`},
	{"err_def_folder_no_name", ToolFindCodeDef, `{"file_path": "shop/views"}`},
	{"err_def_empty", ToolFindCodeDef, `{"definition_name": "  "}`},
	{"err_def_bad_regex", ToolFindCodeDef, `{"definition_name": "charge(order"}`},
	{"err_def_no_file", ToolFindCodeDef, `{"definition_name": "charge", "file_path": "shop/payment.py"}`},
	{"err_def_too_long", ToolFindCodeDef, `{"definition_name": "` + strings.Repeat("a", 300) + `"}`},

	{"file_exact", ToolFindFile, `{"file_name": "models.py"}`},
	{"file_path_suffix", ToolFindFile, `{"file_name": "orders/models.py"}`},
	{"file_case", ToolFindFile, `{"file_name": "Payments.PY"}`},
	{"file_glob", ToolFindFile, `{"file_name": "*.py", "dir_path": "tests"}`},
	{"file_globstar", ToolFindFile, `{"file_name": "**/views/*.py"}`},
	{"file_glob_anchored", ToolFindFile, `{"file_name": "/shop/*.py"}`},
	{"file_glob_none", ToolFindFile, `{"file_name": "*.rs"}`},
	{"file_fuzzy", ToolFindFile, `{"file_name": "paymnts.py"}`},
	{"file_enumerate_folder", ToolFindFile, `{"dir_path": "shop/"}`},
	{"file_enumerate_root", ToolFindFile, `{}`},
	{"file_dir_is_file", ToolFindFile, `{"dir_path": "shop/settings.py"}`},
	{"file_folder_as_name", ToolFindFile, `{"file_name": "views/"}`},
	{"file_nothing", ToolFindFile, `{"file_name": "kubernetes.yaml"}`},
	{"err_file_no_dir", ToolFindFile, `{"file_name": "models.py", "dir_path": "shop/order"}`},
	{"err_file_bad_glob", ToolFindFile, `{"file_name": "[a-.py"}`},

	{"content_variant_camel", ToolFindCodeContent, `{"content": "maxRetries"}`},
	{"content_variant_upper", ToolFindCodeContent, `{"content": "MAX_RETRIES", "file_path": "shop/payments.py"}`},
	{"content_variant_kebab", ToolFindCodeContent, `{"content": "retry-delay-seconds"}`},
	{"content_partial", ToolFindCodeContent, `{"content": "retries"}`},
	{"content_snippet", ToolFindCodeContent, `{"content": "self.lines.append( line )"}`},
	{"content_snippet_quotes", ToolFindCodeContent, `{"content": "order.add_line(item['sku'],"}`},
	{"content_snippet_multiline", ToolFindCodeContent, `{"content": "for line in first.lines + second.lines:\n        merged.add_line("}`},
	{"content_snippet_case", ToolFindCodeContent, `{"content": "raise paymenterror(", "file_path": "shop"}`},
	{"content_snippet_variants", ToolFindCodeContent, `{"content": "for attempt in range(maxRetries):"}`},
	{"content_in_span", ToolFindCodeContent, `{"content": "line", "file_path": "shop/orders/models.py", "start_line": 28, "end_line": 34}`},
	{"content_span", ToolFindCodeContent, `{"content": "", "file_path": "shop/payments.py", "start_line": 18, "end_line": 25}`},
	{"content_span_open_end", ToolFindCodeContent, `{"content": "", "file_path": "shop/views/cart.py", "start_line": 4}`},
	{"content_span_past_end_clamped", ToolFindCodeContent, `{"content": "", "file_path": "shop/settings.py", "start_line": 2, "end_line": 99}`},
	{"content_file_lines", ToolFindCodeContent, `{"file_path": "shop/views/checkout.py"}`},
	{"content_none", ToolFindCodeContent, `{"content": "refund_policy = 3"}`},
	{"err_content_empty", ToolFindCodeContent, `{"content": ""}`},
	{"err_content_span_past_end", ToolFindCodeContent, `{"file_path": "shop/payments.py", "start_line": 48, "end_line": 55}`},
	{"err_content_span_reversed", ToolFindCodeContent, `{"file_path": "shop/payments.py", "start_line": 20, "end_line": 10}`},
	{"err_content_span_no_file", ToolFindCodeContent, `{"content": "x", "start_line": 1, "end_line": 5}`},
	{"err_content_no_file", ToolFindCodeContent, `{"content": "charge", "file_path": "shop/billing.py"}`},
	{"err_content_bad_line", ToolFindCodeContent, `{"file_path": "shop/payments.py", "start_line": "ten"}`},
	{"content_line_as_string", ToolFindCodeContent, `{"file_path": "shop/payments.py", "start_line": "32", "end_line": "33"}`},

	{"child_exact", ToolFindChildUnit, `{"definition_name": "Order.add_line", "file_path": "shop/orders/models.py"}`},
	{"child_whole_id", ToolFindChildUnit, `{"definition_name": "shop/payments.py:charge"}`},
	{"child_chunk", ToolFindChildUnit, `{"definition_name": "<chunk 1>", "file_path": "shop/settings.py"}`},
	{"child_bare_name", ToolFindChildUnit, `{"definition_name": "filter_lines", "file_path": "shop/orders/models.py"}`},
	{"child_enumerate", ToolFindChildUnit, `{"definition_name": "", "file_path": "shop/payments.py"}`},
	{"child_wrong_file", ToolFindChildUnit, `{"definition_name": "Gateway.send", "file_path": "shop/views/checkout.py"}`},
	{"err_child_missing", ToolFindChildUnit, `{"definition_name": "Order.remove_line", "file_path": "shop/orders/models.py"}`},
	{"err_child_ambiguous_name", ToolFindChildUnit, `{"definition_name": "total", "file_path": "shop/orders/models.py"}`},
	{"err_child_no_file_arg", ToolFindChildUnit, `{"definition_name": "send"}`},
	{"child_path_only", ToolFindChildUnit, `{"definition_name": "shop/payments.py"}`},
	{"err_child_path_only_missing", ToolFindChildUnit, `{"definition_name": "nosuch.py"}`},
	{"err_child_bad_file", ToolFindChildUnit, `{"definition_name": "send", "file_path": "shop/gateway.py"}`},

	{"err_call_bad_json", ToolFindCodeDef, `{"definition_name": "Order"`},
	{"err_call_unknown_tool", "find_function", `{"definition_name": "Order"}`},
	{"call_no_args", ToolFindFile, ``},
}

func TestSearchGoldenHandIndex(t *testing.T) {
	s := NewSearcher(handIndex(t))
	runGolden(t, s, "hand_", shopCalls)
}

func runGolden(t *testing.T, s *Searcher, prefix string, calls []call) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.name] {
			t.Fatalf("duplicate golden case %s", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			r := s.Call(c.tool, []byte(c.args))
			checkResult(t, r)
			if strings.HasPrefix(c.name, "err_") != (r.Mode == ModeError) {
				t.Errorf("mode %s for case %s: error cases are named err_", r.Mode, c.name)
			}
			compareGolden(t, filepath.Join(goldenDir, prefix+c.name+".golden"), renderCall(c, r))
		})
	}
}

// renderCall is a golden file: the call, the result's shape, the observation.
func renderCall(c call, r Result) string {
	args := c.args
	if len(args) > 200 {
		args = args[:200] + "..."
	}
	return fmt.Sprintf("%s %s\nmode: %s  hits: %d  more: %d\n----\n%s", c.tool, args, r.Mode, len(r.Hits), r.More, r.Observation)
}

// checkResult holds the invariants every observation keeps.
func checkResult(t *testing.T, r Result) {
	t.Helper()
	if len(r.Observation) > ObservationBudget {
		t.Errorf("observation is %d bytes, over the %d budget", len(r.Observation), ObservationBudget)
	}
	if r.Observation == "" {
		t.Errorf("empty observation")
	}
	if (r.Err != "") != (r.Mode == ModeError) || (r.Err != "" && r.Err != r.Observation) {
		t.Errorf("mode %s with err %q: an error result carries its observation as Err", r.Mode, r.Err)
	}
	for _, h := range r.Hits {
		if n := strings.Count(h.Preview, "\n"); n > PreviewLines {
			t.Errorf("preview of %s has %d lines, over %d", h.UnitID, n, PreviewLines)
		}
	}
	if len(r.Hits) > MaxHits && r.Mode != ModeEnumerate && r.Mode != ModeSpan {
		t.Errorf("%d hits shown, over %d", len(r.Hits), MaxHits)
	}
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
