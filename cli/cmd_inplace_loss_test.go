package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// The ways an in-place run could lose or hide the engineer's work, each
// run as an engineer would: every case comes back byte for byte, or is
// refused up front, and every command printed for them works when pasted.

// turn is one scripted model turn.
type turn struct {
	Content   string     `json:"content"`
	ToolCalls []toolCall `json:"tool_calls"`
}

type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// script writes a resolution transcript of the given turns, ending with a
// submit.
func script(t *testing.T, turns ...turn) string {
	t.Helper()
	turns = append(turns, turn{Content: "Done.", ToolCalls: []toolCall{{Name: "submit", Arguments: map[string]any{"summary": "done"}}}})
	b, err := json.Marshal(map[string]any{"model": "scripted-resolver", "turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "resolve.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func bash(cmd string) turn {
	return turn{Content: "Run it.", ToolCalls: []toolCall{{Name: "bash", Arguments: map[string]any{"command": cmd}}}}
}

// scriptedRun prepares an in-place run of a resolution script, with the
// sample's locations so that nothing is indexed.
func scriptedRun(t *testing.T, repo, resolve string, extra ...string) *exec.Cmd {
	t.Helper()
	wd, _ := os.Getwd()
	args := append([]string{"run", "--repo", repo, "--in-place", "--headless", "--issue", filepath.Join(wd, runSample, "issue.md"),
		"--script-resolve", resolve, "--locations", filepath.Join(wd, runSample, "locations.txt")}, extra...)
	return cli(t, repo, args...)
}

// runDirOf is the folder of the only run in repo.
func runDirOf(t *testing.T, repo string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(repo, ".git", "swe-adept", "runs", "*"))
	if len(dirs) != 1 {
		t.Fatalf("want one run folder, found %v", dirs)
	}
	return dirs[0]
}

// An agent that un-ignores the engineer's ignored secret.env must neither
// delete it nor put it in patch.diff.
func TestInPlaceUnignoredSecret(t *testing.T) {
	needPython(t)
	repo := messyCheckout(t)
	write(t, repo, ".gitignore", "build/\nsecret.env\n", 0o644)
	gitIn(t, repo, "add", ".gitignore")
	gitIn(t, repo, "commit", "-q", "-m", "ignore the secret")
	write(t, repo, "secret.env", "TOKEN=hunter2-do-not-leak\n", 0o600)
	before := checkoutState(t, repo)
	resolve := script(t,
		turn{Content: "Stop ignoring it.", ToolCalls: []toolCall{{Name: "str_replace_editor", Arguments: map[string]any{
			"command": "str_replace", "path": ".gitignore", "old_str": "secret.env\n", "new_str": ""}}}},
		bash("cat secret.env >/dev/null"))
	out, err := scriptedRun(t, repo, resolve).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, tail(string(out)))
	}
	if after := checkoutState(t, repo); after != before {
		t.Fatalf("the checkout differs:\n%s", diffLines(before, after))
	}
	patch, _ := os.ReadFile(filepath.Join(runDirOf(t, repo), runfolder.PatchFile))
	if strings.Contains(string(patch), "secret.env\n+++") || strings.Contains(string(patch), "hunter2") {
		t.Errorf("patch.diff holds the engineer's ignored file:\n%s", patch)
	}
}

// An edit the engineer makes while an agent's command runs stops the run;
// the checkout comes back as it was, the edit is kept as a patch that
// applies, and it is not in the run's own patch.
func TestInPlaceEditDuringACommand(t *testing.T) {
	needPython(t)
	repo := messyCheckout(t)
	before := checkoutState(t, repo)
	resolve := script(t,
		turn{Content: "Write.", ToolCalls: []toolCall{{Name: "str_replace_editor", Arguments: map[string]any{
			"command": "create", "path": "agent.txt", "file_text": "the agent's\n"}}}},
		bash("echo the command writes too > command.txt; sleep 4"))
	cmd := scriptedRun(t, repo, resolve)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		dec := json.NewDecoder(stdout)
		for {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			lines <- string(raw)
		}
	}()
	var last string
	for l := range lines {
		last = l
		if strings.Contains(l, `"type":"tool_call"`) && strings.Contains(l, "sleep 4") {
			waitFor(t, filepath.Join(repo, "command.txt")) // the command's own write comes first
			write(t, repo, "README.md", "the engineer's edit\n", 0o644)
			write(t, repo, "mine-new.txt", "a new file of mine\n", 0o644)
		}
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the run went on after the engineer's edit:\n%s", last)
	}
	if !strings.Contains(last, "you changed") {
		t.Errorf("the summary does not say why: %s\n%s", last, stderr.String())
	}
	if after := checkoutState(t, repo); after != before {
		t.Fatalf("the checkout differs:\n%s", diffLines(before, after))
	}
	dir := runDirOf(t, repo)
	own, _ := os.ReadFile(filepath.Join(dir, runfolder.PatchFile))
	if strings.Contains(string(own), "mine-new.txt") || strings.Contains(string(own), "engineer's edit") {
		t.Errorf("the run's patch holds the engineer's edits:\n%s", own)
	}
	if !strings.Contains(string(own), "command.txt") || !strings.Contains(string(own), "agent.txt") {
		t.Errorf("the run's patch lost its own work (the command's file and the editor's):\n%s", own)
	}
	if kept, _ := os.ReadFile(filepath.Join(dir, "edits-during-run.patch")); strings.Contains(string(kept), "command.txt") {
		t.Errorf("the command's own write was taken for the engineer's:\n%s", kept)
	}
	var sum struct{ Message string }
	_ = json.Unmarshal([]byte(last), &sum)
	_, apply, ok := strings.Cut(sum.Message, "they apply with: ")
	if !ok {
		t.Fatalf("no command to bring the edits back:\n%s", last)
	}
	paste(t, pasteBin(t), []string{apply})
	for name, want := range map[string]string{"README.md": "the engineer's edit\n", "mine-new.txt": "a new file of mine\n"} {
		if b, err := os.ReadFile(filepath.Join(repo, name)); err != nil || string(b) != want {
			t.Errorf("%s after applying the kept edits = %q, %v", name, b, err)
		}
	}
}

// A resume after a kill that cut the last line of events.jsonl trims it,
// says so, and leaves a log whose every line parses.
func TestInPlaceResumeAfterATornEventLog(t *testing.T) {
	needPython(t)
	repo := messyCheckout(t)
	before := checkoutState(t, repo)
	id := killAfter(t, repo, 60, "--in-place")
	if id == "" {
		t.Fatal("the run had no id yet")
	}
	log := filepath.Join(repo, ".git", "swe-adept", "runs", id, runfolder.EventsFile)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":9999,"type":"tool_res`)
	f.Close()
	resume(t, repo, id, before)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runfolder.ReadEvents(bytes.NewReader(data), log); err != nil {
		t.Errorf("the resumed log does not parse: %v", err)
	}
	if !strings.Contains(string(data), "ended in a partial line") {
		t.Error("the resume did not record that it trimmed the log")
	}
}

// waitFor waits until path exists (a command in another process wrote it).
func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the sample's scripted run needs it")
	}
}

// pasteBin is a folder with a `swe-adept` command on it, as installed.
func pasteBin(t *testing.T) string {
	t.Helper()
	exe := cliExe(t)
	bin := t.TempDir()
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", cliEnv, exe)
	if err := os.WriteFile(filepath.Join(bin, "swe-adept"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// pasted picks the command lines of printed text that start with prefix
// (after their indentation), as an engineer would copy them.
func pasted(text, prefix string) []string {
	var cmds []string
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, prefix) {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// paste types each command into a shell, in a folder of its own, as
// printed; each must succeed.
func paste(t *testing.T, bin string, cmds []string, env ...string) string {
	t.Helper()
	var all strings.Builder
	for _, c := range cmds {
		sh := exec.Command("sh", "-c", c)
		sh.Dir = t.TempDir()
		sh.Env = append(append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir()), env...)
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Fatalf("the printed command failed when pasted: %s\n%v\n%s", c, err, out)
		}
		all.Write(out)
	}
	return all.String()
}

// TestPrintedRecoveryCommandsWork types the commands swe-adept prints for
// getting work back, literally, in a shell started in another folder,
// with swe-adept installed and (for a resume) a model configured, as the
// engineer would.
func TestPrintedRecoveryCommandsWork(t *testing.T) {
	needPython(t)
	bin := pasteBin(t)
	t.Run("resume after a crash", func(t *testing.T) {
		repo := messyCheckout(t)
		before := checkoutState(t, repo)
		id := killAfter(t, repo, 60, "--in-place")
		out, err := cli(t, repo, "runs", "--repo", repo).CombinedOutput()
		if err != nil {
			t.Fatalf("runs: %v\n%s", err, out)
		}
		_, cmd, ok := strings.Cut(string(out), "(swe-adept run ")
		cmd, _, _ = strings.Cut(cmd, " continues it)")
		if !ok {
			t.Fatalf("no resume command printed after the crash:\n%s", out)
		}
		// Pasted at a terminal it opens the workbench; this shell has none,
		// so it asks for the headless run the workbench would show.
		text := paste(t, bin, []string{"swe-adept run " + cmd + " --headless --approve auto"}, modelEnv(t, repo, id)...)
		if !strings.Contains(text, `"status":"submitted"`) {
			t.Errorf("the pasted resume did not finish the run:\n%s", tail(text))
		}
		if after := checkoutState(t, repo); after != before {
			t.Fatalf("the checkout differs after the pasted resume:\n%s", diffLines(before, after))
		}
	})
	t.Run("a checkout moved to another branch after a crash", func(t *testing.T) {
		repo := messyCheckout(t)
		before := checkoutState(t, repo)
		id := killAfter(t, repo, 60, "--in-place")
		gitIn(t, repo, "stash", "push", "-q", "--include-untracked", "-m", "whatever the run left")
		gitIn(t, repo, "checkout", "-q", "-b", "elsewhere")
		for _, args := range [][]string{{"restore", "--repo", repo}, {"gc", "--repo", repo, id}} {
			out, err := cli(t, repo, args...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), "NOT put back") {
				t.Fatalf("%s on a moved checkout: %v\n%s", args[0], err, out)
			}
			if args[0] == "gc" {
				cmds := append(pasted(string(out), "git -C "), pasted(string(out), "swe-adept restore ")...)
				paste(t, bin, cmds)
			}
		}
		// The pasted commands keep what was on the other branch on a stash
		// of the engineer's own: the stash list is longer, the rest as it was.
		if after := checkoutState(t, repo); withoutStashes(after) != withoutStashes(before) {
			t.Fatalf("the pasted commands did not put the checkout back:\n%s", diffLines(before, after))
		}
	})
}

func withoutStashes(state string) string {
	head, _, _ := strings.Cut(state, "--stash\n")
	_, rest, _ := strings.Cut(state, "--orig-head\n")
	return head + rest
}

// modelEnv is the environment of an engineer with a model configured: a
// fake OpenAI-compatible server that plays the rest of run id's script.
func modelEnv(t *testing.T, repo, id string) []string {
	t.Helper()
	sc, err := llm.LoadScript(restOfScript(t, repo, id))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t, providertest.Config{Family: providertest.OpenAIChat, Scripts: map[string]*llm.Script{"resolve": sc}})
	return []string{"OPENAI_BASE_URL=" + srv.BaseURL(), "OPENAI_API_KEY=test-key", "SWE_ADEPT_MODEL=" + srv.Model()}
}
