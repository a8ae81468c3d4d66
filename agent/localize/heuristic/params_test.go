package heuristic

import (
	"strings"
	"testing"
)

func TestParamsRoundTrip(t *testing.T) {
	p := DefaultParams()
	p.Lexical, p.Aside = 0.25, 0.9
	var q Params
	if err := q.Set(p.String()); err != nil || q != p {
		t.Fatalf("%v -> %v (%v)", p, q, err)
	}
	for _, bad := range []string{"lexical", "nope=1", "aside=x"} {
		q := DefaultParams()
		if err := q.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if bad == "nope=1" && !strings.Contains(err.Error(), "lexical") {
			t.Errorf("unknown weight error does not list the known ones: %v", err)
		}
	}
}
