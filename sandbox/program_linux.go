package sandbox

// #include "helper_linux.h"
import "C"

import (
	"encoding/binary"
	"encoding/hex"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperEnv carries the helper's program; its presence makes a process
// the helper (see helper_linux.c).
const helperEnv = C.HELPER_ENV

type opCode uint8

const (
	opJoin           = opCode(C.OP_JOIN)
	opNamespaces     = opCode(C.OP_NAMESPACES)
	opWrite          = opCode(C.OP_WRITE)
	opMount          = opCode(C.OP_MOUNT)
	opBind           = opCode(C.OP_BIND)
	opCapture        = opCode(C.OP_CAPTURE)
	opPut            = opCode(C.OP_PUT)
	opMkdir          = opCode(C.OP_MKDIR)
	opSymlink        = opCode(C.OP_SYMLINK)
	opChdir          = opCode(C.OP_CHDIR)
	opRlimit         = opCode(C.OP_RLIMIT)
	opRuleset        = opCode(C.OP_RULESET)
	opRule           = opCode(C.OP_RULE)
	opRestrict       = opCode(C.OP_RESTRICT)
	opCloseInherited = opCode(C.OP_CLOSE_INHERITED)
	opSeccomp        = opCode(C.OP_SECCOMP)
)

// maxSlots bounds the trees one program captures.
const maxSlots = C.MAX_SLOTS

// Op flags.
const (
	optional = uint8(C.FLAG_OPTIONAL) // a failure is not fatal
	ifPrev   = uint8(C.FLAG_IF_PREV)  // only if the op before succeeded
)

// program is what the helper does between its start, in fresh
// namespaces, and the exec of the command: system calls the Go side
// worked out and the helper runs before any Go code could.
type program struct {
	buf   []byte
	slots int // captured trees, numbered in order
}

// op appends one op; what says, in the helper's errors, what it was for.
func (p *program) op(code opCode, flags uint8, what string, strs []string, nums ...uint64) {
	all := append([]string{what}, strs...)
	p.buf = append(p.buf, byte(code), flags, byte(len(all)), byte(len(nums)))
	for _, s := range all {
		p.buf = binary.LittleEndian.AppendUint32(p.buf, uint32(len(s)))
		p.buf = append(p.buf, s...)
	}
	for _, n := range nums {
		p.buf = binary.LittleEndian.AppendUint64(p.buf, n)
	}
}

func (p *program) encode() string { return hex.EncodeToString(p.buf) }

func (p *program) mount(flags uint8, what, src, dst, fstype string, mflags uintptr, data string) {
	p.op(opMount, flags, what, []string{src, dst, fstype, data}, uint64(mflags))
}

// bind mounts src on dst, then remounts it read-only if asked: a bind
// ignores flags on its first call, and takes those of the mount it copies
// (a workspace inside a read-only git directory would be read-only).
func (p *program) bind(what, src, dst string, ro bool) {
	var extra uint64
	if ro {
		extra = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV
	}
	p.op(opBind, 0, what, []string{src, dst}, extra)
}

// capture takes a detached copy of path's mounts into a new slot, made
// read-only if asked; a path gone since the policy was made leaves the
// slot empty.
func (p *program) capture(flags uint8, what, path string, recursive, ro bool) int {
	slot := p.slots
	p.slots++
	of := uint64(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC)
	if recursive {
		of |= unix.AT_RECURSIVE
	}
	var attr uint64
	if ro {
		attr = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
	}
	p.op(opCapture, flags, what, []string{path}, uint64(slot), of, attr)
	return slot
}

// put mounts a captured tree at path, making the mount point first.
func (p *program) put(what, path string, slot int) {
	p.op(opPut, 0, what, []string{path}, uint64(slot), unix.MOVE_MOUNT_F_EMPTY_PATH)
}

func (p *program) mkdir(flags uint8, what, path string, mode uint32, parents bool) {
	var all uint64
	if parents {
		all = 1
	}
	p.op(opMkdir, flags, what, []string{path}, uint64(mode), all)
}

func (p *program) seccomp(f []unix.SockFilter) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*int(unsafe.Sizeof(f[0])))
	p.op(opSeccomp, 0, "seccomp filter", []string{string(b)})
}
