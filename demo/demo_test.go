package demo

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSetupMakesACleanRepository(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	if err := Setup(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range Files() {
		want, _ := sample.ReadFile("sample/" + f)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s not copied faithfully (err %v)", f, err)
		}
	}
	if out := gitOut(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("work tree not clean after setup:\n%s", out)
	}
	if n := gitOut(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
		t.Errorf("want one commit, got %s", n)
	}
	if b := gitOut(t, dir, "branch", "--show-current"); b != "main" {
		t.Errorf("on branch %q, want main", b)
	}
}

func TestSetupRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Setup(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("Setup into a non-empty directory: %v", err)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// TestSampleBugIsReal runs the sample's own tests: they fail on the
// shipped code, for the reason.
func TestSampleBugIsReal(t *testing.T) {
	py, ok := Python()
	if !ok {
		t.Skip("python3 is not installed")
	}
	dir := filepath.Join(t.TempDir(), "shop")
	if err := Setup(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the sample's tests pass before the fix:\n%s", out)
	}
	for _, want := range []string{"test_total_with_volume_price", "28.45 != 28.5", "5.69 != 5.7", "FAILED (failures=4)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("test output lacks %q:\n%s", want, out)
		}
	}
}

// TestScriptsUseRealToolNames checks the transcripts against the tools
// and parameters the agents offer, so a renamed parameter fails here and
// not in the middle of a demo.
func TestScriptsUseRealToolNames(t *testing.T) {
	loc, res, err := Scripts()
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{
		"find_code_def":      {"definition_name", "file_path"},
		"find_child_unit":    {"definition_name", "file_path"},
		"finish_search":      {},
		"shortlist":          {"locations", "reasons"},
		"rank_locations":     {"files", "functions"},
		"str_replace_editor": {"command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range"},
		"bash":               {"command", "timeout"},
		"submit":             {"summary", "keep_files"},
		"update_hypothesis":  {"hypotheses_markdown"},
		"update_todo":        {"current_hypothesis", "todos_markdown"},
		"log_insight":        {"insight"},
		"init_base":          {},
		"start_hypothesis":   {"branch_name"},
		"commit_todo":        {"todo_content", "commit_message"},
		"revert_to":          {"source_hypothesis", "source_todo", "new_branch_name"},
		"compare_hypotheses": {},
		"merge_solution":     {"branch_name"},
	}
	seen := map[string]bool{}
	for _, s := range append(loc.Turns, res.Turns...) {
		for _, c := range s.ToolCalls {
			allowed, ok := params[c.Name]
			if !ok {
				t.Errorf("unknown tool %q", c.Name)
				continue
			}
			seen[c.Name] = true
			var args map[string]json.RawMessage
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				t.Errorf("%s: arguments: %v", c.Name, err)
			}
			for k := range args {
				if !slices.Contains(allowed, k) {
					t.Errorf("%s has no parameter %q", c.Name, k)
				}
			}
		}
	}
	for _, must := range []string{"find_child_unit", "revert_to", "compare_hypotheses", "merge_solution", "submit"} {
		if !seen[must] {
			t.Errorf("the demo never calls %s", must)
		}
	}
}
