package sandbox

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

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
// workspace, the allowed paths, the covers that start empty for each
// command (home, /tmp), the private /dev/shm and pseudo-terminals, and a
// few devices. Where the kernel knows scopes (ABI 6), the command can
// neither reach an abstract unix socket nor signal a process outside.
func (s spec) landlock(prog *program, p plan) error {
	abi := ABI()
	if abi < 1 {
		return fmt.Errorf("landlock is not available in this kernel (Linux 5.13 or later, with landlock among the LSMs)")
	}
	all := handled(abi)
	var scoped uint64
	if abi >= 6 {
		scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	prog.op(opRuleset, 0, "landlock ruleset", nil, all, scoped)
	rules := []rule{{"/", readRights}}
	writable := append([]string{s.Workspace, "/dev/shm", "/dev/pts"}, s.Write...)
	writable = append(writable, p.covers...)
	for _, o := range s.Overlays {
		writable = append(writable, o.Target)
	}
	for _, w := range writable {
		rules = append(rules, rule{w, all})
	}
	for _, dev := range devNodes {
		rules = append(rules, rule{"/dev/" + dev, (unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE) & all})
	}
	for _, r := range rules {
		// A missing device or path grants nothing; a file takes only the
		// rights that apply to files.
		prog.op(opRule, 0, "landlock rule for "+r.path, []string{filepath.Clean(r.path)}, r.rights, fileRights)
	}
	prog.op(opRestrict, 0, "landlock", nil)
	return nil
}
