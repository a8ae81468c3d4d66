package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index/search"
)

func TestSearchCommand(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // keep the index cache out of the user's
	repo := "../testdata/search/shop"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"def", []string{"--repo", repo, "def", "Order.add_line"},
			[]string{"find_code_def `Order.add_line`: 1 exact match", "shop/orders/models.py:Order.add_line  [method, lines 28-31]"}},
		{"def flags after", []string{"def", "total", "--repo", repo, "--file", "shop/orders/models.py"},
			[]string{"2 exact matches"}},
		{"file", []string{"--repo", repo, "file", "*.py", "--dir", "tests"},
			[]string{"2 files match in tests/", "15-19 def test_charge_retries():"}},
		{"content span", []string{"--repo", repo, "content", "--file", "shop/payments.py", "--start", "32", "--end", "33"},
			[]string{"lines 32-33 of shop/payments.py", "33 |     return gateway.send("}},
		{"child", []string{"--repo", repo, "child", "GiftOrder.wrap", "--file", "shop/orders/gift.py"},
			[]string{"shop/orders/gift.py:GiftOrder.wrap  [method, lines 11-12]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := runCommand(context.Background(), "search", tt.args, nil, &out, nil); err != nil {
				t.Fatalf("search %v: %v", tt.args, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestSearchCommandErrors: a wrong argument fails the command, in the
// command line's words.
func TestSearchCommandErrors(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	repo := "../testdata/search/shop"
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--repo", repo, "child", "nope", "--file", "shop/gift.py"}, []string{"no file or folder `shop/gift.py` in the index. Closest paths:", "shop/orders/gift.py"}},
		{[]string{"--repo", repo, "def", ""}, []string{"NAME is empty"}},
		{[]string{"--repo", repo, "content", ""}, []string{"SNIPPET is empty", "--file with --start and --end"}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := runCommand(context.Background(), "search", tt.args, nil, &out, nil)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("search %v: err %v, want a usage error", tt.args, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("search %v: %q lacks %q", tt.args, err, w)
			}
		}
	}
}

func TestSearchCommandJSON(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out bytes.Buffer
	if err := runCommand(context.Background(), "search", []string{"--repo", "../testdata/search/shop", "--json", "content", "maxRetries"}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	var r search.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not a Result: %v\n%s", err, out.String())
	}
	if r.Tool != "find_code_content" || r.Mode != search.ModeVariant || len(r.Hits) != 3 || r.Hits[0].UnitID != "shop/payments.py:charge" {
		t.Errorf("result = %+v", r)
	}
}

func TestSearchCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--repo", "x"},
		{"--repo", "x", "grep", "foo"},
		{"--repo", "x", "def", "a", "b"},
		{"--bogus", "def", "a"},
	} {
		err := runCommand(context.Background(), "search", args, nil, &bytes.Buffer{}, nil)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("search %v: err %v, want a usage error", args, err)
		}
	}
	if err := runCommand(context.Background(), "search", []string{"--repo", "/no/such/dir", "def", "a"}, nil, &bytes.Buffer{}, nil); err == nil {
		t.Error("search of a missing repo: no error")
	}
}
