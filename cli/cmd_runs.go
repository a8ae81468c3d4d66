package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/internal/termtext"
	"github.com/swe-adept/swe-adept/vcs"
)

func init() {
	register(&command{
		name:    "runs",
		summary: "list the runs of a repository: id, status, start time, patch",
		usage:   "[--repo DIR] [--json]",
		flags:   runsFlags,
	})
	register(&command{
		name:    "gc",
		summary: "remove finished runs' worktrees, branches and refs (run folders are kept); never the only copy of your work",
		usage:   "[--repo DIR] --all | [--force] ID",
		flags:   gcFlags,
	})
}

// runsFlags declares the flags of runs and returns the command.
func runsFlags(fs *flag.FlagSet) func(context.Context, []string, streams) error {
	repo := fs.String("repo", ".", "the git repository `dir`")
	asJSON := fs.Bool("json", false, "print the runs as a JSON array")
	return func(ctx context.Context, pos []string, std streams) error {
		if len(pos) > 0 {
			return usagef("unexpected argument %q", pos[0])
		}
		stdout := std.out
		runs, err := run.List(ctx, *repo)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(jsonOut(stdout))
			enc.SetIndent("", "  ")
			return enc.Encode(runs)
		}
		if len(runs) == 0 {
			fmt.Fprintln(stdout, "no runs yet; start one with: swe-adept run --issue FILE")
			return nil
		}
		// Cleaned before the columns are measured, not after.
		c := termtext.Clean
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tSTARTED\tPATCH\tISSUE")
		for _, r := range runs {
			started := "-"
			if !r.Started.IsZero() {
				started = r.Started.Local().Format("2006-01-02 15:04")
			}
			patch := "-"
			if r.Patch != "" {
				patch = r.Patch + " (" + r.Stat + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c(r.ID), c(r.Status), started, c(patch), c(r.Issue))
		}
		return tw.Flush()
	}
}

// gcFlags declares the flags of gc and returns the command.
func gcFlags(fs *flag.FlagSet) func(context.Context, []string, streams) error {
	repo := fs.String("repo", ".", "the git repository `dir`")
	all := fs.Bool("all", false, "every finished run")
	force := fs.Bool("force", false, "remove the run's refs even if your checkout was never put back after it (what would be lost is listed first)")
	return func(ctx context.Context, pos []string, std streams) error {
		switch {
		case *all && len(pos) > 0:
			return usagef("give --all or one run id, not both")
		case !*all && len(pos) != 1:
			return usagef("give a run id (swe-adept runs lists them) or --all")
		case *force && *all:
			return usagef("--force takes one run id, not --all")
		}
		id := ""
		if !*all {
			id = pos[0]
		}
		stdout := textOut(std.out)
		if *force {
			lost, err := vcs.WhatGCWouldLose(ctx, *repo, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "gc --force %s deletes, for good:\n", id)
			for _, l := range lost {
				fmt.Fprintln(stdout, "  "+l)
			}
		}
		removed, err := vcs.GC(ctx, *repo, id, *force)
		for _, r := range removed {
			fmt.Fprintln(stdout, "removed", r)
		}
		if err != nil {
			return err
		}
		if len(removed) == 0 {
			fmt.Fprintln(stdout, "nothing to remove")
		}
		return nil
	}
}
