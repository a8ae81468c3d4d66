//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// filter has no program for this architecture: confinement is then
// unavailable, and says why.
func filter() ([]unix.SockFilter, error) {
	return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
}
