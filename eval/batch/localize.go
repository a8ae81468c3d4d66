package batch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
)

// LocalizeRunner localizes each instance and ranks its locations, with no
// resolution: the batch behind --localize-only. Its run folders hold
// events.jsonl (replayable) and locations.json.
type LocalizeRunner struct {
	Models        models.Settings
	Script        string // a scripted transcript, or a folder of <instance id>.json
	MaxIterations int
	MaxCost       float64
	MaxTokens     int
}

// Run localizes one instance.
func (l LocalizeRunner) Run(ctx context.Context, job Job) (Result, error) {
	ix, err := index.Build(ctx, job.Workdir, index.Options{Logger: slog.Default()})
	if err != nil {
		return Result{Status: StatusError}, fmt.Errorf("index %s: %w", job.Task.InstanceID, err)
	}
	script, err := ScriptFor(l.Script, job.Task.InstanceID)
	if err != nil {
		return Result{Status: StatusSetup, Index: ix}, err
	}
	set := l.Models
	set.Localize.Script = script
	model, _, err := set.LocalizationModel(ix, nil)
	if err != nil {
		return Result{Status: StatusSetup, Index: ix}, err
	}
	f, err := os.Create(filepath.Join(job.RunDir, runfolder.EventsFile))
	if err != nil {
		return Result{Status: StatusError, Index: ix}, fmt.Errorf("run events: %w", err)
	}
	defer f.Close()
	bus := event.NewBus(f)
	defer bus.Close()
	bus.Emit(event.Event{Type: event.RunStarted, Agent: event.Runtime, Run: &event.RunInfo{ID: job.Task.InstanceID,
		Repo: job.Task.Repo, Workdir: job.Workdir, Issue: job.Task.ProblemStatement, Model: model.Name(), Localize: model.Name()}})
	bus.Emit(event.Event{Type: event.PhaseChanged, Agent: event.Runtime, Phase: "localize"})
	loc, runErr := localize.Run(ctx, localize.Config{Index: ix, Model: model, Bus: bus, Issue: job.Task.ProblemStatement,
		MaxIterations: l.MaxIterations, MaxCost: l.MaxCost, MaxTokens: l.MaxTokens})
	res := Result{Model: model.Name(), Index: ix, Status: StatusError}
	if loc != nil {
		res.Status, res.Message = splitStatus(loc.Status)
		res.Files, res.Functions, res.Usage = loc.Files, loc.Functions, loc.Usage
		if err := loc.Save(filepath.Join(job.RunDir, runfolder.LocationsFile)); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	done := &event.DoneInfo{Status: res.Status, RunDir: job.RunDir, Tokens: res.Usage.PromptTokens + res.Usage.CompletionTokens,
		Cost: res.Usage.Cost, Priced: res.Usage.Priced, FilesFound: len(res.Files)}
	bus.Emit(event.Event{Type: event.PhaseChanged, Agent: event.Runtime, Phase: "done"})
	bus.Emit(event.Event{Type: event.Done, Agent: event.Runtime, Done: done})
	return res, runErr
}

// splitStatus separates a localization status from the note after "; ".
func splitStatus(s string) (status, note string) {
	status, note, _ = strings.Cut(s, "; ")
	return status, note
}

// ScriptFor is the script an instance plays: the file itself, or
// <id>.json inside a folder of scripts. "" stays "".
func ScriptFor(path, instanceID string) (string, error) {
	if path == "" {
		return "", nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("script: %w", err)
	}
	if !fi.IsDir() {
		return path, nil
	}
	p := filepath.Join(path, DirName(instanceID)+".json")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no script for %s in %s: %w", instanceID, path, err)
	}
	return p, nil
}
