package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIndexCommandJSON(t *testing.T) {
	var out bytes.Buffer
	repo := filepath.Join("..", "testdata", "index", "gorepo")
	if err := runCommand(context.Background(), "index", []string{"--repo", repo, "--json", "--no-cache"}, nil, &out, nil); err != nil {
		t.Fatalf("index --json: %v", err)
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n"); n != 0 {
		t.Fatalf("want one JSON line, got %d more:\n%s", n, out.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	for _, k := range []string{"files", "units", "edges", "resolved_calls", "unresolved_calls", "skipped", "seconds", "cache", "languages"} {
		if _, ok := got[k]; !ok {
			t.Errorf("key %q missing from %s", k, out.String())
		}
	}
	if got["files"] != float64(3) || got["cache"] != "cold" {
		t.Errorf("files=%v cache=%v, want 3 and cold", got["files"], got["cache"])
	}
}

func TestIndexCommandHuman(t *testing.T) {
	repo := filepath.Join("..", "testdata", "index", "pyrepo")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--repo", repo, "--no-cache"}, []string{"files    12 (python 12)", "cache    cold"}},
		{[]string{"--repo", repo, "--no-cache", "--stats"}, []string{"lines    137", "MB/s"}},
	} {
		var out bytes.Buffer
		if err := runCommand(context.Background(), "index", tt.args, nil, &out, nil); err != nil {
			t.Fatalf("index %v: %v", tt.args, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("index %v output lacks %q:\n%s", tt.args, w, out.String())
			}
		}
	}
}

func TestIndexCommandBadRepo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--repo", filepath.Join(t.TempDir(), "missing")}, "no such folder"},
		{[]string{"--repo", file}, "a file, not a folder"},
		{[]string{"--json", "--stats"}, "do not go together"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		err := runCommand(context.Background(), "index", tt.args, nil, &bytes.Buffer{}, nil)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("index %v: err %v, want a usage error about %q", tt.args, err, tt.want)
		}
	}
}
