//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/internal/sockettest"
)

// Attacks a hostile command would try from inside the sandbox, one test
// each. Every one proves what did not happen by a condition it can check
// once the command has ended: a connection left in a listener's queue, a
// byte in a file or a terminal's queue, a secret in the output.

// TestUnixSocketsOutside: a daemon's socket outside the workspace (here a
// stand-in) cannot be reached, even where commands see its file: it lies
// in the git directory, which they read. (A socket in /tmp or the home
// would be out of sight as well.)
func TestUnixSocketsOutside(t *testing.T) {
	needPython(t)
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	sock := filepath.Join(ws, ".git", "daemon.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, kind := range []string{"SOCK_STREAM", "SOCK_SEQPACKET"} {
		t.Run(kind, func(t *testing.T) {
			out, err := run(t, p, ws, `python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
print("connected")' `+sock)
			if strings.Contains(out, "connected") || err == nil {
				t.Errorf("a confined command connected to %s: %v\n%s", sock, err, out)
			}
			if sockettest.Pending(t, ln, false) {
				t.Errorf("the daemon's socket received a connection from a confined command")
			}
		})
	}
	t.Run("datagram through a socketpair", func(t *testing.T) {
		dsock := filepath.Join(ws, ".git", "dgram.sock")
		dg, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dsock, Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		defer dg.Close()
		out, _ := run(t, p, ws, `python3 -c '
import socket, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.connect(sys.argv[1])  # a datagram socket may point elsewhere at any time
a.send(b"hello")
print("sent")' `+dsock)
		if sockettest.Pending(t, dg, true) {
			t.Errorf("a datagram socket outside received a datagram from a confined command:\n%s", out)
		}
	})
}

// TestSocketpairStillWorks: what Python's multiprocessing and asyncio need
// stays: a connected pair of stream sockets.
func TestSocketpairStillWorks(t *testing.T) {
	needPython(t)
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	out, err := run(t, p, ws, `python3 -c '
import multiprocessing as mp
def sq(x): return x*x
if __name__ == "__main__":
    a, b = mp.Pipe()
    a.send("ping"); print(b.recv())
    with mp.Pool(2) as pool: print(sum(pool.map(sq, range(10))))'`)
	if err != nil || !strings.Contains(out, "ping") || !strings.Contains(out, "285") {
		t.Fatalf("multiprocessing does not work confined: %v\n%s", err, out)
	}
}

// TestSSHAgent: the engineer's ssh-agent is neither named nor reachable,
// even where commands see its socket (in the git directory).
func TestSSHAgent(t *testing.T) {
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	sock, key := filepath.Join(ws, ".git", "agent.sock"), filepath.Join(t.TempDir(), "id_ed25519")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "engineer-key", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	add := exec.Command("ssh-add", key)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	for deadline := time.Now().Add(10 * time.Second); ; {
		out, err := add.CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) { // the agent never started listening
			t.Fatalf("ssh-add: %v %s", err, out)
		}
		time.Sleep(20 * time.Millisecond) // polling for the agent's socket, not proving an absence
		add = exec.Command("ssh-add", key)
		add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	}
	c, err := p.Command(append(os.Environ(), "SSH_AUTH_SOCK="+sock), "bash", "-c",
		`echo "sock=$SSH_AUTH_SOCK"; ssh-add -L; SSH_AUTH_SOCK=`+sock+` ssh-add -L`)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	out, _ := c.CombinedOutput()
	if strings.Contains(string(out), "engineer-key") || strings.Contains(string(out), "sock="+sock) {
		t.Errorf("the ssh-agent is reachable from a confined command:\n%s", out)
	}
}

// secretEnv is one variable of each class that must never reach a
// command, with a value to look for in its output.
var secretEnv = map[string]string{
	"OPENAI_API_KEY":           "sk-model-key-1234567890",
	"DATABASE_URL":             "postgres://app:db-password-123@db.internal/app",
	"MYSQL_PWD":                "mysql-password-123",
	"AZURE_OPENAI_KEY":         "azure-key-1234567890",
	"HF_AUTH":                  "hf_auth_token_1234567890",
	"GITHUB_TOKEN":             "ghp_github_token_123456",
	"AWS_SECRET_ACCESS_KEY":    "aws-secret-1234567890",
	"SSH_AUTH_SOCK":            "/tmp/ssh-agent-socket-path",
	"GPG_AGENT_INFO":           "/run/user/1000/gnupg/S.gpg-agent:0:1",
	"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus-address",
	"SWE_ADEPT_CONFIG":         "/home/someone/secret-config-path.toml",
	"SOME_INNOCENT_NAME":       "value-of-an-unlisted-variable",
}

// TestSecretsInTheEnvironment: only the allow-listed variables reach a
// command; every secret class is left out.
func TestSecretsInTheEnvironment(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	env := os.Environ()
	for k, v := range secretEnv {
		env = append(env, k+"="+v)
	}
	c, err := p.Command(env, "bash", "-c", "env; cat /proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = ws
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for k, v := range secretEnv {
		if strings.Contains(string(out), v) {
			t.Errorf("%s reached a confined command", k)
		}
	}
}

// homeSecrets are credential files a home holds, each of a class the
// deny-list of old missed.
var homeSecrets = []string{
	".bash_history", ".zsh_history", ".python_history", ".config/git/credentials", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".cargo/credentials.toml", ".pgpass", ".my.cnf", ".config/hub",
	".gem/credentials", ".m2/settings.xml", ".gradle/gradle.properties", ".cache/huggingface/token",
	".config/rclone/rclone.conf", ".s3cfg", ".boto", ".oci/config", ".config/doctl/config.yaml",
	".config/op/config", ".yarnrc.yml", ".env", ".mozilla/firefox/p.default/logins.json",
	".config/google-chrome/Default/Login Data", ".local/share/keyrings/login.keyring", ".ssh/id_rsa",
	".config/swe-adept/config.toml", ".npmrc", ".netrc", ".docker/config.json",
}

// TestSecretsInTheHome: nothing of the engineer's home is readable but the
// toolchain caches; a search of the whole home finds no secret.
func TestSecretsInTheHome(t *testing.T) {
	ws, home := workspace(t)
	for _, rel := range homeSecrets {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("SECRET in "+rel+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := policy(t, ws, Options{})
	script := `grep -r "SECRET in" ` + home + ` 2>/dev/null; cd ` + home + ` && for f in` + quoteAll(homeSecrets) + `; do cat "$f" 2>/dev/null; done; ls -A ` + home
	out, _ := run(t, p, ws, script)
	for _, rel := range homeSecrets {
		if strings.Contains(out, "SECRET in "+rel) {
			t.Errorf("%s is readable by a confined command", rel)
		}
	}
}

func quoteAll(list []string) string {
	var b strings.Builder
	for _, s := range list {
		b.WriteString(" " + strconv.Quote(s))
	}
	return b.String()
}

// TestInheritedDescriptor: a descriptor swe-adept inherited without
// close-on-exec (a file outside the workspace, open for writing) does not
// reach the command.
func TestInheritedDescriptor(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	target := filepath.Join(t.TempDir(), "outside")
	fd, err := syscall.Open(target, syscall.O_RDWR|syscall.O_CREAT, 0o600) // no O_CLOEXEC: inherited by every child
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	out, _ := run(t, p, ws, "echo planted >&"+strconv.Itoa(fd)+"; ls /proc/self/fd")
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 {
		t.Errorf("a confined command wrote %q outside through an inherited descriptor\n%s", b, out)
	}
}

// TestHostProcessesInvisible: the command's /proc shows its own processes,
// not the host's (whose command lines and environments it could read).
func TestHostProcessesInvisible(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	host := exec.Command("sleep", "600")
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { host.Process.Kill(); host.Wait() }()
	pid := strconv.Itoa(host.Process.Pid)
	out, _ := run(t, p, ws, `for d in /proc/[0-9]*; do if [ "$(tr '\0' ' ' < $d/cmdline 2>/dev/null)" = "sleep 6""00 " ]; then echo "host process visible: $d"; fi; done; ls /proc/`+pid+`/environ 2>/dev/null && echo "pid visible"`)
	if strings.Contains(out, "visible") {
		t.Errorf("a confined command sees host processes:\n%s", out)
	}
}
