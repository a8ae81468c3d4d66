package resolve

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/tool"
)

const plainScript = `{"model": "scripted-resolver", "turns": [
 {"content": "Reading the function first.",
  "tool_calls": [{"name": "str_replace_editor", "arguments": {"command": "view", "path": "calc.py"}}]},
 {"expect": "return a - b",
  "tool_calls": [{"name": "str_replace_editor", "arguments": {"command": "create", "path": "reproduce.py",
    "file_text": "from calc import add\nassert add(2, 3) == 5, add(2, 3)\nprint('ok')\n"}}]},
 {"tool_calls": [{"name": "bash", "arguments": {"command": "python3 reproduce.py"}}]},
 {"expect": "AssertionError",
  "tool_calls": [{"name": "str_replace_editor", "arguments": {"command": "str_replace", "path": "calc.py", "old_str": "return a - b", "new_str": "return a + b"}}]},
 {"tool_calls": [{"name": "bash", "arguments": {"command": "python3 reproduce.py"}}]},
 {"expect": "ok",
  "tool_calls": [{"name": "submit", "arguments": {"summary": "add subtracted", "keep_files": ["./tests/new_test.py"]}}]}
]}`

func TestAgentPlainWorkflow(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; the scripted resolution runs a Python reproduction script")
	}
	_, dir := newTestEditor(t)
	write(t, dir, "calc.py", "def add(a, b):\n    return a - b\n")
	s, err := llm.ParseScript([]byte(plainScript))
	if err != nil {
		t.Fatal(err)
	}
	bus := event.NewBus(nil)
	ch := bus.Subscribe()
	steps := 0
	a, err := New(Config{
		Model: llm.NewScripted(s), Workdir: dir, Issue: "add(2, 3) returns -1", Functions: []string{"calc.py:add"},
		Bus: bus, Mode: ModeAsk, OnStep: func([]llm.Message) { steps++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background())
	bus.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != tool.Submitted || out.Submission == nil || out.Submission.KeepFiles[0] != "tests/new_test.py" {
		t.Fatalf("outcome %+v", out)
	}
	if got := read(t, dir, "calc.py"); !strings.Contains(got, "a + b") {
		t.Errorf("calc.py not fixed: %q", got)
	}
	if steps < 6 {
		t.Errorf("OnStep ran %d times, want after every call", steps)
	}
	msgs := a.Messages()
	if msgs[0].Role != llm.System || strings.Contains(msgs[0].Content, "init_base") {
		t.Errorf("without hypothesis tools the prompt should teach the plain workflow")
	}
	if !strings.Contains(msgs[1].Content, "1. calc.py:add") {
		t.Errorf("task lacks the ranked locations: %q", msgs[1].Content)
	}
	var results int
	for e := range ch {
		if e.Type == event.ToolResult {
			results++
		}
	}
	if results != 6 {
		t.Errorf("%d tool results, want 6", results)
	}
}

func TestAgentPromptTeachesHypotheses(t *testing.T) {
	names := []string{"bash", "str_replace_editor", "update_hypothesis", "update_todo", "log_insight", "init_base",
		"start_hypothesis", "commit_todo", "revert_to", "compare_hypotheses", "merge_solution", "submit"}
	p := systemPrompt(names)
	for _, want := range []string{"init_base", "reproduction script", "update_todo", "commit_todo", "revert_to", "log_insight", "compare_hypotheses", "merge_solution", "several competing"} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt does not mention %q", want)
		}
	}
}

func TestRepairHistory(t *testing.T) {
	h := []llm.Message{
		{Role: llm.System, Content: "s"}, {Role: llm.User, Content: "u"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "bash"}, {ID: "b", Name: "bash"}}},
		{Role: llm.ToolRole, ToolCallID: "a", Content: "done"},
	}
	got := RepairHistory(h)
	if len(got) != 5 || got[4].ToolCallID != "b" || !strings.Contains(got[4].Content, "in flight") {
		t.Errorf("repaired %+v", got)
	}
	if len(h) != 4 {
		t.Error("RepairHistory changed its input")
	}
}

func TestAgentResumes(t *testing.T) {
	_, dir := newTestEditor(t)
	s, _ := llm.ParseScript([]byte(`{"turns":[{"tool_calls":[{"name":"submit","arguments":{}}]}]}`))
	hist := []llm.Message{{Role: llm.System, Content: "old system"}, {Role: llm.User, Content: "task"}}
	a, err := New(Config{Model: llm.NewScripted(s), Workdir: dir, History: hist, Mode: ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := a.Messages()
	if m[0].Content != "old system" || m[2].Content != ResumeNote {
		t.Errorf("resumed conversation %+v", m[:3])
	}
}
