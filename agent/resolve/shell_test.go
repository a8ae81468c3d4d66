package resolve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/tool"
)

func newTestShell(t *testing.T, mode ApprovalMode, ap event.Approver) (*Shell, string) {
	t.Helper()
	dir := t.TempDir()
	return NewShell(ShellConfig{Workdir: dir, Perm: Permissions{Mode: mode, Workdir: dir}, Approver: ap}), dir
}

func TestShellTimeoutKillsGroup(t *testing.T) {
	sh, dir := newTestShell(t, ModeAuto, nil)
	x, err := sh.Run(context.Background(), "sleep 60 & echo $! > child.pid; echo started; wait", 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !x.TimedOut || !strings.Contains(x.Output, "started") {
		t.Fatalf("exec %+v, want a time-out with the output so far", x)
	}
	assertDead(t, dir)
}

func TestShellCancelKillsGroup(t *testing.T) {
	sh, dir := newTestShell(t, ModeAuto, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := sh.Run(ctx, "sleep 60 & echo $! > child.pid; wait", time.Minute)
		done <- err
	}()
	waitFile(t, filepath.Join(dir, "child.pid"))
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled command returned no error")
	}
	assertDead(t, dir)
}

func TestShellStrayChildKilledAfterExit(t *testing.T) {
	sh, dir := newTestShell(t, ModeAuto, nil)
	x, err := sh.Run(context.Background(), "sleep 60 & echo $! > child.pid; echo bye", time.Minute)
	if err != nil || x.TimedOut || strings.TrimSpace(x.Output) != "bye" {
		t.Fatalf("exec %+v err %v", x, err)
	}
	assertDead(t, dir)
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 && strings.HasSuffix(string(b), "\n") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", p)
}

// assertDead checks that the pid in child.pid is gone or a zombie.
func assertDead(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("child %d still runs after the command ended", pid)
}

func TestShellOutputCapped(t *testing.T) {
	sh, _ := newTestShell(t, ModeAuto, nil)
	x, err := sh.Run(context.Background(), "echo FIRST; head -c 100000 /dev/zero | tr '\\0' a; echo; echo LAST", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if x.Cut == 0 || len(x.Output) > DefaultMaxOutput+400 {
		t.Fatalf("output of %d bytes, cut %d: not capped", len(x.Output), x.Cut)
	}
	for _, want := range []string{"FIRST", "LAST", "bytes (lines 2-2) cut from the middle", "sed -n '2,2p'"} {
		if !strings.Contains(x.Output, want) {
			t.Errorf("capped output lacks %q", want)
		}
	}
}

func TestShellEnvAndStdin(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-very-secret-value")
	t.Setenv("GIT_DIR", "/elsewhere/.git")
	sh := NewShell(ShellConfig{Workdir: t.TempDir(), Perm: Permissions{Mode: ModeAuto}})
	x, err := sh.Run(context.Background(), "env; cat; echo sk-test-very-secret-value", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(x.Output, "OPENAI_API_KEY") || strings.Contains(x.Output, "very-secret") {
		t.Errorf("the key reached the command or its output:\n%s", x.Output)
	}
	if strings.Contains(x.Output, "GIT_DIR") {
		t.Error("GIT_DIR reached the command: git would work on another repository")
	}
	if !strings.Contains(x.Output, "PAGER=cat") {
		t.Error("commands run without PAGER=cat")
	}
}

type recorder struct {
	reply event.Reply
	got   []*event.ApprovalRequest
}

func (r *recorder) Approve(_ context.Context, req *event.ApprovalRequest) (event.Reply, error) {
	r.got = append(r.got, req)
	return r.reply, nil
}

func TestShellTool(t *testing.T) {
	tests := []struct {
		name    string
		mode    ApprovalMode
		reply   event.Reply
		cmd     string
		want    string
		asked   bool
		failed  bool
		created string // file the command made, if it ran
	}{
		{"allowed runs without asking", ModeAsk, event.Reply{}, "echo hi", "hi", false, false, ""},
		{"exit status shown", ModeAuto, event.Reply{}, "ls nope", "[exit status 2]", false, false, ""},
		{"ask approved", ModeAsk, event.Reply{Decision: event.Approve}, "touch a.txt", "(no output)", true, false, "a.txt"},
		{"ask refused", ModeAsk, event.Reply{Decision: event.Refuse, Reason: "not now"}, "touch a.txt", "refused this command: not now", true, true, ""},
		{"ask replaced", ModeAsk, event.Reply{Decision: event.Choose, Choice: "touch b.txt"}, "touch a.txt", "(no output)", true, false, "b.txt"},
		{"replacement still checked", ModeAsk, event.Reply{Decision: event.Choose, Choice: "curl x"}, "touch a.txt", "replacement is refused", true, true, ""},
		{"deny refuses asks", ModeDeny, event.Reply{}, "touch a.txt", "allow-list", false, true, ""},
		{"refused in auto", ModeAuto, event.Reply{}, "cat /etc/passwd", "outside the workspace", false, true, ""},
		{"interactive refused", ModeAuto, event.Reply{}, "vim x.py", "str_replace_editor", false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{reply: tt.reply}
			sh, dir := newTestShell(t, tt.mode, rec)
			args, _ := json.Marshal(map[string]string{"command": tt.cmd})
			out, err := callTool(sh.Tool(), string(args))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text, tt.want) || out.Failed != tt.failed {
				t.Errorf("observation %q (failed %v), want %q (failed %v)", out.Text, out.Failed, tt.want, tt.failed)
			}
			if (len(rec.got) > 0) != tt.asked {
				t.Errorf("asked %d times, want asked=%v", len(rec.got), tt.asked)
			}
			if len(rec.got) > 0 && (rec.got[0].Action != "bash" || rec.got[0].Target != tt.cmd) {
				t.Errorf("approval %+v", rec.got[0])
			}
			if tt.created != "" {
				if _, err := os.Stat(filepath.Join(dir, tt.created)); err != nil {
					t.Errorf("the command did not run: %v", err)
				}
			}
		})
	}
}

func TestShellAlwaysAllow(t *testing.T) {
	rec := &recorder{reply: event.Reply{Decision: event.Choose, Choice: "always: touch"}}
	sh, _ := newTestShell(t, ModeAsk, rec)
	for _, f := range []string{"a", "b"} {
		if _, err := callTool(sh.Tool(), `{"command":"touch `+f+`"}`); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.got) != 1 {
		t.Errorf("asked %d times, want once (the engineer allowed touch for the run)", len(rec.got))
	}
}

func TestShellBudget(t *testing.T) {
	dir := t.TempDir()
	sh := NewShell(ShellConfig{Workdir: dir, Perm: Permissions{Mode: ModeAuto, Workdir: dir}, Budget: time.Nanosecond})
	if _, err := sh.Run(context.Background(), "true", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Run(context.Background(), "true", time.Minute); err == nil || !strings.Contains(err.Error(), "used up") {
		t.Errorf("err %v, want the budget used up", err)
	}
}

// callTool runs a tool through a registry, as the loop does.
func callTool(tl tool.Tool, args string) (tool.Output, error) {
	return tool.NewRegistry(tl).Call(context.Background(), llm.ToolCall{ID: "c1", Name: tl.Name, Arguments: args})
}

func TestAllowPrefix(t *testing.T) {
	tests := map[string]string{
		"make test":                "make test",
		"python3 -c 'print(1)'":    "python3 -c",
		"python3 -m mypkg.cli --x": "python3 -m mypkg.cli",
		"touch a.txt":              "touch",
		"npx tsc":                  "npx tsc",
		"ls | wc -l":               "",
		"FOO=1 make check -j2":     "make check",
	}
	for cmd, want := range tests {
		if got := AllowPrefix(cmd); got != want {
			t.Errorf("AllowPrefix(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"a\x00b", `a\x00b`},
		{strings.Repeat("\x00", 8192), `[\x00 ×8192]`},
		{"bell\x07\x07 esc\x1b[31m", `bell\x07\x07 esc\x1b[31m`},
		{"bad \xff utf8", "bad \uFFFD utf8"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestShellOutputStreams: a command's output is read as it is written,
// keeping its start and end; nothing of it is spooled to the host's disk.
func TestShellOutputStreams(t *testing.T) {
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool) // where a spool file would go
	sh, _ := newTestShell(t, ModeAuto, nil)
	const size = 50 << 20
	x, err := sh.Run(context.Background(), "echo FIRST; head -c "+strconv.Itoa(size)+" /dev/zero; echo; echo spooled=$(du -sk "+spool+" | cut -f1)KB", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.Output, "FIRST") || !strings.Contains(x.Output, "spooled=") {
		t.Fatalf("the start or the end of the output is missing:\n%.300s", x.Output)
	}
	if !strings.Contains(x.Output, "spooled=0KB") && !strings.Contains(x.Output, "spooled=4KB") {
		_, after, _ := strings.Cut(x.Output, "spooled=")
		t.Errorf("the output was spooled to the host while the command ran: %s", after)
	}
	if x.Cut < size-DefaultMaxOutput {
		t.Errorf("cut %d bytes of %d, want all but the kept start and end counted", x.Cut, size)
	}
}

// TestShellInheritsNoDescriptor: even unconfined, a command gets no
// descriptor swe-adept inherited without close-on-exec (here a file open
// for writing): only stdin, stdout and stderr.
func TestShellInheritsNoDescriptor(t *testing.T) {
	target := filepath.Join(t.TempDir(), "outside")
	fd, err := syscall.Open(target, syscall.O_RDWR|syscall.O_CREAT, 0o600) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	sh, _ := newTestShell(t, ModeAuto, nil)
	x, err := sh.Run(context.Background(), "echo planted >&"+strconv.Itoa(fd), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); len(b) > 0 {
		t.Errorf("a command wrote %q through an inherited descriptor: %s", b, x.Output)
	}
}
