// Package replay plays a saved run's events again, with no model calls: into
// the workbench at the recorded pace (or faster), or as JSON lines. A run is
// a folder holding events.jsonl; a damaged file replays as far as it can be
// read and the replay says where it broke.
package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/vcs"
)

// EventsFile is the name of a run's event log inside its folder.
const EventsFile = runfolder.EventsFile

// Load reads a run folder's events.jsonl. See ReadEvents for damaged logs.
func Load(dir string) ([]event.Event, error) { return runfolder.LoadEvents(dir) }

// RunsDir is where a repository keeps its runs: <git common dir>/swe-adept/runs.
func RunsDir(ctx context.Context, repo string) (string, error) {
	r, err := vcs.Open(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("find runs of %s: %w", repo, err)
	}
	return runfolder.RunsDir(r.CommonDir()), nil
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
