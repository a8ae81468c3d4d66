package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/swe-adept/swe-adept/vcs"
)

func init() {
	register(&command{
		name:    "restore",
		summary: "put your checkout back after an in-place run crashed (every command also does this first)",
		usage:   "[--repo DIR] [ID]",
		flags:   restoreFlags,
		noRepo:  true, // it restores itself, and reports
	})
}

// restoreFlags declares the flags of restore and returns the command.
func restoreFlags(fs *flag.FlagSet) func(context.Context, []string, streams) error {
	repo := fs.String("repo", ".", "the git repository `dir`")
	return func(ctx context.Context, pos []string, std streams) error {
		if len(pos) > 1 {
			return usagef("unexpected argument %q", pos[1])
		}
		id := ""
		if len(pos) == 1 {
			id = pos[0]
		}
		stdout := textOut(std.out)
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
}
