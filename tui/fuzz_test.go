package tui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
)

// FuzzEvents feeds decoded event lines, as a replay reads them from a
// file, to the model: whatever they hold, drawing must not panic, and the
// screen never holds a control or invisible character.
func FuzzEvents(f *testing.F) {
	file, err := os.Open(filepath.Join("testdata", "run.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f.Add(sc.Text())
	}
	file.Close()
	f.Add(`{"type":"search_node","node":{"id":"a","parent":"a"}}`)
	f.Add(`{"type":"plan","plan":{"current":"x","hypotheses":[{"id":"x","todos":[{"id":"t","commit":"c"}]}]}}`)
	f.Add(`{"type":"done","done":{"status":"submitted","report":"\u001b]0;t\u0007 \u009b2J \u202e &#x1b;[2J"}}`)
	f.Add(`{"type":"message","agent":"é\u001b","text":"x"}`)
	f.Add(`{"type":"tool_call","agent":"resolve","tool":{"call_id":"c","name":"bash","arguments":"` + strings.Repeat("é", 100) + `"}}`)
	f.Add(`{"type":"plan","plan":{"current":"x","hypotheses":[{"id":"x","todos":[{"id":"t","status":"v","commit":"abcdefé"}]}]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		var e event.Event
		if json.Unmarshal([]byte(line), &e) != nil {
			return
		}
		for _, sz := range sizes {
			m := testModel(sz.w, sz.h, Options{Replay: true})
			feed(m, e, e)
			for p := pane(0); p < paneCount; p++ {
				m.focus = p
				for _, k := range []string{"enter", "j", "enter", "F", "f"} {
					m.Update(press(k))
				}
				checkHostile(t, m.View())
			}
		}
	})
}
