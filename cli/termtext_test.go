package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// hostile is what an issue, a model or a file may hold to take over the
// terminal that shows it: a title, the clipboard, a cleared screen,
// concealed text, a C1 CSI and a right-to-left override.
const hostile = "crash\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[8mHIDDEN\x1b[0m \u009b2J \u202etxt.exe"

// checkTerminalSafe fails when out holds anything a terminal would obey
// or hide.
func checkTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsRune(out, 0x1b) || termtext.Count(out) > 0 {
		t.Errorf("%s holds control or invisible characters: %q", what, out)
	}
}

// TestHeadlessOutputIsTerminalSafe: headless JSON lines carry hostile
// text escaped, so a terminal shows it, and a decoder still reads every
// byte of it.
func TestHeadlessOutputIsTerminalSafe(t *testing.T) {
	repo := sampleCheckout(t)
	if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("see "+hostile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "resolve.json")
	turn := map[string]any{"model": "scripted", "turns": []any{map[string]any{
		"content":    "Reading it. " + hostile,
		"tool_calls": []any{map[string]any{"name": "str_replace_editor", "arguments": map[string]any{"command": "view", "path": "notes.txt"}}},
	}}}
	b, err := json.Marshal(turn)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	_ = runCommand(context.Background(), "run", []string{"--repo", repo, "--issue", "-", "--headless",
		"--locations", filepath.Join(runSample, "locations.txt"), "--script-resolve", script}, strings.NewReader(hostile+"\n"), &out, &errb)
	checkTerminalSafe(t, "headless output", out.String())
	var issue, reply, observed bool
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		issue = issue || e.Run != nil && e.Run.Issue == hostile+"\n"
		reply = reply || strings.Contains(e.Text, hostile)
		observed = observed || e.Tool != nil && strings.Contains(e.Tool.Observation, hostile)
	}
	if !issue || !reply || !observed {
		t.Errorf("the exact text did not survive: issue %v, reply %v, observation %v\n%s", issue, reply, observed, out.String())
	}
	checkRunsList(t, repo)
}

// checkRunsList: runs shows the hostile issue as marks, and --json keeps
// it exact.
func checkRunsList(t *testing.T, repo string) {
	t.Helper()
	var text, js bytes.Buffer
	if err := runCommand(context.Background(), "runs", []string{"--repo", repo}, nil, &text, nil); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "runs", text.String())
	if !strings.Contains(text.String(), "crash␛]0;pwned␇") {
		t.Errorf("runs does not show the issue as marks:\n%s", text.String())
	}
	if err := runCommand(context.Background(), "runs", []string{"--repo", repo, "--json"}, nil, &js, nil); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "runs --json", js.String())
	var list []struct{ Issue string }
	if err := json.Unmarshal(js.Bytes(), &list); err != nil || len(list) != 1 || list[0].Issue != hostile {
		t.Errorf("runs --json: %v, issue %+v, want %q", err, list, hostile)
	}
}

// TestErrorsAreTerminalSafe: an error that quotes hostile text shows it
// as marks on stderr: a folder whose name holds escapes, a search for a
// name that holds them.
func TestErrorsAreTerminalSafe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x"+hostile)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"runs", "--repo", dir},
		{"search", "--repo", sampleCheckout(t), "def", "total" + hostile},
	} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code == 0 {
			t.Fatalf("%s succeeded: %s", args[0], out.String())
		}
		checkTerminalSafe(t, args[0]+"'s stderr", errb.String())
		if !strings.Contains(errb.String(), "␛]0;pwned␇") {
			t.Errorf("%s: stderr does not show the escape as marks: %q", args[0], errb.String())
		}
	}
}
