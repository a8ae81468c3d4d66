package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/golden"
)

func TestMain(m *testing.M) {
	// Golden views drift across colour profiles: force one.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// loadEvents reads a run from testdata.
func loadEvents(t testing.TB, name string) []event.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := event.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// upTo returns the events before the first one that matches.
func upTo(evs []event.Event, stop func(event.Event) bool) []event.Event {
	for i, e := range evs {
		if stop(e) {
			return evs[:i]
		}
	}
	return evs
}

// testModel is a model of the given size with a fixed clock.
func testModel(w, h int, opts Options) *Model {
	opts.NoColor = true
	opts.Now = func() time.Time { return time.Date(2026, 11, 22, 5, 1, 0, 0, time.UTC) }
	if opts.Title == "" {
		opts.Title = "swe-adept demo"
	}
	m := New(opts)
	m.Update(teaSize(w, h))
	return m
}

// feed sends events straight to Update, as the program would.
func feed(m *Model, evs ...event.Event) {
	for _, e := range evs {
		m.Update(eventMsg{e})
	}
}

// checkGolden compares a view with testdata/<Test>/<case>.golden.
func checkGolden(t *testing.T, view string) {
	t.Helper()
	view = ansi.Strip(view)
	var lines []string
	for _, l := range strings.Split(view, "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	got := strings.Join(lines, "\n") + "\n"
	golden.Check(t, t.Name(), got)
}
