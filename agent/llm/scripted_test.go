package llm

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func scriptPath(name string) string { return filepath.Join("..", "..", "testdata", "llm", name) }

func tools(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = Tool{Name: n, Description: n, Parameters: map[string]any{"type": "object"}}
	}
	return out
}

var localizerTools = tools("find_file", "find_code_def", "find_code_content", "find_child_unit", "finish_search")

// fakeRun is a minimal agent loop: it asks the model for a turn, answers
// every tool call with the observation the callback gives, and repeats.
type fakeRun struct {
	msgs  []Message
	tools []Tool
}

func (r *fakeRun) step(t *testing.T, m Model, observe func(ToolCall) string) (Response, error) {
	t.Helper()
	resp, err := m.Complete(context.Background(), Request{Messages: r.msgs, Tools: r.tools})
	if err != nil {
		return resp, err
	}
	r.msgs = append(r.msgs, resp.Message)
	for _, c := range resp.Message.ToolCalls {
		r.msgs = append(r.msgs, Message{Role: ToolRole, ToolCallID: c.ID, Name: c.Name, Content: observe(c)})
	}
	return resp, nil
}

func TestScriptedPlaysTheScript(t *testing.T) {
	s, err := LoadScript(scriptPath("localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewScripted(s)
	if m.Name() != "scripted-localizer" {
		t.Errorf("Name = %q", m.Name())
	}
	observations := map[string]string{
		"find_code_def":     "http/parse.py:12 def parse_header(value):",
		"find_code_content": "http/request.py:40 headers = parse_header(raw)",
		"find_child_unit":   "http/parse.py:30 def split_params(value):",
		"finish_search":     "ranked 2 candidates",
	}
	run := &fakeRun{msgs: []Message{{Role: User, Content: "parse_header crashes"}}, tools: localizerTools}
	wantCalls := [][]ToolCall{
		{{ID: "call_1", Name: "find_code_def", Arguments: `{"definition_name":"parse_header"}`}},
		{
			{ID: "call_2", Name: "find_code_content", Arguments: `{"content":"parse_header(","file_path":"http/request.py"}`},
			{ID: "call_3", Name: "find_child_unit", Arguments: `{"definition_name":"split_params","file_path":"http/parse.py"}`},
		},
		{{ID: "call_4", Name: "finish_search", Arguments: `{}`}},
	}
	for i, want := range wantCalls {
		resp, err := run.step(t, m, func(c ToolCall) string { return observations[c.Name] })
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if !equalMessage(Message{Role: Assistant, Content: resp.Message.Content, ToolCalls: want}, resp.Message) {
			t.Errorf("turn %d: calls = %+v, want %+v", i+1, resp.Message.ToolCalls, want)
		}
		u := resp.Usage
		if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.Cost != 0 || !u.Priced {
			t.Errorf("turn %d: usage = %+v, want estimated tokens at a priced $0", i+1, u)
		}
	}
	if m.Played() != 3 || m.Remaining() != 0 {
		t.Errorf("played %d, remaining %d", m.Played(), m.Remaining())
	}
	_, err = run.step(t, m, nil)
	if !errors.Is(err, ErrScriptExhausted) || !strings.Contains(err.Error(), "script exhausted after 3 turns") {
		t.Errorf("after the last turn: %v", err)
	}
}

func TestScriptedDiverges(t *testing.T) {
	s, err := LoadScript(scriptPath("localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tools   []Tool
		observe string
		wantErr string
	}{
		{
			name:    "observation lacks the expected text",
			tools:   localizerTools,
			observe: "no definition named parse_header",
			wantErr: `script turn 2 expects the last tool result to contain "def parse_header", but it reads "no definition named parse_header"`,
		},
		{
			name:    "tool not offered",
			tools:   tools("find_code_def", "finish_search"),
			observe: "def parse_header(value):",
			wantErr: "script turn 2 calls tool find_code_content, which this agent does not offer (diverged from the script)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewScripted(s)
			run := &fakeRun{tools: tc.tools}
			if _, err := run.step(t, m, func(ToolCall) string { return tc.observe }); err != nil {
				t.Fatal(err)
			}
			_, err := run.step(t, m, func(ToolCall) string { return "" })
			if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if m.Played() != 1 {
				t.Errorf("a diverged turn was consumed: played %d", m.Played())
			}
		})
	}
}

func TestScriptedDelayHonoursContext(t *testing.T) {
	s, err := LoadScript(scriptPath("localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewScripted(s, WithDelay(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err = m.Complete(ctx, Request{Tools: localizerTools})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m.Played() != 0 {
		t.Errorf("a cancelled turn was consumed")
	}
	fast := NewScripted(s, WithDelay(time.Millisecond))
	if _, err := fast.Complete(context.Background(), Request{Tools: localizerTools}); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAgentScript(t *testing.T) {
	tests := []struct {
		path, agent string
		wantModel   string
		wantTurns   int
		wantErr     string
	}{
		{path: "demo.json", agent: "localization", wantModel: "scripted-localizer", wantTurns: 2},
		{path: "demo.json", agent: "resolution", wantModel: "scripted-resolver", wantTurns: 3},
		{path: "demo.json", agent: "review", wantErr: `no agent "review" (it has: localization, resolution)`},
		{path: "localize.json", agent: "anything", wantModel: "scripted-localizer", wantTurns: 3},
		{path: "missing.json", agent: "x", wantErr: "read script"},
	}
	for _, tc := range tests {
		t.Run(tc.path+"/"+tc.agent, func(t *testing.T) {
			s, err := LoadAgentScript(scriptPath(tc.path), tc.agent)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Model != tc.wantModel || len(s.Turns) != tc.wantTurns {
				t.Errorf("got model %q with %d turns", s.Model, len(s.Turns))
			}
		})
	}
	if _, err := LoadScript(scriptPath("demo.json")); err == nil || !strings.Contains(err.Error(), "LoadAgentScript") {
		t.Errorf("LoadScript on a per-agent file: %v", err)
	}
}

func TestParseScript(t *testing.T) {
	tests := []struct {
		name, in string
		wantArgs string // arguments of the first call
		wantErr  string
	}{
		{name: "object arguments compacted", in: `{"turns":[{"tool_calls":[{"name":"a","arguments":{ "x" : [1, 2] }}]}]}`, wantArgs: `{"x":[1,2]}`},
		{name: "no arguments", in: `{"turns":[{"tool_calls":[{"name":"a"}]}]}`, wantArgs: `{}`},
		{name: "string arguments verbatim", in: `{"turns":[{"tool_calls":[{"name":"a","arguments":"{not json"}]}]}`, wantArgs: `{not json`},
		{name: "content only", in: `{"turns":[{"content":"done"}]}`},
		{name: "array arguments", in: `{"turns":[{"tool_calls":[{"name":"a","arguments":[1]}]}]}`, wantErr: "turn 1, call 1 (a): arguments must be a JSON object"},
		{name: "empty turn", in: `{"turns":[{"content":"x"},{}]}`, wantErr: "turn 2: neither content nor tool calls"},
		{name: "nameless call", in: `{"turns":[{"tool_calls":[{"arguments":{}}]}]}`, wantErr: "turn 1, call 1: no tool name"},
		{name: "no turns", in: `{"model":"m"}`, wantErr: "no turns"},
		{name: "misspelt field", in: `{"turns":[{"tool_call":[{"name":"a"}]}]}`, wantErr: `unknown field "tool_call"`},
		{name: "trailing data", in: `{"turns":[{"content":"x"}]} {}`, wantErr: "trailing data"},
		{name: "not JSON", in: `turns: []`, wantErr: "parse"},
		{name: "agents file", in: `{"agents":{"a":{"turns":[{"content":"x"}]}}}`, wantErr: "per-agent"},
		{name: "agents and turns", in: `{"model":"m","agents":{"a":{"turns":[{"content":"x"}]}}}`, wantErr: "not both"},
		{name: "bad agent", in: `{"agents":{"a":{"turns":[]}}}`, wantErr: `agent "a": no turns`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseScript([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantArgs == "" {
				return
			}
			resp, err := NewScripted(s).Complete(context.Background(), Request{Tools: tools("a")})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.ToolCalls[0].Arguments; got != tc.wantArgs {
				t.Errorf("arguments = %q, want %q", got, tc.wantArgs)
			}
		})
	}
}

// FuzzParseScript feeds arbitrary files to the parser: it must never panic,
// and whatever it accepts must play without failing on its own arguments.
func FuzzParseScript(f *testing.F) {
	f.Add([]byte(`{"turns":[{"content":"x","tool_calls":[{"name":"a","arguments":{"k":1}}]}]}`))
	f.Add([]byte(`{"agents":{"a":{"turns":[{"content":"x"}]}}}`))
	f.Add([]byte(`{"turns":[{"tool_calls":[{"name":"a","arguments":"raw"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript(data)
		if err != nil {
			return
		}
		m := NewScripted(s)
		for i, turn := range s.Turns {
			if turn.Expect != "" {
				return // needs a tool result this harness does not make
			}
			names := make([]string, len(turn.ToolCalls))
			for j, c := range turn.ToolCalls {
				names[j] = c.Name
			}
			if _, err := m.Complete(context.Background(), Request{Tools: tools(names...)}); err != nil {
				t.Fatalf("turn %d of an accepted script failed: %v", i+1, err)
			}
		}
	})
}

// TestScriptBranchesOnTheAnswer: a turn's branch replaces the rest of the
// script when its text is in the tool results; otherwise the turn plays.
func TestScriptBranchesOnTheAnswer(t *testing.T) {
	sc := &Script{Turns: []Turn{
		{ToolCalls: []ScriptCall{{Name: "merge", Arguments: json.RawMessage(`{}`)}}},
		{Content: "merged", ToolCalls: []ScriptCall{{Name: "submit", Arguments: json.RawMessage(`{}`)}},
			Branches: []Branch{{When: "was refused by the engineer", Turns: []Turn{
				{Content: "stopping: the merge was refused", ToolCalls: []ScriptCall{{Name: "submit", Arguments: json.RawMessage(`{}`)}}}}}}},
	}}
	tools := []Tool{{Name: "merge"}, {Name: "submit"}}
	for obs, want := range map[string]string{
		"Merged onto the original state.":                     "merged",
		"merge_solution was refused by the engineer: not yet": "stopping: the merge was refused",
	} {
		m := NewScripted(sc)
		msgs := []Message{{Role: User, Content: "go"}}
		first, err := m.Complete(context.Background(), Request{Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, first.Message, Message{Role: ToolRole, ToolCallID: first.Message.ToolCalls[0].ID, Content: obs})
		second, err := m.Complete(context.Background(), Request{Messages: msgs, Tools: tools})
		if err != nil || second.Message.Content != want {
			t.Errorf("after %q: %q, %v; want %q", obs, second.Message.Content, err, want)
		}
	}
	if len(sc.Turns) != 2 || sc.Turns[1].Content != "merged" {
		t.Error("taking a branch changed the shared script")
	}
}

// TestScriptedStreamsWhenPaced: a paced script writes each turn's words
// as a model streams them, adding up to the turn's text; unpaced, it
// answers at once without deltas.
func TestScriptedStreamsWhenPaced(t *testing.T) {
	s, err := LoadScript(scriptPath("localize.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, delay := range []time.Duration{0, 20 * time.Millisecond} {
		var heard strings.Builder
		pieces := 0
		resp, err := NewScripted(s, WithDelay(delay)).Complete(context.Background(), Request{Tools: localizerTools,
			OnDelta: func(d Delta) { heard.WriteString(d.Content); pieces++ }})
		if err != nil {
			t.Fatal(err)
		}
		if delay == 0 && pieces != 0 || delay > 0 && (pieces < 3 || heard.String() != resp.Message.Content) {
			t.Errorf("delay %s: %d pieces adding up to %q for %q", delay, pieces, heard.String(), resp.Message.Content)
		}
	}
}
