// Package runfolder owns a run's folder, <git common dir>/swe-adept/runs/<id>/:
// the names of its files, the structs they hold, and one tolerant reader of
// its event log. The run writes it; replay, export and batch read it.
package runfolder

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// Files of a run folder. A batch adds InstanceFile.
const (
	EventsFile     = "events.jsonl"
	LocationsFile  = "locations.json"
	MemoryFile     = "memory.json"
	PatchFile      = "patch.diff"
	TranscriptFile = "transcript.json"
	SummaryFile    = "summary.json"
	MetaFile       = "run.json"
	InstanceFile   = "instance.json"
	OwnerFile      = "owner.json" // the process working on the run, while it works
	EditsFile      = "edits-during-run.patch"
)

// RunsDir is where a repository keeps its runs, given its common git dir.
func RunsDir(commonDir string) string { return filepath.Join(commonDir, "swe-adept", "runs") }

// NewID makes a short run id that sorts by start time: 20261122-0435-ab12.
func NewID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-1504") + "-" + hex.EncodeToString(b[:])
}

// Meta is what a run was started with, kept so it can be resumed.
type Meta struct {
	ID       string    `json:"id"`
	Repo     string    `json:"repo"`
	Issue    string    `json:"issue"`
	InPlace  bool      `json:"in_place"`
	Approve  string    `json:"approve"`
	Model    string    `json:"model"`
	Localize string    `json:"localize_model,omitempty"`
	Started  time.Time `json:"started"`
	Workdir  string    `json:"workdir"`
	Original string    `json:"original"`
}

// Transcript is both agents' conversations. The localization agent's is
// rebuilt from its events (its loop lives in agent/localize).
type Transcript struct {
	Localize []llm.Message `json:"localize"`
	Resolve  []llm.Message `json:"resolve"`
}

// Statuses a run ends with besides the resolution loop's own (submitted,
// exit_cost, exit_error, cancelled, ...; see agent/tool.Status) and
// "failed". Only "submitted" has a solution to apply or to export as a
// prediction; README's table of statuses says what each one means.
const (
	Submitted = "submitted" // a merged solution, or the workspace of a run without hypotheses
	// SubmittedUnmerged: the agent submitted, but it worked with hypotheses
	// and merged none (the engineer refused the merge, or it was never
	// asked): patch.diff holds the workspace as the agent left it, to read.
	SubmittedUnmerged = "submitted_unmerged"
	SubmittedEmpty    = "submitted_empty" // the agent submitted without changing anything
	Localized         = "localized"       // stopped after localization, as asked, keeping the ranking
)

// HasSolution reports whether a run that ended with status has a solution:
// only "submitted". Runs stopped by a limit keep their work so far in
// patch.diff; unmerged and empty submissions have none.
func HasSolution(status string) bool { return status == Submitted }

// Summary is how a run ended, as saved in summary.json and printed last
// in headless mode.
type Summary struct {
	ID         string   `json:"id"`
	InstanceID string   `json:"instance_id,omitempty"` // a batch's runs
	Status     string   `json:"status"`                // the resolution's exit status, one of the above, or failed
	Message    string   `json:"message,omitempty"`
	RunDir     string   `json:"run_dir"`
	Workdir    string   `json:"workdir,omitempty"`
	Patch      string   `json:"patch,omitempty"` // path of patch.diff; empty when there is no change
	Stat       string   `json:"stat,omitempty"`
	Dropped    []string `json:"dropped,omitempty"` // scratch files left out of the patch
	Merged     string   `json:"merged,omitempty"`  // branch merged as the solution
	// CheckoutError: an in-place run could not give the checkout back.
	CheckoutError string          `json:"checkout_error,omitempty"`
	Applied       bool            `json:"applied,omitempty"` // patch applied to the engineer's checkout
	Localize      event.UsageInfo `json:"localize_usage"`
	Resolve       event.UsageInfo `json:"resolve_usage"`
	Tokens        int             `json:"tokens"`
	Cost          string          `json:"cost"` // "$0.41", or "unpriced"
	Seconds       float64         `json:"seconds"`
	Started       time.Time       `json:"started"`
	Ended         time.Time       `json:"ended"`
	Resumed       bool            `json:"resumed,omitempty"`
	InPlace       bool            `json:"in_place,omitempty"` // worked in the checkout itself
	// Unconfined says why the agent's commands ran unconfined, if they did.
	Unconfined string   `json:"unconfined,omitempty"`
	Files      []string `json:"files,omitempty"`
	Functions  []string `json:"functions,omitempty"`
}

// Instance is what a batch records of the task a run came from.
type Instance struct {
	InstanceID string `json:"instance_id"`
	Repo       string `json:"repo,omitempty"`
	BaseCommit string `json:"base_commit,omitempty"`
}

// ReadJSON decodes one of the folder's JSON files.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// LoadSummary reads a run's summary.json; a run that never ended has none
// (fs.ErrNotExist).
func LoadSummary(runDir string) (*Summary, error) {
	var s Summary
	if err := ReadJSON(filepath.Join(runDir, SummaryFile), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// LoadMeta reads a run's run.json.
func LoadMeta(runDir string) (*Meta, error) {
	var m Meta
	if err := ReadJSON(filepath.Join(runDir, MetaFile), &m); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: not a run folder", runDir, MetaFile)
		}
		return nil, err
	}
	return &m, nil
}
