package swebench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/swe-adept/swe-adept/vcs"
)

// ExportStats counts what an export wrote and passed over.
type ExportStats struct {
	Files        int `json:"files"`
	MissingBlobs int `json:"missing_blobs"` // partial clones and left-out large files
	Skipped      int `json:"skipped"`       // submodules, unsafe paths
}

// ErrNoCommit means the repository does not have the instance's base commit.
var ErrNoCommit = errors.New("commit not in repository")

// RepoDir is where an instance's repository lives under a repos folder:
// DIR/OWNER/NAME, a clone or a bare mirror.
func RepoDir(reposDir, repo string) string {
	return filepath.Join(reposDir, filepath.FromSlash(repo))
}

// Export writes the tree of commit from the repository at repoDir into
// dest, without touching the repository's work tree or refs. Blobs that are
// missing (partial clones, large files left out) are counted and skipped,
// never fatal: a localizer can still work on the rest.
func Export(ctx context.Context, repoDir, commit, dest string) (ExportStats, error) {
	var st ExportStats
	gitDir, err := gitDirOf(repoDir)
	if err != nil {
		return st, err
	}
	if err := git(ctx, gitDir, nil, nil, "cat-file", "-e", commit+"^{commit}"); err != nil {
		return st, fmt.Errorf("export %s: %w: %s", short(commit), ErrNoCommit, repoDir)
	}
	entries, err := listTree(ctx, gitDir, commit)
	if err != nil {
		return st, fmt.Errorf("export %s: %w", short(commit), err)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return st, fmt.Errorf("export %s: %w", short(commit), err)
	}
	return writeBlobs(ctx, gitDir, entries, dest)
}

type treeEntry struct {
	mode, kind, hash, path string
}

func listTree(ctx context.Context, gitDir, commit string) ([]treeEntry, error) {
	var out bytes.Buffer
	if err := git(ctx, gitDir, nil, &out, "ls-tree", "-r", "-z", "--full-tree", commit); err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, rec := range strings.Split(out.String(), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		entries = append(entries, treeEntry{mode: f[0], kind: f[1], hash: f[2], path: path})
	}
	return entries, nil
}

// writeBlobs streams every blob through one `git cat-file --batch`, which
// answers "<hash> missing" for a blob that is not there instead of failing.
func writeBlobs(ctx context.Context, gitDir string, entries []treeEntry, dest string) (ExportStats, error) {
	var st ExportStats
	var blobs []treeEntry
	for _, e := range entries {
		if e.kind != "blob" || !safeRel(e.path) {
			st.Skipped++
			continue
		}
		blobs = append(blobs, e)
	}
	var in bytes.Buffer
	for _, e := range blobs {
		in.WriteString(e.hash + "\n")
	}
	cmd := gitCmd(ctx, gitDir, "cat-file", "--batch")
	cmd.Stdin = &in
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return st, err
	}
	if err := cmd.Start(); err != nil {
		return st, fmt.Errorf("git cat-file: %w", err)
	}
	r := bufio.NewReaderSize(pipe, 1<<20)
	for _, e := range blobs {
		ok, err := readBlob(r, e, dest)
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return st, fmt.Errorf("write %s: %w", e.path, err)
		}
		if ok {
			st.Files++
		} else {
			st.MissingBlobs++
		}
	}
	if err := cmd.Wait(); err != nil {
		return st, fmt.Errorf("git cat-file: %w", err)
	}
	return st, nil
}

func readBlob(r *bufio.Reader, e treeEntry, dest string) (bool, error) {
	header, err := r.ReadString('\n')
	if err != nil {
		return false, err
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return false, nil
	}
	if len(f) != 3 {
		return false, fmt.Errorf("unexpected cat-file header %q", header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return false, err
	}
	data := make([]byte, size+1) // the content and its trailing newline
	if _, err := io.ReadFull(r, data); err != nil {
		return false, err
	}
	return true, writeEntry(e, data[:size], dest)
}

func writeEntry(e treeEntry, data []byte, dest string) error {
	p := filepath.Join(dest, filepath.FromSlash(e.path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if e.mode == "120000" {
		return os.Symlink(string(data), p)
	}
	perm := os.FileMode(0o644)
	if e.mode == "100755" {
		perm = 0o755
	}
	return os.WriteFile(p, data, perm)
}

// safeRel refuses tree paths that would land outside dest.
func safeRel(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == ".git" {
			return false
		}
	}
	return true
}

// Checkout exports commit into dest and makes dest a git repository whose
// one commit is that state, so an agent can branch and diff in it without
// ever touching the mirror.
func Checkout(ctx context.Context, repoDir, commit, dest string) (ExportStats, error) {
	st, err := Export(ctx, repoDir, commit, dest)
	if err != nil {
		return st, err
	}
	env := []string{"GIT_AUTHOR_NAME=swe-adept", "GIT_AUTHOR_EMAIL=swe-adept@localhost",
		"GIT_COMMITTER_NAME=swe-adept", "GIT_COMMITTER_EMAIL=swe-adept@localhost"}
	steps := [][]string{
		{"init", "-q"},
		{"add", "-A", "-f"},
		{"commit", "-q", "--no-verify", "--allow-empty", "-m", "base " + short(commit)},
	}
	for _, s := range steps {
		// The exported files are the repository's: git is told where its
		// directory is, and runs nothing they configure.
		cmd := vcs.Command(ctx, filepath.Join(dest, ".git"), dest, s...)
		cmd.Env = append(cmd.Env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return st, fmt.Errorf("checkout %s: git %s: %v: %s", short(commit), s[0], err, bytes.TrimSpace(out))
		}
	}
	return st, nil
}

func gitDirOf(repoDir string) (string, error) {
	fi, err := os.Stat(repoDir)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("repository %s: not found (expected a clone or a bare mirror at DIR/OWNER/NAME)", repoDir)
	}
	if _, err := os.Stat(filepath.Join(repoDir, ".git")); err == nil {
		return filepath.Join(repoDir, ".git"), nil
	}
	if _, err := os.Stat(filepath.Join(repoDir, "objects")); err == nil {
		return repoDir, nil
	}
	return "", fmt.Errorf("repository %s: not a git clone or bare mirror", repoDir)
}

// gitCmd reads the mirror. vcs.Command never lets a partial clone reach
// for the network to fill a missing blob, nor runs what its config names.
func gitCmd(ctx context.Context, gitDir string, args ...string) *exec.Cmd {
	return vcs.Command(ctx, gitDir, "", args...)
}

func git(ctx context.Context, gitDir string, in io.Reader, out io.Writer, args ...string) error {
	cmd := gitCmd(ctx, gitDir, args...)
	cmd.Stdin, cmd.Stdout = in, out
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return nil
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
