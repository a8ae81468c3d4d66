package run

import (
	"fmt"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/sandbox"
)

// sandbox prepares the confinement of the agent's shell for the workspace
// and says once what it is. In auto mode a system that cannot confine
// runs the shell unconfined, and says so; strict mode stops the run.
// gitPaths are made read-only (vcs.Repo.GitPaths).
func (r *Run) sandbox(workspace string, gitPaths []string) (*sandbox.Policy, error) {
	o := r.opts.Sandbox
	o.GitDirs = append(o.GitDirs[:len(o.GitDirs):len(o.GitDirs)], gitPaths...)
	if o.Mode == "" {
		o.Mode = sandbox.Auto
	}
	if o.Mode == sandbox.Off {
		r.emit(event.Event{Type: event.Message, Text: "shell NOT confined (--sandbox off): only the approval policy guards commands"})
		return nil, nil
	}
	p, err := sandbox.New(workspace, o)
	if err != nil {
		if o.Mode == sandbox.Strict {
			return nil, fmt.Errorf("--sandbox strict: %w", err)
		}
		r.emit(event.Event{Type: event.Message, Text: "shell NOT confined: " + err.Error()})
		return nil, nil
	}
	r.emit(event.Event{Type: event.Message, Text: p.Describe()})
	return p, nil
}
