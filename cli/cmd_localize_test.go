package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/localize"
)

func TestLocalizeCommand(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("SWE_ADEPT_MODEL", "")
	repo := filepath.Join("..", "testdata", "localize", "shop")
	issue := filepath.Join("..", "testdata", "localize", "issue.md")
	tests := []struct {
		name  string
		args  []string
		first string // best function
	}{
		{"heuristic by default", nil, "shop/money.py:round_money"},
		{"heuristic by name", []string{"--model", "heuristic", "--json"}, "shop/money.py:round_money"},
		{"scripted", []string{"--script", filepath.Join("..", "testdata", "localize", "script.json")}, "shop/money.py:round_money"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "locations.json")
			args := append([]string{"--repo", repo, "--issue", issue, "--out", out}, tc.args...)
			if err := runCommand(context.Background(), "localize", args, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			loc, err := localize.LoadLocations(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(loc.Functions) == 0 || loc.Functions[0] != tc.first || loc.Status != "submitted" {
				t.Errorf("functions %v status %q", loc.Functions, loc.Status)
			}
		})
	}
}

func TestLocalizeUsage(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.md")
	if err := os.WriteFile(empty, []byte("  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string][]string{
		"no issue":         {"--repo", "."},
		"bad repo":         {"--repo", "no/such/dir", "--issue", "x.md"},
		"bad iterations":   {"--issue", "x.md", "--max-iterations", "0"},
		"stray argument":   {"--issue", "x.md", "extra"},
		"empty issue file": {"--issue", empty},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			err := runCommand(context.Background(), "localize", args, nil, nil, nil)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("got %v, want a usage error", err)
			}
		})
	}
}

func TestReadIssueStdin(t *testing.T) {
	got, err := readIssue("-", strings.NewReader("the issue"))
	if err != nil || got != "the issue" {
		t.Errorf("readIssue(-) = %q, %v", got, err)
	}
	if _, err := readIssue(filepath.Join(t.TempDir(), "missing.md"), nil); err == nil {
		t.Error("a missing issue file must fail")
	}
}

func TestLocalizeFailureKeepsEarlierLocations(t *testing.T) {
	// A server that refuses the connection: the model call fails at once.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("SWE_ADEPT_MODEL_ATTEMPTS", "1")
	out := filepath.Join(t.TempDir(), "locations.json")
	if err := os.WriteFile(out, []byte(`{"files":["kept.py"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--repo", filepath.Join("..", "testdata", "localize", "shop"), "--issue", filepath.Join("..", "testdata", "localize", "issue.md"),
		"--model", "some-model", "--out", out}
	if err := runCommand(context.Background(), "localize", args, nil, nil, nil); err == nil {
		t.Fatal("a failed model call must fail the command")
	}
	if b, _ := os.ReadFile(out); string(b) != `{"files":["kept.py"]}` {
		t.Errorf("locations.json was overwritten with %s", b)
	}
}

func TestCheckDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{t.TempDir(), ""},
		{filepath.Join(t.TempDir(), "nope"), "no such folder"},
		{file, "a file, not a folder"},
	}
	for _, tt := range tests {
		err := checkDir("--repo", tt.path)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("checkDir(%s) = %v, want %q", tt.path, err, tt.want)
		}
		var ue usageError
		if err != nil && !errors.As(err, &ue) {
			t.Errorf("checkDir(%s) must be a usage error (exit 2)", tt.path)
		}
	}
}

// TestLocalizeCommandHygiene: nothing is written into the checkout by
// default, a named model needs a server, and a repository with nothing
// to index is an error.
func TestLocalizeCommandHygiene(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	repo := sampleCheckout(t)
	issue := filepath.Join(runSample, "issue.md")
	var out bytes.Buffer
	if err := runCommand(context.Background(), "localize", []string{"--repo", repo, "--issue", issue, "--model", "heuristic"}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	st := exec.Command("git", "status", "--porcelain", "--ignored")
	st.Dir = repo
	if b, _ := st.Output(); len(b) != 0 {
		t.Errorf("localize wrote into the checkout: %s", b)
	}
	err := runCommand(context.Background(), "localize", []string{"--repo", repo, "--issue", issue, "--model", "gpt-5.2"}, nil, &out, nil)
	if err == nil || !strings.Contains(err.Error(), "needs a model server") {
		t.Errorf("a named model without a server: %v", err)
	}
	empty := t.TempDir()
	if b, err := exec.Command("git", "init", "-q", empty).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("no code here\n"), 0o644)
	err = runCommand(context.Background(), "localize", []string{"--repo", empty, "--issue", issue}, nil, &out, nil)
	if err == nil || !strings.Contains(err.Error(), "no source files the index reads") {
		t.Errorf("a repository with nothing to index: %v", err)
	}
}

// TestOutputNeverReplacesASpecialFile: --out at a symlink, a device or a
// folder is refused, and what was there stays.
func TestOutputNeverReplacesASpecialFile(t *testing.T) {
	repo := sampleCheckout(t)
	issue := filepath.Join(runSample, "issue.md")
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{link, "/dev/null", dir} {
		var b bytes.Buffer
		err := runCommand(context.Background(), "localize", []string{"--repo", repo, "--issue", issue, "--model", "heuristic", "--out", out}, nil, &b, nil)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("--out %s: %v", out, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Error("the symlink's target was overwritten")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatal("/dev/null is no longer a device")
	}
}
