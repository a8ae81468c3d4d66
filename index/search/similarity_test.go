package search

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestJaroWinkler(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"abc", "", 0},
		{"martha", "marhta", 0.961},
		{"dwayne", "duane", 0.840},
		{"dixon", "dicksonx", 0.813},
		{"crate", "trace", 0.733},
		{"abc", "xyz", 0},
		{"symbol", "symbol", 1},
		{"日本語", "日本", 0.911},
	}
	for _, tt := range tests {
		if got := JaroWinkler(tt.a, tt.b); !near(got, tt.want) {
			t.Errorf("JaroWinkler(%q, %q) = %.3f, want %.3f", tt.a, tt.b, got, tt.want)
		}
		if got, rev := JaroWinkler(tt.a, tt.b), JaroWinkler(tt.b, tt.a); !near(got, rev) {
			t.Errorf("JaroWinkler(%q, %q) = %.3f but reversed %.3f", tt.a, tt.b, got, rev)
		}
	}
}

func TestLCSSimilarity(t *testing.T) {
	tests := []struct {
		a, b    string
		wantLen int
		want    float64
	}{
		{"", "", 0, 1},
		{"abc", "", 0, 0},
		{"abcbdab", "bdcaba", 4, 8.0 / 13},
		{"qsfilter", "queryset.filter", 8, 16.0 / 23},
		{"same", "same", 4, 1},
		{"abc", "xyz", 0, 0},
	}
	for _, tt := range tests {
		if got := lcsLen([]rune(tt.a), []rune(tt.b)); got != tt.wantLen {
			t.Errorf("lcsLen(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.wantLen)
		}
		if got := LCSSimilarity(tt.a, tt.b); !near(got, tt.want) {
			t.Errorf("LCSSimilarity(%q, %q) = %.3f, want %.3f", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTrigramSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"a", "", 0},
		{"abc", "abc", 1},
		// padded trigrams of "abc": ^ab abc bc$; of "abd": ^ab abd bd$; one shared.
		{"abc", "abd", 2.0 / 6},
		{"ab", "ab", 1},
		{"abc", "xyz", 0},
		// repeats count once: "aaaa" -> ^aa aaa aa$ ; "aaa" -> ^aa aaa aa$.
		{"aaaa", "aaa", 1},
	}
	for _, tt := range tests {
		if got := TrigramSimilarity(tt.a, tt.b); !near(got, tt.want) {
			t.Errorf("TrigramSimilarity(%q, %q) = %.3f, want %.3f", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestFuzzyScoreRanksTyposAboveStrangers(t *testing.T) {
	tests := []struct {
		query, better, worse string
	}{
		{"symbl", "symbol", "sympify"},
		{"merge_ordrs", "merge_orders", "test_merge_orders"},
		{"queryset.filtr", "queryset.filter", "queryset.exclude"},
		{"gatway", "gateway", "flakygateway"},
	}
	for _, tt := range tests {
		b, w := FuzzyScore(tt.query, tt.better), FuzzyScore(tt.query, tt.worse)
		if b <= w {
			t.Errorf("FuzzyScore(%q): %q scores %.3f, not above %q at %.3f", tt.query, tt.better, b, tt.worse, w)
		}
		if FuzzyScore(tt.query, tt.query) != 1 {
			t.Errorf("FuzzyScore(%q, itself) = %.3f, want 1", tt.query, FuzzyScore(tt.query, tt.query))
		}
	}
}

func TestTopByCount(t *testing.T) {
	counts := []uint16{5, 1, 3, 3, 3, 0, 4}
	touched := []int32{0, 1, 2, 3, 4, 6}
	got := topByCount(touched, counts, 3)
	want := map[int32]bool{0: true, 6: true}
	if len(got) != 3 {
		t.Fatalf("topByCount kept %v, want 3 keys", got)
	}
	ties := 0
	for _, k := range got {
		switch {
		case want[k]:
			delete(want, k)
		case counts[k] == 3:
			ties++
		default:
			t.Errorf("kept key %d with count %d", k, counts[k])
		}
	}
	if len(want) != 0 || ties != 1 {
		t.Errorf("topByCount = %v: want keys 0 and 6 and one of the count-3 keys", got)
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{"_eval_.*_as_.*", []string{"_eval_", "_as_"}},
		{"(?i)Csrf.*Token", []string{"csrf", "token"}},
		{"foo|bar", nil},
		{"(get)+_item", []string{"get", "_item"}},
		{"x?y", []string{"y"}},
		{"[", nil},
	}
	for _, tt := range tests {
		got := requiredLiterals(tt.expr)
		if len(got) != len(tt.want) {
			t.Errorf("requiredLiterals(%q) = %q, want %q", tt.expr, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("requiredLiterals(%q) = %q, want %q", tt.expr, got, tt.want)
			}
		}
	}
}

func TestNormIdent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"maxRetries", "maxretries"},
		{"max_retries", "maxretries"},
		{"MAX_RETRIES", "maxretries"},
		{"max-retries", "maxretries"},
		{"__init__", "__init__"},
		{"_private_name", "_privatename"},
		{"x", "x"},
		{"___", "___"},
	}
	for _, tt := range tests {
		if got := string(normIdent([]byte(tt.in), nil)); got != tt.want {
			t.Errorf("normIdent(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !normEqual(tt.in, tt.want) || normEqual(tt.in, tt.want+"x") {
			t.Errorf("normEqual(%q) disagrees with normIdent", tt.in)
		}
	}
}

func TestDefinesIdent(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"MAX_RETRIES = 3", true},
		{"    max_retries: int = 3", true},
		{"def max_retries(self):", true},
		{"class MaxRetries(Base):", true},
		{"maxRetries := 3", true},
		{"if max_retries == 3:", false},
		{"return charge(max_retries=MAX_RETRIES)", true},
		{"print(max_retries)", false},
	}
	for _, tt := range tests {
		if got := definesIdent(tt.line, "maxretries"); got != tt.want {
			t.Errorf("definesIdent(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"maxRetries", "max Retries"},
		{"max_retries", "max retries"},
		{"MAX_RETRIES", "MAX RETRIES"},
		{"HTTPServerError_code", "HTTP Server Error code"},
		{"__init__", "init"},
		{"x", "x"},
		{"getX2Value", "get X2 Value"},
	}
	for _, tt := range tests {
		if got := strings.Join(splitWords(tt.in), " "); got != tt.want {
			t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	re, err := compileSnippetWith("self.maxRetries = 3", variantPattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"self.max_retries = 3", "self.MAX_RETRIES=3", "self.maxRetries  =  3"} {
		if !re.re.MatchString(src) {
			t.Errorf("variant snippet does not match %q (%s)", src, re.re)
		}
	}
	if re.re.MatchString("self.maxretriesx = 3") {
		t.Errorf("variant snippet matches inside a longer name")
	}
}
