package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/tui"
)

// replayFixture is a recorded run: the workbench's own sample events.
var replayFixture = filepath.Join("agent", "replay", "testdata", "run")

// finalScreen drives the workbench with events until the run is done and
// returns its last screen without colours.
func finalScreen(t *testing.T, ch <-chan event.Event, gate *event.Gate) string {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	m := tui.New(tui.Options{Events: ch, Gate: gate, Replay: true, NoColor: true, Title: "replay r20261122",
		Now: func() time.Time { return time.Date(2026, 11, 22, 5, 2, 0, 0, time.UTC) }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 44))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("done: submitted"))
	}, teatest.WithDuration(20*time.Second))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return ansi.Strip(tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).View())
}

// TestReplayFinalScreen checks that a replay ends on the screen the run's
// events draw when fed straight in, and that screen against a golden file.
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
	want := finalScreen(t, direct, nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := event.NewGate()
	ch, wait := replay.Stream(ctx, evs, replay.Options{Speed: 0, Gate: gate})
	got := finalScreen(t, ch, gate)
	cancel()
	if err := wait(); err != nil && err != context.Canceled {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("replayed screen differs from the directly fed one:\n--- replay\n%s\n--- direct\n%s", got, want)
	}
	checkReplayGolden(t, filepath.Join("testdata", "replay", "final.golden"), want)
}

func checkReplayGolden(t *testing.T, path, got string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(got, "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	got = strings.Join(lines, "\n") + "\n"
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("final screen differs from %s:\n%s", path, got)
	}
}
