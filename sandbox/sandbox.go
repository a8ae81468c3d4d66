// Package sandbox confines the agent's shell commands at the operating
// system level: each command runs in mount and pid namespaces of its own,
// inside user and network namespaces made for the policy, under a
// Landlock ruleset and a seccomp filter, in cgroups that bound its memory
// and processes.
//
// The confinement is applied by our own binary, started again as a
// helper with a program in its environment: the system calls this
// package works out for the command. The helper is C that runs before
// the Go runtime starts (helper_linux.c), so a command pays for a program
// load, not for a Go process and its packages' initialisation. It makes
// the namespaces and forks the command's first process, which joins the
// cgroups, covers the home, /tmp and the runtime folders with empty file
// systems and shows again what commands need (the workspace, the git
// directories read-only, the toolchain caches read-only), gets its own
// /dev and /proc, sets its limits, restricts itself with Landlock and
// seccomp, closes what it inherited and execs bash.
// All of it is inherited by everything bash starts.
//
// What a confined command can do:
//   - write only beneath the workspace, its empty private /tmp and home
//     (size-limited, gone when it ends) and the paths the engineer allows;
//     read the rest of the file system, less what is covered;
//   - not read the engineer's home (its ssh keys, tokens, histories), nor
//     the model settings file wherever it lives; only the toolchain caches
//     there are shown, read-only;
//   - not write the repository's git directory (a hook written there would
//     run unconfined at the engineer's next commit);
//   - reach no network, loopback included, unless allowed, and no unix
//     socket (an ssh-agent, a docker daemon) ever;
//   - see only the allowed environment variables, never the model's key;
//   - see no host process, no terminal, no descriptor swe-adept inherited;
//   - use bounded memory, processes, temporary space, file sizes and disk;
//     none of its processes outlives it: when bash ends, its pid
//     namespace ends with it.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// Options widen the confinement on purpose, bound it, and name what the
// model settings hold, which no command may see whatever else is allowed.
type Options struct {
	Mode       Mode
	AllowNet   bool     // keep the network (the host's namespace)
	AllowWrite []string // extra paths the commands may write beneath
	AllowRead  []string // paths shown read-only where they would be hidden (the home, /tmp)
	PassEnv    []string // variables passed besides the allow-list
	Limits     Limits
	DenyEnv    []string // the model's key and header variables: never passed
	Conceal    []string // the model settings file: never shown
	// GitDirs are made read-only: the repository's git directories and the
	// workspace's .git entries, as the repository recorded them before any
	// command ran (never found from the workspace, which a command can change).
	GitDirs []string
}

// Policy confines the commands of one workspace.
type Policy struct {
	spec    spec
	exe     string
	opts    Options
	limits  Limits
	goEnv   goEnv
	home    string            // the command's HOME, an empty folder; "" when it is not covered
	envOver map[string]string // variables set last: the caches' places when they cannot be overlaid
	state   string            // the policy's own folder on the host, locked while it lives
	lock    *os.File          // the lock on state
	cg      *cgroups
	held    *heldNS // the namespaces every command joins; nil: each makes its own
}

// spec is the confinement of every command; the helper's program is
// compiled from it for each command.
type spec struct {
	Workspace    string
	GitDirs      []string  // made read-only
	Hide         []string  // covered: directories by tmpfs, files by /dev/null
	Write        []string  // extra writable paths
	Read         []string  // shown read-only inside the covers (toolchain caches, --allow-read)
	Cover        []string  // covered by an empty writable tmpfs for each command (home, /tmp)
	CoverRO      []string  // covered by an empty read-only tmpfs (runtime folders)
	Overlays     []overlay // writable views of read-only caches (Go's build cache)
	Home         string    // the empty home, made inside its cover
	Cgroups      []string  // the cgroups the helper joins
	Procs        uint64    // RLIMIT_NPROC; 0: left as it is
	FileSize     uint64
	TmpSize      uint64
	AddressSpace uint64 // RLIMIT_AS, where no cgroup bounds memory
	Net          bool
}

// ErrUnavailable: the system cannot confine commands.
var ErrUnavailable = errors.New("the shell cannot be confined on this system")

// New prepares a policy for the workspace, after sweeping what crashed
// runs left behind. It checks that confinement works here by confining a
// no-op; when it does not, the error (wrapping ErrUnavailable) says why
// and how to allow it.
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
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	Sweep()
	p := &Policy{exe: exe, opts: o, limits: o.Limits.withDefaults(), goEnv: lookGo()}
	if err := p.makeState(); err != nil {
		return nil, err
	}
	p.spec = p.makeSpec(ws)
	if err := p.confines(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// confines proves that commands can be confined, first as cheaply as the
// kernel allows: in namespaces held for the policy, with a writable view
// of the build cache. A kernel that refuses to join them, or refuses
// overlays in a user namespace, gets the plainer way; for the latter the
// caches stay read-only and their variables point into the private /tmp.
func (p *Policy) confines() error {
	held, err := holdNamespaces(p.opts.AllowNet)
	if err == nil {
		p.held = held
		if p.probe() == nil {
			return nil
		}
		p.held.close()
		p.held = nil
	}
	err = p.probe()
	if err != nil && len(p.spec.Overlays) > 0 {
		p.withoutOverlays()
		err = p.probe()
	}
	return err
}

func (p *Policy) withoutOverlays() {
	p.envOver = map[string]string{}
	for _, o := range p.spec.Overlays {
		p.spec.Read = append(p.spec.Read, o.Target)
		p.envOver[o.Env] = filepath.Join("/tmp", filepath.Base(o.Target))
	}
	p.spec.Overlays = nil
}

// checked remembers Check's answers: whether the system confines does not
// change while swe-adept runs. Keyed by AllowNet, the one option that
// changes which namespaces are made.
var checked sync.Map

// Check reports whether commands can be confined here with o, by
// confining a no-op in an empty workspace, once per process. The error
// wraps ErrUnavailable and says why, and how to allow it.
func Check(o Options) error {
	if err, ok := checked.Load(o.AllowNet); ok {
		e, _ := err.(error)
		return e
	}
	err := check(o)
	checked.Store(o.AllowNet, err)
	return err
}

// Unconfined says, before anything runs, why commands will not be
// confined with o; "" when they will be, or when o turns confinement
// off. Strict mode's refusal is the error.
func Unconfined(o Options) (string, error) {
	if o.Mode == Off {
		return "", nil
	}
	err := Check(o)
	switch {
	case err == nil:
		return "", nil
	case o.Mode == Strict:
		return "", fmt.Errorf("--sandbox strict: %w", err)
	}
	return err.Error(), nil
}

func check(o Options) error {
	dir, err := os.MkdirTemp("", "swe-adept-check-*")
	if err != nil {
		return fmt.Errorf("sandbox check: %w", err)
	}
	defer os.RemoveAll(dir)
	p, err := New(dir, o)
	if err != nil {
		return err
	}
	return p.Close()
}

// makeState makes the policy's folder and cgroups, locked while it lives.
func (p *Policy) makeState() error {
	id := newID()
	p.state = filepath.Join(os.TempDir(), statePrefix+id)
	if err := os.Mkdir(p.state, 0o700); err != nil {
		return fmt.Errorf("sandbox: private folder: %w", err)
	}
	f, err := lock(p.state)
	if err != nil {
		os.Remove(p.state)
		return fmt.Errorf("sandbox: lock %s: %w", p.state, err)
	}
	p.lock = f
	p.cg = makeCgroups(id, p.limits)
	return nil
}

func (p *Policy) makeSpec(ws string) spec {
	l := p.limits
	s := spec{Workspace: ws, GitDirs: existing(absAll(p.opts.GitDirs)), Write: existing(absAll(p.opts.AllowWrite)), Procs: p.procLimit(),
		FileSize: l.File, TmpSize: l.Tmp, Net: p.opts.AllowNet, Cgroups: p.cg.dirs}
	s.Cover, s.CoverRO = covers()
	covered := append(slices.Clone(s.Cover), s.CoverRO...)
	s.Read = append(shownCaches(covered, p.goEnv), existing(absAll(p.opts.AllowRead))...)
	s.Hide = existing(absAll(p.opts.Conceal))
	if h := homes(); len(h) > 0 && beneathAny(h[0], s.Cover) {
		p.home, s.Home = h[0], h[0]
	} else {
		s.Hide = append(s.Hide, secretPaths()...) // no home to cover: hide what we know
	}
	if o, ok := p.cacheOverlay(); ok {
		s.Overlays = append(s.Overlays, o)
	}
	if p.cg.memory == "" {
		s.AddressSpace = l.Memory
	}
	return s
}

// cacheOverlay is a writable view of Go's build cache (`go test` writes
// it): the engineer's entries are read, and the run's own builds stay in
// the policy's folder, reused by its later commands. A command can thus
// never plant an entry that the engineer's next build would link.
func (p *Policy) cacheOverlay() (overlay, bool) {
	c := p.goEnv.cache
	if c == "" || strings.ContainsAny(c+p.state, ",:") {
		return overlay{}, false
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return overlay{}, false
	}
	o := overlay{Target: c, Upper: filepath.Join(p.state, "go-build", "upper"), Work: filepath.Join(p.state, "go-build", "work"), Env: "GOCACHE"}
	for _, d := range []string{o.Upper, o.Work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return overlay{}, false
		}
	}
	return o, true
}

// Close removes the policy's folder and cgroups.
func (p *Policy) Close() error {
	p.held.close()
	if p.cg != nil {
		p.cg.close()
	}
	err := removeState(p.state)
	if p.lock != nil {
		p.lock.Close()
	}
	return err
}

// Limited reports whether the process limit holds: the kernel exempts
// root from RLIMIT_NPROC, so root needs a pids cgroup.
func (p *Policy) Limited() bool { return p.cg.pids != "" || os.Getuid() != 0 }

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
	l := p.limits
	mem := "memory " + FormatSize(l.Memory)
	if p.cg.memory == "" {
		mem += " per process (no memory cgroup here)"
	}
	procs := fmt.Sprintf("%d processes", l.Procs)
	if !p.Limited() {
		procs = "no process limit (root without a pids cgroup)"
	}
	return fmt.Sprintf("shell confined (namespaces, Landlock, seccomp): writes only in the workspace%s and an empty private /tmp and home; %s; "+
		"no unix sockets; secrets, the git directory and host processes out of reach; %s, %s, /tmp %s, files %s, %s of disk per command",
		extra, net, mem, procs, FormatSize(l.Tmp), FormatSize(l.File), FormatSize(l.Disk))
}

// Command is an exec.Cmd that runs name with args confined. The caller
// sets Dir, Stdout and Stderr. Of env, only the allowed variables reach
// the command (see Env); HOME is the empty home and TMPDIR the private
// /tmp.
func (p *Policy) Command(env []string, name string, args ...string) (*exec.Cmd, error) {
	prog, err := p.spec.compile(p.held)
	if err != nil {
		return nil, err
	}
	c := exec.Command(p.exe, append([]string{name}, args...)...)
	c.Env = append(p.env(env), helperEnv+"="+prog.encode())
	c.SysProcAttr = p.sysProcAttr()
	c.ExtraFiles = p.held.extraFiles()
	return c, nil
}

// env is what a command's environment becomes.
func (p *Policy) env(env []string) []string {
	env = Env(env, p.opts.PassEnv, p.opts.DenyEnv)
	if p.home != "" {
		env = setEnv(env, "HOME", p.home)
	}
	env = setEnv(env, "TMPDIR", "/tmp")
	env = setEnv(env, "TERM", "dumb")
	g := p.goEnv
	for name, v := range map[string]string{"GOCACHE": g.cache, "GOMODCACHE": g.modCache, "GOPATH": g.path} {
		if v != "" { // what the engineer's go env file says, which commands cannot read
			env = setEnv(env, name, v)
		}
	}
	for name, v := range p.envOver {
		env = setEnv(env, name, v)
	}
	return env
}

// probe confines `true`: the cheapest proof that this kernel allows it.
func (p *Policy) probe() error {
	c, err := p.Command(nil, "/bin/sh", "-c", "true")
	if err != nil {
		return err
	}
	c.Dir = p.spec.Workspace
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

// procLimit is RLIMIT_NPROC for a command: where a pids cgroup bounds its
// processes, 0 (left as it is); else its share above what the user
// already runs, since the kernel counts them per user.
func (p *Policy) procLimit() uint64 {
	if p.cg.pids != "" {
		return 0
	}
	procs := p.limits.Procs
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
	return uint64(n + procs)
}

func absAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			out = append(out, a)
		}
	}
	return out
}
