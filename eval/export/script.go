package export

import (
	"encoding/json"
	"errors"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// FormatScript writes a run's conversations as a per-agent script the
// scripted model plays: the path the run took, the engineer's choices
// included, so a live run can be played again without a model.
const FormatScript = "script"

// scriptFile is the per-agent script layout that llm.LoadAgentScript reads.
type scriptFile struct {
	Agents map[string]*llm.Script `json:"agents"`
}

// Script is r's transcript as a script: each assistant turn, with its
// tool calls and their arguments as the model sent them.
func Script(r *Run) (any, error) {
	if r.Transcript == nil {
		return nil, errors.New("the run has no transcript.json: nothing to turn into a script")
	}
	out := scriptFile{Agents: map[string]*llm.Script{}}
	model := ""
	if r.Meta != nil {
		model = r.Meta.Model
	}
	for agent, msgs := range map[string][]llm.Message{"localization": r.Transcript.Localize, "resolution": r.Transcript.Resolve} {
		sc := &llm.Script{Model: model}
		for _, m := range msgs {
			if m.Role != llm.Assistant {
				continue
			}
			t := llm.Turn{Content: m.Content}
			for _, c := range m.ToolCalls {
				args := json.RawMessage(c.Arguments)
				if !json.Valid(args) {
					b, _ := json.Marshal(c.Arguments) // malformed as sent: keep it, as a string
					args = b
				}
				t.ToolCalls = append(t.ToolCalls, llm.ScriptCall{Name: c.Name, Arguments: args})
			}
			sc.Turns = append(sc.Turns, t)
		}
		if len(sc.Turns) > 0 {
			out.Agents[agent] = sc
		}
	}
	return out, nil
}
