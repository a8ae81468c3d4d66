//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// The seccomp filter every confined process carries. It refuses, with
// EPERM:
//   - socket(AF_UNIX): a path socket outside the workspace is a daemon
//     acting for the engineer (an ssh-agent, a docker socket, a session
//     bus); no file-system rule stops a connect to it;
//   - socketpair(AF_UNIX, SOCK_DGRAM): a datagram socket can send to any
//     path; stream pairs, which multiprocessing and asyncio use, stay;
//   - io_uring, which makes sockets without the socket call;
//   - the TIOCSTI and TIOCLINUX ioctls, which type into a terminal;
//   - the kernel keyrings (keyctl, add_key, request_key), where a login
//     session keeps credentials.
// Another architecture's system calls (32-bit programs, x32) end the
// process: their numbers differ and this filter does not know them.

// seccomp_data offsets (little-endian: an argument's low word first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
)

func auditArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64, nil
	case "loong64":
		return unix.AUDIT_ARCH_LOONGARCH64, nil
	}
	return 0, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
}

// filter is the program; jumps are counted from the instruction after.
func filter() ([]unix.SockFilter, error) {
	arch, err := auditArch()
	if err != nil {
		return nil, err
	}
	p := &prog{}
	p.ld(offArch)
	p.jne(arch, "kill")
	p.ld(offNr)
	if runtime.GOARCH == "amd64" {
		p.jset(0x40000000, "kill") // the x32 ABI's numbers
	}
	p.jeq(unix.SYS_SOCKET, "socket")
	p.jeq(unix.SYS_SOCKETPAIR, "socketpair")
	p.jeq(unix.SYS_IOCTL, "ioctl")
	for _, nr := range []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY} {
		p.jeq(nr, "deny")
	}
	p.ret(retAllow)

	p.label("socket")
	p.ld(offArg0)
	p.jeq(unix.AF_UNIX, "deny")
	p.ret(retAllow)

	p.label("socketpair")
	p.ld(offArg0)
	p.jne(unix.AF_UNIX, "allow")
	p.ld(offArg1)
	p.and(^uint32(unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC))
	p.jeq(unix.SOCK_DGRAM, "deny")
	p.ret(retAllow)

	p.label("ioctl")
	p.ld(offArg1)
	p.jeq(unix.TIOCSTI, "deny")
	p.jeq(unix.TIOCLINUX, "deny")

	p.label("allow")
	p.ret(retAllow)
	p.label("deny")
	p.ret(retEPERM)
	p.label("kill")
	p.ret(retKill)
	return p.resolve()
}

// prog assembles a classic BPF program with named jump targets.
type prog struct {
	ins    []unix.SockFilter
	labels map[string]int
	jumps  []jump
}

type jump struct {
	at     int
	target string
	onTrue bool
}

func (p *prog) add(code uint16, k uint32) { p.ins = append(p.ins, unix.SockFilter{Code: code, K: k}) }

func (p *prog) ld(off uint32)  { p.add(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
func (p *prog) and(k uint32)   { p.add(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, k) }
func (p *prog) ret(k uint32)   { p.add(unix.BPF_RET|unix.BPF_K, k) }
func (p *prog) label(l string) { p.setLabel(l, len(p.ins)) }

func (p *prog) setLabel(l string, at int) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[l] = at
}

// jeq jumps to target when A == k, jne when A != k, jset when A&k != 0.
func (p *prog) jeq(k uint32, target string) { p.cond(unix.BPF_JEQ, k, target, true) }
func (p *prog) jne(k uint32, target string) { p.cond(unix.BPF_JEQ, k, target, false) }
func (p *prog) jset(k uint32, target string) {
	p.cond(unix.BPF_JSET, k, target, true)
}

func (p *prog) cond(op uint16, k uint32, target string, onTrue bool) {
	p.jumps = append(p.jumps, jump{at: len(p.ins), target: target, onTrue: onTrue})
	p.add(unix.BPF_JMP|op|unix.BPF_K, k)
}

func (p *prog) resolve() ([]unix.SockFilter, error) {
	for _, j := range p.jumps {
		to, ok := p.labels[j.target]
		off := to - j.at - 1
		if !ok || off < 0 || off > 255 {
			return nil, fmt.Errorf("seccomp filter: bad jump to %q", j.target)
		}
		if j.onTrue {
			p.ins[j.at].Jt = uint8(off)
		} else {
			p.ins[j.at].Jf = uint8(off)
		}
	}
	return p.ins, nil
}
