package vcs

import (
	"context"
	"fmt"
	"strings"
)

// WhatGCWouldLose describes, one line each, what `gc --force` would delete
// of run runID: every ref, and for each set-aside state the files it
// holds, so the engineer sees what is gone before it is.
func WhatGCWouldLose(ctx context.Context, repo, runID string) ([]string, error) {
	co, targets, err := gcTargets(ctx, repo, runID)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, r := range targets {
		if r.Worktree != "" {
			lines = append(lines, fmt.Sprintf("%s: the run's worktree, with whatever is in it", r.Worktree))
		}
		for _, ref := range runRefs(r) {
			lines = append(lines, ref+": "+describeRef(ctx, co, r.ID, ref))
		}
	}
	return lines, nil
}

func describeRef(ctx context.Context, co *Repo, run, ref string) string {
	rest := strings.TrimPrefix(ref, StashRefPrefix+run+"/")
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		return "a hypothesis branch of the run"
	case ref == runRefPrefix+run+"/original":
		return "the state the run started from"
	case strings.HasPrefix(ref, runRefPrefix+run+"/moved/"):
		return "commits the run made on your branch " + strings.TrimPrefix(ref, runRefPrefix+run+"/moved/")
	case rest == recordName:
		if rec, _, err := co.loadRecord(ctx, ref); err == nil {
			return fmt.Sprintf("your untracked and ignored files as they were before the run (%d), and every file's mode", len(rec.Files))
		}
		return "your untracked and ignored files and file modes"
	case rest == checkoutStash:
		return "your uncommitted changes from before the run: " + stashFiles(ctx, co, ref)
	case strings.HasPrefix(ref, StashRefPrefix):
		return "uncommitted work set aside during the run: " + stashFiles(ctx, co, ref)
	}
	return "a ref of the run"
}

// stashFiles names the files a set-aside state holds.
func stashFiles(ctx context.Context, co *Repo, ref string) string {
	var paths []string
	if out, err := co.cmd("diff-tree", "-r", "-z", "--name-only", "--no-commit-id", ref+"^1", ref).run(ctx); err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				paths = append(paths, p)
			}
		}
	}
	if u, err := co.lsTree(ctx, ref+"^3", ""); err == nil {
		for p := range u {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return "no file changes"
	}
	return names(paths)
}
