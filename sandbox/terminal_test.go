//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// ttyChild marks the copy of the test binary that plays swe-adept with a
// controlling terminal.
const ttyChild = "SWE_ADEPT_TEST_TTY_CHILD"

// TestTerminal: a confined command can neither type into the engineer's
// terminal (TIOCSTI) nor draw on it, through /dev/tty, through a terminal
// descriptor inherited without close-on-exec, or by the terminal's path.
// The test binary is run again in a session whose controlling terminal is
// a pseudo-terminal this test holds, as swe-adept runs under the TUI; once
// the command has ended, the terminal's input and output queues show what
// reached it.
func TestTerminal(t *testing.T) {
	needPython(t)
	if os.Getenv(ttyChild) != "" {
		terminalChild(t)
		return
	}
	master, slave, name := openPTY(t)
	child := exec.Command(os.Args[0], "-test.run=^TestTerminal$", "-test.v")
	child.Env = append(os.Environ(), ttyChild+"="+name)
	var out bytes.Buffer
	child.Stdin, child.Stdout, child.Stderr = slave, &out, &out
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := child.Run(); err != nil {
		t.Fatalf("the child with a terminal: %v\n%s", err, out.String())
	}
	t.Logf("child:\n%s", out.String())
	if n, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ); err != nil || n > 0 {
		t.Errorf("a confined command typed %d bytes into the terminal (%v)", n, err)
	}
	fd := int(master.Fd()) // once: each Fd call makes the file blocking again
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := syscall.Read(fd, buf)
	if n > 0 {
		t.Errorf("a confined command drew on the terminal: %q", buf[:n])
	} else if err != nil && !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("read the terminal: %v", err)
	}
}

// terminalChild is swe-adept with a terminal: it leaks a descriptor of it
// and runs the attack confined.
func terminalChild(t *testing.T) {
	ws, _ := workspace(t)
	p := policy(t, ws, Options{})
	leaked, err := syscall.Dup(0) // no close-on-exec
	if err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, p, ws, `python3 - `+strconv.Itoa(leaked)+` `+os.Getenv(ttyChild)+` <<'EOF'
import os, fcntl, termios, sys
fds = [("inherited", int(sys.argv[1]))]
for name, path, flags in [("/dev/tty", "/dev/tty", os.O_RDWR), ("path rw", sys.argv[2], os.O_RDWR), ("path ro", sys.argv[2], os.O_RDONLY)]:
    try:
        fds.append((name, os.open(path, flags | os.O_NOCTTY)))
    except OSError as e:
        print(name, "open:", e)
for name, fd in fds:
    try:
        for ch in b"INJECTED\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
        print(name, "TIOCSTI worked")
    except OSError as e:
        print(name, "TIOCSTI:", e)
    try:
        os.write(fd, b"FAKE: press a to approve\n")
        print(name, "write worked")
    except OSError as e:
        print(name, "write:", e)
EOF`)
	t.Log(out)
}

// openPTY opens a pseudo-terminal in raw mode: what is typed into it
// waits in its input queue, byte for byte.
func openPTY(t *testing.T) (master, slave *os.File, name string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	name = "/dev/pts/" + strconv.Itoa(n)
	slave, err = os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close() })
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return master, slave, name
}
