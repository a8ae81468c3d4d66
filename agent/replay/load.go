// Package replay plays a saved run's events again, with no model calls: into
// the workbench at the recorded pace (or faster), or as JSON lines. A run is
// a folder holding events.jsonl; a damaged file replays as far as it can be
// read and the replay says where it broke.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/vcs"
)

// EventsFile is the name of a run's event log inside its folder.
const EventsFile = "events.jsonl"

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

// Load reads a run folder's events.jsonl. See ReadEvents for damaged logs.
func Load(dir string) ([]event.Event, error) {
	p := filepath.Join(dir, EventsFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open run events: %w", err)
	}
	defer f.Close()
	return ReadEvents(f, p)
}

// RunsDir is where a repository keeps its runs: <git common dir>/swe-adept/runs.
func RunsDir(ctx context.Context, repo string) (string, error) {
	r, err := vcs.Open(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("find runs of %s: %w", repo, err)
	}
	return filepath.Join(r.CommonDir(), "swe-adept", "runs"), nil
}

// FindRun turns what the engineer typed into a run folder: a folder path
// holding events.jsonl, or a run id (or a unique prefix of one) under the
// repository's runs folder.
func FindRun(ctx context.Context, repo, run string) (string, error) {
	if run == "" {
		return "", errors.New("no run given")
	}
	if fi, err := os.Stat(run); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(run, EventsFile)); err == nil || strings.ContainsRune(run, os.PathSeparator) {
			return run, nil
		}
	}
	runs, err := RunsDir(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("run %q is not a folder, and %w", run, err)
	}
	if fi, err := os.Stat(filepath.Join(runs, run)); err == nil && fi.IsDir() {
		return filepath.Join(runs, run), nil
	}
	ids, _ := ListRuns(runs)
	var match []string
	for _, id := range ids {
		if strings.HasPrefix(id, run) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 1:
		return filepath.Join(runs, match[0]), nil
	case 0:
		return "", fmt.Errorf("no run %q in %s (%d runs there)", run, runs, len(ids))
	default:
		return "", fmt.Errorf("run %q is ambiguous in %s: %s", run, runs, strings.Join(match, ", "))
	}
}

// ListRuns lists the run ids in a runs folder, sorted.
func ListRuns(runsDir string) ([]string, error) {
	ents, err := os.ReadDir(runsDir)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}
