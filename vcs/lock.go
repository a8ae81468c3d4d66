package vcs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/swe-adept/swe-adept/internal/shellquote"
)

// An in-place run owns the engineer's checkout while it works. The lock
// says so and names the owner precisely enough that a crashed owner is
// told apart from a live one even after its pid is reused: the process,
// its start time (in clock ticks since boot) and the machine's boot.
const lockFile = "swe-adept/in-place.lock" // under the common git dir

// Owner is the process holding the in-place lock.
type Owner struct {
	Run   string `json:"run"`
	PID   int    `json:"pid"`
	Start string `json:"start"` // the process's start time, from /proc/PID/stat
	Boot  string `json:"boot"`  // /proc/sys/kernel/random/boot_id
}

// zeroSignal checks that a process exists without touching it.
var zeroSignal = syscall.Signal(0)

// ErrCheckoutBusy: another live process works in the checkout.
var ErrCheckoutBusy = errors.New("another swe-adept run is working in this checkout")

func lockPath(co *Repo) string { return filepath.Join(co.commonDir, filepath.FromSlash(lockFile)) }

// CurrentOwner names this process as the owner of run.
func CurrentOwner(run string) Owner { return self(run) }

func self(run string) Owner {
	return Owner{Run: run, PID: os.Getpid(), Start: procStart(os.Getpid()), Boot: bootID()}
}

// Alive reports whether the owner is still running: same boot, same pid,
// same start time. Where /proc cannot tell, a pid that answers counts.
func (o Owner) Alive() bool {
	if o.PID == handPID {
		return true // a session by hand holds it until `hyp git finish`
	}
	if o.Boot != "" && bootID() != "" && o.Boot != bootID() {
		return false
	}
	start := procStart(o.PID)
	if o.Start != "" && start != "" {
		return o.Start == start
	}
	p, err := os.FindProcess(o.PID)
	return err == nil && p.Signal(zeroSignal) == nil
}

// acquireLock takes the in-place lock for run. A lock left by a dead
// process is reported as stale (with its owner) rather than taken over:
// that run's checkout must be restored first.
func acquireLock(co *Repo, run string) error {
	path := lockPath(co)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("in-place lock: %w", err)
	}
	data, _ := json.Marshal(self(run))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		o, rerr := readLock(co)
		if rerr != nil {
			return fmt.Errorf("in-place lock %s is unreadable (%v): if no swe-adept run is working here, remove it", path, rerr)
		}
		if o.PID == handPID {
			return fmt.Errorf("%w: the hypothesis session %s run by hand holds it; end it with: swe-adept hyp --repo %s --run %s git finish",
				ErrCheckoutBusy, o.Run, shellquote.Quote(co.dir), shellquote.Quote(o.Run))
		}
		if o.Alive() {
			return fmt.Errorf("%w: run %s (pid %d); wait for it, or stop it first", ErrCheckoutBusy, o.Run, o.PID)
		}
		return fmt.Errorf("run %s crashed while working in this checkout; put your checkout back first with: swe-adept restore --repo %s %s",
			o.Run, shellquote.Quote(co.dir), shellquote.Quote(o.Run))
	}
	if err != nil {
		return fmt.Errorf("in-place lock: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return fmt.Errorf("in-place lock: %w", werr)
	}
	return nil
}

func readLock(co *Repo) (Owner, error) {
	var o Owner
	data, err := os.ReadFile(lockPath(co))
	if err != nil {
		return o, err
	}
	return o, json.Unmarshal(data, &o)
}

// releaseLock removes the lock if run holds it.
func releaseLock(co *Repo, run string) {
	if o, err := readLock(co); err == nil && o.Run == run {
		os.Remove(lockPath(co))
	}
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// procStart is field 22 of /proc/PID/stat, the start time in clock ticks
// since boot; "" when unknown.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after it follow ")".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
