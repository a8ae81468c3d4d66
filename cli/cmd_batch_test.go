package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/eval/batch"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

// batchInput commits the run sample into REPOS/acme/inventory (bare) and
// writes the sample instances with its commit.
func batchInput(t *testing.T) (instances, repos string) {
	t.Helper()
	src := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "run", "inventory"), src)
	repos = t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "inventory"},
		{"clone", "-q", "--bare", src, filepath.Join(repos, "acme", "inventory")}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("..", "testdata", "batch", "instances.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	instances = filepath.Join(t.TempDir(), "instances.jsonl")
	data := strings.ReplaceAll(string(tmpl), `"BASE"`, `"`+strings.TrimSpace(string(out))+`"`)
	if err := os.WriteFile(instances, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return instances, repos
}

func TestBatchCommandLocalizeOnly(t *testing.T) {
	instances, repos := batchInput(t)
	out := t.TempDir()
	args := []string{"batch", "--instances", instances, "--repos", repos, "--out", out, "--workers", "2",
		"--localize-only", "--script-localize", filepath.Join("..", "testdata", "run", "localize.json")}
	var stdout, stderr strings.Builder
	if code := Main(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, batch.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum batch.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Instances != 3 || sum.ByStatus["submitted"] != 2 || sum.ByStatus[batch.StatusSetup] != 1 ||
		len(sum.Malformed) != 1 || sum.Malformed[0].Line != 2 {
		t.Fatalf("summary %s", b)
	}
	if sum.Acc == nil || sum.Acc.FuncAcc5 < 0.66 || sum.Acc.FuncAcc5 > 0.67 {
		t.Fatalf("acc %+v: two of three instances found the gold function", sum.Acc)
	}
	lines, err := os.ReadFile(filepath.Join(out, batch.LocOutputs))
	if err != nil || strings.Count(string(lines), "\n") != 3 {
		t.Fatalf("loc outputs: %v\n%s", err, lines)
	}
}

func TestBatchCommandErrors(t *testing.T) {
	instances, repos := batchInput(t)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"batch", "--repos", repos, "--out", t.TempDir()}, 2, "required"},
		{[]string{"batch", "--instances", instances, "--repos", repos, "--out", t.TempDir(), "--workers", "0"}, 2, "--workers"},
		{[]string{"batch", "--instances", instances, "--repos", filepath.Join(repos, "nope"), "--out", t.TempDir()}, 2, "no such folder"},
		{[]string{"batch", "--instances", instances, "--repos", repos, "--out", t.TempDir(), "--only", "nope"}, 1, "no instances"},
		{[]string{"batch", "--instances", instances, "--repos", repos, "--out", t.TempDir(), "--queue-user", "ann"}, 2, "need --queue"},
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	tests = append(tests, struct {
		args []string
		code int
		msg  string
	}{[]string{"batch", "--instances", instances, "--repos", repos, "--out", t.TempDir()}, 2, "no model configured for the resolution agent"})
	for _, tc := range tests {
		var stdout, stderr strings.Builder
		if code := Main(tc.args, &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d with %q", tc.args[1:], code, stderr.String(), tc.code, tc.msg)
		}
	}
}
