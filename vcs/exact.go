package vcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrInexact: the checkout holds state that setting work aside and back
// cannot keep exactly, so working in it in place is refused up front.
var ErrInexact = errors.New("the checkout cannot be set aside and restored exactly")

// checkExact refuses a checkout whose state a put-aside would lose or
// rewrite: an operation in progress (its MERGE_HEAD and the like), git
// filters and end-of-line conversion (bytes would come back converted:
// core.autocrlf, and text/eol attributes that convert some file, see
// conversionProblems),
// index flags and intent-to-add entries (dropped by a tree), a dirty
// submodule or a sparse checkout (not in the saved trees), and a branch
// named swe-adept (it blocks the run's swe-adept/<run>/ branches).
func (r *Repo) checkExact(ctx context.Context) error {
	var why []string
	for _, name := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply", "BISECT_LOG"} {
		if _, err := os.Stat(filepath.Join(r.gitDir, name)); err == nil {
			why = append(why, fmt.Sprintf("a %s is in progress (%s): finish or abort it", operation(name), name))
		}
	}
	for _, key := range []string{"core.autocrlf", "core.sparseCheckout"} {
		if v, _ := r.git(ctx, "config", "--get", key); v == "true" || v == "input" {
			why = append(why, fmt.Sprintf("%s is %s: files would not come back byte for byte", key, v))
		}
	}
	if r.conf.hasFilter() && r.usesFilters() {
		why = append(why, "a git filter (clean/smudge) is configured for some files: they would come back through it")
	}
	why = append(why, r.indexProblems(ctx)...)
	conv, err := r.conversionProblems(ctx)
	if err != nil {
		return fmt.Errorf("check that the checkout can be restored exactly: %w", err)
	}
	why = append(why, conv...)
	if ok, _ := r.refExists(ctx, "refs/heads/swe-adept"); ok {
		why = append(why, "a branch named swe-adept exists and blocks the run's branches swe-adept/<run>/...: rename it")
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; or work without --in-place (a linked worktree never touches your checkout)", ErrInexact, strings.Join(why, "; "))
}

func operation(marker string) string {
	switch marker {
	case "MERGE_HEAD":
		return "merge"
	case "CHERRY_PICK_HEAD":
		return "cherry-pick"
	case "REVERT_HEAD":
		return "revert"
	case "BISECT_LOG":
		return "bisect"
	}
	return "rebase"
}

// usesFilters: some attributes file names a filter.
func (r *Repo) usesFilters() bool {
	for _, p := range []string{filepath.Join(r.dir, ".gitattributes"), filepath.Join(r.commonDir, "info", "attributes")} {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "filter=") {
			return true
		}
	}
	return false
}

// indexProblems finds index entries a tree cannot hold: skip-worktree and
// assume-unchanged flags, intent-to-add entries, and dirty submodules.
func (r *Repo) indexProblems(ctx context.Context) []string {
	var why []string
	if out, err := r.git(ctx, "ls-files", "-v"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if line == "" {
				continue
			}
			tag, path, _ := strings.Cut(line, " ")
			switch {
			case tag == "S" || tag == "s":
				why = append(why, "skip-worktree is set on "+path)
			case tag != strings.ToUpper(tag):
				why = append(why, "assume-unchanged is set on "+path)
			}
		}
	}
	if out, err := r.git(ctx, "status", "--porcelain=v2", "--ignore-submodules=none"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) > 8 && f[0] == "1" && f[1] == ".A" && f[3] == "000000" && f[4] == "000000":
				why = append(why, "an intent-to-add entry (git add -N) for "+f[8])
			case len(f) > 8 && f[0] == "1" && strings.HasPrefix(f[2], "S") && f[2] != "S...":
				why = append(why, "the submodule "+f[8]+" has changes of its own")
			}
		}
	}
	return why
}
