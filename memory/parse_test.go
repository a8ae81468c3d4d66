package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

type want struct {
	st      Status
	content string
}

func TestParseStatusList(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []want
	}{
		{"dash bullets, four statuses", "- [ ] a\n- [-] b\n- [v] c\n- [!] d",
			[]want{{Pending, "a"}, {InProgress, "b"}, {Succeeded, "c"}, {Failed, "d"}}},
		{"star and plus bullets", "* [v] a\n+ [!] b", []want{{Succeeded, "a"}, {Failed, "b"}}},
		{"unicode bullet", "• [-] a", []want{{InProgress, "a"}}},
		{"numbers with dot and paren", "1. [v] a\n2) [ ] b\n10. [-] c",
			[]want{{Succeeded, "a"}, {Pending, "b"}, {InProgress, "c"}}},
		{"empty and wide pending tags", "- [] a\n- [  ] b\n- [\t] c", []want{{Pending, "a"}, {Pending, "b"}, {Pending, "c"}}},
		{"padded tags", "- [ v ] a\n- [ ! ] b", []want{{Succeeded, "a"}, {Failed, "b"}}},
		{"tilde and slash in progress", "- [~] a\n- [/] b", []want{{InProgress, "a"}, {InProgress, "b"}}},
		{"x and capital V are successful", "- [x] a\n- [X] b\n- [V] c",
			[]want{{Succeeded, "a"}, {Succeeded, "b"}, {Succeeded, "c"}}},
		{"check marks are successful", "- [✓] a\n- [✔] b\n- [✅] c",
			[]want{{Succeeded, "a"}, {Succeeded, "b"}, {Succeeded, "c"}}},
		{"crosses are failed", "- [✗] a\n- [❌] b", []want{{Failed, "a"}, {Failed, "b"}}},
		{"no tag means pending", "- a\n1. b", []want{{Pending, "a"}, {Pending, "b"}}},
		{"tag without bullet", "[v] a\n[ ] b", []want{{Succeeded, "a"}, {Pending, "b"}}},
		{"tag glued to bullet and text", "-[v]a\n1.[!]b", []want{{Succeeded, "a"}, {Failed, "b"}}},
		{"extra spacing everywhere", "   -    [v]     fix   the    parser   ", []want{{Succeeded, "fix the parser"}}},
		{"indented continuation joins", "- [-] fix the parser\n  so that it handles\n\ttabs too\n- [ ] next",
			[]want{{InProgress, "fix the parser so that it handles tabs too"}, {Pending, "next"}}},
		{"lazy continuation joins", "- [ ] first\nstill first\n- [ ] second", []want{{Pending, "first still first"}, {Pending, "second"}}},
		{"indented paragraph after blank joins", "- [ ] first\n\n  more of first\n- [ ] second",
			[]want{{Pending, "first more of first"}, {Pending, "second"}}},
		{"blank lines and headings ignored", "## Plan\n\n- [ ] a\n\n### Later\n\n- [v] b\n",
			[]want{{Pending, "a"}, {Succeeded, "b"}}},
		{"prose before the list ignored", "Here is my updated plan:\n- [ ] a", []want{{Pending, "a"}}},
		{"unindented prose after a blank line ignored", "- [ ] a\n\nThat is all.", []want{{Pending, "a"}}},
		{"code fences ignored", "```markdown\n- [ ] a\n- [x] b\n```", []want{{Pending, "a"}, {Succeeded, "b"}}},
		{"rules ignored", "- [ ] a\n---\n***\n- [ ] b", []want{{Pending, "a"}, {Pending, "b"}}},
		{"empty items skipped", "- [ ]\n- \n- [v] a", []want{{Succeeded, "a"}}},
		{"CRLF line ends", "- [v] a\r\n- [ ] b\r\n", []want{{Succeeded, "a"}, {Pending, "b"}}},
		{"nested bullets are items", "- [-] parent\n  - [v] child", []want{{InProgress, "parent"}, {Succeeded, "child"}}},
		{"plain lines when nothing is bulleted", "fix the parser\nadd a test", []want{{Pending, "fix the parser"}, {Pending, "add a test"}}},
		{"unknown tag kept as text", "- [?] maybe", []want{{Pending, "[?] maybe"}}},
		{"markdown link is not a tag", "- [see docs](http://x) first", []want{{Pending, "[see docs](http://x) first"}}},
		{"bold is not a bullet", "**Plan**\n- [ ] a", []want{{Pending, "a"}}},
		{"decimal is not a number marker", "1.5x faster parser", []want{{Pending, "1.5x faster parser"}}},
		{"second tag stays in content", "- [ ] [v] odd", []want{{Pending, "[v] odd"}}},
		{"hypothesis annotation stripped", "1. [v] Fix parsing of X  (h1, current, branch swe-adept/r/h1)", []want{{Succeeded, "Fix parsing of X"}}},
		{"to-do annotation with parens in message stripped", "1. [v] Add test  (t1, checkpoint 3f2a1c4: Add test (regression))", []want{{Succeeded, "Add test"}}},
		{"bare branch annotation stripped", "- [-] Fix it (branch swe-adept/r/h2)", []want{{InProgress, "Fix it"}}},
		{"ordinary parentheses kept", "- [ ] Guard the main (branch protection) path (see h1 notes)",
			[]want{{Pending, "Guard the main (branch protection) path (see h1 notes)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ParseStatusList(tt.md)
			if err != nil {
				t.Fatalf("ParseStatusList: %v", err)
			}
			if len(items) != len(tt.want) {
				t.Fatalf("got %d items %+v, want %d", len(items), items, len(tt.want))
			}
			for i, w := range tt.want {
				if items[i].Status != w.st || items[i].Content != w.content {
					t.Errorf("item %d = %s %q, want %s %q", i, items[i].Status.Tag(), items[i].Content, w.st.Tag(), w.content)
				}
			}
		})
	}
}

func TestParseStatusListRefsAndLines(t *testing.T) {
	items, err := ParseStatusList("Plan:\n\n1. [v] a  (T2, checkpoint abcdef1: m)\n2. [ ] b  (h3)\n3. [ ] c")
	if err != nil {
		t.Fatal(err)
	}
	gotRefs := []string{items[0].Ref, items[1].Ref, items[2].Ref}
	if strings.Join(gotRefs, ",") != "t2,h3," {
		t.Errorf("refs = %q, want t2, h3 and none", gotRefs)
	}
	if items[0].Line != 3 || items[2].Line != 5 {
		t.Errorf("lines = %d, %d, want 3, 5", items[0].Line, items[2].Line)
	}
	if !items[0].Tagged {
		t.Errorf("item 1 should be tagged")
	}
}

func TestParseStatusListErrors(t *testing.T) {
	tests := []struct {
		name, md, wantErr string
	}{
		{"empty", "", "empty list"},
		{"only spaces", " \n\t\n", "empty list"},
		{"only headings", "\n# Plan\n## Todo", `line 2: "# Plan"`},
		{"only empty items", "- [ ]\n- [v]", `line 1: "- [ ]"`},
		{"too many", strings.Repeat("- [ ] x\n", MaxItems+1), "list has 201 items (line 201 starts item 201): at most 200"},
		{"too many plain lines", strings.Repeat("x\n", 5000), "list has 5000 items"},
		{"too long", "- [ ] " + strings.Repeat("x", MaxBytes), "at most 262144 are read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStatusList(tt.md)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	for _, s := range Statuses {
		if !s.Valid() {
			t.Errorf("%q should be valid", s)
		}
		got, ok := ParseStatus(strings.Trim(s.Tag(), "[]"))
		if !ok || got != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s.Tag(), got, ok)
		}
	}
	if Status("x").Valid() || Status("").Valid() {
		t.Error("only the four canonical statuses are valid")
	}
	if !Succeeded.Done() || !Failed.Done() || Pending.Done() || InProgress.Done() {
		t.Error("Done is wrong")
	}
}

// TestRenderItemsRoundTrip: parse(render(items)) gives back the statuses and contents.
func TestRenderItemsRoundTrip(t *testing.T) {
	in := []Item{
		{Status: Succeeded, Content: "Fix parsing of X"},
		{Status: InProgress, Content: "[v] looks like a tag"},
		{Status: Failed, Content: "1. looks numbered"},
		{Status: Pending, Content: "ends in (parentheses)"},
		{Status: Pending, Content: "ünïcödé ✓ text"},
		{Status: Succeeded, Content: "nested step", Depth: 1},
		{Status: Pending, Content: "another nested step", Depth: 1},
		{Status: Pending, Content: "back at the top"},
	}
	out, err := ParseStatusList(RenderItems(in))
	if err != nil {
		t.Fatal(err)
	}
	assertSameItems(t, in, out)
}

func assertSameItems(t *testing.T, a, b []Item) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("got %d items, want %d:\n%+v\n%+v", len(b), len(a), a, b)
	}
	for i := range a {
		if a[i].Status != b[i].Status || a[i].Content != b[i].Content || a[i].Depth != b[i].Depth {
			t.Errorf("item %d = %s %q depth %d, want %s %q depth %d", i, b[i].Status.Tag(), b[i].Content, b[i].Depth,
				a[i].Status.Tag(), a[i].Content, a[i].Depth)
		}
	}
}

func FuzzParseStatusList(f *testing.F) {
	for _, s := range []string{
		"- [ ] a\n- [-] b\n- [v] c\n- [!] d",
		"1. [x] a\n2) [] b\n   more\n* [✓] c",
		"# h\n```\n- [~] a (h1, branch swe-adept/r/h1)\n```",
		"plain\nlines",
		"- [ ] a  (t1, checkpoint 3f2a1c4: m (x))\n\n  cont (h2)",
		"-[v]a\n\t+ [ !] b\r\n",
		"- x (h1) (t2) (branch a/b)  (checkpoint abcd: m (n))",
		"- (h1)\n- a ((h1, x)\n- b (h1, (x)) (",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		items, err := ParseStatusList(md)
		if err != nil {
			if len(items) != 0 {
				t.Fatalf("error with items: %v", err)
			}
			return
		}
		if len(items) == 0 || len(items) > MaxItems {
			t.Fatalf("%d items without error", len(items))
		}
		for _, it := range items {
			if !it.Status.Valid() {
				t.Fatalf("invalid status %q", it.Status)
			}
			if it.Content == "" || it.Content != normSpace(it.Content) {
				t.Fatalf("content %q is empty or not normalized", it.Content)
			}
			if utf8.ValidString(md) && !utf8.ValidString(it.Content) {
				t.Fatalf("valid input gave invalid content %q", it.Content)
			}
		}
		again, err := ParseStatusList(RenderItems(items))
		if err != nil {
			t.Fatalf("reparse of rendered list: %v\n%s", err, RenderItems(items))
		}
		assertSameItems(t, items, again)
	})
}
