package search

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai/jsonschema"
	"github.com/swe-adept/swe-adept/index"
)

// TestToolSchemas checks the tools a model is given: names as the paper
// has them, a description on each tool and parameter, the required ones,
// and a search behind every tool but finish_search. An argument whose
// empty value means something (list a file's units, show a span) is
// optional, or a tool registry would refuse those calls.
func TestToolSchemas(t *testing.T) {
	tools := []toolSpec{specOf(FindFile), specOf(FindCodeDef), specOf(FindCodeContent), specOf(FindChildUnit), specOf(FinishSearch)}
	want := []struct {
		name     string
		params   []string
		required []string
	}{
		{"find_file", []string{"dir_path", "file_name"}, nil},
		{"find_code_def", []string{"definition_name", "file_path"}, nil},
		{"find_code_content", []string{"content", "end_line", "file_path", "start_line"}, nil},
		{"find_child_unit", []string{"definition_name", "file_path"}, []string{"definition_name", "file_path"}},
		{"finish_search", nil, nil},
	}
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	for i, sp := range tools {
		w := want[i]
		if sp.name != w.name {
			t.Errorf("tool %d is %s, want %s", i, sp.name, w.name)
		}
		if sp.description == "" {
			t.Errorf("%s has no description", sp.name)
		}
		if sp.runs != (w.name != "finish_search") {
			t.Errorf("%s: a search behind it is %v", sp.name, sp.runs)
		}
		def, err := jsonschema.GenerateSchemaForType(sp.args)
		if err != nil {
			t.Fatalf("%s schema: %v", sp.name, err)
		}
		if !slices.Equal(def.Required, w.required) {
			t.Errorf("%s required = %v, want %v", sp.name, def.Required, w.required)
		}
		var names []string
		for name, p := range def.Properties {
			names = append(names, name)
			if p.Description == "" {
				t.Errorf("%s.%s has no description", sp.name, name)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, w.params) {
			t.Errorf("%s parameters = %v, want %v", sp.name, names, w.params)
		}
	}
}

// toolSpec is a tool with its argument type erased, for tests over all of
// them.
type toolSpec struct {
	name, description string
	args              any // the zero argument struct
	runs              bool
}

func specOf[A any](t Tool[A]) toolSpec {
	var zero A
	return toolSpec{name: t.Name, description: t.Description, args: zero, runs: t.Run != nil}
}

func TestFullCode(t *testing.T) {
	s := shopSearcher(t)
	got, err := s.FullCode("shop/orders/models.py:Order.add_line")
	if err != nil {
		t.Fatal(err)
	}
	want := "28 |     def add_line(self, sku, quantity, unit_price):\n" +
		"29 |         line = OrderLine(sku, quantity, unit_price)\n" +
		"30 |         self.lines.append(line)\n" +
		"31 |         return line\n"
	if got != want {
		t.Errorf("FullCode =\n%s\nwant\n%s", got, want)
	}
	if _, err := s.FullCode("shop/orders/models.py:Order.nope"); err == nil {
		t.Error("FullCode of an unknown id: no error")
	}
}

func TestSkeletonAndPreview(t *testing.T) {
	s := shopSearcher(t)
	sk := s.Skeleton("shop/payments.py")
	for _, want := range []string{"10-15 class Gateway:", "  14-15 def send(self, amount, currency):", "18-29 def charge("} {
		if !strings.Contains(sk, want) {
			t.Errorf("Skeleton lacks %q:\n%s", want, sk)
		}
	}
	if s.Skeleton("no/such.py") != "" {
		t.Error("Skeleton of an unknown file is not empty")
	}
	u, _ := s.Index().Unit("shop/payments.py:charge")
	p := s.Preview(u)
	// Signature, then the two call lines; not the body around them.
	if !strings.HasPrefix(p, "18 | def charge(") || !strings.Contains(p, "23 |             receipt = gateway.send(") || strings.Contains(p, "21 |") {
		t.Errorf("Preview of charge:\n%s", p)
	}
}

// TestPreviewBudget holds a class with many methods to PreviewLines and a
// page of many big results to ObservationBudget.
func TestPreviewBudget(t *testing.T) {
	var src strings.Builder
	src.WriteString("class Big:\n")
	units := []*index.Unit{{ID: "big.py:Big", Kind: index.KindClass, Name: "Big", QualName: "Big", Path: "big.py", Start: 1}}
	for i := range 60 {
		name := "method_with_a_rather_long_name_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		line := 2 + 2*i
		src.WriteString("    def " + name + "(self):\n        return " + strings.Repeat("1 + ", 60) + "1\n")
		units[0].Children = append(units[0].Children, index.Edge{ID: "big.py:Big." + name, Rel: index.Contains, Line: line})
		units = append(units, &index.Unit{ID: "big.py:Big." + name, Kind: index.KindMethod, Name: name, QualName: "Big." + name,
			Path: "big.py", Start: line, End: line + 1, Parent: "big.py:Big"})
	}
	units[0].End = 121
	f := &index.File{Path: "big.py", Lang: "python"}
	for _, u := range units {
		f.Units = append(f.Units, u.ID)
	}
	s := NewSearcher(index.New("/x", []*index.File{f}, units, map[string][]byte{"big.py": []byte(src.String())}))
	for _, r := range []Result{
		s.FindCodeDef(FindCodeDefArgs{DefinitionName: "Big"}),
		s.FindCodeDef(FindCodeDefArgs{DefinitionName: "method"}),
		s.FindCodeDef(FindCodeDefArgs{FilePath: "big.py"}),
		s.FindCodeContent(FindCodeContentArgs{Content: "return"}),
		s.FindCodeContent(FindCodeContentArgs{FilePath: "big.py", StartLine: 1, EndLine: 121}),
		s.FindFile(FindFileArgs{FileName: "big.py"}),
	} {
		checkResult(t, r)
		if r.Mode == ModeRegex && r.More == 0 {
			t.Errorf("%s %q: 60 matches shown without a 'more' count", r.Tool, r.Query)
		}
	}
}

// TestConcurrentSearches runs every tool from several goroutines on one
// Searcher (meaningful under -race).
func TestConcurrentSearches(t *testing.T) {
	s := NewSearcher(handIndex(t))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for _, c := range shopCalls[i%4 : i%4+20] {
				r, err := callTool(s, c)
				if err != nil {
					t.Error(err)
				} else if r.Observation == "" {
					t.Errorf("%s: empty observation", c.name)
				}
			}
		})
	}
	wg.Wait()
}

func TestResultJSON(t *testing.T) {
	r := shopSearcher(t).FindCodeDef(FindCodeDefArgs{DefinitionName: "charge"})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tool":"find_code_def"`, `"mode":"exact"`, `"unit_id":"shop/payments.py:charge"`, `"children":["shop/orders/models.py:Order.total","shop/payments.py:Gateway.send"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}

// TestSkeletonKeepsTopLevel cuts a long skeleton by depth: every top-level
// definition stays, methods fill the remaining lines, source order holds.
func TestSkeletonKeepsTopLevel(t *testing.T) {
	s := shopSearcher(t)
	fi, _ := s.resolveFile("shop/orders/models.py")
	got := s.skeleton(fi, 5)
	want := "6-15 class OrderLine:\n  9-12 def __init__(self, sku, quantity, unit_price):\n18-41 class Order:\n44-48 def merge_orders(first, second):\n" +
		"... 6 more definitions: find_code_def with file_path=shop/orders/models.py lists them\n"
	if got != want {
		t.Errorf("skeleton =\n%s\nwant\n%s", got, want)
	}
}

// TestHeaderSkipsDecorators shows the def line of a function whose
// decorator spans lines, not the decorator's arguments.
func TestHeaderSkipsDecorators(t *testing.T) {
	src := "@pytest.mark.parametrize('x,y', [\n    ({'c': 1, 'd': ')'}, 2),\n    (3, 4),\n])\n@other\ndef test_pairs(x, y):\n    assert check(x) == y\n"
	u := &index.Unit{ID: "t.py:test_pairs", Kind: index.KindFunction, Name: "test_pairs", QualName: "test_pairs", Path: "t.py", Start: 1, End: 7,
		Children: []index.Edge{{ID: "t.py:check", Rel: index.Invokes, Line: 7}}}
	s := NewSearcher(index.New("/x", []*index.File{{Path: "t.py", Units: []string{u.ID}}}, []*index.Unit{u}, map[string][]byte{"t.py": []byte(src)}))
	want := "6 | def test_pairs(x, y):\n7 |     assert check(x) == y\n"
	if got := s.Preview(u); got != want {
		t.Errorf("Preview =\n%s\nwant\n%s", got, want)
	}
	if got := s.Skeleton("t.py"); got != "1-7 def test_pairs(x, y):\n" {
		t.Errorf("Skeleton = %q", got)
	}
}

// TestEmptyAndSourcelessIndex: no files at all, or units whose source is
// missing, still give observations and no panic.
func TestEmptyAndSourcelessIndex(t *testing.T) {
	u := &index.Unit{ID: "a.py:f", Kind: index.KindFunction, Name: "f", QualName: "f", Path: "a.py", Start: 1, End: 3,
		Children: []index.Edge{{ID: "a.py:g", Rel: index.Invokes, Line: 2}}}
	for name, ix := range map[string]*index.Index{
		"empty":      index.New("/x", nil, nil, nil),
		"sourceless": index.New("/x", []*index.File{{Path: "a.py", Units: []string{u.ID}}}, []*index.Unit{u}, nil),
	} {
		s := NewSearcher(ix)
		for _, c := range shopCalls {
			r, err := callTool(s, c)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, r)
			if r.Observation == "" {
				t.Errorf("%s %s: empty observation", name, c.name)
			}
		}
		checkResult(t, s.FindCodeDef(FindCodeDefArgs{DefinitionName: "f"}))
		checkResult(t, s.FindCodeContent(FindCodeContentArgs{FilePath: "a.py", StartLine: 1, EndLine: 2}))
		if _, err := s.FullCode("a.py:f"); err == nil {
			t.Errorf("%s: FullCode of a unit without source: no error", name)
		}
	}
}
