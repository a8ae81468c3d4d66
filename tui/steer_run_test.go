package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// The steering harness, on the screen: a real run (real index, search, git,
// shell; scripted model choices) in ask mode, whose agents ask every
// question twice: the ranking, a command, a revert, a merge. Its events go
// to the workbench as the program would send them, and each dialog that
// opens is answered with keys, as an engineer would.

const runSample = "../testdata/run"

// answer is what the engineer does in one dialog: keys, after the
// screen is resized to size (when set) or while paused (the run was
// paused before the question came).
type answer struct {
	keys []string
	size *tea.WindowSizeMsg
}

func keys(k ...string) answer { return answer{keys: k} }

// sampleRepo makes a git repository of the run sample.
func sampleRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(runSample, "inventory")+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy the sample: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "sample"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func loadScript(t *testing.T, name string) *llm.Script {
	t.Helper()
	s, err := llm.LoadScript(filepath.Join(runSample, name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// screenRun is one steered run on the screen.
type screenRun struct {
	t       *testing.T
	m       *Model
	r       *run.Run
	answers map[string][]answer
	asked   map[string]int // questions per kind
	ids     map[string]bool
	resolve *llm.Scripted
}

func startScreenRun(t *testing.T, repo string, opts run.Options, answers map[string][]answer) *screenRun {
	t.Helper()
	opts.Repo, opts.Approve = repo, "ask"
	if opts.Resume == "" {
		opts.Issue = string(must(os.ReadFile(filepath.Join(runSample, "issue.md"))))
	}
	res, _ := opts.ResolveModel.(*llm.Scripted)
	r, err := run.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(120, 40, Options{Gate: r.Gate(), Cancel: r.Cancel})
	return &screenRun{t: t, m: m, r: r, answers: answers, asked: map[string]int{}, ids: map[string]bool{}, resolve: res}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// play feeds every event to the screen and answers each dialog as it
// opens; pause, when set, is called on each event before the screen sees
// it (to pause the run ahead of a question). It returns the run's summary.
func (s *screenRun) play(pause func(e event.Event)) runfolder.Summary {
	for e := range s.r.Events() {
		if pause != nil {
			pause(e)
		}
		s.m.Update(eventMsg{e})
		if e.Type == event.Approval && !s.shown(e.Approval) {
			// The run now waits on a question the screen does not show: it
			// would hang. Say so, and stop it.
			s.t.Errorf("the screen does not show question %s (%s)", e.Approval.ID, e.Approval.Action)
			s.r.Cancel()
		}
		if s.m.dialog != nil && !s.m.dialog.req.Answered() && !s.m.quitting {
			s.answer()
		}
	}
	s.m.Update(eventsClosed{})
	sum, _ := s.r.Wait()
	return sum
}

// shown reports whether the screen shows req, or holds it for when the
// open dialog is answered.
func (s *screenRun) shown(req *event.ApprovalRequest) bool {
	if s.m.quitting || s.m.dialog != nil && s.m.dialog.req.Same(req) {
		return true
	}
	for _, q := range s.m.queue {
		if q.Same(req) {
			return true
		}
	}
	return false
}

// answer answers the open dialog with the scenario's keys for its kind
// and round (approve when it has none left).
func (s *screenRun) answer() {
	req := s.m.dialog.req
	if s.ids[req.ID] {
		s.t.Errorf("question %s shown twice", req.ID)
	}
	s.ids[req.ID] = true
	kind := event.Kind(req.Action)
	n := s.asked[kind]
	s.asked[kind]++
	a := keys("a")
	if n < len(s.answers[kind]) {
		a = s.answers[kind][n]
	}
	if a.size != nil {
		s.m.Update(*a.size)
	}
	for _, k := range a.keys {
		adding := s.m.dialog != nil && s.m.dialog.mode == modeAdd
		if len(k) > 1 && k != "enter" && k != "esc" && k != "up" && k != "down" {
			typeText(s.m, k)
			continue
		}
		_, cmd := s.m.Update(press(k))
		if adding && k == "enter" { // the run checks an added location
			for _, msg := range runCmd(cmd) {
				s.m.Update(msg)
			}
		}
		if s.m.dialog == nil || s.m.quitting {
			break
		}
	}
	if s.m.dialog != nil && s.m.dialog.req.Same(req) && !req.Answered() && !s.m.quitting {
		s.t.Errorf("%s %s: the keys %v left the question open:\n%s", kind, req.ID, a.keys, ansi.Strip(s.m.View()))
		s.r.Cancel() // nobody else will answer it
	}
}

func TestSteeringOnTheScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("plays whole runs")
	}
	refuse := func(why string) answer { return keys("r", why, "enter") }
	tests := []struct {
		name    string
		answers map[string][]answer
		status  string
		asked   map[string]int
		saw     []string // activity lines the run wrote
	}{
		{"refuse, then approve", map[string][]answer{
			"locations": {refuse("look at the cart too")}, "bash": {refuse("use cat")},
			"revert": {refuse("keep t2")}, "merge": {refuse("run the tests first")},
		}, "submitted", map[string]int{"locations": 2, "bash": 2, "revert": 2, "merge": 2},
			[]string{"locations refused: look at the cart too", "bash md5sum inventory/pricing.py: refuse  (use cat)"}},
		{"refuse twice", map[string][]answer{
			"locations": {refuse("no"), refuse("still no")}, "bash": {refuse("no"), refuse("still no")},
			"revert": {refuse("no"), refuse("still no")}, "merge": {refuse("no"), refuse("still no")},
		}, "submitted_unmerged", map[string]int{"locations": 3, "bash": 2, "revert": 2, "merge": 2}, nil},
		{"choose another, then refuse", map[string][]answer{
			"locations": {keys("d", "+", "inventory/nope.py", "enter", "+", "inventory/cart.py", "enter", "a")},
			"bash":      {keys("e", " README.md", "enter"), refuse("enough hashing")},
			"revert":    {keys("c", "down", "enter"), refuse("once is enough")},
			"merge":     {keys("c", "enter"), refuse("one merge is enough")},
		}, "submitted", map[string]int{"locations": 1, "bash": 2, "revert": 2, "merge": 2},
			[]string{"edit_locations ranked locations: choose", "bash md5sum inventory/pricing.py: choose md5sum inventory/pricing.py README.md"}},
		{"edit, then refuse", map[string][]answer{
			"locations": {keys("J", "d", "r", "the list is fine, search again", "enter")},
			"bash":      {keys("A", "enter"), refuse("not asked: the prefix is allowed")},
		}, "submitted", map[string]int{"locations": 2, "bash": 1, "revert": 2, "merge": 2},
			[]string{"bash md5sum inventory/pricing.py: choose always: md5sum"}},
		{"answer after a resize", map[string][]answer{
			"locations": {{keys: []string{"r", "narrow", "enter"}, size: &tea.WindowSizeMsg{Width: 80, Height: 24}}},
			"bash":      {{keys: []string{"a"}, size: &tea.WindowSizeMsg{Width: 100, Height: 30}}},
			"revert":    {{keys: []string{"r", "wide", "enter"}, size: &tea.WindowSizeMsg{Width: 200, Height: 60}}},
			"merge":     {{keys: []string{"a"}, size: &tea.WindowSizeMsg{Width: 80, Height: 24}}},
		}, "submitted", map[string]int{"locations": 2, "bash": 2, "revert": 2, "merge": 2}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := sampleRepo(t)
			s := startScreenRun(t, repo, run.Options{Apply: true,
				LocalizeModel: llm.NewScripted(loadScript(t, "localize3.json")), ResolveModel: llm.NewScripted(loadScript(t, "steer.json"))}, tc.answers)
			sum := s.play(nil)
			if sum.Status != tc.status {
				t.Errorf("status %s, want %s: %s", sum.Status, tc.status, sum.Message)
			}
			for kind, n := range tc.asked {
				if s.asked[kind] != n {
					t.Errorf("%s shown %d times, want %d (%v)", kind, s.asked[kind], n, s.asked)
				}
			}
			log := activityText(s.m)
			for _, want := range tc.saw {
				if !strings.Contains(log, want) {
					t.Errorf("the activity lacks %q:\n%s", want, log)
				}
			}
			want := "done: submitted"
			if tc.status != "submitted" {
				want = "ended: " + tc.status
			}
			if bar := ansi.Strip(s.m.statusBar()); !strings.Contains(bar, want) {
				t.Errorf("status bar %q, want %q", bar, want)
			}
			if sum.Applied != (tc.status == "submitted") {
				t.Errorf("applied %v with status %s", sum.Applied, sum.Status)
			}
		})
	}
}

func activityText(m *Model) string {
	var b strings.Builder
	for _, l := range m.act.log {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

// TestSteeringWhilePaused: the engineer pauses the run just before a
// question, steps it into the question and answers while paused: the run
// stays paused after the answer and goes on when resumed, to the second
// round. Once for the ranking (refused: the localizer searches again) and
// once for a command.
func TestSteeringWhilePaused(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole run")
	}
	repo := sampleRepo(t)
	s := startScreenRun(t, repo, run.Options{LocalizeModel: llm.NewScripted(loadScript(t, "localize3.json")),
		ResolveModel: llm.NewScripted(loadScript(t, "steer.json"))},
		map[string][]answer{"locations": {keys("r", "paused, but look again", "enter")}, "bash": {keys("r", "paused, but no", "enter")}})
	var states []string
	waiting := false // an answer was given while paused; the run must wait
	sum := s.play(func(e event.Event) {
		switch {
		case e.Type == event.Shortlist && s.asked["locations"] == 0,
			e.Type == event.ModelReply && strings.Contains(e.Text, "Command, first round"):
			s.m.Update(press("p")) // paused before the call that leads to the question
			s.m.Update(press("s")) // one call through: the question comes
			waiting = true
		case waiting && e.Type == event.ModelReply:
			// After the answer the agent asked its model again; its next
			// call waits at the gate until the engineer resumes.
			states = append(states, ansi.Strip(s.m.state()))
			waiting = false
			s.m.Update(press("p"))
		}
	})
	if len(states) != 2 || !strings.Contains(states[0], "stepping") || !strings.Contains(states[1], "stepping") {
		t.Errorf("after each answer the run was %q, want it still stepping", states)
	}
	if sum.Status != "submitted" || s.asked["locations"] != 2 || s.asked["bash"] != 2 {
		t.Fatalf("status %s after %v questions: %s", sum.Status, s.asked, sum.Message)
	}
}

// TestSteeringAfterResume: the engineer quits the workbench while a
// question is open; the resumed run, on a new screen, asks it first again
// under a new id, and goes on from the answer.
func TestSteeringAfterResume(t *testing.T) {
	if testing.Short() {
		t.Skip("plays whole runs")
	}
	for _, kind := range []string{"locations", "bash", "revert", "merge"} {
		t.Run(kind, func(t *testing.T) {
			repo := sampleRepo(t)
			res := llm.NewScripted(loadScript(t, "steer.json"))
			s := startScreenRun(t, repo, run.Options{LocalizeModel: llm.NewScripted(loadScript(t, "localize3.json")), ResolveModel: res},
				map[string][]answer{kind: {keys("q")}})
			if sum := s.play(nil); sum.Status != "cancelled" {
				t.Fatalf("quitting at the %s question ended %s", kind, sum.Status)
			}
			rest := &llm.Script{Model: "scripted-steering", Turns: loadScript(t, "steer.json").Turns[res.Played():]}
			s2 := startScreenRun(t, repo, run.Options{Resume: s.r.ID, LocalizeModel: llm.NewScripted(loadScript(t, "localize3.json")),
				ResolveModel: llm.NewScripted(rest)}, nil)
			s2.ids = s.ids
			var first string
			s2.play(func(e event.Event) {
				if e.Type == event.Approval && first == "" {
					first = event.Kind(e.Approval.Action)
				}
			})
			sum, _ := s2.r.Wait()
			if first != kind || sum.Status != "submitted" {
				t.Errorf("the resumed run asked %q first and ended %s, want %s first and submitted: %s", first, sum.Status, kind, sum.Message)
			}
			if bar := ansi.Strip(s2.m.statusBar()); !strings.Contains(bar, "done: submitted") {
				t.Errorf("status bar %q", bar)
			}
		})
	}
}
