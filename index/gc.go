package index

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A build that loads a cache keeps nearly everything it allocates: the
// decoded units, their sources, the links. Collecting while the heap grows
// from nothing to that size finds almost no garbage, and in a fresh
// process it cost a third of a warm load. While such a build runs, the
// collector waits until the heap reaches a budget sized from what is being
// loaded, then runs as usual; the settings are restored when the last
// build holding them ends.
//
// A cold build allocates about nine times its sources and keeps about
// twice them; collecting as it goes cost it 8-15% of its time on trees
// of a few MB. It is held from the start with the margin alone; once the
// walk has sized the sources, a build whose whole allocation fits the
// budget for them (up to some 12 MB of source) keeps the hold and never
// collects, while a larger one lets go and collects as usual: it would
// collect under the hold anyway, only later, with a higher peak.
var gcHold struct {
	sync.Mutex
	holders    int
	budget     int64
	oldPercent int
	oldLimit   int64
}

// userTunedGC is whether the user set GOGC or GOMEMLIMIT, read once.
var userTunedGC = sync.OnceValue(func() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
})

// loadBudget is the heap a build may grow to before collecting: a margin
// over four times the bytes it loads, which is about what they become.
func loadBudget(loaded int64) int64 { return 64<<20 + 4*loaded }

// coldFits is whether a cold build of src bytes of sources, allocating
// about nine times that, stays within the budget for them.
func coldFits(src int64) bool { return 9*src <= loadBudget(src) }

// sizedCold settles a cold build's hold once its sources are known to
// weigh src bytes: it grows the hold if the build fits the budget for
// them, and lets go of it if not.
func (h *gcHeld) sizedCold(src int64) {
	if coldFits(src) {
		h.grow(src)
	} else {
		h.release()
	}
}

// gcHeld is one build's hold on the collector.
type gcHeld struct {
	budget int64
	active bool // false when the user or the process set the limits
}

// holdGC holds the collector off for a build that loads about loaded
// bytes, until release. A GOGC or GOMEMLIMIT set by the user wins.
func holdGC(loaded int64) *gcHeld {
	h := &gcHeld{}
	if userTunedGC() {
		return h
	}
	g := &gcHold
	g.Lock()
	defer g.Unlock()
	budget := loadBudget(loaded)
	if g.holders == 0 {
		// The budget is on top of what the process already holds.
		budget += goMemory()
		g.oldLimit = debug.SetMemoryLimit(-1)
		if g.oldLimit != math.MaxInt64 {
			return h // someone in the process set a limit: keep it
		}
		g.oldPercent = debug.SetGCPercent(-1)
	}
	g.holders++
	g.budget += budget
	debug.SetMemoryLimit(g.budget)
	h.budget, h.active = budget, true
	return h
}

// grow adds budget for loaded more bytes to the hold.
func (h *gcHeld) grow(loaded int64) {
	g := &gcHold
	g.Lock()
	defer g.Unlock()
	if !h.active || loaded <= 0 {
		return
	}
	h.budget += 4 * loaded
	g.budget += 4 * loaded
	debug.SetMemoryLimit(g.budget)
}

// release ends the hold; the last one restores the settings.
func (h *gcHeld) release() {
	g := &gcHold
	g.Lock()
	defer g.Unlock()
	if !h.active {
		return
	}
	h.active = false
	g.holders--
	g.budget -= h.budget
	if g.holders > 0 {
		debug.SetMemoryLimit(g.budget)
		return
	}
	debug.SetGCPercent(g.oldPercent)
	debug.SetMemoryLimit(g.oldLimit)
}

// goMemory is the memory the Go runtime holds, as its memory limit counts it.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
