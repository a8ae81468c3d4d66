package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// LockFile is held by the one process writing a batch's output folder.
const LockFile = ".lock"

var errLocked = errors.New("locked")

// outLock is a process's hold on a batch output folder: two batches
// writing one folder would tear each other's run folders and files.
type outLock struct {
	f    *os.File
	dir  string
	me   lockHolder
	prev lockHolder // who held it last, read when it was taken
}

// lockHolder is what the lock file says about its holder.
type lockHolder struct {
	Role  string    `json:"role"` // "batch" or "coordinator"
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Lease is the holder's lease id on the queue, for a coordinator: a
	// later coordinator that takes this lock knows that lease's holder is
	// gone, and need not wait for the lease to lapse.
	Lease string `json:"lease,omitempty"`
}

// lockOut takes dir's lock, or says who holds it.
func lockOut(dir, role string, now time.Time) (*outLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the output folder: %w", err)
	}
	prev := readHolder(f)
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("another %s (pid %d, since %s) is writing to %s: let it finish or stop it, or give this batch another --out",
				nonEmpty(prev.Role, "batch"), prev.PID, prev.Since.Local().Format(time.DateTime), dir)
		}
		return nil, fmt.Errorf("lock the output folder: %w", err)
	}
	l := &outLock{f: f, dir: dir, prev: prev, me: lockHolder{Role: role, PID: os.Getpid(), Since: now}}
	if err := l.write(); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

func readHolder(f *os.File) lockHolder {
	var h lockHolder
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err == nil {
		_ = json.Unmarshal(b, &h)
	}
	return h
}

func (l *outLock) write() error {
	b, err := json.Marshal(l.me)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lock the output folder: %w", err)
	}
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("lock the output folder: %w", err)
	}
	return nil
}

// setLease records the holder's lease id on the queue.
func (l *outLock) setLease(id string) error {
	l.me.Lease = id
	return l.write()
}

// release gives the folder up; the file stays, naming its last holder.
func (l *outLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
