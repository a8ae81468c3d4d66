// Package export turns a saved run folder into the formats the field's
// tools read: an SWE-agent-style trajectory, LocAgent/Agentless
// localization output, and an SWE-bench prediction.
package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// Run is a loaded run folder. Every part but the folder may be missing:
// a run that crashed early has events and little else.
type Run struct {
	Dir        string
	Events     []event.Event
	EventsErr  error // a damaged or missing events.jsonl; the events read are kept
	Transcript *runfolder.Transcript
	Locations  *localize.Locations
	Patch      string
	HasPatch   bool
	Summary    *runfolder.Summary
	Meta       *runfolder.Meta
	Instance   *runfolder.Instance
}

// Load reads a run folder. Only an unreadable folder, or one holding none
// of a run's files, is an error; damaged parts are reported in EventsErr or
// skipped with their error wrapped into the returned Run's fields' absence.
func Load(dir string) (*Run, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("run folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("run folder %s: not a directory", dir)
	}
	r := &Run{Dir: dir}
	r.Events, r.EventsErr = replay.Load(dir)
	var errs []error
	r.Transcript = loadJSON[runfolder.Transcript](dir, runfolder.TranscriptFile, &errs)
	r.Summary = loadJSON[runfolder.Summary](dir, runfolder.SummaryFile, &errs)
	r.Meta = loadJSON[runfolder.Meta](dir, runfolder.MetaFile, &errs)
	r.Instance = loadJSON[runfolder.Instance](dir, runfolder.InstanceFile, &errs)
	if l, err := localize.LoadLocations(filepath.Join(dir, runfolder.LocationsFile)); err == nil {
		r.Locations = l
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, runfolder.PatchFile)); err == nil {
		r.Patch, r.HasPatch = string(b), true
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if len(r.Events) == 0 && r.Transcript == nil && r.Locations == nil && !r.HasPatch && r.Summary == nil {
		return nil, fmt.Errorf("%s holds no run (no events.jsonl, transcript, locations, patch or summary): %w", dir, errors.Join(append(errs, r.EventsErr)...))
	}
	if len(errs) > 0 {
		return r, errors.Join(errs...)
	}
	return r, nil
}

// loadJSON reads one optional JSON file of the folder: nil when absent,
// nil with the error recorded when damaged.
func loadJSON[T any](dir, name string, errs *[]error) *T {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		*errs = append(*errs, fmt.Errorf("read %s: %w", name, err))
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		*errs = append(*errs, fmt.Errorf("read %s: %w", name, err))
		return nil
	}
	return &v
}

// ID is the run's id: from its metadata, its first event, or its folder name.
func (r *Run) ID() string {
	switch {
	case r.Meta != nil && r.Meta.ID != "":
		return r.Meta.ID
	case r.Summary != nil && r.Summary.ID != "":
		return r.Summary.ID
	}
	if info := r.runInfo(); info != nil && info.ID != "" {
		return info.ID
	}
	return filepath.Base(filepath.Clean(r.Dir))
}

// InstanceID is the SWE-bench instance the run solved when a batch ran it,
// else the run id.
func (r *Run) InstanceID() string {
	switch {
	case r.Instance != nil && r.Instance.InstanceID != "":
		return r.Instance.InstanceID
	case r.Summary != nil && r.Summary.InstanceID != "":
		return r.Summary.InstanceID
	}
	return r.ID()
}

// Model is the resolution model's name, else the localization model's.
func (r *Run) Model() string {
	if r.Meta != nil && r.Meta.Model != "" {
		return r.Meta.Model
	}
	if info := r.runInfo(); info != nil {
		if info.Model != "" {
			return info.Model
		}
		if info.Localize != "" {
			return info.Localize
		}
	}
	if r.Locations != nil && r.Locations.Model != "" {
		return r.Locations.Model
	}
	return "swe-adept"
}

func (r *Run) runInfo() *event.RunInfo {
	for _, e := range r.Events {
		if e.Type == event.RunStarted && e.Run != nil {
			return e.Run
		}
	}
	return nil
}

// done is the run's last Done event, or nil.
func (r *Run) done() *event.DoneInfo {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if e := r.Events[i]; e.Type == event.Done && e.Done != nil {
			return e.Done
		}
	}
	return nil
}

// ExitStatus is how the run ended: the summary's status, the Done event's,
// or "incomplete" for a run that never finished.
func (r *Run) ExitStatus() string {
	if r.Summary != nil && r.Summary.Status != "" {
		return r.Summary.Status
	}
	if d := r.done(); d != nil && d.Status != "" {
		return d.Status
	}
	if r.Locations != nil && r.Locations.Status != "" && !r.HasPatch {
		return r.Locations.Status
	}
	return "incomplete"
}
