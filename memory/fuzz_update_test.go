package memory

import (
	"encoding/json"
	"testing"
)

// FuzzUpdateTodos applies two lists from the fuzzer with checkpoints between them and checks what
// identity keeping promises: no checkpoint is ever lost, the memory stays valid, a failed update
// changes nothing, and the rendered list sent back changes nothing.
func FuzzUpdateTodos(f *testing.F) {
	f.Add("- [ ] a\n- [ ] b\n- [ ] c", "- [v] a\n- [ ] new\n- [-] c")
	f.Add("1. [x] write test\n2. fix loop", "- [ ] completely different")
	f.Add("- [ ] a\n  - [ ] nested", "")
	f.Add("- [ ] a  (t1)", "- [ ] b  (t1)\n- [ ] a (t1)")
	f.Fuzz(func(t *testing.T, first, second string) {
		m := New("fuzz")
		if _, err := m.UpdateHypotheses("- [-] h"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.UpdateTodos("h1", first); err != nil {
			return
		}
		h := m.Hypothesis("h1")
		hashes := map[string]string{}
		for i, td := range h.Todos {
			if i%2 == 0 {
				hash := "c0ffee" + td.ID
				if err := m.SetCheckpoint("h1", td.ID, Checkpoint{Hash: hash}); err != nil {
					t.Fatal(err)
				}
				hashes[hash] = td.ID
			}
		}
		before, _ := json.Marshal(m)
		if _, err := m.UpdateTodos("h1", second); err != nil {
			if after, _ := json.Marshal(m); string(after) != string(before) {
				t.Fatalf("failed update changed the memory: %v", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("invalid after update: %v", err)
		}
		for _, td := range h.Todos {
			if id, ok := hashes[td.Hash]; ok {
				if id != td.ID {
					t.Fatalf("checkpoint %s moved from %s to %s", td.Hash, id, td.ID)
				}
				delete(hashes, td.Hash)
			}
		}
		if len(hashes) > 0 {
			t.Fatalf("checkpoints lost: %v", hashes)
		}
		ch, err := m.UpdateTodos("h1", m.TodoOverview(h))
		if err != nil {
			t.Fatalf("rendered list rejected: %v\n%s", err, m.TodoOverview(h))
		}
		if !ch.Empty() {
			t.Fatalf("rendered list sent back changed %s:\n%s", ch, m.TodoOverview(h))
		}
	})
}
