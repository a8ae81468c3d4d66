package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/swe-adept/swe-adept/vcs"
)

func init() {
	register(&command{
		name:    "restore",
		summary: "put your checkout back after an in-place run crashed (every command also does this first)",
		usage:   "[--repo DIR] [ID]",
		run:     func(ctx context.Context, args []string) error { return runRestore(ctx, args, os.Stdout) },
		noRepo:  true, // it restores itself, and reports
	})
}

func runRestore(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("restore")
	repo := fs.String("repo", ".", "the git repository `dir`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("unexpected argument %q", pos[1])
	}
	id := ""
	if len(pos) == 1 {
		id = pos[0]
	}
	done, err := vcs.Recover(ctx, *repo, id)
	for _, r := range done {
		fmt.Fprintln(stdout, r)
	}
	if errors.Is(err, vcs.ErrNothingToRestore) || (err == nil && len(done) == 0) {
		fmt.Fprintln(stdout, "no crashed in-place run here; nothing to restore")
		return nil
	}
	return err
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
