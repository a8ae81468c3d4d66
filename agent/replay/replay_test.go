package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

func loadFixture(t *testing.T) []event.Event {
	t.Helper()
	evs, err := Load(filepath.Join("testdata", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 100 {
		t.Fatalf("fixture has %d events", len(evs))
	}
	return evs
}

func TestDelay(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		gap   time.Duration
		speed float64
		cap   time.Duration
		want  time.Duration
	}{
		{"recorded pace", 500 * time.Millisecond, 1, 0, 500 * time.Millisecond},
		{"twice as fast", 500 * time.Millisecond, 2, 0, 250 * time.Millisecond},
		{"long wait capped", 3 * time.Minute, 1, 0, DefaultMaxWait},
		{"cap then speed", 3 * time.Minute, 4, 0, DefaultMaxWait / 4},
		{"own cap", 10 * time.Second, 1, 5 * time.Second, 5 * time.Second},
		{"as fast as possible", time.Second, 0, 0, 0},
		{"negative speed", time.Second, -1, 0, 0},
		{"out of order", -time.Second, 1, 0, 0},
		{"slow motion", time.Second, 0.5, 0, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Delay(t0, t0.Add(tc.gap), tc.speed, tc.cap); got != tc.want {
				t.Fatalf("Delay = %v, want %v", got, tc.want)
			}
		})
	}
	if got := Delay(time.Time{}, t0, 1, 0); got != 0 {
		t.Fatalf("no previous time: %v", got)
	}
}

func TestReadEventsDamaged(t *testing.T) {
	good := `{"seq":1,"time":"2026-11-22T05:00:01Z","type":"run_started","run":{"id":"r1"}}
{"seq":2,"time":"2026-11-22T05:00:02Z","type":"phase","phase":"index"}
`
	tests := []struct {
		name      string
		in        string
		wantTypes []event.Type
		badLines  []int
		trunc     bool
		msg       string
	}{
		{"clean", good, []event.Type{event.RunStarted, event.PhaseChanged}, nil, false, ""},
		{"blank lines", "\n" + good + "\n\n", []event.Type{event.RunStarted, event.PhaseChanged}, nil, false, ""},
		{"truncated last line", good + `{"seq":3,"time":"2026-11-22T05:00:03Z","ty`,
			[]event.Type{event.RunStarted, event.PhaseChanged, event.Error}, []int{3}, true, "truncated at line 3"},
		{"garbage in the middle", strings.Replace(good, "\n", "\nnot json\n", 1),
			[]event.Type{event.RunStarted, event.Error, event.PhaseChanged}, []int{2}, false, "line 2"},
		{"no type", `{"seq":1}` + "\n" + good,
			[]event.Type{event.Error, event.RunStarted, event.PhaseChanged}, []int{1}, false, "no event type"},
		{"two values on a line", `{"type":"phase"} {"type":"phase"}` + "\n",
			[]event.Type{event.Error}, []int{1}, false, "after top-level value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := runfolder.ReadEvents(strings.NewReader(tc.in), "events.jsonl")
			var types []event.Type
			for _, e := range evs {
				types = append(types, e.Type)
			}
			if !equalTypes(types, tc.wantTypes) {
				t.Fatalf("types %v, want %v", types, tc.wantTypes)
			}
			var ce *runfolder.CorruptError
			if tc.badLines == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a CorruptError", err)
			}
			for i, l := range tc.badLines {
				if ce.Bad[i].Line != l {
					t.Fatalf("bad line %d, want %d", ce.Bad[i].Line, l)
				}
			}
			if ce.Trunc != tc.trunc || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("trunc %v, error %q; want %v, %q", ce.Trunc, err, tc.trunc, tc.msg)
			}
			if ce.Read != len(tc.wantTypes)-len(tc.badLines) {
				t.Fatalf("read %d", ce.Read)
			}
		})
	}
}

func equalTypes(a, b []event.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPlayPaceAndOrder(t *testing.T) {
	evs := loadFixture(t)
	var slept []time.Duration
	var got []int
	opts := Options{Speed: 2, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}}
	err := Play(context.Background(), evs, opts, func(e event.Event) error {
		got = append(got, e.Seq)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(evs) {
		t.Fatalf("played %d of %d", len(got), len(evs))
	}
	for i := range got {
		if got[i] != evs[i].Seq {
			t.Fatalf("event %d: seq %d, want %d", i, got[i], evs[i].Seq)
		}
	}
	var total time.Duration
	for _, d := range slept {
		total += d
		if d > DefaultMaxWait/2 {
			t.Fatalf("pause %v over the scaled cap", d)
		}
	}
	// The fixture spans 100 s with one-second gaps; at speed 2 that is 50 s.
	recorded := evs[len(evs)-1].Time.Sub(evs[0].Time)
	if total != recorded/2 {
		t.Fatalf("total pause %v, want %v", total, recorded/2)
	}
}

func TestPlayGateSteps(t *testing.T) {
	evs := loadFixture(t)
	gate := event.NewGate()
	gate.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, wait := Stream(ctx, evs, Options{Gate: gate})
	// Paused: everything before the first tool call still flows, as a live
	// agent runs until its next call.
	first := indexOf(evs, event.ToolCall, 0)
	for i := 0; i < first; i++ {
		if e := <-ch; e.Seq != evs[i].Seq {
			t.Fatalf("got seq %d, want %d", e.Seq, evs[i].Seq)
		}
	}
	gate.Step()
	if e := <-ch; e.Type != event.ToolCall || e.Seq != evs[first].Seq {
		t.Fatalf("a step let through %v #%d, want the first tool call", e.Type, e.Seq)
	}
	second := indexOf(evs, event.ToolCall, first+1)
	for i := first + 1; i < second; i++ {
		<-ch
	}
	cancel() // quitting while paused ends the replay
	if _, ok := <-ch; ok {
		// The player may have been mid-send; drain what it had.
		for range ch {
		}
	}
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("replay stopped with %v, want context.Canceled", err)
	}
}

func TestStreamResume(t *testing.T) {
	evs := loadFixture(t)
	gate := event.NewGate()
	gate.Pause()
	ch, wait := Stream(context.Background(), evs, Options{Gate: gate})
	<-ch
	gate.Resume()
	n := 1
	for range ch {
		n++
	}
	if err := wait(); err != nil || n != len(evs) {
		t.Fatalf("played %d of %d, err %v", n, len(evs), err)
	}
}

func indexOf(evs []event.Event, typ event.Type, from int) int {
	for i := from; i < len(evs); i++ {
		if evs[i].Type == typ {
			return i
		}
	}
	return -1
}

func TestWriteJSONLRoundTrip(t *testing.T) {
	evs := loadFixture(t)
	var buf bytes.Buffer
	if err := WriteJSONL(context.Background(), &buf, evs, Options{}); err != nil {
		t.Fatal(err)
	}
	back, err := runfolder.ReadEvents(&buf, "out")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(evs) || back[len(back)-1].Done == nil || back[len(back)-1].Done.Status != "submitted" {
		t.Fatalf("round trip lost events: %d of %d", len(back), len(evs))
	}
}

func TestFindRun(t *testing.T) {
	repo := t.TempDir()
	git := exec.Command("git", "init", "-q", repo)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	runs := filepath.Join(repo, ".git", "swe-adept", "runs")
	for _, id := range []string{"20261122-050001-ab", "20261122-060001-cd", "20261123-010101-ef"} {
		if err := os.MkdirAll(filepath.Join(runs, id), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	tests := []struct {
		run, want, err string
	}{
		{"20261122-050001-ab", filepath.Join(runs, "20261122-050001-ab"), ""},
		{"20261123", filepath.Join(runs, "20261123-010101-ef"), ""},
		{"20261122", "", "ambiguous"},
		{"nope", "", "no run"},
		{filepath.Join("testdata", "run"), filepath.Join("testdata", "run"), ""},
	}
	for _, tc := range tests {
		got, err := FindRun(ctx, repo, tc.run)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("FindRun(%q) = %q, %v; want error with %q", tc.run, got, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("FindRun(%q): %v", tc.run, err)
		}
		if got != tc.want && !sameFile(got, tc.want) {
			t.Fatalf("FindRun(%q) = %q, want %q", tc.run, got, tc.want)
		}
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func FuzzReadEvents(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "run", EventsFile))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	f.Add(strings.Join(lines[:3], ""))
	f.Add(lines[0][:40])
	f.Add("{}\n{\"type\":\"done\"}\n")
	f.Fuzz(func(t *testing.T, in string) {
		evs, err := runfolder.ReadEvents(strings.NewReader(in), "fuzz")
		var ce *runfolder.CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("a string reader failed with %v", err)
		}
		for _, e := range evs {
			if e.Type == "" {
				t.Fatal("an event without a type got through")
			}
		}
		if ce != nil && ce.Read+len(ce.Bad) != len(evs) {
			t.Fatalf("read %d + bad %d != %d events", ce.Read, len(ce.Bad), len(evs))
		}
	})
}
