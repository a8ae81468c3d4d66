// Package cputime reads the CPU time the process has used, for benchmarks
// that report it beside wall time: on a shared machine other loads stretch
// wall time, not CPU time.
package cputime

import "time"

// Process is the CPU time (user and system) this process has used; 0
// where the platform does not say.
func Process() time.Duration { return process() }
