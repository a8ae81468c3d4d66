package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInherited marks every descriptor of this process above stderr
// close-on-exec. Go opens its own that way; the others were inherited
// from whoever started swe-adept, and would reach every command it runs,
// confined or not. It is for commands run without the sandbox, whose
// helper does the same for its own.
func CloseInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, _ := os.ReadDir("/proc/self/fd") // kernels before 5.11
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
