package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
)

// The steering harness, headless: a run in ask mode whose scripted agents
// ask every question twice (the ranking, a command, a revert, a merge),
// answered as an engineer would from the run's events, in the orders that
// broke the second round before.

// Answers an engineer gives in a scenario.
var (
	approve = event.Reply{Decision: event.Approve}
	refuse  = func(why string) event.Reply { return event.Reply{Decision: event.Refuse, Reason: why} }
	choose  = func(what string) event.Reply { return event.Reply{Decision: event.Choose, Choice: what} }
	// stop: the engineer quits while this question is open.
	stop = event.Reply{Decision: "stop"}
)

// steering is what one steered run saw.
type steering struct {
	asked  map[string]int    // questions per kind
	ids    map[string]string // every question id, with its kind
	events []event.Event
	sum    runfolder.Summary
}

// steer answers the n-th question of each kind from answers[kind][n]
// (approve when the list is shorter), and fails on a question id seen
// before in the run, an earlier part of a resumed run included.
func steer(t *testing.T, r *Run, answers map[string][]event.Reply, seen map[string]string) steering {
	t.Helper()
	s := steering{asked: map[string]int{}, ids: seen}
	for e := range r.Events() {
		s.events = append(s.events, e)
		if e.Type != event.Approval {
			continue
		}
		q := e.Approval
		kind := event.Kind(q.Action)
		if prev, ok := s.ids[q.ID]; ok {
			t.Errorf("question %s (%s) reuses the id of an earlier %s question", q.ID, kind, prev)
		}
		s.ids[q.ID] = kind
		n := s.asked[kind]
		s.asked[kind]++
		rep := approve
		if n < len(answers[kind]) {
			rep = answers[kind][n]
		}
		if rep == stop {
			r.Cancel()
			continue
		}
		if !q.Answer(rep) {
			t.Errorf("question %s could not be answered", q.ID)
		}
	}
	s.sum, _ = r.Wait()
	return s
}

// steerScripts are the agents of the harness: a localizer that can rank
// three times and a resolver that asks each question twice.
func steerScripts(t *testing.T) (loc, res *llm.Scripted) {
	return script(t, "localize3.json"), script(t, "steer.json")
}

func startSteered(t *testing.T, repo string, opts Options) *Run {
	t.Helper()
	opts.Repo, opts.Approve = repo, "ask"
	if opts.Resume == "" {
		opts.Issue = readIssue(t)
	}
	if opts.LocalizeModel == nil && opts.ResolveModel == nil {
		opts.LocalizeModel, opts.ResolveModel = steerScripts(t)
	}
	r, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// observed reports whether a resolver tool result says want.
func observed(evs []event.Event, tool, want string) bool {
	for _, e := range evs {
		if e.Type == event.ToolResult && e.Tool != nil && e.Tool.Name == tool && strings.Contains(e.Tool.Observation, want) {
			return true
		}
	}
	return false
}

func TestSteeringTwoRounds(t *testing.T) {
	needPython(t)
	type want struct {
		asked  map[string]int
		status string
		said   []string // tool:text the agent read
	}
	all2 := map[string]int{"locations": 1, "bash": 2, "revert": 2, "merge": 2}
	tests := []struct {
		name    string
		answers map[string][]event.Reply
		want    want
	}{
		{"locations: refuse, then approve", map[string][]event.Reply{"locations": {refuse("look at the cart too")}},
			want{map[string]int{"locations": 2, "bash": 2, "revert": 2, "merge": 2}, "submitted", nil}},
		{"locations: refuse twice", map[string][]event.Reply{"locations": {refuse("no"), refuse("still no")}},
			want{map[string]int{"locations": 3, "bash": 2, "revert": 2, "merge": 2}, "submitted", nil}},
		{"command: refuse, then approve", map[string][]event.Reply{"bash": {refuse("use cat instead")}},
			want{all2, "submitted", []string{"bash:use cat instead"}}},
		{"command: refuse twice", map[string][]event.Reply{"bash": {refuse("no hashing"), refuse("still no")}},
			want{all2, "submitted", []string{"bash:still no"}}},
		{"command: don't ask again for the prefix", map[string][]event.Reply{"bash": {choose("always: md5sum")}},
			want{map[string]int{"locations": 1, "bash": 1, "revert": 2, "merge": 2}, "submitted", []string{"bash:inventory/cart.py"}}},
		{"command: edit, then refuse", map[string][]event.Reply{"bash": {choose("md5sum README.md"), refuse("enough")}},
			want{all2, "submitted", []string{"bash:README.md", "bash:enough"}}},
		{"revert: refuse, then approve", map[string][]event.Reply{"revert": {refuse("keep t2")}},
			want{all2, "submitted", []string{"revert_to:keep t2", "revert_to:again-2"}}},
		{"revert: refuse twice", map[string][]event.Reply{"revert": {refuse("keep t2"), refuse("really")}},
			want{all2, "submitted", []string{"revert_to:really"}}},
		{"revert: choose another, then refuse", map[string][]event.Reply{"revert": {choose("h1/t2"), refuse("once is enough")}},
			want{all2, "submitted", []string{"revert_to:step t2", "revert_to:once is enough"}}},
		{"merge: refuse, then approve", map[string][]event.Reply{"merge": {refuse("run the tests first")}},
			want{all2, "submitted", []string{"merge_solution:run the tests first", "merge_solution:Applied the changes"}}},
		{"merge: refuse twice", map[string][]event.Reply{"merge": {refuse("no"), refuse("still no")}},
			want{all2, runfolder.SubmittedUnmerged, []string{"merge_solution:still no"}}},
		{"merge: choose another, then refuse", map[string][]event.Reply{"merge": {choose("again-1"), refuse("one merge is enough")}},
			want{all2, "submitted", []string{"merge_solution:again-1", "merge_solution:one merge is enough"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := sampleRepo(t)
			s := steer(t, startSteered(t, repo, Options{Apply: true}), tc.answers, map[string]string{})
			if s.sum.Applied != (s.sum.Status == "submitted") {
				t.Errorf("status %s, applied %v: only a submitted solution is applied", s.sum.Status, s.sum.Applied)
			}
			for kind, n := range tc.want.asked {
				if s.asked[kind] != n {
					t.Errorf("%s asked %d times, want %d (all: %v)", kind, s.asked[kind], n, s.asked)
				}
			}
			if s.sum.Status != tc.want.status {
				t.Errorf("status %s, want %s: %s", s.sum.Status, tc.want.status, s.sum.Message)
			}
			for _, said := range tc.want.said {
				tool, text, _ := strings.Cut(said, ":")
				if !observed(s.events, tool, text) {
					t.Errorf("no %s result says %q", tool, text)
				}
			}
		})
	}
}

// TestSteeringAnswerWhilePaused: an answer given while the run is paused
// is kept, the run stays paused after it, and goes on when resumed.
func TestSteeringAnswerWhilePaused(t *testing.T) {
	needPython(t)
	repo, _ := sampleRepo(t)
	r := startSteered(t, repo, Options{})
	asked, resumed := 0, false
	for e := range r.Events() {
		switch {
		case e.Type == event.Approval:
			asked++
			if asked == 1 { // the first ranking: refuse it while paused
				r.Gate().Pause()
				e.Approval.Answer(refuse("paused, but look again"))
				continue
			}
			e.Approval.Answer(approve)
		case e.Type == event.ModelCall && r.Gate().Paused() && !resumed:
			// The localizer, searching again, asked its model before its
			// first tool call, which waits at the gate: resume it.
			resumed = true
			r.Gate().Resume()
		}
	}
	sum, _ := r.Wait()
	if asked < 2 || sum.Status != "submitted" {
		t.Fatalf("%d questions, status %s: %s", asked, sum.Status, sum.Message)
	}
}

// TestSteeringAfterResume: the engineer quits while a question is open;
// the resumed run asks it again under a new id, and goes on from the
// answer. A merge refused when the run ended is asked again too.
func TestSteeringAfterResume(t *testing.T) {
	needPython(t)
	tests := []struct {
		name   string
		first  map[string][]event.Reply
		kind   string // the question the resumed run asks first
		again  int    // how many questions of that kind it asks
		status string
	}{
		{"ranking open at the stop", map[string][]event.Reply{"locations": {stop}}, "locations", 1, "submitted"},
		{"ranking refused, then stopped while searching again", map[string][]event.Reply{"locations": {refuse("the cart"), stop}}, "locations", 1, "submitted"},
		{"command open at the stop", map[string][]event.Reply{"bash": {stop}}, "bash", 2, "submitted"},
		{"revert open at the stop", map[string][]event.Reply{"revert": {stop}}, "revert", 2, "submitted"},
		{"merge open at the stop", map[string][]event.Reply{"merge": {stop}}, "merge", 2, "submitted"},
		{"merge refused twice, the run ended", map[string][]event.Reply{"merge": {refuse("no"), refuse("no")}}, "merge", 1, "submitted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := sampleRepo(t)
			loc, res := steerScripts(t)
			r := startSteered(t, repo, Options{LocalizeModel: loc, ResolveModel: res})
			ids := map[string]string{}
			first := steer(t, r, tc.first, ids)
			if first.sum.Status == "submitted" {
				t.Fatalf("the first part ended %s", first.sum.Status)
			}
			// The agent goes on from the turn after the last it played.
			rest := &llm.Script{Model: "scripted-steering", Turns: scriptTurns(t, "steer.json")[res.Played():]}
			if len(rest.Turns) == 0 {
				rest.Turns = []llm.Turn{{Content: "nothing left to do"}}
			}
			r2 := startSteered(t, repo, Options{Resume: r.ID, LocalizeModel: script(t, "localize3.json"), ResolveModel: llm.NewScripted(rest)})
			s := steer(t, r2, nil, ids)
			var order []string
			for _, e := range s.events {
				if e.Type == event.Approval {
					order = append(order, event.Kind(e.Approval.Action))
				}
			}
			if len(order) == 0 || order[0] != tc.kind || s.asked[tc.kind] != tc.again {
				t.Errorf("the resumed run asked %v, want %s first and %d times", order, tc.kind, tc.again)
			}
			if s.sum.Status != tc.status {
				t.Errorf("resumed run ended %s, want %s: %s", s.sum.Status, tc.status, s.sum.Message)
			}
		})
	}
}

func scriptTurns(t *testing.T, name string) []llm.Turn {
	t.Helper()
	s, err := llm.LoadScript(filepath.Join(sampleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return s.Turns
}

// TestVetLocation: a location the engineer adds in the dialog must name
// something in the repository; the reason says what is wrong.
func TestVetLocation(t *testing.T) {
	repo, _ := sampleRepo(t)
	ix, err := index.Build(context.Background(), repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		loc  string
		want string // "" for accepted
	}{
		{"inventory/pricing.py", ""},
		{"inventory/pricing.py:apply_discount", ""},
		{"- inventory/cart.py:Cart.total", ""},
		{"README.md", ""},
		{"inventory/nope.py", "no file inventory/nope.py"},
		{"inventory/pricing.py:apply_discont", "has no function or class apply_discont (did you mean apply_discount?)"},
		{"../outside.py", "outside the repository"},
		{"/etc/passwd", "outside the repository"},
	} {
		err := vetLocation(repo, ix, tc.loc)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("vetLocation(%q) = %v, want %q", tc.loc, err, tc.want)
		}
	}
}
