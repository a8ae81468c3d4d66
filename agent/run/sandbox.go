package run

import (
	"fmt"
	"os"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/sandbox"
)

// checkConfinement finds out, before the run starts, whether its commands
// can be confined, so that the engineer is told before anything runs.
// Strict mode refuses to run them unconfined.
func (r *Run) checkConfinement() error {
	o := r.sandboxOptions()
	switch {
	case r.opts.LocalizeOnly:
		return nil // no command runs
	case o.Mode == sandbox.Off:
		r.unconfined = "--sandbox off: commands run as you, with your files, network and environment; only the approval policy guards them"
		return nil
	}
	why, err := sandbox.Unconfined(o)
	r.unconfined = why
	return err
}

// Unconfined says why the run's commands are not confined; "" when they
// are. The caller tells the engineer before the first command.
func (r *Run) Unconfined() string { return r.unconfined }

// unconfinedPolicy is why no command may run without the engineer: the
// shell cannot be confined, and the engineer chose neither --sandbox off
// nor the approval mode.
func (r *Run) unconfinedPolicy() string {
	if r.unconfined == "" || r.opts.ApproveChosen || r.sandboxOptions().Mode == sandbox.Off {
		return ""
	}
	return r.unconfined
}

func (r *Run) sandboxOptions() sandbox.Options {
	o := r.opts.Sandbox
	if o.Mode == "" {
		o.Mode = sandbox.Auto
	}
	o.DenyEnv = append(append([]string{}, o.DenyEnv...), r.opts.Confidential.Env...)
	o.Conceal = append(append([]string{}, o.Conceal...), r.opts.Confidential.Files...)
	return o
}

// commandEnv is the environment the agent's commands get.
func (r *Run) commandEnv() []string {
	o := r.sandboxOptions()
	return resolve.CommandEnv(os.Environ(), o.PassEnv, o.DenyEnv)
}

// sandbox prepares the confinement of the agent's shell for the workspace
// and says once what it is. gitPaths are made read-only
// (vcs.Repo.GitPaths, recorded before any command ran).
func (r *Run) sandbox(workspace string, gitPaths []string) (*sandbox.Policy, error) {
	if r.unconfined != "" {
		r.emit(event.Event{Type: event.Message, Text: "shell NOT confined: " + r.unconfined})
		return nil, nil
	}
	o := r.sandboxOptions()
	o.GitDirs = append(o.GitDirs[:len(o.GitDirs):len(o.GitDirs)], gitPaths...)
	p, err := sandbox.New(workspace, o)
	if err != nil {
		return nil, fmt.Errorf("confine the shell in %s: %w (--sandbox off runs commands unconfined)", workspace, err)
	}
	r.emit(event.Event{Type: event.Message, Text: p.Describe()})
	return p, nil
}
