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

// TrimTorn cuts only a partial last line, whatever its length, and leaves
// a whole log alone.
func TestTrimTorn(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than one read
	tests := []struct{ name, log, want, cut string }{
		{"whole", "{\"seq\":1}\n{\"seq\":2}\n", "{\"seq\":1}\n{\"seq\":2}\n", ""},
		{"torn", "{\"seq\":1}\n{\"seq\":2,\"ty", "{\"seq\":1}\n", "{\"seq\":2,\"ty"},
		{"torn, long", "{\"seq\":1}\n" + long, "{\"seq\":1}\n", long},
		{"only a torn line", "{\"se", "", "{\"se"},
		{"empty", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), EventsFile)
			if err := os.WriteFile(p, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			cut, err := TrimTorn(p)
			got, _ := os.ReadFile(p)
			if err != nil || cut != tc.cut || string(got) != tc.want {
				t.Errorf("TrimTorn = %.40q, %v; file %.40q; want cut %.40q, file %.40q", cut, err, got, tc.cut, tc.want)
			}
		})
	}
	if cut, err := TrimTorn(filepath.Join(t.TempDir(), "missing")); cut != "" || err != nil {
		t.Errorf("a missing log: %q, %v", cut, err)
	}
}
