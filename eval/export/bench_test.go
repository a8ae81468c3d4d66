package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// BenchmarkSWEAgent builds a trajectory from a 10,900-event run (100
// copies of the sample run's events).
func BenchmarkSWEAgent(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "run", "events.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	evs, err := runfolder.ReadEvents(bytes.NewReader(bytes.Repeat(one, 100)), "bench")
	if err != nil {
		b.Fatal(err)
	}
	r := &Run{Dir: "bench", Events: evs}
	for b.Loop() {
		if t := SWEAgent(r, "x"); len(t.Trajectory) != 1900 {
			b.Fatalf("%d steps", len(t.Trajectory))
		}
	}
}
