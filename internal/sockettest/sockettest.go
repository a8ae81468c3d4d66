// Package sockettest tells tests whether a socket was reached, without
// waiting: attacks on the sandbox are judged by what they left behind.
package sockettest

import (
	"syscall"
	"testing"
)

// Pending reports whether a connection (or, for a datagram socket, a
// datagram) waits on l, trying once without waiting: a connect or a send
// completes in the kernel before the client goes on, so once a command has
// ended, what it made is there. (Go's own Accept and Read look at a
// deadline before they try, so a past deadline would prove nothing; and a
// listener's raw Read is refused, so the descriptor is used directly.)
func Pending(t testing.TB, l syscall.Conn, datagram bool) bool {
	t.Helper()
	rc, err := l.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	got := false
	err = rc.Control(func(fd uintptr) {
		if datagram {
			_, _, e := syscall.Recvfrom(int(fd), make([]byte, 64), syscall.MSG_DONTWAIT)
			got = e == nil
		} else if nfd, _, e := syscall.Syscall6(syscall.SYS_ACCEPT4, fd, 0, 0, syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0, 0); e == 0 {
			syscall.Close(int(nfd))
			got = true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
