package vcs

import (
	"context"
	"fmt"
)

// ValidBranchName reports whether git would accept name as a branch, with a
// message a model or a person can act on.
func ValidBranchName(name string) error { return validBranchName(name) }

// Detach moves HEAD off its branch onto the same commit, keeping the index
// and the working tree as they are, so later commits never move the branch
// the engineer was on.
func (r *Repo) Detach(ctx context.Context) error {
	if _, err := r.git(ctx, "checkout", "-q", "--detach"); err != nil {
		return fmt.Errorf("detach HEAD: %w", err)
	}
	return nil
}
