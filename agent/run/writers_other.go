//go:build !linux

package run

import "errors"

// writerWatch needs fanotify; elsewhere edits made while a command runs
// cannot be told from the command's own.
type writerWatch struct{}

func newWriterWatch(string) (*writerWatch, error) {
	return nil, errors.New("watching who writes the workspace needs Linux")
}

func (w *writerWatch) finish([]string) ([]string, bool) { return nil, true }
