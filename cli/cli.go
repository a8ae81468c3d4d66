// Package cli is swe-adept's command line: one file per command, and this
// one for what they share (registration, flags, usage errors, help, logs).
// The root main package only calls Main, so `go run . demo` works.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. Each lives in its own cmd_*.go file and
// registers itself from init, so main.go never grows with them.
type command struct {
	name    string
	summary string
	usage   string // the arguments after the name, for help
	// flags declares the command's flags on a set and returns what runs
	// the command once they are parsed, so help lists the flags without
	// running anything. It is the command's only entry point.
	flags declare
	// noRepo: the command does not work in a repository given by --repo
	// (or the current folder), so crashed in-place runs are not looked for.
	noRepo bool
}

var commands = map[string]*command{}

// streams are where a command reads and writes: the process's own, as
// Main is given them, never captured before the command runs.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// errFile is the standard error a command writes to when it is a file (a
// terminal shows progress), nil otherwise.
func (s streams) errFile() *os.File {
	f, _ := s.err.(*os.File)
	return f
}

// declare puts a command's flags on fs and returns the command, to run
// with the parsed flags, the positional arguments and the streams.
type declare func(fs *flag.FlagSet) func(ctx context.Context, pos []string, std streams) error

// execute parses args against c's flags and runs it.
func execute(ctx context.Context, c *command, args []string, std streams) error {
	fs := newFlags(c.name)
	run := c.flags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	return run(ctx, pos, std)
}

// withFlags declares a command whose flags are the fields of one value:
// declareOn binds them to a fresh one, and run runs with it once parsed.
func withFlags[T any](declareOn func(fs *flag.FlagSet, f *T), run func(ctx context.Context, f *T, pos []string, std streams) error) declare {
	return func(fs *flag.FlagSet) func(context.Context, []string, streams) error {
		f := new(T)
		declareOn(fs, f)
		return func(ctx context.Context, pos []string, std streams) error { return run(ctx, f, pos, std) }
	}
}

func register(c *command) { commands[c.name] = c }

// usageError marks mistakes in how the tool was called: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Main runs the command line: args without the program's name. It
// returns the process's exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	std := streams{in: os.Stdin, out: stdout, err: stderr}
	// Errors quote paths, refs, model and repository text.
	stderr = textOut(stderr)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return runHelp(args, stdout, stderr)
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, version())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "swe-adept: unknown command %q; run 'swe-adept help' for the list\n", args[0])
		return 2
	}
	closeLog := setupLog()
	defer closeLog()
	// Closing the terminal (SIGHUP) or SIGQUIT ends a run as Ctrl-C does,
	// putting an in-place checkout back, rather than killing it mid-step.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	if !c.noRepo {
		restoreCrashed(ctx, repoArg(args[1:]), stderr)
	}
	err := execute(ctx, c, args[1:], std)
	var ue usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		printCommandHelp(stdout, c)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "swe-adept %s: %v\nusage: swe-adept %s %s\nRun 'swe-adept help %s' for its flags.\n", c.name, err, c.name, c.usage, c.name)
	default:
		slog.Error("command failed", "command", c.name, "err", err)
		fmt.Fprintf(stderr, "swe-adept %s: %v\n", c.name, err)
	}
	return exitCode(err)
}

// Exit statuses: 0 done, 1 failed, 2 a usage mistake, and exitCancelled
// for a run or demo that was cancelled (q in the workbench, Ctrl-C,
// SIGTERM, a closed terminal), as shells report an interrupted command
// (128 + SIGINT), so a script can tell it from a failure and resume it.
const exitCancelled = 130

// cancelledError is a run that ended cancelled.
type cancelledError struct{ msg string }

func (e cancelledError) Error() string { return e.msg }

// exitCode is the process's exit status for a command's error.
func exitCode(err error) int {
	var ue usageError
	var ce cancelledError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ce):
		return exitCancelled
	}
	return 1
}

// version is what --version prints: the module version the binary was
// built as (a tag, or "(devel)" from a checkout), the commit it was built
// from when known, and the Go release.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "swe-adept (version unknown: built without module information)"
	}
	v := "swe-adept " + nonEmptyStr(info.Main.Version, "(devel)")
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			if s.Value == "true" {
				modified = " with local changes"
			}
		}
	}
	if rev != "" {
		v += " (commit " + rev + modified + ")"
	}
	return v + " " + info.GoVersion
}

// runHelp answers `swe-adept help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		printHelp(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[1]]
	if !ok {
		fmt.Fprintf(stderr, "swe-adept help: unknown command %q; run 'swe-adept help' for the list\n", args[1])
		return 2
	}
	printCommandHelp(stdout, c)
	return 0
}

// printCommandHelp lists a command's flags: they are declared on a fresh
// set, and the command does not run.
func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: swe-adept %s %s\n\n%s\n", c.name, c.usage, c.summary)
	fs := newFlags(c.name)
	c.flags(fs)
	if hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "swe-adept: watch and steer two LLM agents resolving an issue in a git repository")
	fmt.Fprintln(w, "\nusage: swe-adept <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'swe-adept help <command>' or 'swe-adept <command> -h' for its flags; swe-adept --version says which build this is.")
}

// newFlags makes a flag set that reports mistakes as usage errors instead of
// exiting, so every command fails the same way.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Main prints the usage and the error once; the flag package would
	// print both again.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and turns a bad flag into a usage error. Flags may
// come before or after positional arguments; only flag-shaped words are
// flags, so a positional argument may start with "-" (a markdown list, "-"
// for standard input), and "--" ends the flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		switch a := args[0]; {
		case a == "--":
			return append(pos, args[1:]...), nil
		case !flagShaped.MatchString(a):
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{strings.TrimSpace(err.Error())}
		}
		args = fs.Args()
	}
	return pos, nil
}

var flagShaped = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9_-]*(=.*)?$`)

// setupLog sends log/slog to a file, never to the terminal: the TUI owns it.
func setupLog() func() {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "swe-adept")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, "swe-adept.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return func() {}
	}
	level := slog.LevelInfo
	if os.Getenv("SWE_ADEPT_DEBUG") != "" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})))
	return func() { _ = f.Close() }
}
