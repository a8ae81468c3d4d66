package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A policy's leftovers on the host are named swe-adept-tmp-<id> (its
// folder, in the temporary folder) and swe-adept-<id> (its cgroups), and
// each is locked (flock) while the policy lives. A lock the kernel lets
// go of with the process that held it tells a crashed run's leftovers
// from a live one's, whatever process or machine namespace it ran in.
const (
	statePrefix  = "swe-adept-tmp-"
	cgroupPrefix = "swe-adept-"
	idLen        = 16 // hex digits; older versions named theirs with fewer, all decimal
)

func newID() string {
	b := make([]byte, idLen/2)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func isID(s string) bool {
	if len(s) != idLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// lock takes the lock on a leftover; it fails while another holds it.
func lock(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// cgroupKind is one hierarchy a policy makes a cgroup in.
type cgroupKind struct {
	dir    string // our own cgroup there
	pids   bool
	memory bool
}

// cgroupBases are our own cgroups where children can be made with the
// pids or memory controller: cgroup v1's own hierarchies, or v2 where its
// parent delegates them.
func cgroupBases() []cgroupKind {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []cgroupKind
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var k cgroupKind
		switch {
		case parts[1] == "pids":
			k = cgroupKind{dir: filepath.Join("/sys/fs/cgroup/pids", parts[2]), pids: true}
		case parts[1] == "memory":
			k = cgroupKind{dir: filepath.Join("/sys/fs/cgroup/memory", parts[2]), memory: true}
		case parts[0] == "0" && parts[1] == "":
			k = v2Base(parts[2])
		}
		if k.dir == "" || !(k.pids || k.memory) {
			continue
		}
		if _, err := os.Stat(filepath.Join(k.dir, "cgroup.procs")); err == nil {
			out = append(out, k)
		}
	}
	return out
}

func v2Base(rel string) cgroupKind {
	root := "/sys/fs/cgroup"
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		return cgroupKind{} // a hybrid system: v2 holds no controllers
	}
	dir := filepath.Join(root, rel)
	sub, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	return cgroupKind{dir: dir, pids: strings.Contains(string(sub), "pids"), memory: strings.Contains(string(sub), "memory")}
}

// cgroups are the cgroups of one policy, locked while it lives.
type cgroups struct {
	dirs   []string
	locks  []*os.File
	pids   string // the dir holding pids.max, "" without one
	memory string // the dir holding the memory limit, "" without one
	v2     bool
}

// makeCgroups makes the policy's cgroups with its limits, where the
// system lets it; the ones it cannot make are left out.
func makeCgroups(id string, l Limits) *cgroups {
	cg := &cgroups{}
	for _, k := range cgroupBases() {
		dir := filepath.Join(k.dir, cgroupPrefix+id)
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		f, err := lock(dir)
		if err != nil {
			os.Remove(dir)
			continue
		}
		v2 := !strings.HasPrefix(k.dir, "/sys/fs/cgroup/pids") && !strings.HasPrefix(k.dir, "/sys/fs/cgroup/memory")
		set := false
		if k.pids && write(dir, "pids.max", strconv.Itoa(l.Procs)) == nil {
			cg.pids, set = dir, true
		}
		if k.memory && cg.setMemory(dir, v2, l.Memory) == nil {
			cg.memory, set = dir, true
		}
		if !set {
			f.Close()
			os.Remove(dir)
			continue
		}
		cg.dirs, cg.locks = append(cg.dirs, dir), append(cg.locks, f)
		cg.v2 = cg.v2 || v2
	}
	return cg
}

func (cg *cgroups) setMemory(dir string, v2 bool, limit uint64) error {
	n := strconv.FormatUint(limit, 10)
	if v2 {
		write(dir, "memory.swap.max", "0") // not there without swap accounting
		return write(dir, "memory.max", n)
	}
	return write(dir, "memory.limit_in_bytes", n)
}

func write(dir, name, value string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644)
}

// close removes the cgroups, and kills what is left in them first.
func (cg *cgroups) close() {
	for i, dir := range cg.dirs {
		removeCgroup(dir)
		cg.locks[i].Close()
	}
	cg.dirs, cg.locks = nil, nil
}

func removeCgroup(dir string) error {
	if os.Remove(dir) == nil {
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	return os.Remove(dir)
}

// counters are the cgroups' tallies of limits met: oom_kill and max.
type counters struct{ oomKills, forkFails int }

func (cg *cgroups) counters() counters {
	var c counters
	if cg.memory != "" {
		name := "memory.oom_control"
		if cg.v2 {
			name = "memory.events"
		}
		c.oomKills = tally(filepath.Join(cg.memory, name), "oom_kill")
	}
	if cg.pids != "" {
		c.forkFails = tally(filepath.Join(cg.pids, "pids.events"), "max")
	}
	return c
}

// tally reads the number after key in a cgroup's "key value" file.
func tally(path, key string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// Sweep removes what crashed runs left behind: their folders in the
// temporary folder and their cgroups, each recognised by its name and
// an unheld lock. It returns what it removed.
func Sweep() []string {
	var gone []string
	tmp := os.TempDir()
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if id, ok := strings.CutPrefix(e.Name(), statePrefix); ok && isID(id) && e.IsDir() {
			if p := filepath.Join(tmp, e.Name()); sweepOne(p, removeState) {
				gone = append(gone, p)
			}
		}
	}
	for _, k := range cgroupBases() {
		entries, _ := os.ReadDir(k.dir)
		for _, e := range entries {
			if id, ok := strings.CutPrefix(e.Name(), cgroupPrefix); ok && isID(id) && e.IsDir() {
				if p := filepath.Join(k.dir, e.Name()); sweepOne(p, removeCgroup) {
					gone = append(gone, p)
				}
			}
		}
	}
	return gone
}

func sweepOne(path string, remove func(string) error) bool {
	f, err := lock(path)
	if err != nil {
		return false // alive, or not ours to judge
	}
	defer f.Close()
	return remove(path) == nil
}

// removeState removes a policy's folder. The overlay's work folder holds
// a folder without permissions: give them back first.
func removeState(dir string) error {
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() && info.Mode().Perm()&0o700 != 0o700 {
			os.Chmod(p, info.Mode().Perm()|0o700)
		}
		return nil
	})
	err := os.RemoveAll(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}
