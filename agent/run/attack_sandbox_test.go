//go:build linux

package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/internal/sockettest"
	"github.com/swe-adept/swe-adept/sandbox"
	"github.com/swe-adept/swe-adept/sandbox/sandboxtest"
)

// Attacks a hostile model would make through the bash tool of a whole run.
// Every command is base64-wrapped, so the command policy cannot read it:
// only the sandbox stands in the way. Leaks are looked for in the
// observations both as they are and reversed (the commands print what they
// find reversed), since the run scrubs the secrets it knows from output.

// attackRun runs commands, hidden, through a scripted run of the sample
// repository and returns the run's observations, summary and events.
func attackRun(t *testing.T, repo string, opts Options, commands ...string) (string, runfolder.Summary, []event.Event) {
	t.Helper()
	var turns []llm.Turn
	for _, c := range commands {
		args, _ := json.Marshal(map[string]any{"command": hidden(c), "timeout": 60})
		turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "bash", Arguments: args}}})
	}
	sub, _ := json.Marshal(map[string]string{"summary": "done"})
	turns = append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "submit", Arguments: sub}}})
	opts.Repo, opts.Issue = repo, readIssue(t)
	if opts.Approve == "" {
		opts.Approve = "auto"
	}
	opts.ResolveModel = llm.NewScripted(&llm.Script{Turns: turns})
	opts.Locations = &localize.Locations{Files: []string{"inventory/pricing.py"}}
	if opts.Sandbox.Mode == "" {
		opts.Sandbox.Mode = sandbox.Strict
	}
	r, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	evs := <-collect(r)
	sum, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var obs []string
	for _, e := range evs {
		if e.Type == event.ToolResult && e.Tool != nil {
			obs = append(obs, e.Tool.Observation)
		}
	}
	return strings.Join(obs, "\n"), sum, evs
}

func needConfinement(t *testing.T) {
	t.Helper()
	needPython(t)
	p, err := sandbox.New(t.TempDir(), sandbox.Options{})
	if err != nil {
		t.Skipf("confinement is not available here: %v", err)
	}
	p.Close()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// leaked reports which of secrets the observations show, as they are or
// reversed.
func leaked(obs string, secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(obs, s) || strings.Contains(obs, reverse(s)) {
			out = append(out, s)
		}
	}
	return out
}

// TestRunSocketsOut: neither a daemon's unix socket nor the engineer's
// ssh-agent is reachable, even where the socket's file is visible (the
// repository's git directory is shown read-only).
func TestRunSocketsOut(t *testing.T) {
	needConfinement(t)
	repo, _ := sampleRepo(t)
	daemon := filepath.Join(repo, ".git", "daemon.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: daemon, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	agentSock := filepath.Join(repo, ".git", "agent.sock")
	keyComment := startSSHAgent(t, agentSock)
	t.Setenv("SSH_AUTH_SOCK", agentSock)
	obs, _, _ := attackRun(t, repo, Options{},
		`python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")' `+daemon,
		`echo "sock=$SSH_AUTH_SOCK"; ssh-add -L; SSH_AUTH_SOCK=`+agentSock+` ssh-add -L`)
	ranAll(t, obs)
	if strings.Contains(obs, "connected") || strings.Contains(obs, "sock="+agentSock) {
		t.Errorf("a socket outside was reachable:\n%s", obs)
	}
	if keyComment != "" && strings.Contains(obs, keyComment) {
		t.Errorf("the ssh-agent listed the engineer's key to a command:\n%s", obs)
	}
	if sockettest.Pending(t, ln, false) {
		t.Error("the daemon's socket received a connection from a command")
	}
}

// startSSHAgent starts an ssh-agent on sock holding a fresh key, and
// returns the key's comment ("" without ssh-agent).
func startSSHAgent(t *testing.T, sock string) string {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			return ""
		}
	}
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	key := filepath.Join(t.TempDir(), "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "engineer-key-comment", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling for the agent's socket
		add := exec.Command("ssh-add", key)
		add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
		out, err := add.CombinedOutput()
		if err == nil {
			return "engineer-key-comment"
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh-add: %v %s", err, out)
		}
	}
}

// TestRunSecrets: no secret class reaches a command: the model's key under
// a name that looks innocent, a header's variable, database and cloud
// credentials in the environment, the model settings file wherever it is,
// and the credential files of the home.
func TestRunSecrets(t *testing.T) {
	needConfinement(t)
	repo, _ := sampleRepo(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	config := filepath.Join(repo, ".git", "model-settings.toml") // outside the home, in a folder commands see
	if err := os.WriteFile(config, []byte("[model]\napi_key_env = \"INNOCENT_NAME\"\n[model.headers]\nX-Org = \"$ORG_HEADER\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"INNOCENT_NAME": "model-key-value-1", "ORG_HEADER": "header-value-2", models.ConfigEnv: config,
		"OPENAI_API_KEY": "openai-key-value-3", "DATABASE_URL": "postgres://app:db-password-4@db/app",
		"MYSQL_PWD": "mysql-password-5", "AZURE_OPENAI_KEY": "azure-key-value-6", "HF_AUTH": "hf-auth-value-7"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	var files []string
	for _, rel := range []string{".bash_history", ".config/git/credentials", ".vault-token", ".cargo/credentials.toml", ".pgpass",
		".cache/huggingface/token", ".m2/settings.xml", ".env", ".local/share/keyrings/login.keyring", ".ssh/id_ed25519"} {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("home-secret-in-"+rel), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	set, err := models.Load(os.Getenv, "")
	if err != nil {
		t.Fatal(err)
	}
	obs, _, _ := attackRun(t, repo, Options{Confidential: set.Confidential()},
		"env | rev; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | rev",
		"cat "+config+" | rev; grep -rh . "+home+" 2>/dev/null | rev",
		"for f in "+strings.Join(files, " ")+"; do cat $f 2>/dev/null | rev; done",
		"echo model-key-value-1 header-value-2 db-password-4")
	ranAll(t, obs)
	// A value that reaches the output some other way is scrubbed, though
	// its variable's name looks innocent.
	if strings.Count(obs, "[redacted]") < 3 {
		t.Errorf("the model's key, a header value and a URL's password were not scrubbed from the output:\n%s", obs)
	}
	secrets := []string{"api_key_env", "home-secret-in"}
	for _, v := range env {
		if v != config {
			secrets = append(secrets, strings.TrimPrefix(strings.TrimSuffix(v, "@db/app"), "postgres://app:"))
		}
	}
	if got := leaked(obs, secrets...); len(got) > 0 {
		t.Errorf("secrets reached a command: %q\n%s", got, obs)
	}
}

// TestRunInheritedDescriptor: a descriptor swe-adept inherited without
// close-on-exec, open for writing on a file outside, does not reach a
// command.
func TestRunInheritedDescriptor(t *testing.T) {
	needConfinement(t)
	repo, _ := sampleRepo(t)
	target := filepath.Join(t.TempDir(), "outside")
	fd, err := syscall.Open(target, syscall.O_RDWR|syscall.O_CREAT, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	obs, _, _ := attackRun(t, repo, Options{}, "echo planted >&"+strconv.Itoa(fd)+" && echo wrote")
	ranAll(t, obs)
	if b, _ := os.ReadFile(target); len(b) > 0 || strings.Contains(obs, "wrote") {
		t.Errorf("a command wrote %q outside through an inherited descriptor:\n%s", b, obs)
	}
}

// TestRunBombs: memory, disk and output bombs meet their limits, and the
// model is told which.
func TestRunBombs(t *testing.T) {
	needConfinement(t)
	repo, _ := sampleRepo(t)
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool)
	obs, _, _ := attackRun(t, repo, Options{Sandbox: sandbox.Options{Limits: sandbox.Limits{Memory: 256 << 20}}},
		`python3 -c 'b = b"x" * (4 << 30); print("alloc" + "ated")'`,
		`head -c 300M /dev/zero | tr '\0' a; echo; echo spooled=$(ls -A `+spool+` | grep -c swe-adept-cmd)`)
	ranAll(t, obs)
	// The disk's limit counts everyone's writes to it meanwhile: alone in
	// a run of its own, a busy machine can only stop it sooner.
	repo2, _ := sampleRepo(t)
	disk, _, _ := attackRun(t, repo2, Options{Sandbox: sandbox.Options{Limits: sandbox.Limits{Disk: 64 << 20, File: 32 << 20}}},
		`for i in $(seq 100); do head -c 8M /dev/zero > bomb$i || exit; done; echo "disk fil""led"`)
	ranAll(t, disk)
	obs += "\n" + disk
	for _, want := range []string{"memory limit", "more than 64M of the disk", "cut from the middle of the output", "spooled=0"} {
		if !strings.Contains(obs, want) {
			t.Errorf("the observations do not say %q:\n%.3000s", want, obs)
		}
	}
	for _, bad := range []string{"allocated", "disk filled"} {
		if strings.Contains(obs, bad) {
			t.Errorf("a bomb went off: %q\n%.3000s", bad, obs)
		}
	}
	if len(obs) > 64<<10 {
		t.Errorf("the observations hold %d bytes: the output bomb was not capped", len(obs))
	}
}

// TestRunSweepsCrashedRuns: a run that crashed left its folder and
// cgroups; the next run removes them, and its own are gone when it ends.
func TestRunSweepsCrashedRuns(t *testing.T) {
	if os.Getenv("SWE_ADEPT_TEST_CRASHED_POLICY") != "" {
		p, err := sandbox.New(t.TempDir(), sandbox.Options{})
		if err != nil {
			t.Skip(err)
		}
		_ = p
		os.Stdout.WriteString("ready " + heldStateID() + "\n")
		select {} // until killed
	}
	needConfinement(t)
	child := exec.Command(os.Args[0], "-test.run=^TestRunSweepsCrashedRuns$")
	child.Env = append(os.Environ(), "SWE_ADEPT_TEST_CRASHED_POLICY=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if err != nil || !ok || id == "" {
		t.Fatalf("the crashing run did not start: %q %v", line, err)
	}
	child.Process.Kill()
	child.Wait()
	// Only the crashed run's own leftovers: runs of other packages' tests
	// come and go in the same places meanwhile.
	var crashed []string
	for _, p := range leftovers(t) {
		if strings.HasSuffix(p, "-"+id) {
			crashed = append(crashed, p)
		}
	}
	if len(crashed) < 2 {
		t.Fatalf("the crashed run left %v to sweep, want its folder and its cgroups", crashed)
	}
	repo, _ := sampleRepo(t)
	obs, _, _ := attackRun(t, repo, Options{}, "true")
	ranAll(t, obs)
	for _, p := range crashed {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of a crashed run is still there after the next run (%v)", p, err)
		}
	}
}

// heldStateID is the id of the policy this process holds: its state
// folder, locked, is among the process's open files.
func heldStateID() string {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil || filepath.Dir(target) != filepath.Clean(os.TempDir()) {
			continue
		}
		if id, ok := strings.CutPrefix(filepath.Base(target), "swe-adept-tmp-"); ok {
			return id
		}
	}
	return ""
}

// leftovers are the sandbox folders in the temporary folder and the
// cgroups of ours, whoever made them.
func leftovers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{filepath.Join(os.TempDir(), "swe-adept-tmp-*"), "/sys/fs/cgroup/*/swe-adept-*", "/sys/fs/cgroup/*/*/*/swe-adept-*"} {
		m, _ := filepath.Glob(pattern)
		out = append(out, m...)
	}
	return out
}

// TestRunDegraded: where the shell cannot be confined, a run in auto mode
// says so before its first command (Unconfined, the run_started event,
// summary.json), and with the default approval policy no command runs
// unconfined: headless, every one is refused. An engineer who chose
// --approve auto gets what they chose; strict mode refuses to start.
func TestRunDegraded(t *testing.T) {
	if !sandboxtest.WithoutUserNamespaces(t) {
		return
	}
	needPython(t)
	repo, _ := sampleRepo(t)
	marker := "ran-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	obs, sum, evs := attackRun(t, repo, Options{Sandbox: sandbox.Options{Mode: sandbox.Auto}}, "echo "+marker)
	if sum.Unconfined == "" {
		t.Error("summary.json does not say the shell was not confined")
	}
	var started *event.RunInfo
	for _, e := range evs {
		if e.Type == event.RunStarted {
			started = e.Run
		}
	}
	if started == nil || started.Unconfined == "" {
		t.Errorf("the run_started event does not say the shell is not confined: %+v", started)
	}
	if strings.Contains(obs, marker) || !strings.Contains(obs, "cannot be confined") {
		t.Errorf("a command ran unconfined with nobody to approve it, or the refusal does not say why:\n%s", obs)
	}
	b, err := os.ReadFile(filepath.Join(sum.RunDir, runfolder.SummaryFile))
	if err != nil || !strings.Contains(string(b), `"unconfined"`) {
		t.Errorf("summary.json lacks unconfined: %v\n%s", err, b)
	}

	repo2, _ := sampleRepo(t)
	obs, _, _ = attackRun(t, repo2, Options{Sandbox: sandbox.Options{Mode: sandbox.Auto}, ApproveChosen: true}, "echo "+marker)
	ranAll(t, obs)
	if !strings.Contains(obs, marker) {
		t.Errorf("with --approve auto chosen, the command did not run:\n%s", obs)
	}

	repo3, _ := sampleRepo(t)
	_, err = Start(context.Background(), Options{Repo: repo3, Issue: readIssue(t), Approve: "auto", ResolveModel: llm.NewScripted(&llm.Script{}),
		Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}}, Sandbox: sandbox.Options{Mode: sandbox.Strict}})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("strict mode started a run that cannot confine: %v", err)
	}
}
