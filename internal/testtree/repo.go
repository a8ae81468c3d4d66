package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Repo is a throwaway git repository whose commits are a day apart on a
// fixed clock, so commit times (and so ages) are known; git reads no
// global or system configuration for it.
type Repo struct {
	Dir   string
	t     testing.TB
	clock int64
}

// NewRepo makes an empty repository on branch main; the test is skipped
// where git is not installed.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	r := &Repo{Dir: t.TempDir(), t: t, clock: 1_600_000_000}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the repository, at the time of the last commit, and
// returns its output trimmed; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := "@" + strconv.FormatInt(r.clock, 10) + " +0000"
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes the files (appending to those whose body starts with
// "+"), commits everything a day after the last commit, and returns the
// commit's hash.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if tail, ok := strings.CutPrefix(body, "+"); ok {
			old, _ := os.ReadFile(p)
			body = string(old) + tail
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.clock += 86400
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}
