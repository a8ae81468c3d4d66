package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
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
	Target string `json:"target"`
	Upper  string `json:"upper"`
	Work   string `json:"work"`
	Env    string `json:"env"`
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
func (s spec) view(p plan) error {
	all := append(slices.Clone(p.covers), p.coversRO...)
	if err := selfBinds(p.keeps); err != nil {
		return err
	}
	trees, err := capture(p.keeps, all)
	if err != nil {
		return err
	}
	defer func() {
		for _, t := range trees {
			unix.Close(t.fd)
		}
	}()
	for _, c := range p.covers {
		if err := tmpfs(c, coverMode(c), s.TmpSize, 0); err != nil {
			return fmt.Errorf("cover %s: %w", c, err)
		}
	}
	for _, c := range p.coversRO {
		if err := tmpfs(c, "0755", 64<<10, 0); err != nil {
			return fmt.Errorf("cover %s: %w", c, err)
		}
	}
	for _, t := range trees {
		if err := t.put(); err != nil {
			return fmt.Errorf("show %s: %w", t.path, err)
		}
	}
	if s.Home != "" { // a home inside another cover (/tmp) is made there
		if err := os.MkdirAll(s.Home, 0o700); err != nil {
			return fmt.Errorf("home %s: %w", s.Home, err)
		}
	}
	for _, c := range p.coversRO {
		if err := unix.Mount("", c, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("cover %s read-only: %w", c, err)
		}
	}
	if err := devices(s.TmpSize); err != nil {
		return fmt.Errorf("private /dev: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("private /proc: %w", err)
	}
	return nil
}

func coverMode(dir string) string {
	if dir == "/tmp" || dir == "/var/tmp" {
		return "1777"
	}
	return "0700"
}

func tmpfs(dir, mode string, size uint64, flags uintptr) error {
	return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|flags, fmt.Sprintf("size=%d,mode=%s", size, mode))
}

// selfBinds makes a kept path nested in another of the other kind a mount
// of its own, so it keeps its own kind inside the outer one.
func selfBinds(keeps []keep) error {
	for i, k := range keeps {
		for _, o := range keeps[:i] {
			if o.ro != k.ro && beneath(k.path, o.path) && k.path != o.path {
				if err := bind(k.path, k.path, k.ro); err != nil {
					return fmt.Errorf("show %s: %w", k.path, err)
				}
				break
			}
		}
	}
	return nil
}

// tree is a detached copy of a kept path's mounts, to put back under a
// cover.
type tree struct {
	fd   int
	path string
	dir  bool
}

// capture copies the kept paths that lie under a cover, outermost first;
// a path inside one already copied comes with it.
func capture(keeps []keep, covers []string) ([]tree, error) {
	var trees []tree
	var taken []string
	for _, k := range keeps {
		if !beneathAny(k.path, covers) || beneathAny(k.path, taken) || slices.Contains(covers, k.path) {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, k.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			if k.path != "" && !os.IsNotExist(err) {
				return trees, fmt.Errorf("show %s: %w", k.path, err)
			}
			continue // gone since the policy was made
		}
		if k.ro {
			attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
			if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
				unix.Close(fd)
				return trees, fmt.Errorf("show %s read-only: %w", k.path, err)
			}
		}
		var st unix.Stat_t
		unix.Fstat(fd, &st)
		trees = append(trees, tree{fd: fd, path: k.path, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
		taken = append(taken, k.path)
	}
	return trees, nil
}

// put mounts the tree at its path inside the cover, making the mount
// point first.
func (t tree) put() error {
	if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
		return err
	}
	if t.dir {
		if err := os.Mkdir(t.path, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
	} else if f, err := os.OpenFile(t.path, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Close()
	} else {
		return err
	}
	return unix.MoveMount(t.fd, "", unix.AT_FDCWD, t.path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// devNodes are the devices a command keeps; the terminal (/dev/tty), the
// disks and the consoles are not among them.
var devNodes = []string{"null", "zero", "full", "random", "urandom"}

// devices replaces /dev with a small one: the harmless devices, a private
// /dev/shm (POSIX semaphores, for multiprocessing), a private set of
// pseudo-terminals, and the usual links.
func devices(shmSize uint64) error {
	var nodes []tree
	for _, n := range devNodes {
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+n, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err == nil {
			nodes = append(nodes, tree{fd: fd, path: "/dev/" + n})
		}
	}
	defer func() {
		for _, t := range nodes {
			unix.Close(t.fd)
		}
	}()
	if err := tmpfs("/dev", "0755", 1<<20, unix.MS_NOEXEC); err != nil {
		return err
	}
	for _, t := range nodes {
		if err := t.put(); err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
	}
	if err := os.Mkdir("/dev/shm", 0o1777); err != nil {
		return err
	}
	if err := tmpfs("/dev/shm", "1777", shmSize, 0); err != nil {
		return fmt.Errorf("/dev/shm: %w", err)
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	if os.Mkdir("/dev/pts", 0o755) == nil &&
		unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") == nil {
		links["ptmx"] = "pts/ptmx"
	}
	for name, target := range links {
		if err := os.Symlink(target, "/dev/"+name); err != nil {
			return err
		}
	}
	return nil
}

// mountOverlays mounts each cache's writable view on the cache itself and
// keeps the overlays it mounted. For the ones the kernel refuses, the
// cache stays read-only and the command's variable points into its
// private /tmp instead.
func (s *spec) mountOverlays(env []string) []string {
	var mounted []overlay
	for _, o := range s.Overlays {
		opts := "lowerdir=" + o.Target + ",upperdir=" + o.Upper + ",workdir=" + o.Work + ",userxattr"
		if err := unix.Mount("overlay", o.Target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			env = setEnv(env, o.Env, filepath.Join("/tmp", filepath.Base(o.Target)))
			s.Read = append(s.Read, o.Target)
			continue
		}
		mounted = append(mounted, o)
	}
	s.Overlays = mounted
	return env
}
