//go:build unix

package index

import (
	"errors"
	"os"
	"syscall"
)

// readSource reads a file the walk found, whose size it gives as a hint.
// It goes around os.File: on Linux every open registers the descriptor
// with the runtime's poller and sets and clears non-blocking mode, five
// system calls that cost more than reading a small source file, and a
// warm build opens every file.
func readSource(path string, size int64) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) { return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	// One byte past the size, so that the read that finds the end needs
	// no new buffer when the file has not grown.
	buf := make([]byte, 0, max(size, 0)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := retryEINTR(func() (int, error) { return syscall.Read(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		short := n < cap(buf)-len(buf)
		buf = buf[:len(buf)+n]
		// A read of a regular file stops short only at its end or when a
		// signal cuts it; having read just the size the walk saw, it is
		// the end, and the read that would return 0 is saved.
		if short && int64(len(buf)) == size {
			return buf, nil
		}
	}
}

func retryEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}
