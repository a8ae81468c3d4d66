package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// cliEnv makes the test binary act as the swe-adept command (see TestMain).
const cliEnv = "SWE_ADEPT_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	userEnv = os.Environ()
	// The commands log to the user's cache and read the user's model
	// settings: the tests get a home of their own.
	home, err := os.MkdirTemp("", "swe-adept-test-home-*")
	if err != nil {
		panic(err)
	}
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		os.Setenv(k, home)
	}
	os.Unsetenv("SWE_ADEPT_CONFIG")
	code := m.Run()
	os.RemoveAll(home)
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// builtCLI is the swe-adept command built without the race detector, once,
// for the tests that run it as a process: under the detector each whole
// run (and each confined command, which starts the binary again) is many
// times slower, and what the detector would see there is the code the
// in-process tests cover.
var builtCLI = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "swe-adept-test-cli-*")
	if err != nil {
		return "", err
	}
	builtDir = dir
	exe := filepath.Join(dir, "swe-adept")
	build := exec.Command("go", "build", "-o", exe, "github.com/swe-adept/swe-adept")
	build.Env = userEnv // the user's module and build caches, not the tests' empty home
	out, err := build.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return exe, nil
})

// builtDir holds the built command, removed when the tests end.
var builtDir string

// userEnv is the environment the tests started with, before TestMain gave
// them a home of their own.
var userEnv []string

// cliExe is the binary that acts as the swe-adept command: this test binary
// itself (see TestMain), or under the race detector one built without it.
func cliExe(t *testing.T) string {
	t.Helper()
	if !raceDetector {
		return os.Args[0]
	}
	exe, err := builtCLI()
	if err != nil {
		t.Fatalf("build the command for the tests that run it as a process: %v", err)
	}
	return exe
}

// cli prepares the swe-adept command as a separate process.
func cli(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(cliExe(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), cliEnv+"=1", "HOME="+t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	return cmd
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, text string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// messyCheckout is the sample repository in the state an engineer's
// checkout is usually in: a partly staged file, an unstaged edit, a
// deleted file, a mode change, a symlink, a binary, CRLF, untracked and
// ignored files, and a stash of their own.
func messyCheckout(t *testing.T) string {
	t.Helper()
	return messyCheckoutAt(t, t.TempDir())
}

// messyCheckoutAt makes the messy checkout in dir.
func messyCheckoutAt(t *testing.T, dir string) string {
	t.Helper()
	sampleCheckoutAt(t, dir)
	write(t, dir, ".gitignore", "build/\n", 0o644)
	write(t, dir, "docs/notes.txt", "one\ntwo\n", 0o644)
	write(t, dir, "crlf.txt", "a\r\nb\r\n", 0o644)
	write(t, dir, "tool.sh", "echo hi\n", 0o644)
	write(t, dir, "removeme.txt", "bye\n", 0o644)
	write(t, dir, "data.bin", "\x00\x01\x02\xff\xfe", 0o644)
	if err := os.Symlink("docs/notes.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "files to be messy with")
	write(t, dir, "docs/notes.txt", "one\ntwo\nstashed\n", 0o644)
	gitIn(t, dir, "stash", "push", "-q", "-m", "my own stash")
	write(t, dir, "docs/notes.txt", "one\ntwo\nstaged\n", 0o644)
	gitIn(t, dir, "add", "docs/notes.txt")
	write(t, dir, "docs/notes.txt", "one\ntwo\nstaged\nunstaged\n", 0o644)
	write(t, dir, "crlf.txt", "a\r\nb\r\nc\r\n", 0o644)
	write(t, dir, "data.bin", "\x00\x01\x03\xff", 0o644)
	if err := os.Remove(filepath.Join(dir, "removeme.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "scratch/idea.txt", "untracked\n", 0o644)
	write(t, dir, "build/out.o", "ignored\n", 0o644)
	return dir
}

// checkoutState is everything an engineer would miss: each file's bytes,
// mode and symlink target; status with ignored files; the index with
// stages; the stash list; HEAD and the branch.
func checkoutState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%s link -> %s", rel, target))
		case info.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			lines = append(lines, fmt.Sprintf("%s %v %x", rel, info.Mode(), sha256.Sum256(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	return strings.Join(lines, "\n") +
		"\n--status\n" + git("status", "--porcelain=v2", "--ignored", "--branch") +
		"--index\n" + git("ls-files", "-s") +
		"--stash\n" + git("stash", "list") +
		"--orig-head\n" + fileOrNone(filepath.Join(dir, ".git", "ORIG_HEAD")) +
		"--head\n" + git("rev-parse", "HEAD") + git("symbolic-ref", "-q", "HEAD")
}

// fileOrNone is a file's content, or "(none)".
func fileOrNone(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(none)\n"
	}
	return string(b)
}

// startRun starts a scripted headless run as its own process and returns
// it with a reader of its event lines.
func startRun(t *testing.T, repo string, extra ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	wd, _ := os.Getwd()
	args := append([]string{"run", "--repo", repo, "--issue", filepath.Join(wd, runSample, "issue.md"), "--headless",
		"--script-localize", filepath.Join(wd, runSample, "localize.json"), "--script-resolve", filepath.Join(wd, runSample, "resolve.json")}, extra...)
	cmd := cli(t, repo, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return cmd, sc
}

// eventsOfAWholeRun counts the event lines of one uninterrupted run, to
// spread the kills over it.
func eventsOfAWholeRun(t *testing.T) int {
	t.Helper()
	repo := messyCheckout(t)
	cmd, sc := startRun(t, repo, "--in-place")
	n := 0
	for sc.Scan() {
		n++
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("an uninterrupted in-place run failed: %v", err)
	}
	return n
}

// TestKilledInPlaceRunsRestoreTheCheckout kills in-place runs with SIGKILL
// at points spread over the whole run. The next command (`runs`) puts the
// checkout back exactly, and --resume continues the run to submitted.
func TestKilledInPlaceRunsRestoreTheCheckout(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	total := eventsOfAWholeRun(t)
	kills := 20
	if raceDetector {
		kills = 8 // each is a whole run and a resume: the detector's build runs the rest
	}
	for i := 0; i < kills; i++ {
		at := 1 + i*(total-2)/kills
		t.Run(fmt.Sprintf("after event %d of %d", at, total), func(t *testing.T) {
			t.Parallel() // each run has a checkout and a home of its own
			repo := messyCheckout(t)
			before := checkoutState(t, repo)
			id := killAfter(t, repo, at, "--in-place")
			out, err := cli(t, repo, "runs", "--repo", repo).CombinedOutput()
			if err != nil {
				t.Fatalf("runs after the kill: %v\n%s", err, out)
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("the checkout differs after `runs` (it said %s):\n%s", out, diffLines(before, after))
			}
			if id == "" {
				return // killed before the run had an id: nothing to resume
			}
			resume(t, repo, id, before)
		})
	}
}

// killAfter starts a run, SIGKILLs it when its n-th event arrives, and
// returns the run's id ("" if it had none yet).
func killAfter(t *testing.T, repo string, n int, extra ...string) string {
	t.Helper()
	cmd, sc := startRun(t, repo, extra...)
	id := ""
	for seen := 0; seen < n && sc.Scan(); seen++ {
		if id == "" {
			id = runIDOf(sc.Text())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	return id
}

func runIDOf(line string) string {
	_, rest, ok := strings.Cut(line, `"run":{"id":"`)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// resume continues the run to submitted and checks the checkout is the
// engineer's again afterwards.
func resume(t *testing.T, repo, id, before string) {
	t.Helper()
	script := restOfScript(t, repo, id)
	out, err := cli(t, repo, "run", "--repo", repo, "--resume", id, "--headless", "--script-resolve", script).CombinedOutput()
	text := string(out)
	switch {
	case strings.Contains(text, "already ended with a submitted"), strings.Contains(text, "before localization finished"),
		strings.Contains(text, "has no run.json"): // killed before the run was recorded: nothing to resume
	case err != nil || !strings.Contains(text, `"status":"submitted"`):
		t.Fatalf("resume %s: %v\n%s", id, err, tail(text))
	}
	if after := checkoutState(t, repo); after != before {
		t.Fatalf("the checkout differs after --resume:\n%s\nresume said: %s", diffLines(before, after), tail(text))
	}
}

// TestKilledRestoreIsRestoredAgain kills `restore` itself at several
// moments; the next command finishes the job.
func TestKilledRestoreIsRestoredAgain(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	for _, delay := range []time.Duration{0, 5 * time.Millisecond, 15 * time.Millisecond, 30 * time.Millisecond, 60 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			repo := messyCheckout(t)
			before := checkoutState(t, repo)
			killAfter(t, repo, 60, "--in-place")
			r := cli(t, repo, "restore", "--repo", repo)
			if err := r.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			_ = r.Process.Signal(syscall.SIGKILL)
			_ = r.Wait()
			out, err := cli(t, repo, "runs", "--repo", repo).CombinedOutput()
			if err != nil {
				t.Fatalf("runs: %v\n%s", err, out)
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("the checkout differs (runs said %s):\n%s", out, diffLines(before, after))
			}
		})
	}
}

// TestKilledWorktreeRunLeavesTheCheckout: a worktree run never touches the
// checkout, killed or not.
func TestKilledWorktreeRunLeavesTheCheckout(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
	repo := messyCheckout(t)
	before := checkoutState(t, repo)
	killAfter(t, repo, 80)
	out, err := cli(t, repo, "restore", "--repo", repo).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nothing to restore") {
		t.Errorf("restore: %v\n%s", err, out)
	}
	if after := checkoutState(t, repo); after != before {
		t.Fatalf("the checkout differs:\n%s", diffLines(before, after))
	}
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	am, bm := in(al), in(bl)
	var out []string
	for _, s := range al {
		if !bm[s] {
			out = append(out, "- "+s)
		}
	}
	for _, s := range bl {
		if !am[s] {
			out = append(out, "+ "+s)
		}
	}
	return strings.Join(out, "\n")
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// restOfScript is the resolution script from where the killed run stood:
// the turns after its last complete one (an interrupted turn is played
// again), without the checks on earlier output, which a replayed step may
// word differently.
func restOfScript(t *testing.T, repo, id string) string {
	t.Helper()
	var tr runfolder.Transcript
	if b, err := os.ReadFile(filepath.Join(repo, ".git", "swe-adept", "runs", id, runfolder.TranscriptFile)); err == nil {
		_ = json.Unmarshal(b, &tr)
	}
	sc, err := llm.LoadScript(filepath.Join(runSample, "resolve.json"))
	if err != nil {
		t.Fatal(err)
	}
	done, answered := 0, true
	for _, m := range tr.Resolve {
		switch m.Role {
		case llm.Assistant:
			done++
			answered = len(m.ToolCalls) == 0
		case llm.ToolRole:
			answered = true
		}
	}
	if !answered && done > 0 {
		done--
	}
	rest := &llm.Script{Model: sc.Model, Turns: append([]llm.Turn(nil), sc.Turns[min(done, len(sc.Turns)):]...)}
	for i := range rest.Turns {
		rest.Turns[i].Expect = ""
	}
	b, _ := json.Marshal(rest)
	path := filepath.Join(t.TempDir(), "rest.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
