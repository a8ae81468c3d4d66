package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits bound what one command may use. Zero fields take the defaults.
type Limits struct {
	Memory uint64 `json:"memory,omitempty"` // bytes of memory (a cgroup; else address space per process)
	Procs  int    `json:"procs,omitempty"`  // processes at once
	Tmp    uint64 `json:"tmp,omitempty"`    // bytes in each private temporary folder and the empty home
	File   uint64 `json:"file,omitempty"`   // bytes in any one file it writes
	Disk   uint64 `json:"disk,omitempty"`   // bytes it may take from the workspace's disk in all
}

// The default limits.
const (
	DefaultMemory = 4 << 30
	DefaultProcs  = 512
	DefaultTmp    = 1 << 30
	DefaultFile   = 1 << 30
	DefaultDisk   = 4 << 30
)

func (l Limits) withDefaults() Limits {
	set := func(v *uint64, def uint64) {
		if *v == 0 {
			*v = def
		}
	}
	set(&l.Memory, DefaultMemory)
	set(&l.Tmp, DefaultTmp)
	set(&l.File, DefaultFile)
	set(&l.Disk, DefaultDisk)
	if l.Procs <= 0 {
		l.Procs = DefaultProcs
	}
	return l
}

// ParseSize reads a size: bytes, or a number with K, M, G or T (powers of
// 1024; "KiB", "MB" and the like are read the same).
func ParseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := uint64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			t = t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(f > 0 && f*float64(mult) < 1<<62) { // NaN fails both
		return 0, fmt.Errorf("size %q: want a positive number of bytes, or one with K, M, G or T (1.5G)", s)
	}
	return uint64(f * float64(mult)), nil
}

// FormatSize writes a size the way ParseSize reads it.
func FormatSize(n uint64) string {
	for i, unit := range []string{"T", "G", "M", "K"} {
		shift := uint(10 * (4 - i))
		if n >= 1<<shift && n%(1<<shift) == 0 {
			return strconv.FormatUint(n>>shift, 10) + unit
		}
	}
	if n >= 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "G"
	}
	return strconv.FormatUint(n, 10)
}
