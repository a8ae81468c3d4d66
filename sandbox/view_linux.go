package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// keep is a path shown again inside a covered folder.
type keep struct {
	path string
	ro   bool
}

// overlay gives a command a writable view of a read-only cache: its
// writes land in the policy's own folder, and the engineer's cache is
// never changed. Env names the variable to point elsewhere when the
// kernel refuses the overlay.
type overlay struct {
	Target string
	Upper  string
	Work   string
	Env    string
}

// plan is what the helper mounts, worked out from the spec alone so the
// mounts and the Landlock rules agree.
type plan struct {
	keeps    []keep
	covers   []string // writable, empty for each command
	coversRO []string
}

func (s spec) plan() plan {
	var p plan
	p.keeps = append(p.keeps, keep{s.Workspace, false})
	for _, d := range s.GitDirs {
		p.keeps = append(p.keeps, keep{d, true})
	}
	for _, w := range s.Write {
		p.keeps = append(p.keeps, keep{w, false})
	}
	for _, o := range s.Overlays {
		p.keeps = append(p.keeps, keep{o.Target, false})
	}
	for _, r := range s.Read {
		p.keeps = append(p.keeps, keep{r, true})
	}
	slices.SortStableFunc(p.keeps, func(a, b keep) int { return strings.Compare(a.path, b.path) })
	p.covers = p.outermost(s.Cover, nil)
	p.coversRO = p.outermost(s.CoverRO, p.covers)
	return p
}

// outermost are the covers worth mounting: not inside another cover, and
// not inside a path that stays shown (a workspace that is the home keeps
// the home).
func (p plan) outermost(list, other []string) []string {
	sorted := slices.Clone(list)
	slices.Sort(sorted)
	var out []string
	for _, c := range sorted {
		inKeep := slices.ContainsFunc(p.keeps, func(k keep) bool { return beneath(c, k.path) })
		if !inKeep && !beneathAny(c, out) && !beneathAny(c, other) {
			out = append(out, c)
		}
	}
	return out
}

// view covers the folders where secrets and sockets live with empty
// file systems and shows the kept paths again inside them, then gives the
// command its own /dev and /proc. It runs after mounts, so the git
// directories are read-only and the workspace writable in what it keeps.
func (s spec) view(prog *program, p plan) {
	all := append(slices.Clone(p.covers), p.coversRO...)
	selfBinds(prog, p.keeps)
	trees := capture(prog, p.keeps, all)
	for _, c := range p.covers {
		tmpfs(prog, c, coverMode(c), s.TmpSize, 0)
	}
	for _, c := range p.coversRO {
		tmpfs(prog, c, "0755", 64<<10, 0)
	}
	for _, t := range trees {
		prog.put("show "+t.path, t.path, t.slot)
	}
	if s.Home != "" { // a home inside another cover (/tmp) is made there
		prog.mkdir(0, "home "+s.Home, s.Home, 0o700, true)
	}
	for _, c := range p.coversRO {
		prog.mount(0, "cover "+c+" read-only", "", c, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
	}
	devices(prog, s.TmpSize)
	prog.mount(0, "private /proc", "proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
}

func coverMode(dir string) string {
	if dir == "/tmp" || dir == "/var/tmp" {
		return "1777"
	}
	return "0700"
}

func tmpfs(prog *program, dir, mode string, size uint64, flags uintptr) {
	prog.mount(0, "cover "+dir, "tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|flags, fmt.Sprintf("size=%d,mode=%s", size, mode))
}

// selfBinds makes a kept path nested in another of the other kind a mount
// of its own, so it keeps its own kind inside the outer one.
func selfBinds(prog *program, keeps []keep) {
	for i, k := range keeps {
		for _, o := range keeps[:i] {
			if o.ro != k.ro && beneath(k.path, o.path) && k.path != o.path {
				prog.bind("show "+k.path, k.path, k.path, k.ro)
				break
			}
		}
	}
}

// tree is a detached copy of a kept path's mounts, to put back under a
// cover.
type tree struct {
	slot int
	path string
}

// capture copies the kept paths that lie under a cover, outermost first;
// a path inside one already copied comes with it.
func capture(prog *program, keeps []keep, covers []string) []tree {
	var trees []tree
	var taken []string
	for _, k := range keeps {
		if !beneathAny(k.path, covers) || beneathAny(k.path, taken) || slices.Contains(covers, k.path) {
			continue
		}
		slot := prog.capture(0, "show "+k.path, k.path, true, k.ro)
		trees = append(trees, tree{slot: slot, path: k.path})
		taken = append(taken, k.path)
	}
	return trees
}

// devNodes are the devices a command keeps; the terminal (/dev/tty), the
// disks and the consoles are not among them.
var devNodes = []string{"null", "zero", "full", "random", "urandom"}

// devices replaces /dev with a small one: the harmless devices, a private
// /dev/shm (POSIX semaphores, for multiprocessing), a private set of
// pseudo-terminals, and the usual links.
func devices(prog *program, shmSize uint64) {
	var nodes []tree
	for _, n := range devNodes {
		slot := prog.capture(optional, "/dev/"+n, "/dev/"+n, false, false)
		nodes = append(nodes, tree{slot: slot, path: "/dev/" + n})
	}
	tmpfs(prog, "/dev", "0755", 1<<20, unix.MS_NOEXEC)
	for _, t := range nodes {
		prog.put("private /dev: "+t.path, t.path, t.slot)
	}
	prog.mkdir(0, "/dev/shm", "/dev/shm", 0o755, false)
	tmpfs(prog, "/dev/shm", "1777", shmSize, 0)
	for _, l := range [][2]string{{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}} {
		prog.op(opSymlink, 0, "private /dev: "+l[1], []string{l[0], "/dev/" + l[1]})
	}
	// Pseudo-terminals of its own where the kernel allows a new devpts.
	prog.mkdir(optional, "/dev/pts", "/dev/pts", 0o755, false)
	prog.mount(optional|ifPrev, "/dev/pts", "devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	prog.op(opSymlink, ifPrev, "private /dev: ptmx", []string{"pts/ptmx", "/dev/ptmx"})
}
