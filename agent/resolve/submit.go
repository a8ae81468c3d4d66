package resolve

import (
	"context"
	"path"
	"strings"

	"github.com/swe-adept/swe-adept/agent/tool"
)

// Submission is what the submit tool hands the run (tool.Output.Data).
type Submission struct {
	Summary   string   `json:"summary,omitempty"`
	KeepFiles []string `json:"keep_files,omitempty"`
}

type submitArgs struct {
	Summary   string   `json:"summary,omitempty" description:"two or three sentences: the root cause and the fix"`
	KeepFiles []string `json:"keep_files,omitempty" description:"files you created that belong in the patch although they look like scratch (e.g. a new test named repro_*.py); reproduction scripts are left out otherwise"`
}

// SubmitTool ends the resolution. The patch is the merged solution (or the
// current state when nothing was merged) against the original state, with
// the agent's scratch files left out unless it names them in keep_files.
func SubmitTool() tool.Tool {
	return tool.New("submit", "Submit the solution and end the run. Call it after merge_solution. "+
		"Reproduction scripts you created (reproduce*.py, repro*.py, scratch files) are left out of the patch unless listed in keep_files.",
		func(_ context.Context, a submitArgs) (tool.Output, error) {
			s := Submission{Summary: strings.TrimSpace(a.Summary)}
			for _, f := range a.KeepFiles {
				if f = strings.TrimSpace(f); f != "" {
					s.KeepFiles = append(s.KeepFiles, path.Clean(strings.TrimPrefix(f, "./")))
				}
			}
			return tool.Output{Text: "Submitted.", Summary: "submitted", Stop: true, Data: s}, nil
		})
}

// IsScratch reports whether a file the agent added is scratch work: a
// reproduction script or anything named scratch. Files that existed before
// the run are never scratch (the caller passes added files only).
func IsScratch(rel string) bool {
	rel = strings.ToLower(path.Clean(strings.TrimPrefix(rel, "./")))
	base := path.Base(rel)
	switch {
	case strings.HasPrefix(base, "reproduce") || strings.HasPrefix(base, "repro_") || strings.HasPrefix(base, "repro.") || base == "repro":
		return true
	case strings.Contains(rel, "scratch"):
		return true
	}
	return false
}
