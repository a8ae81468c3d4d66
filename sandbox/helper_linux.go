package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperEnv carries the spec to the helper; its presence makes a process
// the helper.
const helperEnv = "SWE_ADEPT_SANDBOX_SPEC"

func (s spec) encode() (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("sandbox spec: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// init turns this process into the helper when it was started as one,
// before main (or a test binary's TestMain) runs: it confines itself and
// execs the command, and never returns. Anywhere else it does nothing.
func init() {
	enc, ok := os.LookupEnv(helperEnv)
	if !ok {
		return
	}
	// Landlock confines the calling thread, and exec keeps that thread's
	// domain: stay on it from here to the exec.
	runtime.LockOSThread()
	if err := helper(enc); err != nil {
		fmt.Fprintf(os.Stderr, "swe-adept sandbox: %v\n", err)
		os.Exit(126)
	}
}

func helper(enc string) error {
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return err
	}
	var s spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	if len(os.Args) < 2 {
		return fmt.Errorf("no command")
	}
	// Joined before anything forks, so every process counts.
	for _, cg := range s.Cgroups {
		if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte("0"), 0o644); err != nil {
			return fmt.Errorf("join cgroup %s: %w", cg, err)
		}
	}
	env := withoutSpec(os.Environ())
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := s.mounts(); err != nil {
		return err
	}
	env = s.mountOverlays(env)
	p := s.plan()
	if err := s.view(p); err != nil {
		return err
	}
	// The working directory was looked up before the mounts: look it up
	// again, through them.
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("working directory %s: %w", cwd, err)
	}
	if err := s.rlimits(); err != nil {
		return err
	}
	if err := s.landlock(p); err != nil {
		return err
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		return err
	}
	CloseInherited()
	if err := installSeccomp(); err != nil {
		return err
	}
	return syscall.Exec(path, os.Args[1:], env)
}

func withoutSpec(env []string) []string {
	return slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, helperEnv+"=") })
}

// rlimits bound processes (where no cgroup does), the size of any one
// file, core dumps, and the address space where no cgroup bounds memory.
func (s spec) rlimits() error {
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
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: l.n, Max: l.n}); err != nil {
			return fmt.Errorf("limit %d: %w", l.res, err)
		}
	}
	return nil
}

// mounts hides the secrets and makes the git directories read-only (the
// workspace inside one stays writable). Nothing propagates back to the
// host: the tree is made private first.
func (s spec) mounts() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	for _, p := range s.Hide {
		if err := hide(p); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	for _, d := range s.GitDirs {
		if err := readOnly(d); err != nil {
			return fmt.Errorf("git directory %s read-only: %w", d, err)
		}
	}
	if err := bind(s.Workspace, s.Workspace, false); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	return nil
}

func hide(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil // gone since the policy was made
	}
	if fi.IsDir() {
		return unix.Mount("tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "size=4k")
	}
	return bind("/dev/null", p, true)
}

func readOnly(p string) error { return bind(p, p, true) }

// bind mounts src on dst, read-only if asked. A bind ignores the flag on
// the first call, and takes the flags of the mount it copies (a workspace
// inside a read-only git directory would be read-only): a second call
// sets them.
func bind(src, dst string, ro bool) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT) | kept(st.Flags)
	if ro {
		flags |= unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV
	}
	return unix.Mount("", dst, "", flags, "")
}

// kept are the flags a remount must keep: in a user namespace the kernel
// locks those the host set (a /tmp mounted nosuid, nodev, noexec), and a
// remount that drops one fails.
func kept(stFlags int64) uintptr {
	var f uintptr
	for st, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if stFlags&st != 0 {
			f |= ms
		}
	}
	return f
}

func (p *Policy) sysProcAttr() *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !p.spec.Net {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		// A session of its own: no controlling terminal to type into
		// (TIOCSTI) or draw on, and a process group to kill as one.
		Setsid:      true,
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// The helper dies with the process that started it.
		Pdeathsig: syscall.SIGKILL,
	}
}
