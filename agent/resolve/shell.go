package resolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/swe-adept/swe-adept/sandbox"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/tool"
)

// Defaults for commands.
const (
	DefaultTimeout   = 30 * time.Second
	MaxTimeout       = 10 * time.Minute
	DefaultMaxOutput = 8 << 10
)

// ShellConfig sets up the bash tool.
type ShellConfig struct {
	Workdir   string
	Perm      Permissions
	Approver  event.Approver // answers asks; nil refuses them
	Bus       *event.Bus     // approval and approval_done events; nil: none
	Timeout   time.Duration  // per command unless the call asks for more; 0: DefaultTimeout
	Budget    time.Duration  // all commands of the run together; 0: no limit
	MaxOutput int            // bytes of output the model reads; 0: DefaultMaxOutput
	Env       []string       // nil: CommandEnv(os.Environ(), nil, nil)
	Secrets   []string       // values scrubbed from output; nil: SecretValues(os.Environ())
	// Sandbox confines every command at the OS level; nil runs them
	// unconfined (the approval policy is then the only guard).
	Sandbox *sandbox.Policy
}

// Shell runs the model's commands in the workspace, one at a time.
type Shell struct {
	cfg  ShellConfig
	mu   sync.Mutex
	used time.Duration
}

// NewShell makes a shell for cfg.
func NewShell(cfg ShellConfig) *Shell {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.Env == nil {
		cfg.Env = CommandEnv(os.Environ(), nil, nil)
	}
	if cfg.Secrets == nil {
		cfg.Secrets = SecretValues(os.Environ())
	}
	if cfg.Perm.Workdir == "" {
		cfg.Perm.Workdir = cfg.Workdir
	}
	return &Shell{cfg: cfg}
}

// Exec is what one command did.
type Exec struct {
	Output   string   // stdout and stderr interleaved, capped
	Cut      int      // bytes left out of the middle
	Limits   []string // the sandbox's limits the command met, one line each
	ExitCode int
	TimedOut bool
	Took     time.Duration
}

type bashArgs struct {
	Command string `json:"command" description:"the bash command to run in the repository's workspace (working directory: the repository root). Non-interactive: stdin is empty."`
	Timeout int    `json:"timeout,omitempty" description:"seconds before the command is stopped; default 30, at most 600"`
}

// Tool is the bash tool.
func (s *Shell) Tool() tool.Tool {
	return tool.New("bash", "Run a bash command in the repository's workspace, e.g. to run a reproduction script or the tests. "+
		"Each call is a fresh `bash -c` in the repository root; it is stopped after its time-out (30 s by default). "+
		"/tmp (and $TMPDIR) is emptied after each call: keep files a later call needs in the repository. "+
		"Long output keeps its start and end, and says which lines were cut (print them with sed -n). Interactive programs (editors, pagers, a bare python) cannot run: use str_replace_editor to read and edit files. "+
		"Network access, paths outside the repository and git commands that move branches are refused; use the hypothesis_git tools for version control.",
		s.call)
}

func (s *Shell) call(ctx context.Context, a bashArgs) (tool.Output, error) {
	cmd := strings.TrimSpace(a.Command)
	d := s.cfg.Perm.Check(cmd)
	if d.Verdict == Refuse {
		return refused("Command refused: " + d.Reason), nil
	}
	if d.Verdict == Ask {
		var out *tool.Output
		var err error
		cmd, out, err = s.ask(ctx, cmd)
		if err != nil || out != nil {
			return deref(out), err
		}
	}
	timeout := s.cfg.Timeout
	if a.Timeout > 0 {
		timeout = min(time.Duration(a.Timeout)*time.Second, MaxTimeout)
	}
	x, err := s.Run(ctx, cmd, timeout)
	if err != nil {
		return tool.Output{}, err
	}
	return tool.Output{Text: render(x, timeout), Summary: summarize(cmd, x), Failed: x.TimedOut}, nil
}

func deref(o *tool.Output) tool.Output {
	if o == nil {
		return tool.Output{}
	}
	return *o
}

func refused(text string) tool.Output { return tool.Output{Text: text, Failed: true} }

// ask puts a command to the approver. It returns the command to run, or an
// observation when nothing runs.
func (s *Shell) ask(ctx context.Context, cmd string) (string, *tool.Output, error) {
	if s.cfg.Approver == nil {
		o := refused("Command refused: it is not on the allow-list and nobody can approve it in this run; use an allowed command (tests, grep, cat, ...) or str_replace_editor.")
		return "", &o, nil
	}
	req := event.NewApproval("", "bash", cmd) // event.Ask numbers it for the run
	prefix := AllowPrefix(cmd)
	req.Summary = "The resolution agent wants to run a shell command that is not on the allow-list, in " + s.cfg.Workdir + ". " + s.confinement()
	if prefix != "" {
		req.Options = []string{"always: " + prefix}
	}
	rep, err := event.Ask(ctx, s.cfg.Bus, event.Resolver, s.cfg.Approver, req)
	if err != nil {
		return "", nil, fmt.Errorf("approve command: %w", err)
	}
	switch rep.Decision {
	case event.Approve:
		return cmd, nil, nil
	case event.Choose:
		return s.chosen(cmd, rep.Choice)
	}
	reason := rep.Reason
	if reason == "" {
		reason = "no reason given"
	}
	o := refused("The engineer refused this command: " + reason)
	return "", &o, nil
}

// chosen handles an engineer's alternative: "always: prefix" allows the
// prefix for the rest of the run; any other text is the command to run
// instead, still refused if it reaches outside the workspace.
func (s *Shell) chosen(cmd, choice string) (string, *tool.Output, error) {
	if p, ok := strings.CutPrefix(choice, "always:"); ok {
		s.mu.Lock()
		s.cfg.Perm.Allow = append(s.cfg.Perm.Allow, strings.TrimSpace(p))
		s.mu.Unlock()
		return cmd, nil, nil
	}
	choice = strings.TrimSpace(choice)
	if choice == "" {
		return cmd, nil, nil
	}
	if d := s.cfg.Perm.Check(choice); d.Verdict == Refuse {
		o := refused("The engineer replaced the command, but the replacement is refused: " + d.Reason)
		return "", &o, nil
	}
	return choice, nil, nil
}

// AllowPrefix is the prefix an engineer would allow for cmd: its program
// with its subcommand or leading flag (make test, python3 -c, python3 -m
// mypkg), never a bare interpreter.
func AllowPrefix(cmd string) string {
	segs := splitCommand(stripHeredocs(cmd))
	if len(segs) != 1 {
		return ""
	}
	w := commandWords(segs[0])
	switch {
	case len(w) == 0:
		return ""
	case len(w) >= 3 && w[1] == "-m":
		return w[0] + " -m " + w[2]
	case len(w) >= 2 && strings.HasPrefix(w[1], "-"):
		return w[0] + " " + w[1]
	case len(w) >= 2 && !strings.ContainsAny(w[1], "/."):
		return w[0] + " " + w[1]
	}
	return w[0]
}

// Run runs one command with no policy check: bash -c in the workspace, in
// a session of its own, stdin from /dev/null. Its output is read as it
// comes, keeping the start and the end. On time-out or cancellation the
// whole group is killed, and so are leftovers after a normal exit.
func (s *Shell) Run(ctx context.Context, command string, timeout time.Duration) (Exec, error) {
	timeout, err := s.reserve(timeout)
	if err != nil {
		return Exec{}, err
	}
	c, err := s.command(command)
	if err != nil {
		return Exec{}, err
	}
	out, err := newOutputPipe(s.cfg.MaxOutput)
	if err != nil {
		return Exec{}, err
	}
	c.Dir, c.Stdout, c.Stderr = s.cfg.Workdir, out.w, out.w
	start := time.Now()
	if err := c.Start(); err != nil {
		out.abandon()
		return Exec{}, fmt.Errorf("bash: start: %w", err)
	}
	out.w.Close() // the command holds it now
	out.start()
	x, err := s.watch(ctx, c, timeout)
	x.Took = time.Since(start)
	s.charge(x.Took)
	text, cut, oerr := out.finish()
	if err != nil {
		return x, err
	}
	x.Output, x.Cut = Scrub(text, s.cfg.Secrets), cut
	return x, oerr
}

// watch waits for the command, with the sandbox watching the bounds it
// keeps while a command runs, and notes the limits the command met.
func (s *Shell) watch(ctx context.Context, c *exec.Cmd, timeout time.Duration) (Exec, error) {
	if s.cfg.Sandbox == nil {
		return s.wait(ctx, c, timeout)
	}
	pgid := c.Process.Pid
	w := s.cfg.Sandbox.Watch(func() { killGroup(pgid) })
	x, err := s.wait(ctx, c, timeout)
	x.Limits = w.Stop()
	return x, err
}

// command is bash -c command, confined when the shell has a sandbox.
func (s *Shell) command(command string) (*exec.Cmd, error) {
	if s.cfg.Sandbox != nil {
		c, err := s.cfg.Sandbox.Command(s.cfg.Env, "bash", "-c", command)
		if err != nil {
			return nil, fmt.Errorf("bash: %w", err)
		}
		return c, nil
	}
	sandbox.CloseInherited() // what swe-adept inherited stays here
	c := exec.Command("bash", "-c", command)
	c.Env = s.cfg.Env
	// A session of its own: no controlling terminal to type into or draw
	// on, and a process group to kill as one.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return c, nil
}

// confinement says how the command would run, for the approval dialog.
func (s *Shell) confinement() string {
	if s.cfg.Sandbox == nil {
		return "It would run NOT confined: it can write anywhere you can and use the network."
	}
	return "It would run confined: writes only in the workspace, no network unless allowed, secrets out of reach."
}

func (s *Shell) wait(ctx context.Context, c *exec.Cmd, timeout time.Duration) (Exec, error) {
	pgid := c.Process.Pid
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var x Exec
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		killGroup(pgid)
		werr, x.TimedOut = <-done, true
	case <-ctx.Done():
		killGroup(pgid)
		<-done
		return x, fmt.Errorf("bash: %w", ctx.Err())
	}
	killGroup(pgid) // background children left behind
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		x.ExitCode = ee.ExitCode()
	default:
		return x, fmt.Errorf("bash: wait: %w", werr)
	}
	return x, nil
}

func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// reserve clamps a command's time-out to what is left of the run's budget.
func (s *Shell) reserve(timeout time.Duration) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.Budget <= 0 {
		return timeout, nil
	}
	left := s.cfg.Budget - s.used
	if left <= 0 {
		return 0, errBudget{s.cfg.Budget}
	}
	return min(timeout, left), nil
}

func (s *Shell) charge(d time.Duration) {
	s.mu.Lock()
	s.used += d
	s.mu.Unlock()
}

// errBudget is shown to the model as the bash tool's failure.
type errBudget struct{ budget time.Duration }

func (e errBudget) Error() string {
	return fmt.Sprintf("the run's command time (%s) is used up; no more commands can run: compare, merge and submit what you have", e.budget)
}

// printable makes command output safe to hand a model: invalid UTF-8
// becomes U+FFFD, and control characters other than newline, tab and
// carriage return are shown escaped, a long run of one as a count
// ("[\x00 ×8192]") so binary output cannot fill the observation.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if !isControl(rune(c)) {
			b.WriteByte(c)
			i++
			continue
		}
		n := 1
		for i+n < len(s) && s[i+n] == c {
			n++
		}
		if n > 3 {
			fmt.Fprintf(&b, "[\\x%02x ×%d]", c, n)
		} else {
			b.WriteString(strings.Repeat(fmt.Sprintf("\\x%02x", c), n))
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f
}

// render is the observation the model reads.
func render(x Exec, timeout time.Duration) string {
	var b strings.Builder
	out := x.Output
	if strings.TrimSpace(out) == "" {
		out = "(no output)"
	}
	b.WriteString(strings.TrimRight(out, "\n"))
	for _, l := range x.Limits {
		b.WriteString("\n[" + l + "]")
	}
	if x.TimedOut {
		fmt.Fprintf(&b, "\n[timed out after %s: the command and every process it started were stopped. Run something narrower (one test file or case), or pass a larger timeout (at most 600 s).]", timeout.Round(time.Second))
	} else if x.ExitCode != 0 {
		fmt.Fprintf(&b, "\n[exit status %d]", x.ExitCode)
	}
	return b.String()
}

func summarize(cmd string, x Exec) string {
	first, _, _ := strings.Cut(cmd, "\n")
	if len(first) > 70 {
		first = first[:67] + "..."
	}
	switch {
	case x.TimedOut:
		return "$ " + first + "  (timed out)"
	case x.ExitCode != 0:
		return fmt.Sprintf("$ %s  (exit %d)", first, x.ExitCode)
	}
	return "$ " + first
}
