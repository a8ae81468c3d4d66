package batch

// RunnerSpec is what a batch's runner is made from: settings only, never
// the environment, so it can travel to a worker on another machine whose
// own environment supplies the model key.
type RunnerSpec struct {
	LocalizeOnly bool        `json:"localize_only,omitempty"`
	Agent        AgentRunner `json:"agent"`
}

// Runner is the runner the spec describes: localization alone, or whole
// runs.
func (s RunnerSpec) Runner() Runner {
	a := s.Agent
	if s.LocalizeOnly {
		return LocalizeRunner{Models: a.Models, Script: a.ScriptLocalize, MaxIterations: a.LocalizeMaxIterations,
			MaxCost: a.MaxCost, MaxTokens: a.MaxTokens}
	}
	return a
}
