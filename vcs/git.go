package vcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Errors callers branch on. Each is wrapped with the detail that makes it
// actionable, so errors.Is works and the message can be shown as is.
var (
	// ErrNothingToCommit: the working tree equals the HEAD commit.
	ErrNothingToCommit = errors.New("nothing to commit: the working tree matches the last checkpoint")
	// ErrDirty: an operation that switches commits found uncommitted changes.
	ErrDirty = errors.New("working tree has uncommitted changes: commit them with commit_todo or revert first")
	// ErrBranchExists: CreateBranchAt was given a name already in use.
	ErrBranchExists = errors.New("branch already exists")
	// ErrUnknownRevision: a hash or branch name does not name a commit.
	ErrUnknownRevision = errors.New("unknown commit or branch")
	// ErrNotRepository: the directory is not inside a git working tree.
	ErrNotRepository = errors.New("not a git repository")
	// ErrPatchDoesNotApply: ApplyToCheckout refused a patch.
	ErrPatchDoesNotApply = errors.New("patch does not apply")
)

// configOverrides neutralise user settings that would change the bytes we
// parse or produce, or make a command wait for a human: prefixes and colours
// in diffs, quoted paths, the engineer's hooks firing on private checkpoints,
// signing prompts, pagers.
var configOverrides = []string{
	"-c", "core.quotepath=off",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "color.ui=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "commit.gpgSign=false",
	"-c", "advice.detachedHead=false",
	"-c", "gc.auto=0",
}

// keptGitEnv lists the GIT_* variables passed through to git. Everything else
// (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE, ... set by a hook or a parent git)
// would silently point our commands at another repository or index.
var keptGitEnv = map[string]bool{
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_NOSYSTEM": true,
	"GIT_TRACE": true, "GIT_TRACE_PERFORMANCE": true,
}

// gitEnv is the environment of every git command: the process environment
// minus stray GIT_* variables, in the C locale, never prompting.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") && !keptGitEnv[k] {
			continue
		}
		if k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C", "GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat", "GIT_EDITOR=true", "GIT_MERGE_AUTOEDIT=no")
}

// gitCmd describes one git invocation.
type gitCmd struct {
	dir    string
	args   []string
	env    []string // extra KEY=VALUE pairs, e.g. GIT_INDEX_FILE
	stdin  []byte
	config []string // extra -c settings: identity defaults, the untracked cache
}

// gitError carries git's own words, which usually say what to do.
type gitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// exitCode returns git's exit status for err, or -1.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.code
	}
	return -1
}

// run executes git and returns its stdout.
func (c gitCmd) run(ctx context.Context) ([]byte, error) {
	args := make([]string, 0, len(configOverrides)+len(c.config)+len(c.args))
	args = append(args, configOverrides...)
	args = append(args, c.config...)
	args = append(args, c.args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = c.dir
	cmd.Env = append(gitEnv(), c.env...)
	cmd.WaitDelay = 5 * time.Second
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", strings.Join(c.args, " "), ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &gitError{args: c.args, code: ee.ExitCode(), stderr: stderr.String()}
		}
		return nil, fmt.Errorf("run git %s: %w", strings.Join(c.args, " "), err)
	}
	return stdout.Bytes(), nil
}

// git runs a command in dir and returns trimmed stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitCmd{dir: dir, args: args}.run(ctx)
	return strings.TrimSpace(string(out)), err
}
