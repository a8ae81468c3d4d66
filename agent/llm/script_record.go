package llm

import (
	"encoding/json"
	"fmt"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// ScriptFromMessages turns the assistant turns of a conversation (a real
// run's trajectory) into a Script, so a demo can replay what a model once
// did. Arguments that are a JSON object are kept as objects; anything else
// is kept as a string and replayed verbatim. Empty assistant turns carry
// nothing to replay and are left out. Expectations are not inferred: the
// author adds "expect" where the replay should check the tools' answers.
func ScriptFromMessages(model string, msgs []Message) *Script {
	s := &Script{Model: model}
	for _, m := range msgs {
		if m.Role != Assistant || (m.Content == "" && len(m.ToolCalls) == 0) {
			continue
		}
		turn := Turn{Content: m.Content}
		for _, tc := range m.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, ScriptCall{Name: tc.Name, Arguments: scriptArguments(tc.Arguments)})
		}
		s.Turns = append(s.Turns, turn)
	}
	return s
}

func scriptArguments(args string) json.RawMessage {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) == nil && obj != nil {
		return json.RawMessage(args)
	}
	quoted, _ := json.Marshal(args) // a string always marshals
	return quoted
}

// Save writes the script as indented JSON that LoadScript reads back.
func (s *Script) Save(path string) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("save script %s: %w", path, err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save script %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(data, '\n')); err != nil {
		return fmt.Errorf("save script: %w", err)
	}
	return nil
}
