package heuristic

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func entryMap(eps []EntryPoint) map[string]EntryPoint {
	m := map[string]EntryPoint{}
	for _, e := range eps {
		m[e.Text] = e
	}
	return m
}

func TestExtractEntryPoints(t *testing.T) {
	tests := []struct {
		name   string
		issue  string
		want   map[string]EntryKind // text -> kind it must have
		absent []string
	}{
		{
			name:  "backticks and quotes",
			issue: "Calling `load_config` with 'strict' mode fails in \"ConfigLoader\".",
			want:  map[string]EntryKind{"load_config": EntryQuoted, "strict": EntryQuoted, "ConfigLoader": EntryQuoted},
		},
		{
			name:   "dotted path",
			issue:  "The function shop.pricing.apply_discount rounds wrongly, e.g. for 0.5.",
			want:   map[string]EntryKind{"shop.pricing.apply_discount": EntryDotted},
			absent: []string{"e.g", "0.5"},
		},
		{
			name: "traceback frames",
			issue: "Traceback (most recent call last):\n" +
				"  File \"/usr/lib/python3/site-packages/shop/cart.py\", line 12, in checkout\n" +
				"    total = price(items)\n" +
				"  File \"/home/u/shop/pricing.py\", line 40, in price\n" +
				"    return apply_discount(t)\n" +
				"ValueError: bad\n",
			want:   map[string]EntryKind{"checkout": EntryTraceback, "price": EntryTraceback, "shop/cart.py": EntryFile, "u/shop/pricing.py": EntryFile},
			absent: []string{"ValueError"},
		},
		{
			name:  "file names",
			issue: "The bug is in src/shop/cart.py and maybe setup.cfg.",
			want:  map[string]EntryKind{"src/shop/cart.py": EntryFile, "setup.cfg": EntryFile},
		},
		{
			name:   "camel and snake in prose",
			issue:  "The DataFrame writer calls get_item_price and parseHeader too often.",
			want:   map[string]EntryKind{"DataFrame": EntryCamel, "get_item_price": EntrySnake, "parseHeader": EntryCamel},
			absent: []string{"writer", "calls"},
		},
		{
			name:   "code block calls and attributes",
			issue:  "Repro:\n```python\nfrom shop.pricing import apply_discount\ncart = Cart()\ncart.add_item(3)\nprint(cart.total)\n```\n",
			want:   map[string]EntryKind{"shop.pricing": EntryDotted, "apply_discount": EntryCode, "Cart": EntryCode, "add_item": EntryCode, "total": EntryCode},
			absent: []string{"print"},
		},
		{
			name:   "urls are not code",
			issue:  "See https://github.com/org/some_repo/issues/12 for details.",
			absent: []string{"some_repo", "github.com"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := entryMap(ExtractEntryPoints(tc.issue))
			for text, kind := range tc.want {
				e, ok := got[text]
				if !ok {
					t.Errorf("missing %q; got %v", text, keys(got))
					continue
				}
				if e.Kind != kind {
					t.Errorf("%q: kind %s, want %s", text, e.Kind, kind)
				}
			}
			for _, text := range tc.absent {
				if _, ok := got[text]; ok {
					t.Errorf("%q should not be an entry point", text)
				}
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	tests := map[string]string{
		"boom\nValueError: Could not convert value to integer without loss\n":        "Could not convert value to integer without loss",
		"  pkg.errors.ParseError: Dropped elements in sequence matching! 'a' != ';'": "Dropped elements in sequence matching",
		"KeyError: Unable to load file src/x/__init__.py:":                           "Unable to load file",
		"TypeError: 'NoneType' object is not subscriptable":                          "",
		"ValueError: rate 5 bad": "",
	}
	for issue, want := range tests {
		var got []string
		for _, e := range ExtractEntryPoints(issue) {
			if e.Kind == EntryMessage {
				got = append(got, e.Text)
			}
		}
		if strings.Join(got, "|") != want {
			t.Errorf("%q: messages %q, want %q", issue, got, want)
		}
	}
}

func TestTitleNamesWeighMore(t *testing.T) {
	m := entryMap(ExtractEntryPoints("`to_json_dict` fails on bad tags\n\nIt fails in `convert_value` too.\n"))
	if m["to_json_dict"].Weight <= m["convert_value"].Weight {
		t.Errorf("title name %v should outweigh body name %v", m["to_json_dict"], m["convert_value"])
	}
	m = entryMap(ExtractEntryPoints("  File \"a.py\", line 1, in f\n`g` too\n"))
	if m["f"].Weight != kindWeight[EntryTraceback]+1 {
		t.Errorf("a traceback line is no title: %+v", m["f"])
	}
}

func TestFileLineMentions(t *testing.T) {
	tests := []struct {
		issue, file string
		line        int
	}{
		{"The problem is in `jsonrep.py` at line 227. I plan a fix.", "jsonrep.py", 227},
		{"see pkg/mod.py:42 for the culprit", "pkg/mod.py", 42},
		{"Look at line 7 of shop/money.py please", "shop/money.py", 7},
		{"https://github.com/org/repo/blob/0a1b2c/pkg/sub/mod.py#L88 is wrong", "pkg/sub/mod.py", 88},
		{"https://github.com/org/repo/blob/main/pkg/mod.py has it", "pkg/mod.py", 0},
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.run()\n\t/home/u/app/cmd/run.go:31 +0x1d", "home/u/app/cmd/run.go", 31},
	}
	for _, tc := range tests {
		e, ok := entryMap(ExtractEntryPoints(tc.issue))[tc.file]
		if !ok {
			t.Errorf("%q: no entry %q", tc.issue, tc.file)
			continue
		}
		if e.Kind != EntryFile || e.Line != tc.line {
			t.Errorf("%q: %+v, want a file entry at line %d", tc.issue, e, tc.line)
		}
	}
}

func TestTracebackFramesOrderInnermostFirst(t *testing.T) {
	issue := "  File \"a/outer.py\", line 1, in outer\n  File \"a/inner.py\", line 2, in inner\n"
	eps := ExtractEntryPoints(issue)
	m := entryMap(eps)
	if m["inner"].Frame != 1 || m["outer"].Frame != 2 {
		t.Fatalf("frames: inner %d outer %d, want 1 and 2", m["inner"].Frame, m["outer"].Frame)
	}
	if m["inner"].Weight <= m["outer"].Weight {
		t.Errorf("innermost frame should weigh more: %v vs %v", m["inner"].Weight, m["outer"].Weight)
	}
	if eps[0].Text != "inner" {
		t.Errorf("first entry point %q, want inner", eps[0].Text)
	}
}

func TestSplitIdent(t *testing.T) {
	tests := map[string]string{
		"parseHTTPHeader_v2": "parse http header v2",
		"get_item_price":     "get item price",
		"DataFrame":          "data frame",
		"__init__":           "init",
		"x":                  "x",
	}
	for in, want := range tests {
		if got := strings.Join(splitIdent(in), " "); got != want {
			t.Errorf("splitIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentTokens(t *testing.T) {
	got := strings.Join(identTokens("The apply_discount() in CartTotal is off"), " ")
	want := "apply_discount apply discount carttotal cart total off"
	if got != want {
		t.Errorf("identTokens = %q, want %q", got, want)
	}
}

func TestBM25(t *testing.T) {
	docs := [][]string{
		{"apply", "discount", "price", "price"},
		{"cart", "total", "items"},
		{"discount", "cart"},
		{"unrelated", "words", "only", "here", "and", "more"},
	}
	m := newBM25(docs)
	top := m.top(queryBag([]string{"discount", "price"}), 0)
	if len(top) != 2 || top[0].doc != 0 || top[1].doc != 2 {
		t.Fatalf("top = %+v, want doc 0 then doc 2", top)
	}
	if m.idf("discount") >= m.idf("price") {
		t.Errorf("rarer term should weigh more: idf(discount)=%v idf(price)=%v", m.idf("discount"), m.idf("price"))
	}
	if s := m.scores(queryBag([]string{"absent"})); len(s) != 0 {
		t.Errorf("absent term scored %v", s)
	}
	short := newBM25([][]string{{"a", "b"}, {"a", "c", "c", "c", "c", "c", "c", "c"}})
	sc := short.scores(map[string]float64{"a": 1})
	if sc[0] <= sc[1] {
		t.Errorf("length normalisation: short doc %v should beat long doc %v", sc[0], sc[1])
	}
}

// TestLongOutput: a long pasted log is read only as far as its first
// lines; it is still not taken for code further down.
func TestLongOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString("```\n$ geo show\n")
	for i := range 500 {
		// Each line a sentence of its own: a word spelled from i.
		word := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + "x"
		fmt.Fprintf(&b, "the %s shape was drawn in plain blue ink_%d\n", word, i)
	}
	b.WriteString("```\n")
	outputs, code := 0, 0
	for _, e := range ExtractEntryPoints(b.String()) {
		switch e.Kind {
		case EntryOutput:
			outputs++
		case EntryCode, EntrySnake:
			code++
		}
	}
	if outputs == 0 || outputs > 50 {
		t.Errorf("%d output entries from 500 printed lines, want a few dozen at most", outputs)
	}
	if code > 0 {
		t.Errorf("%d code entries from printed lines", code)
	}
}

func FuzzExtractEntryPoints(f *testing.F) {
	for _, s := range []string{
		"`foo.bar` fails",
		"  File \"/x/y.py\", line 3, in f\n",
		"```\nx.y(z)\n```",
		"```unterminated\nfoo(",
		"CamelCase snake_case a.b.C x.py",
		"'\"`",
		"```\n$ tool show x\n * Note: it was read.\nName  Kind  Area\n$\n$ x\n```",
		"```pycon\n>>> f(1,\n...   2)\nthree plain words here\nTraceback (most recent call last):\n>>>\n```",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, issue string) {
		eps := ExtractEntryPoints(issue)
		seen := map[string]bool{}
		for _, e := range eps {
			if e.Text == "" || strings.TrimSpace(e.Text) != e.Text {
				t.Fatalf("bad entry text %q", e.Text)
			}
			if seen[e.Text] {
				t.Fatalf("duplicate entry %q", e.Text)
			}
			seen[e.Text] = true
			if utf8.ValidString(issue) && !utf8.ValidString(e.Text) {
				t.Fatalf("invalid UTF-8 from valid input: %q", e.Text)
			}
			if e.Weight <= 0 || e.Count < 1 {
				t.Fatalf("entry %+v: weight and count must be positive", e)
			}
			if (e.Kind == EntryCommand || e.Kind == EntryOutput) != (len(e.Programs) > 0) {
				t.Fatalf("entry %+v: commands and output, and only they, name their program", e)
			}
		}
	})
}

func keys(m map[string]EntryPoint) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCommandOutput(t *testing.T) {
	issue := "geo show should print the perimeter\n\n```\n$ geo show shapes.txt\n" +
		" * Note: some shape files could not be read and were skipped.\n" +
		"Name      Kind     Area\n" +
		"square    Polygon  4.00\n" +
		"wheel.rim Circle   3.14\n" +
		"$ make html\n" +
		"build succeeded, 2 warnings.\n" +
		"```\n"
	got := ExtractEntryPoints(issue)
	m := entryMap(got)
	want := []struct {
		text, prog string
		kind       EntryKind
		cells      []string
	}{
		{"show", "geo", EntryCommand, nil},
		{"html", "make", EntryCommand, nil},
		{"some shape files could not be read and were skipped", "geo", EntryOutput, nil},
		{"Name Kind Area", "geo", EntryOutput, []string{"Name", "Kind", "Area"}},
	}
	for _, w := range want {
		e, ok := m[w.text]
		if !ok || e.Kind != w.kind || !slices.Equal(e.Programs, []string{w.prog}) || !slices.Equal(e.Cells, w.cells) {
			t.Errorf("%q: got %+v (present %v), want a %s entry of %s with cells %v", w.text, e, ok, w.kind, w.prog, w.cells)
		}
	}
	// What a command printed is not the reporter's code: "wheel.rim" and
	// "square" are values.
	for _, text := range []string{"wheel.rim", "rim", "square", "Polygon", "build succeeded"} {
		if e, ok := m[text]; ok {
			t.Errorf("%q is printed output, not an entry point: %+v", text, e)
		}
	}
	if !hasWord("Geo show drops shapes", "show") || hasWord("showing", "show") {
		t.Error("hasWord: want whole words only")
	}
	if m["show"].Weight <= m["html"].Weight {
		t.Errorf("a subcommand the title names should outweigh one it does not: %+v, %+v", m["show"], m["html"])
	}
}
