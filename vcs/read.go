package vcs

import (
	"context"
	"fmt"
	"strings"
)

// Reads through the git CLI, for repositories go-git refuses to open.

func (r *Repo) headCLI(ctx context.Context) (Head, error) {
	var h Head
	ref, err := r.git(ctx, "symbolic-ref", "-q", "HEAD")
	switch {
	case err == nil:
		h.Branch = strings.TrimPrefix(ref, "refs/heads/")
	case exitCode(err) == 1:
		h.Detached = true
	default:
		return Head{}, fmt.Errorf("read HEAD in %s: %w", r.dir, err)
	}
	hash, err := r.git(ctx, "rev-parse", "--quiet", "--verify", "HEAD^{commit}")
	if err != nil {
		if h.Detached || ctx.Err() != nil {
			return Head{}, fmt.Errorf("read HEAD in %s: %w", r.dir, err)
		}
		return h, nil // unborn branch
	}
	h.Hash = hash
	return h, nil
}

func (r *Repo) refExistsCLI(ctx context.Context, ref string) (bool, error) {
	_, err := r.git(ctx, "show-ref", "--verify", "--quiet", ref)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	default:
		return false, fmt.Errorf("read %s: %w", ref, err)
	}
}
