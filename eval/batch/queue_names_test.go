package batch

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestQueueNames(t *testing.T) {
	a, err := namesFor("/data/out.v1/batch one")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := namesFor("/elsewhere/batch one")
	if a.Batch == b.Batch {
		t.Fatalf("two folders of the same name share %q", a.Batch)
	}
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, n := range []string{a.Batch, a.Stream, a.Results, a.Claims, a.Runs} {
		if !valid.MatchString(n) {
			t.Errorf("%q is not a valid stream or bucket name", n)
		}
	}
	if !strings.HasPrefix(a.Batch, "batch_one-") {
		t.Errorf("batch name %q does not show the folder", a.Batch)
	}
}

func TestToken(t *testing.T) {
	for _, id := range []string{"django__django-11099", "a.b/c d>*", "", "é"} {
		tok := token(id)
		if strings.ContainsAny(tok, ".*> /") {
			t.Errorf("token(%q) = %q holds a character NATS gives meaning to", id, tok)
		}
	}
	if token("a") == token("b") {
		t.Fatal("tokens collide")
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"nats://localhost:4222", "nats://localhost:4222"},
		{"nats://s3cret@queue:4222", "nats://***@queue:4222"},
		{"nats://ann:pw@a:4222,nats://b:4222", "nats://***@a:4222,nats://b:4222"},
		{"::", "(unreadable URL)"},
	}
	for _, tt := range tests {
		got := redactURL(tt.in)
		if got != tt.want || strings.Contains(got, "s3cret") || strings.Contains(got, "pw") {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"done.json": `{"status":"submitted"}`, "events.jsonl": "{}\n", "sub/patch.diff": "diff"}
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := packFolder(src, &buf); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "run")
	if err := unpackFolder(&buf, dst); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if got := readFile(t, filepath.Join(dst, name)); got != body {
			t.Errorf("%s = %q", name, got)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, "link")); !os.IsNotExist(err) {
		t.Errorf("a link travelled: %v", err)
	}
}

// FuzzUnpackFolder feeds arbitrary bytes as a run folder archive, as a
// shared server could: nothing may land outside the target folder.
func FuzzUnpackFolder(f *testing.F) {
	var good bytes.Buffer
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "done.json"), []byte("{}"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := packFolder(dir, &good); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		dst := filepath.Join(root, "run")
		_ = unpackFolder(bytes.NewReader(data), dst)
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "run" {
				t.Fatalf("unpacking wrote %q outside the run folder", e.Name())
			}
		}
	})
}
