package cli

// What several commands share: reading the issue, progress and terminal
// checks, model and sandbox flag groups, instance lists, run output.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/termtext"
	"github.com/swe-adept/swe-adept/sandbox"
	"github.com/swe-adept/swe-adept/tui"
	"github.com/swe-adept/swe-adept/vcs"
)

// readIssue reads the issue from a file or, for "-", from stdin.
func readIssue(name string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("read issue %s: %w", name, err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", usagef("--issue %s is empty", name)
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return "", usagef("--issue %s is not text (a binary file?): give the issue's text", name)
	}
	return string(b), nil
}

// explicitModel refuses a model named on the command line that no server
// can run: falling back to the offline localizer would hide the mistake.
func explicitModel(set models.Settings, named string) error {
	if named == "" || strings.EqualFold(named, models.Heuristic) || set.UsesServer() || set.For(models.Localization).Script != "" {
		return nil
	}
	return usagef("--model %s needs a model server: set OPENAI_API_KEY (or --base-url for a local server), or use --model heuristic for the offline localizer", named)
}

// progressLine redraws one "\r" line, at most ten times a second.
type progressLine struct {
	w     io.Writer
	label string // what is counted: "indexing"
	last  time.Time
	drawn bool
}

func (p *progressLine) update(done, total int) {
	if done < total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s: %d/%d files", termtext.Clean(p.label), done, total)
}

func (p *progressLine) clear() {
	if p != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// openTTY opens the process's controlling terminal; tests replace it to
// run as a process without one.
var openTTY = func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

// workbenchTerminal is where the workbench draws and reads its keys: the
// process's own terminal when standard input and output are one (tty nil),
// else /dev/tty when the process has a controlling terminal (the issue
// piped in, the output sent to a file). ok is false without any terminal.
func workbenchTerminal() (tty *os.File, ok bool) {
	if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
		return nil, true
	}
	f, err := openTTY()
	if err != nil {
		return nil, false
	}
	return f, true
}

// noScreen is what a command that wanted the workbench does without any
// terminal: in ask mode it refuses to start, since nobody could answer and
// answering for the engineer is not its to do; with a policy it prints the
// events as JSON lines, and says so.
func noScreen(cmd, approve string, stderr io.Writer) error {
	if approve == "ask" {
		return usagef("no terminal to ask you on (standard input and output are not one, and there is no /dev/tty): " +
			"pass --headless to run without the screen, where --approve auto or deny answers every question by that policy")
	}
	fmt.Fprintf(stderr, "swe-adept %s: no terminal for the screen; running headless (events as JSON lines)\n", cmd)
	return nil
}

func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// listFlag is a repeatable string flag.

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ", ") }

func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func nonEmptyStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// scriptOrModelError words a model that could not be built: a bad script
// names its flag; anything else is explained by explainModelError.
func scriptOrModelError(flagName, script string, err error) error {
	if script != "" {
		return usagef("%s: %v", flagName, err)
	}
	return explainModelError(err)
}

// statusError makes a run that did not submit a failed command, with what
// the engineer can do about it.
func statusError(s runfolder.Summary) error {
	switch {
	case s.CheckoutError != "":
		return notPutBack(s)
	case s.Status == "submitted" && s.Patch == "":
		return fmt.Errorf("run %s: the agent submitted no changes (the patch is empty)", s.ID)
	case s.Status == "submitted", s.Status == runfolder.Localized:
		return nil
	case s.Status == "cancelled" && s.InPlace:
		return cancelledError{fmt.Sprintf("run %s cancelled; your checkout was put back and checked", s.ID)}
	case s.Status == "cancelled" && s.Message != "":
		return cancelledError{fmt.Sprintf("run %s %s", s.ID, s.Message)}
	case s.Status == "cancelled":
		return cancelledError{fmt.Sprintf("run %s cancelled; resume it with: swe-adept run --resume %s", s.ID, s.ID)}
	}
	if s.Message != "" {
		return fmt.Errorf("run %s ended with %s: %s", s.ID, s.Status, s.Message)
	}
	return fmt.Errorf("run %s ended with %s", s.ID, s.Status)
}

// notPutBack is the error of a run whose checkout was not given back: that
// comes first, with the refs and the commands, then how the run ended.
func notPutBack(s runfolder.Summary) error {
	msg := s.CheckoutError
	if !strings.Contains(msg, "NOT put back") {
		msg = "your checkout was NOT put back: " + msg
	}
	return fmt.Errorf("%s\n(run %s ended with %s)", msg, s.ID, s.Status)
}

// runHeadless prints every event as a JSON line, then the summary line.
func runHeadless(r *run.Run, stdout io.Writer, secrets []string) error {
	stdout = jsonOut(stdout)
	enc := json.NewEncoder(stdout)
	secrets = append(resolve.SecretValues(os.Environ()), secrets...)
	for e := range r.Events() {
		if err := writeEvent(stdout, e, secrets); err != nil {
			r.Cancel()
		}
	}
	sum, err := r.Wait()
	line := struct {
		Type string `json:"type"`
		runfolder.Summary
	}{"summary", sum}
	if eerr := enc.Encode(line); eerr != nil && err == nil {
		err = eerr
	}
	if sum.CheckoutError != "" {
		return errors.Join(notPutBack(sum), err) // what matters most comes first
	}
	if err != nil {
		return err
	}
	return statusError(sum)
}

// showRun draws r in the workbench until it ends or the engineer quits
// (which cancels it), then waits for the run. opts need not name the run's
// events, gate or cancel.
func showRun(ctx context.Context, r *run.Run, opts tui.Options) (sum runfolder.Summary, screenErr, runErr error) {
	events := r.Events()
	opts.Events, opts.Gate, opts.Cancel = events, r.Gate(), r.Cancel
	screenErr = tui.Run(ctx, opts)
	if screenErr != nil {
		r.Cancel()
	}
	go func() { // the screen is gone; keep the run from blocking on its events
		for range events {
		}
	}()
	sum, runErr = r.Wait()
	return sum, screenErr, runErr
}

// loadInstances reads an instances file, reports its malformed lines on
// stderr (and returns them), and keeps the instances --only and --limit pick.
func loadInstances(path, only string, limit int) ([]swebench.Instance, []swebench.LineError, error) {
	list, bad, err := swebench.ReadInstancesFile(path)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range bad {
		fmt.Fprintf(textOut(os.Stderr), "%s: skipped %v\n", path, b)
	}
	list = pickInstances(list, only, limit)
	if len(list) == 0 {
		return nil, nil, fmt.Errorf("no instances to run in %s", path)
	}
	return list, bad, nil
}

// pickInstances keeps the instances --only names (in file order) and at
// most limit of them.
func pickInstances(list []swebench.Instance, only string, limit int) []swebench.Instance {
	if only != "" {
		want := map[string]bool{}
		for _, id := range strings.Split(only, ",") {
			want[strings.TrimSpace(id)] = true
		}
		var kept []swebench.Instance
		for _, in := range list {
			if want[in.InstanceID] {
				kept = append(kept, in)
			}
		}
		list = kept
	}
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return list
}

// restoreCrashed gives the checkout back from in-place runs that crashed,
// before any command works in the repository, and says so in a line each.
// A repository that cannot be opened is left to the command to report.
func restoreCrashed(ctx context.Context, repo string, stderr io.Writer) {
	if _, err := vcs.Open(ctx, repo); err != nil {
		return
	}
	done, err := vcs.Recover(ctx, repo, "")
	for _, r := range done {
		fmt.Fprintln(stderr, "swe-adept:", r)
	}
	if err != nil {
		slog.Error("restore after a crashed in-place run", "err", err)
		fmt.Fprintln(stderr, "swe-adept:", err)
	}
}

// repoArg is the --repo value among a command's arguments, or ".".
func repoArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, name := range []string{"--repo", "-repo"} {
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				return v
			}
			if a == name && i+1 < len(args) {
				return args[i+1]
			}
		}
	}
	return "."
}

// checkDir is the usage error every command gives for a --repo (or other
// folder flag) that is missing or not a folder.
func checkDir(flagName, path string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("%s %s: no such folder", flagName, path)
	case err != nil:
		return usagef("%s %s: %v", flagName, path, err)
	case !info.IsDir():
		return usagef("%s %s: a file, not a folder", flagName, path)
	}
	return nil
}

type sandboxFlags struct {
	mode                    string
	net                     bool
	write, read, passEnv    listFlag
	memory, tmp, file, disk sizeFlag
	output                  sizeFlag
	procs                   int
}

func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	f := &sandboxFlags{}
	fs.StringVar(&f.mode, "sandbox", "auto", "confine the agent's shell: auto (where the system allows, saying when it cannot), strict (refuse to run unconfined) or off")
	fs.BoolVar(&f.net, "allow-net", false, "let confined commands use the network")
	fs.Var(&f.write, "allow-write", "a `path` confined commands may write beneath, besides the workspace (repeatable)")
	fs.Var(&f.read, "allow-read", "a `path` confined commands may read where they see nothing (the home, /tmp), read-only (repeatable)")
	fs.Var(&f.passEnv, "pass-env", "an environment variable's `name` to pass to commands besides the allow-list (repeatable)")
	fs.Var(&f.memory, "max-memory", "memory one command may use (`size`, e.g. 2G; default "+sandbox.FormatSize(sandbox.DefaultMemory)+")")
	fs.IntVar(&f.procs, "max-procs", sandbox.DefaultProcs, "processes one command may run at once")
	fs.Var(&f.tmp, "max-tmp", "space in a command's private /tmp, /dev/shm and home, each (`size`; default "+sandbox.FormatSize(sandbox.DefaultTmp)+")")
	fs.Var(&f.file, "max-file", "largest file a command may write (`size`; default "+sandbox.FormatSize(sandbox.DefaultFile)+")")
	fs.Var(&f.disk, "max-disk", "disk space one command may take in all (`size`; default "+sandbox.FormatSize(sandbox.DefaultDisk)+")")
	fs.Var(&f.output, "max-output", "bytes of a command's output the model reads, its start and end (`size`; default "+sandbox.FormatSize(resolve.DefaultMaxOutput)+")")
	return f
}

func (f *sandboxFlags) options() (sandbox.Options, error) {
	m, err := sandbox.ParseMode(f.mode)
	if err != nil {
		return sandbox.Options{}, usagef("--sandbox: %v", err)
	}
	if f.procs < 1 {
		return sandbox.Options{}, usagef("--max-procs %d: want at least 1", f.procs)
	}
	if err := sandbox.CheckPassEnv(f.passEnv, nil); err != nil {
		return sandbox.Options{}, usagef("%v", err)
	}
	return sandbox.Options{Mode: m, AllowNet: f.net, AllowWrite: f.write, AllowRead: f.read, PassEnv: f.passEnv,
		Limits: sandbox.Limits{Memory: uint64(f.memory), Procs: f.procs, Tmp: uint64(f.tmp), File: uint64(f.file), Disk: uint64(f.disk)}}, nil
}

// sizeFlag is a size in bytes, written 512M or 2G; 0 until set.
type sizeFlag uint64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return sandbox.FormatSize(uint64(*s))
}

func (s *sizeFlag) Set(v string) error {
	n, err := sandbox.ParseSize(v)
	*s = sizeFlag(n)
	return err
}

// hideModelSecrets makes sure no command sees what the model settings
// hold (see models.Confidential), and that --pass-env does not ask for it.
func hideModelSecrets(opts *run.Options, set models.Settings) error {
	opts.Confidential = set.Confidential()
	if err := sandbox.CheckPassEnv(opts.Sandbox.PassEnv, opts.Confidential.Env); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// warnUnconfined says in one line on stderr, before any command runs and
// before the screen takes the terminal, that the run's commands will not
// be confined, and what the approval policy does about it.
func warnUnconfined(stderr io.Writer, r *run.Run, opts run.Options) {
	why := strings.Join(strings.Fields(r.Unconfined()), " ")
	if why == "" {
		return
	}
	var policy string
	switch {
	case opts.Sandbox.Mode == sandbox.Off || opts.ApproveChosen:
		policy = "the approval policy you chose (--approve " + nonEmptyStr(opts.Approve, "auto") + ") applies"
	case opts.Approve == "ask":
		policy = "every command will ask for your approval"
	default:
		policy = "no command will run, since nobody can approve one here (--approve auto runs them unconfined anyway)"
	}
	fmt.Fprintf(stderr, "swe-adept: WARNING: the agent's commands are NOT confined (%s); %s\n", why, policy)
}

// modelFlags are the model settings every command that runs an agent
// takes. They go on top of the config file and the environment.
type modelFlags struct {
	config, model, localizeModel, baseURL, effort, prices, azure string
	window, numCtx, maxOutput                                    int
	temperature                                                  optionalFloat
	noStream                                                     bool
	// localizeOnly: --model names the localization model (localize,
	// eval-loc), not both agents'.
	localizeOnly bool
}

// optionalFloat is a float flag that knows whether it was set.
type optionalFloat struct{ v *float64 }

func (o *optionalFloat) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'g', -1, 64)
}

func (o *optionalFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	o.v = &f
	return nil
}

// addModelFlags declares the model flags on fs. With localizeOnly the
// command runs only the localization agent, and --localize-model is not
// offered.
func addModelFlags(fs *flag.FlagSet, localizeOnly bool) *modelFlags {
	f := &modelFlags{localizeOnly: localizeOnly}
	if localizeOnly {
		fs.StringVar(&f.model, "model", "", "localization model: heuristic (offline) or a `name` (default SWE_ADEPT_MODEL; heuristic without a key or base URL)")
	} else {
		fs.StringVar(&f.model, "model", "", "model `name` for both agents (default SWE_ADEPT_MODEL)")
		fs.StringVar(&f.localizeModel, "localize-model", "", "localization model: heuristic (offline) or a `name`; default --model, or heuristic without a key or base URL")
	}
	fs.StringVar(&f.config, "model-config", "", "model settings `file` (TOML; default $SWE_ADEPT_CONFIG or ~/.config/swe-adept/config.toml)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible server `url` (default OPENAI_BASE_URL, else OpenAI)")
	fs.StringVar(&f.effort, "reasoning-effort", "", "reasoning `effort` for models that take it: none, minimal, low, medium (the default), high")
	fs.IntVar(&f.window, "context-window", 0, "the model's context window in `tokens` (default: known for common models, else learnt from the server)")
	fs.IntVar(&f.numCtx, "num-ctx", 0, "Ollama: context size in `tokens`, sent as options.num_ctx")
	fs.IntVar(&f.maxOutput, "max-output-tokens", 0, "`tokens` one model reply may use (default: the server's)")
	fs.Var(&f.temperature, "temperature", "sampling `temperature` (default 0 where the model allows one)")
	fs.StringVar(&f.prices, "price", "", "your own prices: `model=in/out` or model=in/cached/out in dollars per million tokens, comma-separated")
	fs.StringVar(&f.azure, "azure-api-version", "", "the base URL is an Azure OpenAI resource and --model a deployment; this `version` of its API")
	fs.BoolVar(&f.noStream, "no-stream", false, "ask for whole answers instead of streams, for a server that streams badly (config: stream = false)")
	return f
}

// settings loads the config file and the environment, then applies the
// flags.
func (f *modelFlags) settings() (models.Settings, error) {
	s, err := models.Load(os.Getenv, f.config)
	if err != nil {
		return s, usagef("%v", err)
	}
	target := &s.Shared
	if f.localizeOnly {
		target = &s.Localize
	}
	setIf(&target.Model, f.model)
	setIf(&s.Localize.Model, f.localizeModel)
	setIf(&s.Shared.BaseURL, f.baseURL)
	setIf(&s.Shared.ReasoningEffort, f.effort)
	setIf(&s.Shared.AzureAPIVersion, f.azure)
	for dst, v := range map[*int]int{&s.Shared.ContextWindow: f.window, &s.Shared.NumCtx: f.numCtx, &s.Shared.MaxOutputTokens: f.maxOutput} {
		if v < 0 {
			return s, usagef("--context-window, --num-ctx and --max-output-tokens cannot be negative")
		}
		if v > 0 {
			*dst = v
		}
	}
	if f.temperature.v != nil {
		s.Shared.Temperature = f.temperature.v
	}
	if f.noStream {
		off := false
		s.Shared.Stream, s.Localize.Stream, s.Resolve.Stream = &off, &off, &off
	}
	if f.prices != "" {
		if err := s.AddPrices(f.prices); err != nil {
			return s, usagef("--price: %v", err)
		}
	}
	return s, nil
}

func setIf(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// explainModelError says, in the command line's terms, how to give the
// resolution agent a model.
func explainModelError(err error) error {
	switch {
	case errors.Is(err, models.ErrNoServer):
		return usagef("no model configured for the resolution agent: set OPENAI_API_KEY (or --base-url for a local server) and --model NAME, " +
			"or play a transcript with --script-resolve FILE ('swe-adept localize' runs localization alone, offline)")
	case errors.Is(err, models.ErrNoModelName):
		return usagef("no model name: pass --model NAME or set SWE_ADEPT_MODEL")
	case err != nil:
		return fmt.Errorf("resolution model: %w", err)
	}
	return nil
}
