package index

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// gcSettings reads the collector's settings without changing them.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// skipIfUserTunedGC skips a test of the hold when the user's GOGC or
// GOMEMLIMIT makes the builds leave the collector alone.
func skipIfUserTunedGC(t *testing.T) {
	t.Helper()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set, which the builds leave alone")
	}
}

func TestHoldGCRestoresSettings(t *testing.T) {
	skipIfUserTunedGC(t)
	percent, limit := gcSettings()
	outer := holdGC(10 << 20)
	if p, l := gcSettings(); p >= 0 || l == math.MaxInt64 || l < loadBudget(10<<20) {
		t.Fatalf("held: percent %d, limit %d; want the collector off under a budget of at least %d", p, l, loadBudget(10<<20))
	}
	_, first := gcSettings()
	inner := holdGC(20 << 20)
	if _, l := gcSettings(); l != first+loadBudget(20<<20) {
		t.Errorf("a second build's budget adds to the first: limit %d, want %d", l, first+loadBudget(20<<20))
	}
	inner.grow(5 << 20)
	if _, l := gcSettings(); l != first+loadBudget(20<<20)+4*(5<<20) {
		t.Errorf("a grown budget: limit %d, want %d", l, first+loadBudget(20<<20)+4*(5<<20))
	}
	inner.release()
	if p, l := gcSettings(); p >= 0 || l != first {
		t.Errorf("after the inner build: percent %d, limit %d; want off with limit %d", p, l, first)
	}
	outer.release()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after both builds: percent %d, limit %d; want %d and %d restored", p, l, percent, limit)
	}
}

func TestHoldGCKeepsAUserLimit(t *testing.T) {
	skipIfUserTunedGC(t)
	old := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(old)
	percent, _ := gcSettings()
	held := holdGC(10 << 20)
	held.grow(10 << 20)
	if p, l := gcSettings(); p != percent || l != 1<<40 {
		t.Errorf("held under a set limit: percent %d, limit %d; want both untouched", p, l)
	}
	held.release()
	if p, l := gcSettings(); p != percent || l != 1<<40 {
		t.Errorf("released: percent %d, limit %d; want both untouched", p, l)
	}
}

func TestColdFits(t *testing.T) {
	for _, c := range []struct {
		src  int64
		want bool
	}{{0, true}, {4 << 20, true}, {12 << 20, true}, {13 << 20, false}, {100 << 20, false}} {
		if got := coldFits(c.src); got != c.want {
			t.Errorf("coldFits(%d MB) = %v, want %v", c.src>>20, got, c.want)
		}
	}
}

func TestHoldGCReleaseTwice(t *testing.T) {
	skipIfUserTunedGC(t)
	percent, limit := gcSettings()
	outer := holdGC(0)
	inner := holdGC(0)
	inner.release()
	inner.release() // a build that let go early and then ends
	inner.grow(1 << 20)
	if p, _ := gcSettings(); p >= 0 {
		t.Errorf("the outer hold was released by the inner one twice: percent %d", p)
	}
	outer.release()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after both: percent %d, limit %d; want %d and %d restored", p, l, percent, limit)
	}
}

func TestHoldGCSizedCold(t *testing.T) {
	skipIfUserTunedGC(t)
	percent, limit := gcSettings()
	small := holdGC(0)
	_, before := gcSettings()
	small.sizedCold(4 << 20)
	if _, l := gcSettings(); l != before+4*(4<<20) {
		t.Errorf("a small cold build's budget: limit %d, want %d", l, before+4*(4<<20))
	}
	small.release()
	large := holdGC(0)
	large.sizedCold(100 << 20)
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("a large cold build kept its hold: percent %d, limit %d; want %d and %d", p, l, percent, limit)
	}
	large.release()
}
