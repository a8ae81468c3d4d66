package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writerWatch sees who writes the workspace while one confined command
// runs. A fanotify mark on the workspace's mount, as this process sees it,
// reports writes made through that mount only: a confined command works
// in a mount namespace of its own, whose copy of the mount carries no
// mark, so everything reported was written from outside the command, by
// the engineer's editor or shell (this process's own writes aside). It
// needs CAP_SYS_ADMIN; without it newWriterWatch fails and the run says
// that edits made while a command runs cannot be told from the command's.
type writerWatch struct {
	root   string // the workspace, links resolved
	fd     int
	self   int
	mu     sync.Mutex
	paths  map[string]bool    // workspace-relative paths written from outside
	inodes map[[2]uint64]bool // their (device, inode): an editor may rename its file after writing it
	lost   bool               // the kernel dropped events
	stop   chan struct{}
	done   chan struct{}
}

// newWriterWatch starts watching; finish ends it.
func newWriterWatch(root string) (*writerWatch, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK|unix.FAN_UNLIMITED_QUEUE,
		unix.O_RDONLY|unix.O_LARGEFILE|unix.O_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch the workspace for writes: %w", err)
	}
	if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_MOUNT, unix.FAN_MODIFY|unix.FAN_CLOSE_WRITE, unix.AT_FDCWD, real); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watch the workspace for writes: %w", err)
	}
	w := &writerWatch{root: real, fd: fd, self: os.Getpid(), paths: map[string]bool{}, inodes: map[[2]uint64]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w, nil
}

func (w *writerWatch) loop() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-w.stop:
			w.drain(buf) // everything the command wrote is queued by now
			return
		default:
		}
		fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 50); err != nil && !errors.Is(err, unix.EINTR) || n <= 0 {
			continue
		}
		w.drain(buf)
	}
}

// drain reads the queued events until none is left.
func (w *writerWatch) drain(buf []byte) {
	for {
		n, err := unix.Read(w.fd, buf)
		if n <= 0 || err != nil {
			return
		}
		w.parse(buf[:n])
	}
}

func (w *writerWatch) parse(b []byte) {
	for off := 0; off+int(unsafe.Sizeof(unix.FanotifyEventMetadata{})) <= len(b); {
		m := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&b[off]))
		if m.Event_len == 0 || m.Vers != unix.FANOTIFY_METADATA_VERSION {
			return
		}
		off += int(m.Event_len)
		if m.Mask&unix.FAN_Q_OVERFLOW != 0 {
			w.mu.Lock()
			w.lost = true
			w.mu.Unlock()
		}
		if m.Fd < 0 {
			continue
		}
		if int(m.Pid) != w.self {
			w.note(int(m.Fd))
		}
		unix.Close(int(m.Fd))
	}
}

// note records the file behind fd when it lies in the workspace, outside
// its git directory.
func (w *writerWatch) note(fd int) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return
	}
	rel, ok := strings.CutPrefix(strings.TrimSuffix(p, " (deleted)"), w.root+"/")
	if !ok || rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return
	}
	var st unix.Stat_t
	statErr := unix.Fstat(fd, &st)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paths[rel] = true
	if statErr == nil {
		w.inodes[[2]uint64{uint64(st.Dev), st.Ino}] = true
	}
}

// finish stops watching and tells which of the changed paths were written
// from outside the command. complete is false when the kernel dropped
// events: then any change may have been the engineer's.
func (w *writerWatch) finish(changed []string) (foreign []string, complete bool) {
	close(w.stop)
	<-w.done
	unix.Close(w.fd)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range changed {
		if w.paths[p] || w.inodes[inodeOf(filepath.Join(w.root, filepath.FromSlash(p)))] {
			foreign = append(foreign, p)
		}
	}
	return foreign, !w.lost
}

func inodeOf(path string) [2]uint64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return [2]uint64{}
	}
	return [2]uint64{uint64(st.Dev), st.Ino}
}
