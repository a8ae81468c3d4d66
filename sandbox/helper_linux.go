package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// compile is the helper's program for s: make the namespaces, join the
// cgroups, hide the secrets, mount the caches' writable views, make the
// view, go back to the working directory through it, set the limits,
// restrict with Landlock, close what was inherited and load the seccomp
// filter. The helper then execs the command.
func (s spec) compile(held *heldNS) (*program, error) {
	prog := &program{}
	held.enter(prog, s.Net)
	// Joined before anything forks, so every process counts.
	for _, cg := range s.Cgroups {
		prog.op(opWrite, 0, "join cgroup "+cg, []string{filepath.Join(cg, "cgroup.procs"), "0"})
	}
	s.mounts(prog)
	for _, o := range s.Overlays {
		opts := "lowerdir=" + o.Target + ",upperdir=" + o.Upper + ",workdir=" + o.Work + ",userxattr"
		prog.mount(0, "writable view of "+o.Target, "overlay", o.Target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts)
	}
	p := s.plan()
	s.view(prog, p)
	prog.op(opChdir, 0, "working directory", nil)
	s.rlimits(prog)
	if err := s.landlock(prog, p); err != nil {
		return nil, err
	}
	if prog.slots > maxSlots {
		return nil, fmt.Errorf("sandbox: %d paths to show again inside the covers, at most %d: allow fewer", prog.slots, maxSlots)
	}
	prog.op(opCloseInherited, 0, "close inherited descriptors", nil)
	f, err := filter()
	if err != nil {
		return nil, err
	}
	prog.seccomp(f)
	return prog, nil
}

// rlimits bound processes (where no cgroup does), the size of any one
// file, core dumps, and the address space where no cgroup bounds memory.
func (s spec) rlimits(prog *program) {
	type rlimit struct {
		res int
		n   uint64
	}
	limits := []rlimit{{unix.RLIMIT_FSIZE, s.FileSize}, {unix.RLIMIT_CORE, 0}}
	if s.Procs > 0 {
		limits = append(limits, rlimit{unix.RLIMIT_NPROC, s.Procs})
	}
	if s.AddressSpace > 0 {
		limits = append(limits, rlimit{unix.RLIMIT_AS, s.AddressSpace})
	}
	for _, l := range limits {
		prog.op(opRlimit, 0, fmt.Sprintf("limit %d", l.res), nil, uint64(l.res), l.n)
	}
}

// mounts hides the secrets and makes the git directories read-only (the
// workspace inside one stays writable). Nothing propagates back to the
// host: the tree is made private first.
func (s spec) mounts(prog *program) {
	prog.mount(0, "private mounts", "", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	for _, p := range s.Hide {
		hide(prog, p)
	}
	for _, d := range s.GitDirs {
		prog.bind("git directory "+d+" read-only", d, d, true)
	}
	prog.bind("workspace", s.Workspace, s.Workspace, false)
}

// hide covers a directory with an empty read-only file system and a file
// with /dev/null.
func hide(prog *program, p string) {
	fi, err := os.Lstat(p)
	if err != nil {
		return // gone since the policy was made
	}
	if fi.IsDir() {
		prog.mount(0, "hide "+p, "tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "size=4k")
		return
	}
	prog.bind("hide "+p, "/dev/null", p, true)
}

func (p *Policy) sysProcAttr() *syscall.SysProcAttr {
	// The helper makes its namespaces itself: a Go parent that made them
	// would have to copy its whole address space to start it (a user
	// namespace rules out vfork), which costs more than the rest of the
	// confinement.
	return &syscall.SysProcAttr{
		// A session of its own: no controlling terminal to type into
		// (TIOCSTI) or draw on, and a process group to kill as one.
		Setsid: true,
		// The helper dies with the process that started it, and the
		// command with the helper.
		Pdeathsig: syscall.SIGKILL,
	}
}
