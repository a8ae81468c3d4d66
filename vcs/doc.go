// Package vcs is the git layer under hypothesis_git: checkpoints, hypothesis
// branches, diffs, merging a branch onto the original state, and the
// workspace that keeps the engineer's checkout safe while a run works.
//
// # Which path each operation takes, and why
//
// go-git v5 reads refs and objects in-process fast but scans the working
// tree slowly (go-git#181). bench_test.go and bench_paired_test.go measure it
// on Debian's Django 3.2 tree (3,496 files) on a shared 2-core machine;
// medians in ms, 10-30 iterations:
//
//	operation                   go-git   git CLI   this package (own worktree)
//	status / IsDirty               531        26        26 (16)
//	commit of a 2-file change      886       123 *     107 (75)   * add -A && commit
//	checkout -b at a commit       1052        34 **    110 (72)   ** no dirty check;
//	                                          91 ***                *** status + checkout -b
//	diff stat, 2 files             2.8       7.1 ****  2.7        **** --shortstat + --numstat
//	branch ref, no checkout       0.03
//	Snapshot of a dirty tree                            97
//	OpenWorkspace (worktree add)                      1256
//
// The checkpoint target (within 1.5x of `git add -A && git commit`) holds:
// 0.87x in a clone, 0.61x in a run's worktree (BenchmarkCheckpointVsCLI,
// paired and rotated so load hits all alike). CreateBranchAt costs a status
// more than a bare checkout -b because it refuses a dirty tree. So:
//
//   - go-git: Head, Resolve, BranchExists, reading commit trees. In-process
//     reads; the CLI would cost a process each. go-git refuses repositories
//     with extensions it does not know (extensions.worktreeConfig, set by
//     sparse-checkout); those are read through the CLI instead (read.go).
//   - git CLI: Status/IsDirty, CommitAll (add -A, write-tree, commit-tree,
//     update-ref), CreateBranchAt, CheckoutDetached and Detach (checkout), DiffStat
//     and Patch (diff: git's own stat, binary patches and pathspecs),
//     PutAside/Restore/Snapshot (private index files), worktrees, apply.
//
// Every CLI call runs with an explicit environment: LC_ALL=C, no stray
// GIT_DIR/GIT_INDEX_FILE from a parent process, no prompts or pagers, quoted
// paths off, diff prefixes and colours pinned, and a default identity only
// where none is configured.
//
// # The work tree is not trusted
//
// Whatever runs in a run's work tree (the agent's commands) may rewrite
// anything there, the .git file included. So every call names its git
// directory and work tree (--git-dir, --work-tree), as Open found them
// before anything else ran; a run's linked worktree is found through the
// repository's own record of it (Repo.OpenWorktree), never its .git file;
// and go-git opens the recorded directories. No call runs a program that
// configuration names (configOverrides): hooks, fsmonitor, pagers,
// editors, signing, transports and their ssh, upload-pack, askpass and
// credential helpers are off, diffs use --no-ext-diff and --no-textconv,
// and filters and hooks by name are pinned per repository when it is
// opened (guard.go): a filter keeps only what the global configuration
// gives it. A workspace whose configuration includes a file from its own
// work tree is refused. Command offers the same defences to code outside
// this package that runs git on a repository it made.
//
// # Names this package owns
//
//	refs/heads/swe-adept/<run>/<name>   hypothesis branches (Workspace.BranchName)
//	refs/swe-adept/runs/<run>/original  the state a run started from
//	refs/swe-adept/stash/<run>/<name>   set-aside changes (PutAside, Workspace.StashName;
//	                                    <run>-<name> is attributed to its run too); in place:
//	                                    checkout (the engineer's changes), record (their
//	                                    untracked and ignored files, modes, ORIG_HEAD),
//	                                    leftover-*, partial-*, crashed (the run's own work)
//	refs/swe-adept/runs/<run>/moved/<b> commits an in-place run made on the engineer's branch b
//	<git dir>/swe-adept/worktrees/<run> a run's linked worktree
//	<git dir>/swe-adept/vcs/<run>.json  a run's state, for ListRuns, GC and recovery
//
// GC deletes only these, and none of an in-place run's until its give-back
// of the checkout was verified (or gc --force).
package vcs
