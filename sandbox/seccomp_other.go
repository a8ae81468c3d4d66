//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package sandbox

import (
	"fmt"
	"runtime"
)

// installSeccomp has no filter for this architecture: confinement is then
// unavailable, and says why.
func installSeccomp() error { return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH) }
