package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"unsafe"

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
	if s.Cgroup != "" {
		// Joined before anything forks, so every process counts.
		if err := os.WriteFile(filepath.Join(s.Cgroup, "cgroup.procs"), []byte("0"), 0o644); err != nil {
			return fmt.Errorf("process limit: %w", err)
		}
	}
	if err := s.mounts(); err != nil {
		return err
	}
	// The working directory was entered before the mounts: enter it again
	// through them, or relative paths would reach the files beneath.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: s.Procs, Max: s.Procs}); err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	if err := s.landlock(); err != nil {
		return err
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		return err
	}
	env := os.Environ()
	for i, kv := range env {
		if len(kv) > len(helperEnv) && kv[:len(helperEnv)+1] == helperEnv+"=" {
			env = append(env[:i], env[i+1:]...)
			break
		}
	}
	return syscall.Exec(path, os.Args[1:], env)
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
		if err := readOnly(d); err != nil && !os.IsNotExist(err) {
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

// bind mounts src on dst, read-only or writable (a bind ignores the flag
// on the first call and copies the source's, read-only for a workspace
// inside a git directory, so a second sets it). The second keeps the
// flags a user namespace may not clear (noexec, atime).
func bind(src, dst string, ro bool) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_NOSUID | unix.MS_NODEV)
	var st unix.Statfs_t
	if unix.Statfs(dst, &st) == nil {
		flags |= uintptr(st.Flags) & (unix.ST_NOEXEC | unix.ST_NOATIME | unix.ST_NODIRATIME | unix.ST_RELATIME)
	}
	if ro {
		flags |= unix.MS_RDONLY
	}
	return unix.Mount("", dst, "", flags, "")
}

// Access rights by Landlock ABI version.
const (
	readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	v1Write    = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// handled is every file-system right the running kernel knows.
func handled(abi int) uint64 {
	h := uint64(readRights | v1Write)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// ABI is the Landlock ABI version of the running kernel, 0 without it.
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

type rule struct {
	path   string
	rights uint64
}

// landlock allows reading everywhere and writing only beneath the
// workspace, the private temporary folder, the allowed paths and a few
// devices.
func (s spec) landlock() error {
	abi := ABI()
	if abi < 1 {
		return fmt.Errorf("landlock is not available in this kernel (Linux 5.13 or later, with landlock among the LSMs)")
	}
	all := handled(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: all}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	rules := []rule{{"/", readRights}}
	for _, p := range append([]string{s.Workspace, s.Temp}, s.Write...) {
		rules = append(rules, rule{p, all})
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/urandom", "/dev/random"} {
		rules = append(rules, rule{dev, (unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE) & all})
	}
	for _, r := range rules {
		if err := addRule(int(fd), r.path, r.rights); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: %w", errno)
	}
	return nil
}

func addRule(fd int, path string, rights uint64) error {
	f, err := unix.Open(filepath.Clean(path), unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // a missing device or path grants nothing
	}
	defer unix.Close(f)
	var st unix.Stat_t
	if unix.Fstat(f, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights // a file takes only the rights that apply to files
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(f)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

func (p *Policy) sysProcAttr() *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !p.spec.Net {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Setpgid:     true,
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// The helper dies with the process that started it.
		Pdeathsig: syscall.SIGKILL,
	}
}
