package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

func TestCLIErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantOut  string
	}{
		{"no args prints help", nil, 2, "", "commands:"},
		{"help", []string{"help"}, 0, "", "commands:"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`, ""},
		{"help for a command lists its flags", []string{"help", "hyp"}, 0, "", "-approve"},
		{"-h lists usage and flags", []string{"hyp", "-h"}, 0, "", "usage: swe-adept hyp"},
		{"help for an unknown command", []string{"help", "nosuch"}, 2, `unknown command "nosuch"`, ""},
		{"unknown flag", []string{"hyp", "--bogus"}, 2, "flag provided but not defined: -bogus", ""},
		{"run id escaping the repository", []string{"hyp", "plan", "log_insight", "x", "--run", "../../evil"}, 2, "--run", ""},
		{"version", []string{"--version"}, 0, "", "swe-adept "},
		{"version command", []string{"version"}, 0, "", " go1."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(tt.args, &out, &errb)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, errb.String())
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errb.String(), tt.wantErr)
			}
			if strings.Count(errb.String(), "flag provided but not defined") > 1 {
				t.Errorf("the flag error is printed more than once: %q", errb.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout = %q, want it to contain %q", out.String(), tt.wantOut)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantPos []string
		wantN   int
		wantErr bool
	}{
		{"flags after positionals", []string{"plan", "x", "--n", "3"}, []string{"plan", "x"}, 3, false},
		{"markdown argument", []string{"- [-] use +", "-n=2"}, []string{"- [-] use +"}, 2, false},
		{"stdin dash", []string{"-", "-n", "1"}, []string{"-"}, 1, false},
		{"double dash ends flags", []string{"--", "-n"}, []string{"-n"}, 0, false},
		{"unknown flag", []string{"--frob"}, nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlags("t")
			n := fs.Int("n", 0, "")
			pos, err := parseFlags(fs, tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err == nil && (strings.Join(pos, "|") != strings.Join(tt.wantPos, "|") || *n != tt.wantN) {
				t.Errorf("pos %q n %d, want %q %d", pos, *n, tt.wantPos, tt.wantN)
			}
		})
	}
}

// TestHelpDeclaresWithoutRunning: every command declares its flags for
// help without running; help lists them.
func TestHelpDeclaresWithoutRunning(t *testing.T) {
	for name, c := range commands {
		if c.flags == nil {
			t.Errorf("%s declares no flags for help", name)
			continue
		}
		var out bytes.Buffer
		printCommandHelp(&out, c)
		if name != "restore" && !strings.Contains(out.String(), "\nflags:\n") {
			t.Errorf("help %s lists no flags:\n%s", name, out.String())
		}
	}
}

// runCommand runs the named command as Main does, minus the process's
// setup (the log file, signals, restoring crashed runs), with the given
// streams: nil input is the process's, nil output is discarded.
func runCommand(ctx context.Context, name string, args []string, in io.Reader, out, errw io.Writer) error {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = io.Discard
	}
	if errw == nil {
		errw = io.Discard
	}
	return execute(ctx, commands[name], args, streams{in: in, out: out, err: errw})
}

// parseAs parses args as the flags declareOn declares, as execute does,
// for tests of the checks a command makes before it runs.
func parseAs[T any](name string, declareOn func(*flag.FlagSet, *T), args []string) (T, []string, error) {
	var f T
	fs := newFlags(name)
	declareOn(fs, &f)
	pos, err := parseFlags(fs, args)
	return f, pos, err
}
