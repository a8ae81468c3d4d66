package cli

import (
	"flag"

	"github.com/swe-adept/swe-adept/agent/sandbox"
)

// sandboxFlags are the shell-confinement flags of the commands that run
// the resolution agent.
type sandboxFlags struct {
	mode  string
	net   bool
	write listFlag
}

func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	f := &sandboxFlags{}
	fs.StringVar(&f.mode, "sandbox", "auto", "confine the agent's shell: auto (where the system allows, saying when it cannot), strict (refuse to run unconfined) or off")
	fs.BoolVar(&f.net, "allow-net", false, "let confined commands use the network")
	fs.Var(&f.write, "allow-write", "a `path` confined commands may write beneath, besides the workspace (repeatable)")
	return f
}

func (f *sandboxFlags) options() (sandbox.Options, error) {
	m, err := sandbox.ParseMode(f.mode)
	if err != nil {
		return sandbox.Options{}, usagef("--sandbox: %v", err)
	}
	return sandbox.Options{Mode: m, AllowNet: f.net, AllowWrite: f.write}, nil
}
