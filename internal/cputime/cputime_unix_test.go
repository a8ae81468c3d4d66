//go:build unix

package cputime

import "testing"

// TestProcessAdvances spins until the process has used more CPU than it
// had, which fails (by the test's deadline) only if Process never moves.
func TestProcessAdvances(t *testing.T) {
	start := Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at start, want the CPU time already used", start)
	}
	x := 0
	for Process() == start {
		for i := 0; i < 1e6; i++ {
			x += i
		}
	}
	_ = x
}
