package index

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadSource(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("x = 1\n"), 50_000)
	for _, c := range []struct {
		name string
		data []byte
		hint int64
	}{
		{"empty", nil, 0},
		{"exact hint", []byte("def f():\n    pass\n"), 18},
		{"grown since the walk", big, 10},
		{"shrunk since the walk", []byte("a"), 4096},
		{"negative hint", []byte("abc"), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readSource(path, c.hint)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.data) {
				t.Fatalf("read %d bytes, want %d", len(got), len(c.data))
			}
		})
	}
	if _, err := readSource(filepath.Join(dir, "missing"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err %v, want not exist", err)
	}
	if _, err := readSource(dir, 0); err == nil {
		t.Errorf("a directory was read as a file")
	}
}
