//go:build unix

package batch

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive advisory lock on f without waiting; the system
// drops it when the process ends, however it ends.
func flock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}
