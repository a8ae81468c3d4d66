package vcs

import (
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/internal/shellquote"
)

// NotPutBackError says that an in-place checkout was not given back: why,
// where the engineer's work is, and the commands that put it back, each of
// which works as printed, from any folder.
type NotPutBackError struct {
	Run    string
	Reason error
	Steps  string // the refs and the commands, several lines
}

func (e *NotPutBackError) Error() string {
	return fmt.Sprintf("your checkout was NOT put back after run %s: %v\n%s", e.Run, e.Reason, e.Steps)
}

func (e *NotPutBackError) Unwrap() error { return e.Reason }

// notPutBack wraps a give-back failure with the way back. An error that
// already is one is returned as it is.
func (w *Workspace) notPutBack(err error) error {
	if _, ok := err.(*NotPutBackError); ok {
		return err
	}
	return &NotPutBackError{Run: w.RunID, Reason: err, Steps: w.byHand()}
}

// byHand lists the refs that hold the engineer's work and the commands
// that put the checkout back: swe-adept's own restore (exact: modes and
// ignored files too), and git alone. Every command names the repository,
// so it works wherever it is pasted.
func (w *Workspace) byHand() string { return w.byHandFrom("") }

// byHandFrom is byHand for a checkout that someone moved to another branch
// after the run stopped: swe-adept's restore works once HEAD is back on
// the engineer's branch, so git comes first.
func (w *Workspace) byHandFrom(otherBranch string) string {
	dir := shellquote.Quote(w.checkout.dir)
	var b strings.Builder
	b.WriteString("Your work is safe on these refs (swe-adept gc keeps them until your checkout is back):\n")
	if w.st.Stashed {
		fmt.Fprintf(&b, "  %s%s   your uncommitted changes from before the run\n", StashRefPrefix, w.StashName(checkoutStash))
	}
	if w.st.Recorded {
		fmt.Fprintf(&b, "  %s%s   your untracked and ignored files and file modes\n", StashRefPrefix, w.StashName(recordName))
	}
	if l := w.st.Left; l != nil && l.Saved {
		fmt.Fprintf(&b, "  %s%s   what the run left uncommitted\n", StashRefPrefix, l.savedName(w))
	}
	restore := fmt.Sprintf("  swe-adept restore --repo %s %s\n", dir, shellquote.Quote(w.RunID))
	if otherBranch != "" && w.st.Branch != "" {
		fmt.Fprintf(&b, "Keep what is on %s now, go back to your branch, and let swe-adept put the rest back:\n", otherBranch)
		b.WriteString(w.gitSteps(dir, false))
		b.WriteString(restore)
		return strings.TrimRight(b.String(), "\n")
	}
	b.WriteString("Put your checkout back (free some space first if the disk is full):\n")
	b.WriteString(restore)
	b.WriteString("or with git alone (it brings back your changes and untracked files, not file modes or ignored files):\n")
	b.WriteString(w.gitSteps(dir, true))
	return strings.TrimRight(b.String(), "\n")
}

// gitSteps: keep what is in the checkout on a stash of the engineer's own,
// check their branch (or commit) out, and apply their set-aside changes.
func (w *Workspace) gitSteps(dir string, apply bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  git -C %s stash push --include-untracked -m %s\n", dir, shellquote.Quote("left by swe-adept run "+w.RunID))
	if w.st.Branch != "" {
		fmt.Fprintf(&b, "  git -C %s checkout %s --\n", dir, shellquote.Quote(w.st.Branch))
	} else {
		fmt.Fprintf(&b, "  git -C %s checkout --detach %s\n", dir, w.st.Head)
	}
	if apply && w.st.Stashed {
		fmt.Fprintf(&b, "  git -C %s stash apply --index %s%s\n", dir, StashRefPrefix, w.StashName(checkoutStash))
	}
	return b.String()
}
