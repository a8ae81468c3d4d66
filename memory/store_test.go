package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func mustJSON(t testing.TB, m *Memory) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStoreRoundTrip(t *testing.T) {
	m := richMemory(t)
	s := NewStore(filepath.Join(t.TempDir(), "nested", "memory.json"))
	if err := s.Save(m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, got) != mustJSON(t, m) {
		t.Errorf("loaded memory differs:\n%s\n%s", mustJSON(t, got), mustJSON(t, m))
	}
	data, _ := os.ReadFile(s.Path())
	if !strings.HasPrefix(string(data), "{\n  \"version\": 1,") {
		t.Errorf("file does not start with the version: %.40q", data)
	}
	// Loaded memories keep working: ids continue, identities hold.
	if _, err := got.UpdateHypotheses("- [ ] brand new idea"); err != nil {
		t.Fatal(err)
	}
	if got.Hypotheses[0].ID != "h4" {
		t.Errorf("new id after load = %s, want h4", got.Hypotheses[0].ID)
	}
}

func TestStoreSurvivesCrashedWrite(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(filepath.Join(dir, "memory.json"))
	m := richMemory(t)
	if err := s.Save(m); err != nil {
		t.Fatal(err)
	}
	want := mustJSON(t, m)
	// A crash between writing the temp file and renaming it leaves a torn temp file behind.
	torn := filepath.Join(dir, ".memory.json.12345.tmp")
	if err := os.WriteFile(torn, []byte(`{"version": 1, "hypotheses": [{"id": "h1", "con`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatalf("load after crashed write: %v", err)
	}
	if mustJSON(t, got) != want {
		t.Error("crashed write changed the stored memory")
	}
	// The next save still succeeds and replaces the file whole.
	if _, err := got.LogInsightTo("h1", "after the crash"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load()
	if err != nil || len(again.Hypothesis("h1").Insights) != 2 {
		t.Fatalf("reload: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want the file and the old torn temp only", len(entries))
	}
}

func TestStoreRefusesInvalidMemory(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "memory.json"))
	m := richMemory(t)
	if err := s.Save(m); err != nil {
		t.Fatal(err)
	}
	bad := m.Clone()
	bad.Hypotheses[0].Status = "?"
	if err := s.Save(bad); err == nil || !strings.Contains(err.Error(), "refusing to write an invalid memory") {
		t.Fatalf("save of invalid memory: %v", err)
	}
	if got, err := s.Load(); err != nil || mustJSON(t, got) != mustJSON(t, m) {
		t.Errorf("failed save touched the file: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	good := mustJSON(t, richMemory(t))
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(good), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	hyp := func(m map[string]any, i int) map[string]any { return m["hypotheses"].([]any)[i].(map[string]any) }
	tests := []struct {
		name, data, wantErr string
	}{
		{"truncated", good[:len(good)/2], "not valid JSON"},
		{"not an object", `[1, 2]`, "not valid JSON"},
		{"no version", `{"hypotheses": []}`, `no "version" field`},
		{"version zero", `{"version": 0}`, "unsupported version 0"},
		{"newer version", `{"version": 2, "future": true}`, "written by a newer swe-adept (version 2 > 1)"},
		{"wrong field type", `{"version": 1, "hypotheses": "many"}`, "not a memory"},
		{"duplicate ids", edit(func(m map[string]any) { hyp(m, 1)["id"] = hyp(m, 0)["id"] }), `id "h3" appears twice`},
		{"bad id", edit(func(m map[string]any) { hyp(m, 0)["id"] = "x1" }), `hypothesis id "x1" is not h<number>`},
		{"id at counter", edit(func(m map[string]any) { m["next_id"] = 3 }), `"h3" is not below the next id number 3`},
		{"bad status", edit(func(m map[string]any) { hyp(m, 0)["status"] = "done" }), `has invalid status "done"`},
		{"bad to-do status", edit(func(m map[string]any) { hyp(m, 0)["todos"].([]any)[0].(map[string]any)["status"] = "x" }), `h3: to-do t1 has invalid status "x"`},
		{"duplicate to-do", edit(func(m map[string]any) {
			td := hyp(m, 0)["todos"].([]any)
			td[1].(map[string]any)["id"] = "t1"
		}), `h3: to-do id "t1" appears twice`},
		{"missing current", edit(func(m map[string]any) { m["current"] = "h42" }), `current hypothesis "h42" does not exist`},
		{"shared branch", edit(func(m map[string]any) { hyp(m, 1)["branch"] = hyp(m, 0)["branch"] }), "belongs to both h3 and h1"},
		{"empty content", edit(func(m map[string]any) { hyp(m, 0)["content"] = " " }), "hypothesis h3 has no content"},
		{"null hypothesis", `{"version": 1, "next_id": 1, "hypotheses": [null]}`, "hypothesis 1 is null"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("m%d.json", i))
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
			var nv *NewerVersionError
			if errors.As(err, &nv) {
				if !strings.HasPrefix(err.Error(), "memory file "+path+" was written by a newer") {
					t.Errorf("newer-version error = %q", err)
				}
				return
			}
			if !strings.HasPrefix(err.Error(), "memory file "+path+" is corrupt: ") || !strings.HasSuffix(err.Error(), "; delete it or restore from git refs") {
				t.Errorf("corrupt-file error = %q", err)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "none.json"))
	if _, err := s.Load(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error = %v, want fs.ErrNotExist", err)
	}
	m, err := s.LoadOrNew("run7")
	if err != nil || m.RunID != "run7" || m.Version != Version || len(m.Hypotheses) != 0 {
		t.Errorf("LoadOrNew = %+v, %v", m, err)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("a new memory is invalid: %v", err)
	}
}

// TestConcurrentSaves: saves racing on one path each replace the file whole.
func TestConcurrentSaves(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "memory.json"))
	base := richMemory(t)
	var wg sync.WaitGroup
	for g := range 4 {
		m := base.Clone()
		m.Now = nil // the fixture's clock counts steps and is not for sharing
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, err := m.LogInsightTo("h1", fmt.Sprintf("writer %d save %d", g, i)); err != nil {
					t.Error(err)
					return
				}
				if err := s.Save(m); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Hypothesis("h1").Insights); n != 11 {
		t.Errorf("final memory has %d insights on h1, want one writer's 10 plus the first", n)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version": 1, "next_id": 2, "hypotheses": [{"id": "h1", "content": "a", "status": " ", "next_todo": 1}]}`))
	f.Add([]byte(`{"version": 2}`))
	f.Add([]byte(`{"version": 1, "current": "h1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("decoded memory is invalid: %v", err)
		}
		// Whatever loads must keep working.
		_ = m.HypothesisOverview()
		_ = m.CompareReport(nil)
		if _, err := m.UpdateHypotheses("- [ ] fuzz"); err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("update made a loaded memory invalid: %v", err)
		}
	})
}
