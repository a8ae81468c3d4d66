package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/demo"
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
		{"fast", []string{"--speed", "0", "--approve", "deny"}, demoFlags{speed: 0, approve: "deny", chosen: true}, ""},
		{"headless cannot ask", []string{"--headless", "--approve", "ask"}, demoFlags{}, "no screen to ask on"},
		{"bad approve", []string{"--approve", "maybe"}, demoFlags{}, `--approve "maybe"`},
		{"negative speed", []string{"--speed", "-1"}, demoFlags{}, "--speed"},
		{"stray argument", []string{"now"}, demoFlags{}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pos, err := parseAs("demo", declareDemoFlags, tt.args)
			if err == nil {
				got, err = checkDemoFlags(got, pos)
			}
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
	if err := runCommand(context.Background(), "demo", []string{"--headless", "--speed", "0", "--dir", dir}, nil, &out, &errb); err != nil {
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

// TestDemoBranchesOnEveryAnswer walks every answer of the demo's dialogs:
// each leads to a different, coherent end.
func TestDemoBranchesOnEveryAnswer(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the demo's tests need it")
	}
	tests := []struct {
		name   string
		answer func(req *event.ApprovalRequest) event.Reply
		merged string // the branch merged, by its short name; "" for none
		files  string // the patch's stat starts so
		call   string // a tool call the path makes, beyond the approved one's
	}{
		{"approve everything", func(*event.ApprovalRequest) event.Reply { return event.Reply{Decision: event.Approve} }, "round-half-up", "2 files", ""},
		{"refuse the revert", func(req *event.ApprovalRequest) event.Reply {
			if req.Action == "revert_to" {
				return event.Reply{Decision: event.Refuse, Reason: "keep working on the first branch"}
			}
			return event.Reply{Decision: event.Approve}
		}, "total-from-list-prices", "3 files", ""},
		{"choose the other checkpoint", func(req *event.ApprovalRequest) event.Reply {
			if req.Action == "revert_to" && len(req.Options) > 0 {
				return event.Reply{Decision: event.Choose, Choice: req.Options[0]}
			}
			return event.Reply{Decision: event.Approve}
		}, "round-half-up", "3 files", ""},
		{"refuse the ranking once", func() func(req *event.ApprovalRequest) event.Reply {
			refused := false
			return func(req *event.ApprovalRequest) event.Reply {
				if req.Action == run.EditLocationsAction && !refused {
					refused = true
					return event.Reply{Decision: event.Refuse, Reason: "look again below Cart.total"}
				}
				return event.Reply{Decision: event.Approve}
			}
		}(), "round-half-up", "2 files", ""},
		{"edit the ranking", func(req *event.ApprovalRequest) event.Reply {
			if req.Action == run.EditLocationsAction {
				return event.Reply{Decision: event.Choose, Choice: strings.Join(req.Options[:len(req.Options)-1], "\n")}
			}
			return event.Reply{Decision: event.Approve}
		}, "round-half-up", "2 files", `"path":"shop"`},
		{"refuse the merge", func(req *event.ApprovalRequest) event.Reply {
			if req.Action == "merge_solution" {
				return event.Reply{Decision: event.Refuse, Reason: "I want to review it first"}
			}
			return event.Reply{Decision: event.Approve}
		}, "", "2 files", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := demo.Setup(context.Background(), dir); err != nil {
				t.Fatal(err)
			}
			loc, res, err := demo.Scripts()
			if err != nil {
				t.Fatal(err)
			}
			r, err := run.Start(context.Background(), run.Options{Repo: dir, Issue: demo.Issue(), Approve: "ask",
				LocalizeModel: llm.NewScripted(loc), ResolveModel: llm.NewScripted(res)})
			if err != nil {
				t.Fatal(err)
			}
			var calls strings.Builder
			for e := range r.Events() {
				if e.Type == event.Approval {
					e.Approval.Answer(tc.answer(e.Approval))
				}
				if e.Type == event.ToolCall && e.Tool != nil {
					calls.WriteString(e.Tool.Arguments + "\n")
				}
			}
			if tc.call != "" && !strings.Contains(calls.String(), tc.call) {
				t.Errorf("the path made no call with %s", tc.call)
			}
			sum, err := r.Wait()
			want := "submitted"
			if tc.merged == "" {
				want = "submitted_unmerged" // a refused merge is no solution
			}
			if err != nil || sum.Status != want {
				t.Fatalf("status %s err %v, want %s: %s", sum.Status, err, want, sum.Message)
			}
			if !strings.HasPrefix(sum.Stat, tc.files) {
				t.Errorf("patch %q, want %s", sum.Stat, tc.files)
			}
			if got := sum.Merged; (tc.merged == "") != (got == "") || !strings.HasSuffix(got, "/"+tc.merged) && tc.merged != "" {
				t.Errorf("merged %q, want the %q branch", got, tc.merged)
			}
		})
	}
}

// TestDemoOnYourRepository: without a model, the workbench searches the
// engineer's repository with the offline localizer, live, and stops after
// the ranking, keeping it and saying how to go on.
func TestDemoOnYourRepository(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	repo := sampleCheckout(t)
	var out, errb bytes.Buffer
	err := runCommand(context.Background(), "demo", []string{"--repo", repo, "--issue", filepath.Join(runSample, "issue.md"), "--headless", "--speed", "0"}, nil, &out, &errb)
	if err != nil {
		t.Fatalf("demo --repo: %v\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{`"type":"search_node"`, `"type":"ranked"`, `"status":"localized"`, "Configure a model"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %s", want)
		}
	}
	if err := runCommand(context.Background(), "demo", []string{"--repo", repo, "--headless"}, nil, &out, &errb); err == nil {
		t.Error("--repo without --issue or a screen was accepted")
	}
}
