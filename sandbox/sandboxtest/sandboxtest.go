//go:build linux

// Package sandboxtest runs a test as it would run on a system where the
// shell cannot be confined: one that does not allow unprivileged user
// namespaces (a sysctl many distributions set). Nothing is faked: the
// test binary runs again under a seccomp filter that refuses to make a
// user namespace, as such a kernel does, and the code under test meets
// the real failure.
package sandboxtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

const childEnv = "SWE_ADEPT_TEST_NO_USERNS"

// WithoutUserNamespaces runs the calling test again in a copy of the test
// binary that cannot make user namespaces. In the copy it returns true
// and the test goes on; in the test that called it, it waits for the copy,
// fails if the copy failed, and returns false.
func WithoutUserNamespaces(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		if err := denyUserNamespaces(); err != nil {
			t.Fatalf("deny user namespaces: %v", err)
		}
		return true
	}
	c := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	c.Env = append(os.Environ(), childEnv+"="+t.Name())
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	t.Logf("the test without user namespaces:\n%s", out.String())
	if err != nil {
		t.Errorf("the test without user namespaces failed: %v", err)
	}
	if bytes.Contains(out.Bytes(), []byte("--- SKIP")) {
		t.Skip("skipped without user namespaces")
	}
	return false
}

// denyUserNamespaces makes clone and unshare with CLONE_NEWUSER fail with
// EPERM in every thread, and clone3 (whose flags a filter cannot read)
// with ENOSYS, which sends callers back to clone.
func denyUserNamespaces() error {
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enos  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	f := []unix.SockFilter{
		{Code: ld, K: 0},                           // 0: the call's number
		{Code: jeq, K: unix.SYS_CLONE3, Jt: 6},     // 1: clone3 → 8
		{Code: jeq, K: unix.SYS_CLONE, Jt: 1},      // 2: clone → 4
		{Code: jeq, K: unix.SYS_UNSHARE, Jf: 2},    // 3: unshare → 4, else → 6
		{Code: ld, K: 16},                          // 4: the flags (low word)
		{Code: jset, K: unix.CLONE_NEWUSER, Jt: 1}, // 5: a new user namespace → 7
		{Code: ret, K: allow},                      // 6
		{Code: ret, K: eperm},                      // 7
		{Code: ret, K: enos},                       // 8
	}
	fp := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp)))
	if errno != 0 {
		return errno
	}
	return nil
}
