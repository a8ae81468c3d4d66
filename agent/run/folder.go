package run

import (
	"errors"
	"io"
	"sync"

	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// scrubWriter removes secrets from everything written to events.jsonl. The
// bus writes one whole line per call, so a secret is never split. A resumed
// run's bus numbers from 1 again; offset continues the file's numbering.
type scrubWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
	offset  int
}

func (s *scrubWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clean := resolve.Scrub(string(p), s.secrets)
	if s.offset > 0 {
		clean = runfolder.Renumber(clean, s.offset)
	}
	if _, err := io.WriteString(s.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// scrubErr hides secrets in an error's text, keeping the error chain when
// there is nothing to hide.
func scrubErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	if clean := resolve.Scrub(err.Error(), secrets); clean != err.Error() {
		return errors.New(clean)
	}
	return err
}
