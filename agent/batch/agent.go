package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/atomicfile"
	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/run"
	"github.com/swe-adept/swe-adept/index"
)

// AgentRunner resolves each instance with a whole run (localization, then
// resolution with hypotheses and checkpoints) in the instance's checkout,
// answering approvals automatically, and copies the run folder out.
type AgentRunner struct {
	Model          string // resolution model (OpenAI-compatible); also localization unless LocalizeModel
	LocalizeModel  string // "heuristic" or a name; "": Model, or the heuristic without a key
	ScriptLocalize string // a transcript file, or a folder of <instance id>.json
	ScriptResolve  string

	MaxIterations         int
	LocalizeMaxIterations int
	MaxCost               float64 // dollars per instance
	MaxTokens             int     // per instance
	CommandTimeout        time.Duration

	Getenv func(string) string `json:"-"` // nil: os.Getenv
}

// Check reports a configuration that cannot run any instance, so a batch
// fails before it starts instead of once per instance.
func (a AgentRunner) Check() error {
	if a.ScriptResolve != "" {
		_, err := os.Stat(a.ScriptResolve)
		return err
	}
	getenv := a.getenv()
	if strings.TrimSpace(getenv("OPENAI_API_KEY")) == "" && strings.TrimSpace(getenv("OPENAI_BASE_URL")) == "" {
		return errors.New("no model for the resolution agent: set OPENAI_API_KEY (or OPENAI_BASE_URL) and --model NAME, or play transcripts with --script-resolve")
	}
	if llm.ConfigFrom(getenv, a.Model).Model == "" {
		return errors.New("no model name: pass --model NAME or set SWE_ADEPT_MODEL")
	}
	return nil
}

func (a AgentRunner) getenv() func(string) string {
	if a.Getenv != nil {
		return a.Getenv
	}
	return os.Getenv
}

// Run resolves one instance.
func (a AgentRunner) Run(ctx context.Context, job Job) (Result, error) {
	id := job.Task.InstanceID
	opts := run.Options{Repo: job.Workdir, Issue: job.Task.ProblemStatement, Approve: "auto", InPlace: true,
		MaxIterations: a.MaxIterations, LocalizeMaxIterations: a.LocalizeMaxIterations, MaxCost: a.MaxCost,
		MaxTokens: a.MaxTokens, CommandTimeout: a.CommandTimeout, ID: DirName(id)}
	var err error
	if opts.ResolveModel, err = a.resolveModel(id); err != nil {
		return Result{Status: StatusSetup}, err
	}
	if a.ScriptLocalize != "" {
		if opts.LocalizeModel, err = scripted(a.ScriptLocalize, id, "localize", "localization"); err != nil {
			return Result{Status: StatusSetup}, err
		}
	} else {
		name := nonEmpty(a.LocalizeModel, a.Model)
		opts.Localizer = func(ix *index.Index) (llm.Model, string, error) {
			return localize.ChooseModel(localize.ModelChoice{Model: name, Index: ix, Getenv: a.Getenv})
		}
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
	if b, err := os.ReadFile(filepath.Join(job.RunDir, PatchFile)); err == nil {
		res.Patch = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		runErr = errors.Join(runErr, err)
	}
	return res, runErr
}

func (a AgentRunner) resolveModel(id string) (llm.Model, error) {
	if a.ScriptResolve != "" {
		return scripted(a.ScriptResolve, id, "resolve", "resolution")
	}
	m, err := llm.NewOpenAI(llm.ConfigFrom(a.getenv(), a.Model))
	if err != nil {
		return nil, fmt.Errorf("resolution model: %w", err)
	}
	return m, nil
}

// scripted loads an agent's script for an instance; a file may hold one
// script or one per agent under either of its names.
func scripted(path, id string, names ...string) (llm.Model, error) {
	p, err := ScriptFor(path, id)
	if err != nil {
		return nil, err
	}
	var s *llm.Script
	for _, n := range names {
		if s, err = llm.LoadAgentScript(p, n); err == nil {
			return llm.NewScripted(s), nil
		}
	}
	return nil, fmt.Errorf("script %s: %w", p, err)
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
