package heuristic

import "testing"

// TestScriptIssues localizes made-up issues in a made-up TypeScript shop:
// the same rules as for Python, read from a stack trace, a quoted error
// message, a spec file and the reporter's own script.
func TestScriptIssues(t *testing.T) {
	tests := []rankCase{
		{
			name: "a V8 stack trace, innermost frame first",
			issue: "Crash at checkout\n\n```\nTypeError: Cannot read properties of undefined (reading 'toUpperCase')\n" +
				"    at applyDiscount (/home/me/shop/src/cart/discount.ts:12:25)\n" +
				"    at Cart.total (/home/me/shop/src/cart/cart.ts:23:12)\n" +
				"    at Object.<anonymous> (/home/me/shop/examples/checkout.ts:7:50)\n" +
				"    at node:internal/main/run_main_module:23:47\n```\n",
			file: "src/cart/discount.ts",
			fn:   "src/cart/discount.ts:applyDiscount",
		},
		{
			name:  "a quoted error message goes to the code that throws it",
			issue: "Valid codes rejected\n\nUsing `LOYAL` at checkout fails with \"unknown discount code LOYAL\" although the code exists.",
			file:  "src/cart/discount.ts",
			fn:    "src/cart/discount.ts:applyDiscount",
		},
		{
			name:  "a failing spec points to the code under test",
			issue: "cart.spec.ts fails\n\n`Cart.removeItem` does not remove anything: the total is unchanged after removing an item.",
			file:  "src/cart/cart.ts",
			fn:    "src/cart/cart.ts:Cart.removeItem",
			below: [2]string{"src/cart/cart.ts", "src/cart/cart.spec.ts"},
		},
		{
			name: "the reporter's own functions are left out, the library's words lead",
			issue: "Discount applied twice\n\n```ts\nfunction checkout(items: number[]) {\n  const basket = new Cart();\n" +
				"  items.forEach((p) => basket.addItem(p));\n  basket.useCode('WELCOME');\n  return basket.total();\n}\n```\n" +
				"The total applies the discount code twice.",
			file:  "src/cart/cart.ts",
			fn:    "src/cart/cart.ts:Cart.total",
			below: [2]string{"src/cart/cart.ts", "examples/checkout.ts"},
		},
	}
	checkRanking(t, sampleIndex("testdata/shopts")(t), tests)
}

func TestStackFrames(t *testing.T) {
	issue := "    at Repo.find (/srv/app/src/core/repo.ts:15:23)\n    at async handler (file:///srv/app/src/api.mjs:4:1)\n" +
		"    at /srv/app/node_modules/lib/index.js:9:9\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n"
	got := map[string]int{}
	for _, e := range ExtractEntryPoints(issue) {
		if e.Frame > 0 {
			got[e.Text] = e.Frame
		}
	}
	want := map[string]int{"src/core/repo.ts": 1, "Repo.find": 1, "app/src/api.mjs": 2, "handler": 2, "lib/index.js": 3}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("frame of %s = %d, want %d (all %v)", k, got[k], v, got)
		}
	}
	if _, ok := got["Module._compile"]; ok {
		t.Errorf("runtime frames must be left out: %v", got)
	}
}
