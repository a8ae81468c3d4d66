package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-adept/swe-adept/sandbox"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// AgentRunner resolves each instance with a whole run (localization, then
// resolution with hypotheses and checkpoints) in the instance's checkout,
// answering approvals automatically, and copies the run folder out.
type AgentRunner struct {
	// Models are the model settings; on a worker, its own environment
	// supplies the keys (and the header values named "$NAME").
	Models         models.Settings `json:"models"`
	ScriptLocalize string          // a transcript file, or a folder of <instance id>.json
	ScriptResolve  string

	MaxIterations         int
	LocalizeMaxIterations int
	MaxCost               float64 // dollars per instance
	MaxTokens             int     // per instance
	CommandTimeout        time.Duration
	CommandOutput         int             // bytes of a command's output the model reads; 0: the default
	Sandbox               sandbox.Options `json:"sandbox"`
}

// Check reports a configuration that cannot run any instance, so a batch
// fails before it starts instead of once per instance.
func (a AgentRunner) Check() error {
	if a.ScriptResolve != "" {
		_, err := os.Stat(a.ScriptResolve)
		return err
	}
	return a.Models.Check()
}

// Run resolves one instance.
func (a AgentRunner) Run(ctx context.Context, job Job) (Result, error) {
	id := job.Task.InstanceID
	opts := run.Options{Repo: job.Workdir, Issue: job.Task.ProblemStatement, Approve: "auto", InPlace: true,
		MaxIterations: a.MaxIterations, LocalizeMaxIterations: a.LocalizeMaxIterations, MaxCost: a.MaxCost,
		MaxTokens: a.MaxTokens, CommandTimeout: a.CommandTimeout, CommandOutput: a.CommandOutput, ID: DirName(id), Sandbox: a.Sandbox}
	set, err := a.settingsFor(id)
	if err != nil {
		return Result{Status: StatusSetup}, err
	}
	opts.Confidential = set.Confidential()
	if opts.ResolveModel, err = set.ResolutionModel(); err != nil {
		return Result{Status: StatusSetup}, fmt.Errorf("resolution model: %w", err)
	}
	opts.Localizer = func(ix *index.Index) (llm.Model, string, error) {
		return set.LocalizationModel(ix, nil)
	}
	r, err := run.Start(ctx, opts)
	if err != nil {
		return Result{Status: StatusSetup, Model: opts.ResolveModel.Name()}, fmt.Errorf("start run: %w", err)
	}
	sum, runErr := r.Wait()
	res := Result{Status: sum.Status, Message: sum.Message, Model: opts.ResolveModel.Name(),
		Usage: addUsage(sum.Localize, sum.Resolve), Files: sum.Files, Functions: sum.Functions}
	if err := copyFolder(r.Dir, job.RunDir); err != nil {
		return res, errors.Join(runErr, err)
	}
	if b, err := os.ReadFile(filepath.Join(job.RunDir, runfolder.PatchFile)); err == nil {
		res.Patch = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		runErr = errors.Join(runErr, err)
	}
	return res, runErr
}

// settingsFor is the model settings for one instance: its own scripts
// where the runner plays a folder of them.
func (a AgentRunner) settingsFor(id string) (models.Settings, error) {
	set := a.Models
	var err error
	if set.Resolve.Script, err = ScriptFor(a.ScriptResolve, id); err != nil {
		return set, err
	}
	set.Localize.Script, err = ScriptFor(a.ScriptLocalize, id)
	return set, err
}

func addUsage(a, b event.UsageInfo) event.UsageInfo {
	priced := (a.Priced || a.Calls == 0) && (b.Priced || b.Calls == 0)
	return event.UsageInfo{PromptTokens: a.PromptTokens + b.PromptTokens, CompletionTokens: a.CompletionTokens + b.CompletionTokens,
		Calls: a.Calls + b.Calls, Cost: a.Cost + b.Cost, Priced: priced}
}

// copyFolder copies a run folder's files (and any subfolders) into dst.
func copyFolder(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("copy run folder: %w", err)
		}
		return atomicfile.Write(target, b)
	})
}
