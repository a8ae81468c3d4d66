package sandbox

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// watchEvery is how often a watch looks at the disk: a command writing
// at a gigabyte a second overshoots its bound by a tenth of that at most.
const watchEvery = 100 * time.Millisecond

// Watch keeps, while one command runs, the bound the kernel cannot keep
// alone: the space it takes from the workspace's disk (RLIMIT_FSIZE
// bounds each file, not their sum). It also notes the limits the kernel
// kept for it, from the cgroups' tallies.
type Watch struct {
	p      *Policy
	before counters
	free   uint64
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	killed bool
}

// Watch starts watching a command that kill stops.
func (p *Policy) Watch(kill func()) *Watch {
	w := &Watch{p: p, before: p.cg.counters(), stop: make(chan struct{}), done: make(chan struct{})}
	var ok bool
	if w.free, ok = freeSpace(p.spec.Workspace); !ok {
		close(w.done)
		return w
	}
	go w.loop(kill)
	return w
}

func (w *Watch) loop(kill func()) {
	defer close(w.done)
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if w.over() {
				w.mu.Lock()
				w.killed = true
				w.mu.Unlock()
				kill()
				return
			}
		}
	}
}

// over reports whether the disk lost more than the bound since the start:
// the command's writes, and anyone else's on the same disk meanwhile.
func (w *Watch) over() bool {
	now, ok := freeSpace(w.p.spec.Workspace)
	return ok && now < w.free && w.free-now > w.p.limits.Disk
}

func freeSpace(path string) (uint64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}

// Stop ends the watch once the command has ended, and says which limits
// it met, one line each.
func (w *Watch) Stop() []string {
	select {
	case <-w.done:
	default:
		close(w.stop)
		<-w.done
	}
	var notes []string
	l := w.p.limits
	w.mu.Lock()
	if w.killed {
		notes = append(notes, fmt.Sprintf("the command was stopped: it took more than %s of the disk (the limit is set with --max-disk)", FormatSize(l.Disk)))
	}
	w.mu.Unlock()
	after := w.p.cg.counters()
	if n := after.oomKills - w.before.oomKills; n > 0 {
		notes = append(notes, fmt.Sprintf("the command reached the memory limit (%s): the kernel stopped %d of its processes (the limit is set with --max-memory)", FormatSize(l.Memory), n))
	}
	if after.forkFails > w.before.forkFails {
		notes = append(notes, fmt.Sprintf("the command reached the process limit (%d): it could not start more (the limit is set with --max-procs)", l.Procs))
	}
	return notes
}
