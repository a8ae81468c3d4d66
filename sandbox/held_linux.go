package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// heldNS is a user namespace, and unless the network is allowed a
// network namespace owned by it, made once for a policy and held open by
// descriptors: every command joins them instead of making its own, which
// spares each one the making of a user and a network namespace (and the
// kernel the tearing down of a network namespace after each). Every
// command still gets mount and pid namespaces of its own.
type heldNS struct {
	files []*os.File // the user namespace, then the network namespace
	types []int
}

// holdNamespaces makes the namespaces in a process that waits on its
// standard input, opens them, and lets the process go: the descriptors
// keep them.
func holdNamespaces(net bool) (*heldNS, error) {
	flags := uintptr(unix.CLONE_NEWUSER)
	types := []int{unix.CLONE_NEWUSER}
	names := []string{"user"}
	if !net {
		flags |= unix.CLONE_NEWNET
		types = append(types, unix.CLONE_NEWNET)
		names = append(names, "net")
	}
	c := exec.Command("/bin/sh", "-c", "read _")
	uid, gid := os.Getuid(), os.Getgid()
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("hold namespaces: %w", err)
	}
	defer func() {
		stdin.Close()
		c.Wait()
	}()
	h := &heldNS{types: types}
	for _, name := range names {
		f, err := os.Open(fmt.Sprintf("/proc/%d/ns/%s", c.Process.Pid, name))
		if err != nil {
			h.close()
			return nil, fmt.Errorf("hold namespaces: %w", err)
		}
		h.files = append(h.files, f)
	}
	return h, nil
}

// enter is the program's first ops: join the held namespaces, or make
// new ones where none are held; then a mount namespace and a pid
// namespace of the command's own.
func (h *heldNS) enter(prog *program, net bool) {
	if h == nil {
		var flags uint64 = unix.CLONE_NEWUSER | unix.CLONE_NEWNS
		if !net {
			flags |= unix.CLONE_NEWNET
		}
		prog.op(opNamespaces, 0, "new namespaces", nil, flags, 1)
		return
	}
	for i, t := range h.types {
		// ExtraFiles: the descriptors are 3 and on, in order.
		prog.op(opJoin, 0, "join the run's namespaces", nil, uint64(3+i), uint64(t))
	}
	prog.op(opNamespaces, 0, "new namespaces", nil, unix.CLONE_NEWNS, 0)
}

// extraFiles are the descriptors a command inherits to join them.
func (h *heldNS) extraFiles() []*os.File {
	if h == nil {
		return nil
	}
	return h.files
}

func (h *heldNS) close() {
	if h == nil {
		return
	}
	for _, f := range h.files {
		f.Close()
	}
}
