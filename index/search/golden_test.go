package search

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/golden"
)

// goldenDir holds one file per tool call: the call, then the observation.
const goldenDir = "../../testdata/search/golden"

// call is one tool call of a golden case, as a model would send it.
type call struct {
	name, tool, args string
}

// shopCalls cover every tool and every path through it on the hand-made
// shop index: exact, regex, fuzzy, enumerate, variants, snippet, span and
// each kind of wrong argument.
var shopCalls = []call{
	{"def_exact_name", FindCodeDef.Name, `{"definition_name": "Order"}`},
	{"def_exact_qualified", FindCodeDef.Name, `{"definition_name": "Order.total"}`},
	{"def_exact_several", FindCodeDef.Name, `{"definition_name": "total"}`},
	{"def_exact_module_path", FindCodeDef.Name, `{"definition_name": "shop.payments.charge"}`},
	{"def_exact_module_loose", FindCodeDef.Name, `{"definition_name": "orders.Order"}`},
	{"def_exact_id", FindCodeDef.Name, `{"definition_name": "shop/payments.py:charge"}`},
	{"def_exact_pytest_id", FindCodeDef.Name, `{"definition_name": "shop/orders/models.py::Order::total"}`},
	{"def_exact_wrapped", FindCodeDef.Name, "{\"definition_name\": \"`def merge_orders()`\"}"},
	{"def_exact_in_file", FindCodeDef.Name, `{"definition_name": "total", "file_path": "shop/orders/models.py"}`},
	{"def_exact_in_folder", FindCodeDef.Name, `{"definition_name": "send", "file_path": "tests"}`},
	{"def_exact_abs_path", FindCodeDef.Name, `{"definition_name": "charge", "file_path": "/testbed/shop/payments.py"}`},
	{"def_inherited", FindCodeDef.Name, `{"definition_name": "GiftOrder.total"}`},
	{"def_inherited_module_path", FindCodeDef.Name, `{"definition_name": "shop.orders.gift.GiftOrder.add_line"}`},
	{"def_alias", FindCodeDef.Name, `{"definition_name": "Processor"}`},
	{"def_alias_method", FindCodeDef.Name, `{"definition_name": "Processor.send"}`},
	{"def_regex", FindCodeDef.Name, `{"definition_name": "add_.*"}`},
	{"def_regex_smart_case", FindCodeDef.Name, `{"definition_name": "order"}`},
	{"def_regex_case_retry", FindCodeDef.Name, `{"definition_name": "ORDERLINE"}`},
	{"def_fuzzy", FindCodeDef.Name, `{"definition_name": "merge_ordrs"}`},
	{"def_fuzzy_dotted", FindCodeDef.Name, `{"definition_name": "shop.Ordr.totl"}`},
	{"def_fuzzy_in_file", FindCodeDef.Name, `{"definition_name": "gatway", "file_path": "shop/payments.py"}`},
	{"def_fuzzy_in_folder", FindCodeDef.Name, `{"definition_name": "Gatewey.sned", "file_path": "tests/"}`},
	{"def_fuzzy_nothing", FindCodeDef.Name, `{"definition_name": "qqqzzz"}`},
	{"def_enumerate", FindCodeDef.Name, `{"definition_name": "", "file_path": "shop/orders/models.py"}`},
	{"def_path_as_name", FindCodeDef.Name, `{"definition_name": "shop/views/cart.py"}`},
	{"def_enumerate_empty_file", FindCodeDef.Name, `{"file_path": "shop/views/__init__.py"}`},
	{"err_def_folder_no_name", FindCodeDef.Name, `{"file_path": "shop/views"}`},
	{"err_def_empty", FindCodeDef.Name, `{"definition_name": "  "}`},
	{"err_def_bad_regex", FindCodeDef.Name, `{"definition_name": "charge(order"}`},
	{"err_def_no_file", FindCodeDef.Name, `{"definition_name": "charge", "file_path": "shop/payment.py"}`},
	{"err_def_too_long", FindCodeDef.Name, `{"definition_name": "` + strings.Repeat("a", 300) + `"}`},

	{"file_exact", FindFile.Name, `{"file_name": "models.py"}`},
	{"file_path_suffix", FindFile.Name, `{"file_name": "orders/models.py"}`},
	{"file_case", FindFile.Name, `{"file_name": "Payments.PY"}`},
	{"file_glob", FindFile.Name, `{"file_name": "*.py", "dir_path": "tests"}`},
	{"file_globstar", FindFile.Name, `{"file_name": "**/views/*.py"}`},
	{"file_glob_anchored", FindFile.Name, `{"file_name": "/shop/*.py"}`},
	{"file_glob_none", FindFile.Name, `{"file_name": "*.rs"}`},
	{"file_fuzzy", FindFile.Name, `{"file_name": "paymnts.py"}`},
	{"file_enumerate_folder", FindFile.Name, `{"dir_path": "shop/"}`},
	{"file_enumerate_root", FindFile.Name, `{}`},
	{"file_dir_is_file", FindFile.Name, `{"dir_path": "shop/settings.py"}`},
	{"file_folder_as_name", FindFile.Name, `{"file_name": "views/"}`},
	{"file_nothing", FindFile.Name, `{"file_name": "kubernetes.yaml"}`},
	{"err_file_no_dir", FindFile.Name, `{"file_name": "models.py", "dir_path": "shop/order"}`},
	{"err_file_bad_glob", FindFile.Name, `{"file_name": "[a-.py"}`},

	{"content_variant_camel", FindCodeContent.Name, `{"content": "maxRetries"}`},
	{"content_variant_upper", FindCodeContent.Name, `{"content": "MAX_RETRIES", "file_path": "shop/payments.py"}`},
	{"content_variant_kebab", FindCodeContent.Name, `{"content": "retry-delay-seconds"}`},
	{"content_partial", FindCodeContent.Name, `{"content": "retries"}`},
	{"content_snippet", FindCodeContent.Name, `{"content": "self.lines.append( line )"}`},
	{"content_snippet_quotes", FindCodeContent.Name, `{"content": "order.add_line(item['sku'],"}`},
	{"content_snippet_multiline", FindCodeContent.Name, `{"content": "for line in first.lines + second.lines:\n        merged.add_line("}`},
	{"content_snippet_case", FindCodeContent.Name, `{"content": "raise paymenterror(", "file_path": "shop"}`},
	{"content_snippet_variants", FindCodeContent.Name, `{"content": "for attempt in range(maxRetries):"}`},
	{"content_in_span", FindCodeContent.Name, `{"content": "line", "file_path": "shop/orders/models.py", "start_line": 28, "end_line": 34}`},
	{"content_span", FindCodeContent.Name, `{"content": "", "file_path": "shop/payments.py", "start_line": 18, "end_line": 25}`},
	{"content_span_open_end", FindCodeContent.Name, `{"content": "", "file_path": "shop/views/cart.py", "start_line": 4}`},
	{"content_span_past_end_clamped", FindCodeContent.Name, `{"content": "", "file_path": "shop/settings.py", "start_line": 2, "end_line": 99}`},
	{"content_file_lines", FindCodeContent.Name, `{"file_path": "shop/views/checkout.py"}`},
	{"content_none", FindCodeContent.Name, `{"content": "refund_policy = 3"}`},
	{"err_content_empty", FindCodeContent.Name, `{"content": ""}`},
	{"err_content_span_past_end", FindCodeContent.Name, `{"file_path": "shop/payments.py", "start_line": 48, "end_line": 55}`},
	{"err_content_span_reversed", FindCodeContent.Name, `{"file_path": "shop/payments.py", "start_line": 20, "end_line": 10}`},
	{"err_content_span_no_file", FindCodeContent.Name, `{"content": "x", "start_line": 1, "end_line": 5}`},
	{"err_content_no_file", FindCodeContent.Name, `{"content": "charge", "file_path": "shop/billing.py"}`},

	{"child_exact", FindChildUnit.Name, `{"definition_name": "Order.add_line", "file_path": "shop/orders/models.py"}`},
	{"child_whole_id", FindChildUnit.Name, `{"definition_name": "shop/payments.py:charge"}`},
	{"child_chunk", FindChildUnit.Name, `{"definition_name": "<chunk 1>", "file_path": "shop/settings.py"}`},
	{"child_bare_name", FindChildUnit.Name, `{"definition_name": "filter_lines", "file_path": "shop/orders/models.py"}`},
	{"child_enumerate", FindChildUnit.Name, `{"definition_name": "", "file_path": "shop/payments.py"}`},
	{"child_wrong_file", FindChildUnit.Name, `{"definition_name": "Gateway.send", "file_path": "shop/views/checkout.py"}`},
	{"err_child_missing", FindChildUnit.Name, `{"definition_name": "Order.remove_line", "file_path": "shop/orders/models.py"}`},
	{"err_child_ambiguous_name", FindChildUnit.Name, `{"definition_name": "total", "file_path": "shop/orders/models.py"}`},
	{"err_child_no_file_arg", FindChildUnit.Name, `{"definition_name": "send"}`},
	{"child_path_only", FindChildUnit.Name, `{"definition_name": "shop/payments.py"}`},
	{"err_child_path_only_missing", FindChildUnit.Name, `{"definition_name": "nosuch.py"}`},
	{"err_child_bad_file", FindChildUnit.Name, `{"definition_name": "send", "file_path": "shop/gateway.py"}`},
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
			r, err := callTool(s, c)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, r)
			if strings.HasPrefix(c.name, "err_") != (r.Mode == ModeError) {
				t.Errorf("mode %s for case %s: error cases are named err_", r.Mode, c.name)
			}
			golden.CheckFile(t, filepath.Join(goldenDir, prefix+c.name+".golden"), renderCall(c, r))
		})
	}
}

// callTool runs a call as the localization agent's tool does: its JSON
// arguments decoded into the tool's argument struct, then its search.
// (Arguments that do not decode never reach a search: the agent's tool
// registry asks the model to repair them.)
func callTool(s *Searcher, c call) (Result, error) {
	switch c.tool {
	case FindFile.Name:
		return runJSON(s, FindFile, c.args)
	case FindCodeDef.Name:
		return runJSON(s, FindCodeDef, c.args)
	case FindCodeContent.Name:
		return runJSON(s, FindCodeContent, c.args)
	case FindChildUnit.Name:
		return runJSON(s, FindChildUnit, c.args)
	}
	return Result{}, fmt.Errorf("%s: no search tool %q", c.name, c.tool)
}

func runJSON[A any](s *Searcher, tool Tool[A], args string) (Result, error) {
	var a A
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return Result{}, fmt.Errorf("%s arguments %s: %w", tool.Name, args, err)
	}
	return tool.Run(s, a), nil
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
