package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
)

func TestDemoFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    demoFlags
		wantErr string
	}{
		{"defaults ask on the screen", nil, demoFlags{speed: 1, approve: "ask"}, ""},
		{"headless defaults to auto", []string{"--headless"}, demoFlags{speed: 1, approve: "auto", headless: true}, ""},
		{"fast", []string{"--speed", "0", "--approve", "deny"}, demoFlags{speed: 0, approve: "deny"}, ""},
		{"headless cannot ask", []string{"--headless", "--approve", "ask"}, demoFlags{}, "no screen to ask on"},
		{"bad approve", []string{"--approve", "maybe"}, demoFlags{}, `--approve "maybe"`},
		{"negative speed", []string{"--speed", "-1"}, demoFlags{}, "--speed"},
		{"stray argument", []string{"now"}, demoFlags{}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDemoFlags(tt.args)
			if tt.wantErr != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !asUsage(err, &ue) {
					t.Fatalf("err = %v, want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if got.sandbox == nil || got.sandbox.mode != "auto" {
				t.Errorf("sandbox flags %+v, want auto by default", got.sandbox)
			}
			got.sandbox = nil
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func asUsage(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	*ue = u
	return ok
}

func TestTurnDelay(t *testing.T) {
	for _, c := range []struct {
		speed float64
		want  time.Duration
	}{{0, 0}, {1, demoTurn}, {2, demoTurn / 2}, {0.5, 2 * demoTurn}} {
		if got := turnDelay(c.speed); got != c.want {
			t.Errorf("turnDelay(%v) = %v, want %v", c.speed, got, c.want)
		}
	}
}

// TestDemoHeadless runs the whole demo without a screen and reads its
// JSON lines: the search, both hypotheses, the revert, the merge, the end.
func TestDemoHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	var out, errb bytes.Buffer
	dir := filepath.Join(t.TempDir(), "shop")
	if err := runDemo(context.Background(), []string{"--headless", "--speed", "0", "--dir", dir}, &out, &errb); err != nil {
		t.Fatalf("demo: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	seen := map[event.Type]int{}
	maxDepth := 0
	var last event.Event
	for _, l := range lines[:len(lines)-1] {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not an event: %q: %v", l, err)
		}
		seen[e.Type]++
		if e.Node != nil {
			maxDepth = max(maxDepth, e.Node.Depth)
		}
		if e.Type == event.Plan {
			last = e
		}
	}
	if maxDepth < 2 {
		t.Errorf("search depth %d, want at least three levels", maxDepth+1)
	}
	for _, typ := range []event.Type{event.SearchNode, event.Ranked, event.Checkpoint, event.Approval, event.Done} {
		if seen[typ] == 0 {
			t.Errorf("no %s event", typ)
		}
	}
	if last.Plan == nil || last.Plan.Merged == "" || len(last.Plan.Hypotheses) != 2 ||
		last.Plan.Hypotheses[0].Status != "v" || last.Plan.Hypotheses[1].Status != "!" {
		t.Errorf("final plan: %+v", last.Plan)
	}
	if !strings.Contains(lines[len(lines)-1], `"status":"submitted"`) {
		t.Errorf("summary line: %s", lines[len(lines)-1])
	}
}
