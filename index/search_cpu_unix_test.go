//go:build unix

package index

import (
	"syscall"
	"time"
)

// searchCPUTime is the CPU time (user + system) the process has used. Benchmarks
// report it per operation next to wall time, which a busy machine inflates.
func searchCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
