// Package sandbox confines the agent's shell commands at the operating
// system level: each command runs in fresh user, mount, network and pid
// namespaces, under a Landlock ruleset, with a process limit.
//
// The confinement is applied by a re-exec of our own binary: the parent
// starts it in the new namespaces, and the helper (this package's init,
// before anything else runs) hides the engineer's secrets, makes the git
// directory read-only, gives the command a private /tmp, restricts itself
// with Landlock and execs bash. The Landlock domain and the namespaces are
// inherited by everything bash starts.
//
// What a confined command can do:
//   - write only beneath the workspace, its private /tmp and the paths the
//     engineer allows; read the rest of the file system;
//   - not read ~/.ssh, ~/.aws, ~/.config/gcloud, ~/.netrc and the like
//     (they are covered by empty file systems);
//   - not write the repository's git directory (a hook written there would
//     run unconfined at the engineer's next commit);
//   - reach no network, loopback included, unless allowed;
//   - start a bounded number of processes, none of which outlives the
//     command: when bash ends, its pid namespace ends with it.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Mode is how the engineer wants the shell confined.
type Mode string

// The modes.
const (
	Auto   Mode = "auto"   // confine where the system allows, and say when it cannot
	Strict Mode = "strict" // refuse to run commands unconfined
	Off    Mode = "off"    // no confinement (the approval policy still applies)
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case Auto, Strict, Off:
		return m, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want auto, strict or off", s)
}

// Options widen the confinement on purpose.
type Options struct {
	Mode       Mode
	AllowNet   bool     // keep the network (the host's namespace)
	AllowWrite []string // extra paths the commands may write beneath
	// GitDirs are made read-only: the repository's git directories and the
	// workspace's .git entries, as the repository recorded them before any
	// command ran (never found from the workspace, which a command can change).
	GitDirs []string
}

// Policy confines the commands of one workspace.
type Policy struct {
	spec spec
	exe  string
	Temp string // the commands' private /tmp, on the host
}

// spec is what the helper applies; it travels in the environment.
type spec struct {
	Workspace string   `json:"workspace"`
	Temp      string   `json:"temp"`
	GitDirs   []string `json:"git_dirs"` // made read-only
	Hide      []string `json:"hide"`     // covered: directories by tmpfs, files by /dev/null
	Write     []string `json:"write"`    // extra writable paths
	Procs     uint64   `json:"procs"`
	Cgroup    string   `json:"cgroup,omitempty"` // a pids cgroup the helper joins`
	Net       bool     `json:"net"`
}

// ErrUnavailable: the system cannot confine commands.
var ErrUnavailable = errors.New("the shell cannot be confined on this system")

// New prepares a policy for the workspace. It checks that confinement
// works here by confining a no-op; when it does not, the error (wrapping
// ErrUnavailable) says why and how to allow it.
func New(workspace string, o Options) (*Policy, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: confinement is implemented for Linux only (on %s the approval policy is the only guard)", ErrUnavailable, runtime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find our own binary to confine commands: %v", ErrUnavailable, err)
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "swe-adept-tmp-*")
	if err != nil {
		return nil, fmt.Errorf("sandbox: private temporary folder: %w", err)
	}
	p := &Policy{exe: exe, Temp: tmp, spec: spec{Workspace: ws, Temp: tmp, GitDirs: absAll(o.GitDirs),
		Hide: secretPaths(), Write: absAll(o.AllowWrite), Procs: procLimit(), Net: o.AllowNet, Cgroup: pidsCgroup()}}
	if err := p.probe(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Close removes the private temporary folder and the process cgroup.
func (p *Policy) Close() error {
	if p.spec.Cgroup != "" {
		os.Remove(p.spec.Cgroup)
	}
	return os.RemoveAll(p.Temp)
}

// Limited reports whether the process limit holds: the kernel exempts
// root from RLIMIT_NPROC, so root needs a pids cgroup.
func (p *Policy) Limited() bool { return p.spec.Cgroup != "" || os.Getuid() != 0 }

// Describe says in a line what the confinement allows.
func (p *Policy) Describe() string {
	net := "no network"
	if p.spec.Net {
		net = "network allowed"
	}
	extra := ""
	if len(p.spec.Write) > 0 {
		extra = ", and " + strings.Join(p.spec.Write, ", ")
	}
	procs := ""
	if !p.Limited() {
		procs = "; no process limit (root without a pids cgroup)"
	}
	return fmt.Sprintf("shell confined (Landlock and namespaces): writes only in the workspace and a private temporary folder%s; %s; secrets and the git directory out of reach%s", extra, net, procs)
}

// Command is an exec.Cmd that runs name with args confined. The caller
// sets Dir, Stdout and Stderr, and adds its environment with Env.
func (p *Policy) Command(env []string, name string, args ...string) (*exec.Cmd, error) {
	enc, err := p.spec.encode()
	if err != nil {
		return nil, err
	}
	c := exec.Command(p.exe, append([]string{name}, args...)...)
	c.Env = append(append([]string{}, env...), helperEnv+"="+enc, "TMPDIR="+p.Temp)
	c.SysProcAttr = p.sysProcAttr()
	return c, nil
}

// probe confines `true`: the cheapest proof that this kernel allows it.
func (p *Policy) probe() error {
	c, err := p.Command(nil, "/bin/sh", "-c", "true")
	if err != nil {
		return err
	}
	out, err := c.CombinedOutput()
	if err == nil {
		return nil
	}
	why := strings.TrimSpace(string(out))
	if why == "" {
		why = err.Error()
	}
	return fmt.Errorf("%w: %s (unprivileged user namespaces may be off: `sysctl kernel.unprivileged_userns_clone=1`, "+
		"or on Ubuntu `sysctl kernel.apparmor_restrict_unprivileged_userns=0`; Landlock needs Linux 5.13 or later)", ErrUnavailable, why)
}

// secretPaths are the engineer's credentials that a command must not read.
func secretPaths() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, rel := range []string{".ssh", ".aws", ".config/gcloud", ".azure", ".kube", ".docker", ".gnupg",
		".netrc", ".git-credentials", ".npmrc", ".pypirc", ".config/gh", ".config/swe-adept", ".password-store"} {
		p := filepath.Join(home, rel)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// procLimit bounds the processes a command may start. The kernel counts
// them per user, so the limit sits above what the user already runs.
func procLimit() uint64 {
	n := 0
	uid := fmt.Sprint(os.Getuid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == uid {
				n++
				break
			}
		}
	}
	return uint64(n) + maxProcs
}

// pidsCgroup makes a cgroup holding at most maxProcs processes, under the
// pids hierarchy this process is in (cgroup v1 or v2), or returns "" where
// none can be made.
func pidsCgroup() string {
	base := pidsBase()
	if base == "" {
		return ""
	}
	dir, err := os.MkdirTemp(base, "swe-adept-")
	if err != nil {
		return ""
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(fmt.Sprint(maxProcs)), 0o644); err != nil {
		os.Remove(dir)
		return ""
	}
	return dir
}

// pidsBase is the folder of our own pids cgroup.
func pidsBase() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var root string
		switch {
		case parts[1] == "pids":
			root = "/sys/fs/cgroup/pids"
		case parts[0] == "0" && parts[1] == "":
			root = "/sys/fs/cgroup"
			if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
				continue // a hybrid system: v2 is not where pids live
			}
			if b, _ := os.ReadFile(filepath.Join(root, parts[2], "cgroup.subtree_control")); !strings.Contains(string(b), "pids") {
				continue
			}
		default:
			continue
		}
		dir := filepath.Join(root, parts[2])
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
			return dir
		}
	}
	return ""
}

// maxProcs is how many processes one command may add.
const maxProcs = 512

func absAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			out = append(out, a)
		}
	}
	return out
}
