package vcs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Reading history: the commits behind a revision, for a localizer that
// learns from past changes. The repository may be the engineer's or a bare
// mirror; either way it is read, never written, and nothing it configures
// runs: no diff or textconv drivers, no signature checks, no pager, and
// hunk headers from patterns pinned here rather than from its config.

// LogCommit is one commit as ReadLog reports it.
type LogCommit struct {
	Hash    string
	Time    int64 // committer time, Unix seconds
	Message string
	Files   []FileChange
}

// FileChange is what one commit did to one file.
type FileChange struct {
	Path    string // the path after the commit ("" when it deleted the file)
	OldPath string // the path before ("" when it added the file)
	Binary  bool
	Hunks   []Hunk
}

// Hunk is one changed region, without context lines.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Func is the definition line git names in the hunk header: the
	// nearest one above the hunk (for Python, Go and the languages git
	// knows by default).
	Func    string
	Added   []string
	Removed []string
}

// GraphCommit is one commit of the ancestry graph.
type GraphCommit struct {
	Hash    string
	Time    int64 // committer time, Unix seconds
	Parents []string
}

// LogOptions choose what ReadLog reads.
type LogOptions struct {
	// Rev is the newest commit read; its ancestors follow.
	Rev string
	// Not are commits whose ancestors are already known: they and their
	// ancestors are left out, so a second read costs only what is new.
	Not []string
	// Paths are pathspec globs ("*.py"): only commits that change a
	// matching file are read, and only those files' changes.
	Paths []string
	// MaxCount stops after this many commits, newest first; 0 reads all.
	MaxCount int
}

// maxLogLine is the longest diff line kept; longer ones (minified or
// generated text) are cut, and a message is cut at maxLogMessage.
const (
	maxLogLine    = 4 << 10
	maxLogMessage = 64 << 10
)

// logOverrides pin, beside configOverrides, what configuration could change
// during a log: rename limits, and the hunk-header patterns of the two
// drivers the attributes below name.
var logOverrides = []string{
	"-c", "diff.renameLimit=1000",
	"-c", `diff.python.xfuncname=^[ 	]*((class|(async[ 	]+)?def)[ 	].*)$`,
	"-c", `diff.golang.xfuncname=^(func[ 	].*|type[ 	].*)$`,
	"-c", "diff.python.binary=false",
	"-c", "diff.golang.binary=false",
}

// logAttributes route Python and Go files to the two drivers above; for
// every other file git's default hunk header applies.
const logAttributes = "*.py diff=python\n*.pyi diff=python\n*.go diff=golang\n"

// ResolveCommit is the full hash of rev in the repository whose git
// directory is gitDir (a bare mirror, or a checkout's common git dir).
func ResolveCommit(ctx context.Context, gitDir, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("resolve %q: %w", rev, ErrUnknownRevision)
	}
	out, err := gitCmd{gitDir: gitDir, args: []string{"rev-parse", "--quiet", "--verify", "--end-of-options", rev + "^{commit}"}}.run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("resolve %q in %s: %w", rev, gitDir, unknownRev(rev))
	}
	return strings.TrimSpace(string(out)), nil
}

// ReadGraph streams the ancestry of rev, leaving out not and their
// ancestors: every commit with its parents, newest first.
func ReadGraph(ctx context.Context, gitDir, rev string, not []string, each func(GraphCommit) error) error {
	args := append([]string{"rev-list", "--parents", "--timestamp", "--end-of-options", rev}, notArgs(not)...)
	return streamGit(ctx, gitCmd{gitDir: gitDir, args: args}, func(r *bufio.Reader) error {
		for {
			line, err := r.ReadString('\n')
			if f := strings.Fields(line); len(f) > 1 && validHash(f[1]) {
				ts, _ := strconv.ParseInt(f[0], 10, 64)
				if err := each(GraphCommit{Hash: f[1], Time: ts, Parents: f[2:]}); err != nil {
					return err
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}

func notArgs(not []string) []string {
	var out []string
	for _, n := range not {
		if n != "" && !strings.HasPrefix(n, "-") {
			out = append(out, "^"+n)
		}
	}
	return out
}

// ReadLog streams the commits behind o.Rev that change the files o.Paths
// match, newest first, each with its changes to those files. Merges are
// left out: their changes are their parents'. A commit whose diff cannot
// be read (a blob missing from a partial clone) ends the read with an
// error after the commits before it were reported.
func ReadLog(ctx context.Context, gitDir string, o LogOptions, each func(LogCommit) error) error {
	if strings.HasPrefix(o.Rev, "-") {
		return fmt.Errorf("read history of %q: %w", o.Rev, ErrUnknownRevision)
	}
	attrs, err := os.CreateTemp("", "swe-adept-attributes-")
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	defer os.Remove(attrs.Name())
	_, werr := attrs.WriteString(logAttributes)
	if err := errors.Join(werr, attrs.Close()); err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	config := append([]string{"-c", "core.attributesFile=" + filepath.ToSlash(attrs.Name())}, logOverrides...)
	args := []string{"log", "--no-merges", "--full-history", "--diff-merges=off",
		"--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--unified=0", "--patch",
		"--src-prefix=a/", "--dst-prefix=b/", "--no-abbrev", "--format=%x00%x00%H%x00%ct%x00%B%x00"}
	if o.MaxCount > 0 {
		args = append(args, "--max-count="+strconv.Itoa(o.MaxCount))
	}
	args = append(args, "--end-of-options", o.Rev)
	args = append(args, notArgs(o.Not)...)
	args = append(args, "--")
	args = append(args, o.Paths...)
	return streamGit(ctx, gitCmd{gitDir: gitDir, config: config, args: args}, func(r *bufio.Reader) error { return parseLog(r, each) })
}

// streamGit runs c, as every command of the package runs, and hands its
// output to read as it comes.
func streamGit(ctx context.Context, c gitCmd, read func(*bufio.Reader) error) error {
	cmd := c.command(ctx)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git %s: %w", c.args[0], err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", c.args[0], err)
	}
	rerr := read(bufio.NewReaderSize(out, 1<<20))
	if rerr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("git %s: %w", c.args[0], ctx.Err())
	case rerr != nil:
		return rerr
	case werr != nil:
		return fmt.Errorf("git %s: %v: %s", c.args[0], werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}
