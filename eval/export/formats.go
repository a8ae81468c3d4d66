package export

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/eval/swebench"
)

// Formats export knows, as the --format flag names them.
const (
	FormatSWEAgent = "swe-agent"
	FormatLocAgent = "locagent"
	FormatSWEBench = "swe-bench"
)

// Formats lists them for help and errors.
var Formats = []string{FormatSWEAgent, FormatLocAgent, FormatSWEBench, FormatScript}

// Usage is the run's token and cost totals over both agents: from the
// summary, else each agent's last usage event, else the sum of the
// model replies.
func (r *Run) Usage() event.UsageInfo {
	if s := r.Summary; s != nil && (s.Localize.Calls+s.Resolve.Calls > 0) {
		return addUsage(s.Localize, s.Resolve)
	}
	last := map[string]event.UsageInfo{}
	var agents []string
	sum := event.UsageInfo{Priced: true}
	for _, e := range r.Events {
		switch {
		case e.Type == event.Usage && e.Usage != nil:
			if _, ok := last[e.Agent]; !ok {
				agents = append(agents, e.Agent)
			}
			last[e.Agent] = *e.Usage
		case e.Type == event.ModelReply && e.Usage != nil:
			u := *e.Usage
			u.Calls = 1 // a reply is one call
			sum = addUsage(sum, u)
		}
	}
	if len(agents) == 0 {
		return sum
	}
	tot := event.UsageInfo{Priced: true}
	for _, a := range agents {
		tot = addUsage(tot, last[a])
	}
	return tot
}

func addUsage(a, b event.UsageInfo) event.UsageInfo {
	return event.UsageInfo{
		PromptTokens:     a.PromptTokens + b.PromptTokens,
		CompletionTokens: a.CompletionTokens + b.CompletionTokens,
		Calls:            a.Calls + b.Calls,
		Cost:             a.Cost + b.Cost,
		Priced:           a.Priced && b.Priced,
	}
}

// LocAgent is the run's ranked locations in LocAgent/Agentless's format:
// from locations.json, else the run's last ranking event.
func LocAgent(r *Run, instanceID string) (swebench.LocAgentOutput, error) {
	if instanceID == "" {
		instanceID = r.InstanceID()
	}
	if r.Locations != nil {
		return swebench.NewLocAgentOutput(instanceID, r.Locations.Files, r.Locations.Functions), nil
	}
	for i := len(r.Events) - 1; i >= 0; i-- {
		if e := r.Events[i]; e.Type == event.Ranked && e.Ranking != nil {
			return swebench.NewLocAgentOutput(instanceID, e.Ranking.Files, e.Ranking.Functions), nil
		}
	}
	return swebench.LocAgentOutput{}, fmt.Errorf("%s has no locations (no %s and no ranking event): the run ended before localization finished", r.Dir, runfolder.LocationsFile)
}

// Prediction is the run's SWE-bench prediction. A run without a patch
// predicts the empty patch, which the harness scores as unresolved; so
// does a run that submitted without a solution (a refused merge, nothing
// merged, nothing changed), whose patch.diff is only the agent's work as
// it left it. The record's note says why.
func Prediction(r *Run, instanceID, model string) swebench.Prediction {
	if instanceID == "" {
		instanceID = r.InstanceID()
	}
	if model == "" {
		model = r.Model()
	}
	p := swebench.Prediction{InstanceID: instanceID, ModelNameOrPath: model, ModelPatch: r.Patch}
	if s := r.Summary; s != nil && (s.Status == runfolder.SubmittedUnmerged || s.Status == runfolder.SubmittedEmpty) {
		p.ModelPatch = ""
		p.Note = "no solution: the run ended " + s.Status + ", so model_patch is empty"
		if s.Message != "" {
			p.Note += " (" + s.Message + ")"
		}
	}
	return p
}

// Options pick the format and override what the run records.
type Options struct {
	Format     string
	InstanceID string // "" : the batch's instance id, else the run id
	Model      string // model_name_or_path for predictions; "": the run's model
}

// Write exports r in the chosen format: the trajectory as indented JSON,
// the others as one JSON line.
func Write(w io.Writer, r *Run, opts Options) error {
	var v any
	indent := false
	switch opts.Format {
	case FormatSWEAgent:
		v, indent = SWEAgent(r, opts.InstanceID), true
	case FormatLocAgent:
		out, err := LocAgent(r, opts.InstanceID)
		if err != nil {
			return err
		}
		v = out
	case FormatSWEBench:
		v = Prediction(r, opts.InstanceID, opts.Model)
	case FormatScript:
		out, err := Script(r)
		if err != nil {
			return err
		}
		v, indent = out, true
	default:
		return fmt.Errorf("unknown format %q (want one of %v)", opts.Format, Formats)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s export: %w", opts.Format, err)
	}
	return nil
}
