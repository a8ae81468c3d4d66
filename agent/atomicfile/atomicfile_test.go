package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(p, []byte("old and longer content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("content = %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteJSON(p, func() {}); err == nil {
		t.Error("an unencodable value must fail")
	}
	if err := Write(filepath.Join(dir, "no", "such", "dir", "x"), nil); err == nil {
		t.Error("a missing folder must fail")
	}
}
