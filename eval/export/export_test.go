package export

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/internal/golden"
	"github.com/swe-adept/swe-adept/internal/testtree"
)

func TestAction(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{
		{"one string", "find_code_def", `{"definition_name": "parse"}`, "find_code_def --definition_name parse"},
		{"key order kept", "find_child_unit", `{"file_path": "a/b.py", "definition_name": "C.m"}`,
			"find_child_unit --file_path a/b.py --definition_name C.m"},
		{"no arguments", "finish_search", `{}`, "finish_search"},
		{"empty", "finish_search", ``, "finish_search"},
		{"bash is its command", "bash", `{"command": "python -m pytest -q tests/"}`, "python -m pytest -q tests/"},
		{"sub-command first", "str_replace_editor", `{"path": "x.py", "command": "view", "view_range": [1, 20]}`,
			"str_replace_editor view --path x.py --view_range 1 20"},
		{"quoted", "find_code_content", `{"query": "def parse(x):"}`, "find_code_content --query 'def parse(x):'"},
		{"single quote inside", "find_code_content", `{"query": "it's"}`, `find_code_content --query 'it'\''s'`},
		{"list", "shortlist", `{"locations": ["a.py:f", "b.py:g"]}`, "shortlist --locations a.py:f b.py:g"},
		{"object", "t", `{"opts": {"a": 1}}`, `t --opts '{"a":1}'`},
		{"null skipped", "t", `{"a": null, "b": true, "n": 2.5}`, "t --b true --n 2.5"},
		{"malformed", "find_file", `{"file_name": "x`, `find_file {"file_name": "x`},
		{"not an object", "find_file", `"x.py"`, `find_file "x.py"`},
		{"trailing data", "t", `{"a": "b"} {}`, `t {"a": "b"} {}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Action(tc.tool, tc.args); got != tc.want {
				t.Fatalf("Action = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzAction(f *testing.F) {
	f.Add("t", `{"a": "b c", "d": [1, "x"]}`)
	f.Add("bash", `{"command": "ls"}`)
	f.Fuzz(func(t *testing.T, name, args string) {
		if got := Action(name, args); !strings.HasPrefix(got, name) && name != "bash" {
			t.Fatalf("Action(%q, %q) = %q does not start with the tool", name, args, got)
		}
	})
}

// sampleRun copies the recorded run into a temp folder with a patch made
// by git against a sample repository, and returns the folder and the repo.
func sampleRun(t *testing.T) (runDir, repo string) {
	t.Helper()
	runDir = filepath.Join(t.TempDir(), "r20261122")
	testtree.Copy(t, filepath.Join("testdata", "run"), runDir)
	repo = filepath.Join(t.TempDir(), "shop")
	testtree.Copy(t, filepath.Join("..", "..", "testdata", "localize", "shop"), repo)
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	money := filepath.Join(repo, "shop", "money.py")
	b, err := os.ReadFile(money)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(b), "math.floor(amount * 100) / 100", "round(amount * 100) / 100", 1)
	if err := os.WriteFile(money, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := gitIn(t, repo, "diff")
	gitIn(t, repo, "checkout", "--", ".")
	if err := os.WriteFile(filepath.Join(runDir, runfolder.PatchFile), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	return runDir, repo
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

func exportJSON(t *testing.T, dir string, opts Options) (map[string]any, []byte) {
	t.Helper()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, opts); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("export is not one JSON object: %v\n%s", err, buf.String())
	}
	return m, buf.Bytes()
}

// need checks that m[key] exists with the JSON type kind
// ("string", "number", "int", "bool", "array", "object").
func need(t *testing.T, where string, m map[string]any, key, kind string) any {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Fatalf("%s: missing %q", where, key)
	}
	okType := false
	switch x := v.(type) {
	case string:
		okType = kind == "string"
	case float64:
		okType = kind == "number" || (kind == "int" && x == float64(int64(x)))
	case bool:
		okType = kind == "bool"
	case []any:
		okType = kind == "array"
	case map[string]any:
		okType = kind == "object"
	}
	if !okType {
		t.Fatalf("%s: %q is %T (%v), want %s", where, key, v, v, kind)
	}
	return v
}

func TestSWEAgentFormat(t *testing.T) {
	dir, _ := sampleRun(t)
	m, raw := exportJSON(t, dir, Options{Format: FormatSWEAgent})
	steps := need(t, "top", m, "trajectory", "array").([]any)
	if len(steps) != 19 {
		t.Fatalf("%d steps, want one per tool call (19)", len(steps))
	}
	for i, s := range steps {
		st, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("step %d is %T", i, s)
		}
		for _, k := range []string{"action", "observation", "thought", "response"} {
			need(t, "step", st, k, "string")
		}
		need(t, "step", st, "execution_time", "number")
		need(t, "step", st, "state", "object")
	}
	first := steps[0].(map[string]any)
	if first["action"] != "find_code_def --definition_name Cart.total" ||
		first["thought"] != "The issue names Cart.total; start there." ||
		first["observation"] != "1 unit: shop/cart.py:Cart.total" || first["execution_time"] != 1.0 {
		t.Fatalf("first step %v", first)
	}
	hist := need(t, "top", m, "history", "array").([]any)
	if len(hist) != 9 {
		t.Fatalf("history has %d messages, want the transcript's 9", len(hist))
	}
	for _, h := range hist {
		hm := h.(map[string]any)
		for _, k := range []string{"role", "content", "agent"} {
			need(t, "history", hm, k, "string")
		}
	}
	info := need(t, "top", m, "info", "object").(map[string]any)
	if need(t, "info", info, "exit_status", "string") != "submitted" {
		t.Fatalf("exit status %v", info["exit_status"])
	}
	if sub := need(t, "info", info, "submission", "string").(string); !strings.HasPrefix(sub, "diff --git a/shop/money.py") {
		t.Fatalf("submission %q", sub)
	}
	need(t, "info", info, "swe_adept_version", "string")
	stats := need(t, "info", info, "model_stats", "object").(map[string]any)
	need(t, "model_stats", stats, "instance_cost", "number")
	for k, want := range map[string]float64{"tokens_sent": 24600, "tokens_received": 1850, "api_calls": 17} {
		if got := need(t, "model_stats", stats, k, "int"); got != want {
			t.Fatalf("%s = %v, want %v", k, got, want)
		}
	}
	if stats["priced"] != false {
		t.Fatal("an unpriced localizer must leave the run unpriced")
	}
	golden.Check(t, t.Name()+"/swe-agent.traj", string(bytes.ReplaceAll(raw, []byte(filepath.Dir(dir)), []byte("TMP"))))
}

func TestSWEAgentWithoutTranscriptOrSummary(t *testing.T) {
	dir, _ := sampleRun(t)
	for _, f := range []string{runfolder.TranscriptFile, runfolder.SummaryFile, runfolder.MetaFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	// Cut the log mid-run: the export says what it can.
	ev := filepath.Join(dir, "events.jsonl")
	b, _ := os.ReadFile(ev)
	if err := os.WriteFile(ev, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatalf("a damaged log is not a load error: %v", err)
	}
	if r.EventsErr == nil {
		t.Fatal("the truncated log was not reported")
	}
	tr := SWEAgent(r, "")
	if tr.Info.ExitStatus != "incomplete" || len(tr.History) == 0 || len(tr.Trajectory) == 0 {
		t.Fatalf("exit %q, %d history, %d steps", tr.Info.ExitStatus, len(tr.History), len(tr.Trajectory))
	}
	if tr.Info.InstanceID != "r20261122" || tr.Info.ModelStats.APICalls == 0 {
		t.Fatalf("info %+v", tr.Info)
	}
}

func TestLocAgentFormat(t *testing.T) {
	dir, _ := sampleRun(t)
	tests := []struct {
		name, id, wantID string
		prep             func()
	}{
		{"run id", "", "r20261122", func() {}},
		{"override", "shop__shop-1", "shop__shop-1", func() {}},
		{"from the batch", "", "shop__shop-7", func() {
			writeFile(t, filepath.Join(dir, runfolder.InstanceFile), `{"instance_id": "shop__shop-7", "repo": "shop/shop"}`)
		}},
		{"from the ranking event", "", "shop__shop-7", func() { os.Remove(filepath.Join(dir, runfolder.LocationsFile)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.prep()
			m, raw := exportJSON(t, dir, Options{Format: FormatLocAgent, InstanceID: tc.id})
			if bytes.Count(raw, []byte("\n")) != 1 {
				t.Fatal("a LocAgent output is one JSON line")
			}
			if need(t, "loc", m, "instance_id", "string") != tc.wantID {
				t.Fatalf("instance_id %v, want %s", m["instance_id"], tc.wantID)
			}
			for _, k := range []string{"found_files", "found_modules", "found_entities"} {
				for _, v := range need(t, "loc", m, k, "array").([]any) {
					if _, ok := v.(string); !ok {
						t.Fatalf("%s holds %T", k, v)
					}
				}
			}
			ents := m["found_entities"].([]any)
			mods := m["found_modules"].([]any)
			if len(ents) != 3 || ents[0] != "shop/money.py:round_cents" || mods[2] != "shop/cart.py:Cart" {
				t.Fatalf("entities %v modules %v", ents, mods)
			}
		})
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSWEBenchPrediction(t *testing.T) {
	dir, repo := sampleRun(t)
	m, raw := exportJSON(t, dir, Options{Format: FormatSWEBench, InstanceID: "shop__shop-1"})
	if bytes.Count(raw, []byte("\n")) != 1 {
		t.Fatal("a prediction is one JSON line")
	}
	if need(t, "pred", m, "instance_id", "string") != "shop__shop-1" ||
		need(t, "pred", m, "model_name_or_path", "string") != "scripted-resolver" {
		t.Fatalf("prediction %v", m)
	}
	patch := need(t, "pred", m, "model_patch", "string").(string)
	p := filepath.Join(t.TempDir(), "pred.diff")
	writeFile(t, p, patch)
	gitIn(t, repo, "apply", "--check", p)

	m, _ = exportJSON(t, dir, Options{Format: FormatSWEBench, Model: "gpt-4o"})
	if m["model_name_or_path"] != "gpt-4o" || m["instance_id"] != "r20261122" {
		t.Fatalf("overrides: %v", m)
	}
}

// TestSWEBenchPredictionOfAnUnmergedRun: a run that ended without a merged
// solution (the engineer refused the merge) predicts the empty patch, and
// the record says why; patch.diff keeps the unmerged work to read.
func TestSWEBenchPredictionOfAnUnmergedRun(t *testing.T) {
	for _, status := range []string{"submitted_unmerged", "submitted_empty"} {
		t.Run(status, func(t *testing.T) {
			dir, _ := sampleRun(t)
			sum := runfolder.Summary{ID: "r20261122", Status: status, Message: "you refused the merge"}
			b, err := json.Marshal(sum)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, runfolder.SummaryFile), string(b))
			m, _ := exportJSON(t, dir, Options{Format: FormatSWEBench})
			if m["model_patch"] != "" {
				t.Errorf("model_patch %q, want empty for a %s run", m["model_patch"], status)
			}
			if note, _ := m["note"].(string); !strings.Contains(note, status) {
				t.Errorf("the record's note %q does not say the run ended %s", note, status)
			}
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	dir, _ := sampleRun(t)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, r, Options{Format: "sweagent"}); err == nil || !strings.Contains(err.Error(), "swe-agent") {
		t.Fatalf("error %v should list the formats", err)
	}
}

func TestLoadNotARun(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no run") {
		t.Fatalf("error %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing folder loaded")
	}
}

// TestScriptFormat: a run's conversations export as a per-agent script the
// scripted model loads, one turn per assistant message, calls intact.
func TestScriptFormat(t *testing.T) {
	dir, _ := sampleRun(t)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{Format: FormatScript}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for agent, msgs := range map[string][]llm.Message{"localization": r.Transcript.Localize, "resolution": r.Transcript.Resolve} {
		want := 0
		for _, m := range msgs {
			if m.Role == llm.Assistant {
				want++
			}
		}
		if want == 0 {
			continue
		}
		sc, err := llm.LoadAgentScript(path, agent)
		if err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		if len(sc.Turns) != want {
			t.Errorf("%s: %d turns, want %d", agent, len(sc.Turns), want)
		}
	}
}
