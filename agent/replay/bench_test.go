package replay

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// bigLog repeats the fixture's events to the size of a long run.
func bigLog(b *testing.B, copies int) []byte {
	b.Helper()
	one, err := os.ReadFile(filepath.Join("testdata", "run", EventsFile))
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(one, copies)
}

// BenchmarkReadEvents decodes a 10,900-event log (100 copies of the sample run).
func BenchmarkReadEvents(b *testing.B) {
	data := bigLog(b, 100)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := runfolder.ReadEvents(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJSONL plays the same log as fast as possible, as
// replay --headless --speed 0 does.
func BenchmarkWriteJSONL(b *testing.B) {
	evs, err := runfolder.ReadEvents(bytes.NewReader(bigLog(b, 100)), "bench")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := WriteJSONL(context.Background(), io.Discard, evs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
