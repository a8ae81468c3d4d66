package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// Record is one finished instance, saved as runs/<id>/done.json.
type Record struct {
	InstanceID       string          `json:"instance_id"`
	Status           string          `json:"status"`
	Message          string          `json:"message,omitempty"`
	Model            string          `json:"model_name_or_path"`
	HasPatch         bool            `json:"has_patch"`
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
	Calls            int             `json:"api_calls"`
	Cost             float64         `json:"cost"`
	Priced           bool            `json:"priced"`
	Seconds          float64         `json:"seconds"`
	Started          time.Time       `json:"started"`
	Ended            time.Time       `json:"ended"`
	Files            []string        `json:"files,omitempty"`
	Functions        []string        `json:"functions,omitempty"`
	Score            *swebench.Score `json:"score,omitempty"` // localize-only, when gold is known
	MissingBlobs     int             `json:"missing_blobs,omitempty"`
	Worker           string          `json:"worker,omitempty"` // the worker that ran it, in a batch run through a queue
}

// runOne works on one instance and saves it. ok is false when the batch
// was cancelled before the instance finished: nothing is saved and a
// resumed batch runs it again.
func runOne(ctx context.Context, cfg Config, in swebench.Instance) (rec Record, ok bool) {
	name := DirName(in.InstanceID)
	final := filepath.Join(cfg.OutDir, RunsDir, name)
	stage := filepath.Join(cfg.OutDir, RunsDir, "."+name+".partial")
	work := filepath.Join(cfg.OutDir, WorkDir, name)
	start := cfg.Now()
	rec = Record{InstanceID: in.InstanceID, Started: start.UTC()}
	if err := fresh(stage, work); err != nil {
		rec.Status, rec.Message = StatusError, err.Error()
		return rec, save(cfg, rec, stage, final, work)
	}
	task := in.Task()
	if err := atomicfile.WriteJSON(filepath.Join(stage, runfolder.InstanceFile), instanceMeta{task.InstanceID, task.Repo, task.BaseCommit}); err != nil {
		rec.Status, rec.Message = StatusError, err.Error()
		return rec, save(cfg, rec, stage, final, work)
	}
	st, err := swebench.Checkout(ctx, swebench.RepoDir(cfg.ReposDir, in.Repo), in.BaseCommit, work)
	rec.MissingBlobs = st.MissingBlobs
	if ctx.Err() != nil {
		return rec, false
	}
	if err != nil {
		rec.Status, rec.Message = StatusSetup, err.Error()
		rec.Ended, rec.Seconds = cfg.Now().UTC(), cfg.Now().Sub(start).Seconds()
		return rec, save(cfg, rec, stage, final, work)
	}
	res, err := runWithDeadline(ctx, cfg, Job{Task: task, Workdir: work, RunDir: stage})
	if ctx.Err() != nil {
		return rec, false
	}
	rec = record(rec, res, err)
	rec.Ended, rec.Seconds = cfg.Now().UTC(), cfg.Now().Sub(start).Seconds()
	if cfg.LocalizeOnly {
		rec.Score = scoreOf(in, res)
	}
	if err := writePatch(stage, res.Patch, cfg.LocalizeOnly); err != nil {
		rec.Status, rec.Message = StatusError, err.Error()
	}
	return rec, save(cfg, rec, stage, final, work)
}

// instanceMeta is the task a run folder came from, without its gold: what
// export reads to name the instance.
type instanceMeta struct {
	InstanceID string `json:"instance_id"`
	Repo       string `json:"repo"`
	BaseCommit string `json:"base_commit"`
}

// fresh clears what an interrupted earlier attempt left and makes the
// staging folder.
func fresh(stage, work string) error {
	for _, d := range []string{stage, work} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("clear %s: %w", d, err)
		}
	}
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	return nil
}

func runWithDeadline(ctx context.Context, cfg Config, job Job) (Result, error) {
	rctx := ctx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	res, err := cfg.Runner.Run(rctx, job)
	if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		res.Status = StatusTimeout
		if err == nil {
			return res, fmt.Errorf("time-out after %s", cfg.Timeout)
		}
		return res, fmt.Errorf("time-out after %s: %w", cfg.Timeout, err)
	}
	return res, err
}

// record folds a runner's result into the instance's record.
func record(rec Record, res Result, err error) Record {
	rec.Status, rec.Message, rec.Model = res.Status, res.Message, res.Model
	rec.HasPatch = res.Patch != ""
	u := res.Usage
	rec.PromptTokens, rec.CompletionTokens, rec.Calls, rec.Cost, rec.Priced = u.PromptTokens, u.CompletionTokens, u.Calls, u.Cost, u.Priced
	rec.Files, rec.Functions = res.Files, res.Functions
	if err != nil {
		if rec.Status == "" {
			rec.Status = StatusError
		}
		if rec.Message == "" {
			rec.Message = err.Error()
		}
	}
	if rec.Status == "" {
		rec.Status = "done"
	}
	return rec
}

func scoreOf(in swebench.Instance, res Result) *swebench.Score {
	if !hasGold(in) {
		return nil
	}
	gold := swebench.GoldOf(in, res.Index)
	funcs := res.Functions
	if res.Index != nil {
		funcs = swebench.Normalize(res.Index, funcs)
	}
	s := swebench.ScoreOne(in.InstanceID, gold, res.Files, funcs)
	return &s
}

// writePatch keeps the runner's patch.diff when it wrote one, else writes
// the result's patch.
func writePatch(stage, patch string, localizeOnly bool) error {
	p := filepath.Join(stage, runfolder.PatchFile)
	if _, err := os.Stat(p); err == nil || localizeOnly {
		return nil
	}
	return atomicfile.Write(p, []byte(patch))
}

// save writes done.json into the staging folder and moves the folder into
// place in one rename, so runs/<id> is either absent or complete.
func save(cfg Config, rec Record, stage, final, work string) bool {
	if err := saveFolder(rec, stage, final); err != nil {
		slog.Error("save instance", "instance", rec.InstanceID, "err", err)
		return false
	}
	if !cfg.KeepWork {
		if err := os.RemoveAll(work); err != nil {
			slog.Warn("remove checkout", "dir", work, "err", err)
		}
	}
	return true
}

func saveFolder(rec Record, stage, final string) error {
	if err := atomicfile.WriteJSON(filepath.Join(stage, DoneFile), rec); err != nil {
		return fmt.Errorf("save %s: %w", rec.InstanceID, err)
	}
	if err := os.RemoveAll(final); err != nil {
		return fmt.Errorf("save %s: %w", rec.InstanceID, err)
	}
	if err := atomicfile.Rename(stage, final); err != nil {
		return fmt.Errorf("save %s: %w", rec.InstanceID, err)
	}
	return nil
}

// loadRecord reads a finished instance's done.json.
func loadRecord(runDir string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(filepath.Join(runDir, DoneFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("read %s: %w", filepath.Join(runDir, DoneFile), err)
	}
	return rec, nil
}
