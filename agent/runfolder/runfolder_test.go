package runfolder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"seq":3,"type":"message"}` + "\n", `{"seq":13,"type":"message"}` + "\n"},
		{`{"type":"message","seq":3}`, `{"type":"message","seq":13}`},
		{`{"seq": 3, "text":"{\"seq\":1}"}`, `{"seq":13, "text":"{\"seq\":1}"}`},
		{`{"text":"seq"}`, `{"text":"seq"}`},
		{`not json`, `not json`},
		{`{"seq":"x"}`, `{"seq":"x"}`},
	}
	for _, tc := range tests {
		if got := Renumber(tc.in, 10); got != tc.want {
			t.Errorf("Renumber(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzRenumber(f *testing.F) {
	f.Add(`{"seq":3,"type":"message"}`)
	f.Add(`{"a":{"seq":1},"seq":2}`)
	f.Fuzz(func(t *testing.T, line string) {
		out := Renumber(line, 7)
		if json.Valid([]byte(line)) && !json.Valid([]byte(out)) {
			t.Fatalf("valid JSON %q became invalid %q", line, out)
		}
	})
}

// TestLastSeqSkipsACutLine: a crash that cut the last line short leaves the
// numbering to continue after the last whole event.
func TestLastSeqSkipsACutLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), EventsFile)
	log := `{"seq":1,"type":"message"}` + "\n" + `{"seq":2,"type":"message"}` + "\n" + `{"seq":3,"ty`
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := LastSeq(p); got != 2 {
		t.Errorf("LastSeq = %d, want 2", got)
	}
	if got := LastSeq(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Errorf("LastSeq of nothing = %d", got)
	}
	if !strings.Contains(RunsDir("/r/.git"), "swe-adept") {
		t.Error("RunsDir")
	}
}
