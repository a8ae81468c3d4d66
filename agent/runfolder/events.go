package runfolder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
)

// BadLine is a line of events.jsonl that could not be decoded.
type BadLine struct {
	Line int    // 1-based
	Err  string // what the decoder said
}

// CorruptError reports the lines of an event log that were skipped. The
// events around them were still read.
type CorruptError struct {
	File  string
	Bad   []BadLine
	Read  int  // events decoded
	Trunc bool // the last line had no newline: the writer stopped mid-event
}

func (e *CorruptError) Error() string {
	first := e.Bad[0]
	msg := fmt.Sprintf("%s: line %d: %s", e.File, first.Line, first.Err)
	if e.Trunc && len(e.Bad) == 1 && first.Line > 0 {
		msg = fmt.Sprintf("%s: truncated at line %d (%s)", e.File, first.Line, first.Err)
	}
	if n := len(e.Bad) - 1; n > 0 {
		msg += fmt.Sprintf(" and %d more bad line(s)", n)
	}
	return msg + fmt.Sprintf("; %d event(s) read", e.Read)
}

// ReadEvents decodes an events.jsonl stream line by line. A line that is
// not a JSON event is skipped and recorded, so one damaged line costs one
// event, not the rest of the run. The error is a *CorruptError when lines
// were skipped, or a read error; the events decoded are returned either way.
// Each skipped line leaves an Error event in its place, so a replay shows
// where the log broke.
func ReadEvents(r io.Reader, name string) ([]event.Event, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var evs []event.Event
	var bad *CorruptError
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			e, derr := decodeLine(raw)
			if derr == nil {
				evs = append(evs, e)
			} else {
				if bad == nil {
					bad = &CorruptError{File: name}
				}
				bad.Bad = append(bad.Bad, BadLine{Line: line, Err: derr.Error()})
				bad.Trunc = err == io.EOF && !bytes.HasSuffix(raw, []byte("\n"))
				evs = append(evs, brokenAt(evs, name, line, derr))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return evs, fmt.Errorf("read %s: line %d: %w", name, line, err)
		}
	}
	if bad != nil {
		bad.Read = len(evs) - len(bad.Bad)
		return evs, bad
	}
	return evs, nil
}

func decodeLine(raw []byte) (event.Event, error) {
	var e event.Event
	// Unmarshal also refuses a second value after the first.
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, err
	}
	if e.Type == "" {
		return e, errors.New("no event type")
	}
	return e, nil
}

// brokenAt is the Error event that stands in for an unreadable line.
func brokenAt(evs []event.Event, name string, line int, err error) event.Event {
	e := event.Event{Type: event.Error, Agent: event.Runtime,
		Text: fmt.Sprintf("replay: %s line %d is damaged (%v); skipped", filepath.Base(name), line, err)}
	if n := len(evs); n > 0 {
		e.Seq, e.Time = evs[n-1].Seq, evs[n-1].Time
	}
	return e
}

// LoadEvents reads a run folder's events.jsonl. See ReadEvents for damaged
// logs.
func LoadEvents(dir string) ([]event.Event, error) {
	p := filepath.Join(dir, EventsFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open run events: %w", err)
	}
	defer f.Close()
	return ReadEvents(f, p)
}

// LastSeq is the seq of the last event in an events.jsonl, 0 if none; the
// tolerant reader skips a line a crash cut short.
func LastSeq(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	evs, _ := ReadEvents(f, path)
	last := 0
	for _, e := range evs {
		last = max(last, e.Seq)
	}
	return last
}

// Renumber adds offset to the seq of one event line: a resumed run's bus
// numbers from 1 again, and its events continue the file's numbering. The
// line is decoded to find its top-level seq, wherever it stands, and only
// that number is rewritten; a line without one is returned as it is.
func Renumber(line string, offset int) string {
	dec := json.NewDecoder(strings.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return line
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return line
		}
		start := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return line
		}
		if key != "seq" {
			continue
		}
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return line
		}
		end := dec.InputOffset()
		// start is just after the key; the value follows the colon.
		colon := strings.IndexByte(line[start:end], ':')
		if colon < 0 {
			return line
		}
		return line[:start+int64(colon)+1] + strconv.Itoa(n+offset) + line[end:]
	}
	return line
}

// TrimTorn cuts a partial last line off an events.jsonl that a kill or a
// full disk stopped mid-write, so that the next event appended starts a
// line of its own instead of running on into the cut one. It returns the
// bytes cut (none when the file ends with a newline, is empty or is
// missing). The cut is made durable before anything is appended.
func TrimTorn(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return "", err
	}
	end, err := lastNewline(f, info.Size())
	if err != nil || end == info.Size() {
		return "", err
	}
	torn := make([]byte, info.Size()-end)
	if _, err := f.ReadAt(torn, end); err != nil {
		return "", err
	}
	if err := f.Truncate(end); err != nil {
		return "", err
	}
	return string(torn), f.Sync()
}

// lastNewline is the offset just after the file's last '\n' (0 if none).
func lastNewline(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
