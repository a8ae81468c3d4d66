package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Script is a transcript of assistant turns for one agent, played in order
// by a Scripted model. The file is JSON:
//
//	{"model": "scripted-localizer",
//	 "turns": [
//	   {"content": "Searching first.",
//	    "tool_calls": [{"name": "search", "arguments": {"query": "parse_header"}}]},
//	   {"expect": "def parse_header",
//	    "tool_calls": [{"name": "finish", "arguments": {"units": ["http/parse.py:parse_header"]}}]}]}
//
// A file may instead hold one script per agent:
//
//	{"agents": {"localization": {"turns": [...]}, "resolution": {"turns": [...]}}}
//
// A turn may branch on what the engineer answered: its "branches" hold
// alternative continuations, each taken when its "when" text appears in the
// tool results the turn answers (see Turn.Branches):
//
//	{"tool_calls": [...the approved path...],
//	 "branches": [{"when": "was refused by the engineer", "turns": [...]}]}
type Script struct {
	Model string `json:"model,omitempty"` // name the model reports; "scripted" if empty
	Turns []Turn `json:"turns"`
}

// Turn is one assistant turn.
type Turn struct {
	Content   string       `json:"content,omitempty"`
	ToolCalls []ScriptCall `json:"tool_calls,omitempty"`
	// Expect, when set, must be a substring of the tool results the agent
	// sends since the previous turn; otherwise the run has diverged.
	Expect string `json:"expect,omitempty"`
	// Branches are alternatives to this turn and the rest of the script,
	// for when the engineer answered otherwise: the first whose When is in
	// the tool results since the previous turn (a refusal, another
	// checkpoint chosen) replaces them. None matching plays this turn.
	Branches []Branch `json:"branches,omitempty"`
}

// Branch is the rest of a script for one answer of the engineer's.
type Branch struct {
	When  string `json:"when"`
	Turns []Turn `json:"turns"`
}

// ScriptCall is a tool call in a script. Arguments is a JSON object, sent
// to the agent compacted to a string. A JSON string is sent verbatim, which
// lets a script feed the agent malformed arguments on purpose.
type ScriptCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// scriptFile is either a single script or per-agent scripts.
type scriptFile struct {
	Model  string             `json:"model,omitempty"`
	Turns  []Turn             `json:"turns,omitempty"`
	Agents map[string]*Script `json:"agents,omitempty"`
}

// LoadScript reads a single-agent script file.
func LoadScript(path string) (*Script, error) {
	f, err := readScriptFile(path)
	if err != nil {
		return nil, err
	}
	if f.Agents != nil {
		return nil, fmt.Errorf("script %s holds per-agent scripts (%s): load one with LoadAgentScript", path, strings.Join(agentNames(f), ", "))
	}
	return &Script{Model: f.Model, Turns: f.Turns}, nil
}

// LoadAgentScript reads the named agent's script from a per-agent file. A
// single-script file is returned whole, whatever agent is asked for.
func LoadAgentScript(path, agent string) (*Script, error) {
	f, err := readScriptFile(path)
	if err != nil {
		return nil, err
	}
	if f.Agents == nil {
		return &Script{Model: f.Model, Turns: f.Turns}, nil
	}
	s, ok := f.Agents[agent]
	if !ok {
		return nil, fmt.Errorf("script %s has no agent %q (it has: %s)", path, agent, strings.Join(agentNames(f), ", "))
	}
	return s, nil
}

func readScriptFile(path string) (*scriptFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	f, err := parseScriptFile(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return f, nil
}

// ParseScript parses and checks a single-agent script.
func ParseScript(data []byte) (*Script, error) {
	f, err := parseScriptFile(data)
	if err != nil {
		return nil, err
	}
	if f.Agents != nil {
		return nil, errors.New("holds per-agent scripts; expected a single script")
	}
	return &Script{Model: f.Model, Turns: f.Turns}, nil
}

func parseScriptFile(data []byte) (*scriptFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt "tool_call" should not silently drop calls
	var f scriptFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if dec.More() {
		return nil, errors.New("parse: trailing data after the script")
	}
	if f.Agents != nil {
		return &f, checkAgents(&f)
	}
	return &f, (&Script{Model: f.Model, Turns: f.Turns}).check()
}

func checkAgents(f *scriptFile) error {
	if len(f.Turns) > 0 || f.Model != "" {
		return errors.New(`use either "agents" or "model"/"turns" at the top level, not both`)
	}
	if len(f.Agents) == 0 {
		return errors.New(`"agents" is empty`)
	}
	for _, name := range agentNames(f) {
		s := f.Agents[name]
		if s == nil {
			return fmt.Errorf("agent %q: no script", name)
		}
		if err := s.check(); err != nil {
			return fmt.Errorf("agent %q: %w", name, err)
		}
	}
	return nil
}

func agentNames(f *scriptFile) []string {
	names := make([]string, 0, len(f.Agents))
	for n := range f.Agents {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// check reports the first malformed turn, numbered from 1 as in errors at
// play time.
func (s *Script) check() error {
	if len(s.Turns) == 0 {
		return errors.New("no turns")
	}
	for i, t := range s.Turns {
		if t.Content == "" && len(t.ToolCalls) == 0 {
			return fmt.Errorf("turn %d: neither content nor tool calls", i+1)
		}
		for j, c := range t.ToolCalls {
			if strings.TrimSpace(c.Name) == "" {
				return fmt.Errorf("turn %d, call %d: no tool name", i+1, j+1)
			}
			if _, err := c.argumentString(); err != nil {
				return fmt.Errorf("turn %d, call %d (%s): %w", i+1, j+1, c.Name, err)
			}
		}
	}
	return nil
}

// argumentString is the arguments as the model would send them.
func (c ScriptCall) argumentString() (string, error) {
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "{}", nil
	}
	switch raw[0] {
	case '{':
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return buf.String(), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return s, nil
	}
	return "", errors.New("arguments must be a JSON object (or a string sent verbatim)")
}
