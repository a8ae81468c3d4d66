package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/internal/testtree"
	"github.com/swe-adept/swe-adept/tui"
)

// replayFixture is a recorded run: the workbench's own sample events.
var replayFixture = filepath.Join("..", "agent", "replay", "testdata", "run")

// finalScreen drives the workbench with events until the run is done and
// returns its last screen without colours.
func finalScreen(t *testing.T, ch <-chan event.Event, gate *event.Gate, isReplay bool) string {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	m := tui.New(tui.Options{Events: ch, Gate: gate, Replay: isReplay, NoColor: true, Title: "replay r20261122",
		Now: func() time.Time { return time.Date(2026, 11, 22, 5, 2, 0, 0, time.UTC) }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 44))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("done: submitted"))
	}, teatest.WithDuration(screenWait))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return ansi.Strip(tm.FinalModel(t, teatest.WithFinalTimeout(screenWait)).View())
}

// TestReplayFinalScreen checks that a replay ends on the screen the run's
// events draw when fed straight in (the reference), whatever the panes'
// current look.
func TestReplayFinalScreen(t *testing.T) {
	evs, err := replay.Load(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	direct := make(chan event.Event, len(evs))
	for _, e := range evs {
		direct <- e
	}
	close(direct)
	want := finalScreen(t, direct, nil, true)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := event.NewGate()
	ch, wait := replay.Stream(ctx, evs, replay.Options{Speed: 0, Gate: gate})
	got := finalScreen(t, ch, gate, true)
	cancel()
	if err := wait(); err != nil && err != context.Canceled {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("replayed screen differs from the directly fed one:\n--- replay\n%s\n--- direct\n%s", got, want)
	}
	for _, part := range []string{"shop/money.py:round_cents", "H2", "final report", "done: submitted"} {
		if !strings.Contains(want, part) {
			t.Fatalf("the final screen lacks %q:\n%s", part, want)
		}
	}
}

// TestReplayMatchesLiveRun runs the scripted sample run live in the
// workbench, then replays its saved events: both end on the same screen.
func TestReplayMatchesLiveRun(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the scripted resolution runs the sample's tests")
	}
	repo := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "run", "inventory"), repo)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "inventory"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	loc, err := llm.LoadScript(filepath.Join("..", "testdata", "run", "localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := llm.LoadScript(filepath.Join("..", "testdata", "run", "resolve.json"))
	if err != nil {
		t.Fatal(err)
	}
	issue, err := os.ReadFile(filepath.Join("..", "testdata", "run", "issue.md"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(context.Background(), run.Options{Repo: repo, Issue: string(issue), Approve: "auto",
		LocalizeModel: llm.NewScripted(loc), ResolveModel: llm.NewScripted(res), ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	live := finalScreen(t, r.Events(), r.Gate(), false)
	if sum, err := r.Wait(); err != nil || sum.Status != "submitted" {
		t.Fatalf("live run ended %q: %v", sum.Status, err)
	}

	evs, err := replay.Load(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	gate := event.NewGate()
	ch, wait := replay.Stream(context.Background(), evs, replay.Options{Speed: 0, Gate: gate})
	replayed := finalScreen(t, ch, gate, true)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if replayed != live {
		t.Fatalf("replay differs from the live run:\n--- replay\n%s\n--- live\n%s", replayed, live)
	}
}

// TestReplaySteppedFromTheWorkbench drives a paused replay with the
// workbench's keys: s lets one tool call through, p resumes to the end.
func TestReplaySteppedFromTheWorkbench(t *testing.T) {
	evs, err := replay.Load(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := event.NewGate()
	gate.Pause() // as if p was pressed before the first call
	ch, wait := replay.Stream(ctx, evs, replay.Options{Speed: 0, Gate: gate})
	m := tui.New(tui.Options{Events: ch, Gate: gate, Cancel: cancel, Replay: true, NoColor: true, Title: "replay",
		Now: func() time.Time { return evs[0].Time }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 44))
	has := func(s string) func([]byte) bool { return func(b []byte) bool { return bytes.Contains(b, []byte(s)) } }
	teatest.WaitFor(t, tm.Output(), has("phase: localize"), teatest.WithDuration(screenWait))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")})
	teatest.WaitFor(t, tm.Output(), has("find_code_def"), teatest.WithDuration(screenWait))
	if !gate.Paused() {
		t.Fatal("a step resumed the replay")
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	teatest.WaitFor(t, tm.Output(), has("done: submitted"), teatest.WithDuration(screenWait))
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(screenWait))
}

// screenWait bounds each wait for the screen: what is waited for comes in
// a second or two, and a loaded machine (the race detector's build under
// parallel packages) can take many times longer.
const screenWait = 2 * time.Minute
