// Package vcs is the git layer under hypothesis_git: checkpoints, hypothesis
// branches, diffs, merging a branch onto the original state, and the
// workspace that keeps the engineer's checkout safe while a run works.
//
// # Which path each operation takes, and why
//
// go-git v5 is fast at reading refs and objects in-process but scans the
// working tree slowly (go-git#181). Measured on a Django-sized tree (3,496
// files) on 2 cores, median: status 455 ms with go-git vs 38 ms with the git
// CLI; add -A 459 vs 39; checkout -b 486 vs 16; commit 46 vs 22; a ref
// without checkout 0.1 ms in go-git. bench_test.go repeats the comparison.
// So:
//
//   - go-git: Head, Resolve, BranchExists, reading commit trees and
//     set-aside states. In-process reads; the CLI would cost a process each.
//   - git CLI: Status/IsDirty, CommitAll (add -A, write-tree, commit-tree,
//     update-ref), CreateBranchAt and CheckoutDetached (checkout), DiffStat
//     and Patch (diff: git's own stat, binary patches and pathspecs),
//     PutAside/Restore/Snapshot (private index files), worktrees, apply.
//
// Every CLI call runs with an explicit environment: LC_ALL=C, no stray
// GIT_DIR/GIT_INDEX_FILE from a parent process, no prompts or pagers, quoted
// paths off, diff prefixes and colours pinned, the repository's hooks off,
// and a default identity only where none is configured.
//
// # Names this package owns
//
//	refs/heads/swe-adept/<run>/<name>   hypothesis branches (Workspace.BranchName)
//	refs/swe-adept/runs/<run>/original  the state a run started from
//	refs/swe-adept/stash/<run>/<name>   set-aside changes (PutAside, Workspace.StashName)
//	<git dir>/swe-adept/worktrees/<run> a run's linked worktree
//	<git dir>/swe-adept/vcs/<run>.json  a run's state, for ListRuns, GC and recovery
//
// GC deletes only these, and never the set-aside changes of an engineer's
// in-place checkout that were not restored.
package vcs
