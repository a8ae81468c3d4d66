package swebench

import "strings"

// LocAgentOutput is one line of LocAgent/Agentless localization output.
type LocAgentOutput struct {
	InstanceID    string   `json:"instance_id"`
	FoundFiles    []string `json:"found_files"`
	FoundModules  []string `json:"found_modules"`  // path:Class or path:function
	FoundEntities []string `json:"found_entities"` // path:Class.method or path:function
}

// NewLocAgentOutput derives modules from the entities (their first
// qualified-name part) and keeps rank order without duplicates.
func NewLocAgentOutput(id string, files, functions []string) LocAgentOutput {
	out := LocAgentOutput{InstanceID: id, FoundFiles: dedupe(files), FoundEntities: dedupe(functions)}
	var mods []string
	for _, f := range out.FoundEntities {
		path, qual, ok := strings.Cut(f, ":")
		if !ok {
			continue
		}
		head, _, _ := strings.Cut(qual, ".")
		mods = append(mods, path+":"+head)
	}
	out.FoundModules = dedupe(mods)
	if out.FoundFiles == nil {
		out.FoundFiles = []string{}
	}
	if out.FoundModules == nil {
		out.FoundModules = []string{}
	}
	if out.FoundEntities == nil {
		out.FoundEntities = []string{}
	}
	return out
}

// Prediction is one SWE-bench prediction, as the harness reads it. Note,
// which the harness ignores, says why a patch is empty.
type Prediction struct {
	InstanceID      string `json:"instance_id"`
	ModelNameOrPath string `json:"model_name_or_path"`
	ModelPatch      string `json:"model_patch"`
	Note            string `json:"note,omitempty"`
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
