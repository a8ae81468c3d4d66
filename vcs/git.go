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

// configOverrides pin settings that would change the bytes we parse or
// produce (prefixes and colours in diffs, quoted paths), and switch off
// every program configuration can make git run, wherever the setting comes
// from: the repository's config is not trusted, and our commands need none
// of them. Settings that name a driver (filter.<name>.clean) are handled
// per repository, by Repo.guard.
var configOverrides = []string{
	"-c", "core.quotepath=off",
	"-c", "color.ui=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "advice.detachedHead=false",
	// Programs: hooks, the file-system monitor, pagers, signing.
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "gpg.program=",
	"-c", "gpg.openpgp.program=",
	"-c", "gpg.x509.program=",
	"-c", "gpg.ssh.program=",
	"-c", "gpg.ssh.defaultKeyCommand=",
	// Hooks named in configuration (git 2.54 and later), for the events our
	// commands raise; hooks by name are switched off by Repo.guard.
	"-c", "hook.reference-transaction.enabled=false",
	"-c", "hook.post-checkout.enabled=false",
	"-c", "hook.post-index-change.enabled=false",
	// No transport at all: a partial clone's lazy fetch would run ssh, an
	// upload-pack or a credential helper named by the repository.
	"-c", "protocol.allow=never",
	"-c", "credential.helper=",
	"-c", "core.askPass=",
	// No background work, and no recursion into submodules' own config.
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "submodule.recurse=false",
	"-c", "status.submoduleSummary=false",
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
	return append(env, "LC_ALL=C", "LANG=C", "GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1",
		"GIT_PAGER=cat", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_MERGE_AUTOEDIT=no")
}

// gitCmd describes one git invocation.
type gitCmd struct {
	dir    string // the work tree (and working directory)
	gitDir string // named with --git-dir; "" only to discover it (Open)
	args   []string
	env    []string // extra KEY=VALUE pairs, e.g. GIT_INDEX_FILE
	stdin  []byte
	config []string // extra -c settings: identity defaults, the untracked cache
	guard  []string // GIT_CONFIG_* pairs from Repo.guard
}

func (c gitCmd) withEnv(env []string) gitCmd {
	c.env = append(c.env[:len(c.env):len(c.env)], env...)
	return c
}

func (c gitCmd) withStdin(b []byte) gitCmd { c.stdin = b; return c }

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

// Command is a git command with the defences of every command this package
// runs: it names gitDir, and workTree unless that is "" (a bare repository),
// rather than finding them from its working directory, and it runs none of
// the programs configuration can name (configOverrides). It is for code
// that runs git on a repository it created itself or only reads, whose
// configuration names no driver of its own.
func Command(ctx context.Context, gitDir, workTree string, args ...string) *exec.Cmd {
	return gitCmd{dir: workTree, gitDir: gitDir, args: args}.command(ctx)
}

// command builds the process. With a git directory, git is told it and the
// work tree, so nothing in the work tree (a rewritten .git file) can point
// it elsewhere.
func (c gitCmd) command(ctx context.Context) *exec.Cmd {
	args := make([]string, 0, 3+len(configOverrides)+len(c.config)+len(c.args))
	args = append(args, "--no-pager")
	if c.gitDir != "" {
		args = append(args, "--git-dir="+c.gitDir)
		if c.dir != "" {
			args = append(args, "--work-tree="+c.dir)
		}
	}
	args = append(args, configOverrides...)
	args = append(args, c.config...)
	args = append(args, c.args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = c.dir
	cmd.Env = append(append(gitEnv(), c.guard...), c.env...)
	return cmd
}

// run executes git and returns its stdout.
func (c gitCmd) run(ctx context.Context) ([]byte, error) {
	cmd := c.command(ctx)
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

// git runs a command in dir, finding the repository from there, and returns
// trimmed stdout. Only Open uses it: everything after names the git dir.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitCmd{dir: dir, args: args}.run(ctx)
	return strings.TrimSpace(string(out)), err
}
