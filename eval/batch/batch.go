// Package batch runs many SWE-bench-style instances headless and in
// parallel. Each instance is worked on in its own export of the repository
// at its base commit (never in the mirror), under its own deadline and
// budget, and leaves a run folder, OUT/runs/<id>/, that appears whole once
// the instance is finished. A batch that was stopped resumes where it
// stopped: finished instances (those with done.json) are skipped.
package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/index"
)

// Files and folders a batch writes under its output folder.
const (
	RunsDir    = "runs"
	WorkDir    = "work"
	DoneFile   = "done.json"
	PredsJSONL = "preds.jsonl"
	PredsJSON  = "preds.json"
	LocOutputs = "loc_outputs.jsonl"
	// SummaryFile holds the batch's totals (BatchSummary), beside runs/;
	// each run folder has its own summary.json, a runfolder.Summary.
	SummaryFile = "summary.json"
)

// Statuses a batch gives an instance on its own; a runner's own statuses
// (submitted, exit_cost, ...) pass through.
const (
	StatusSetup   = "exit_setup"   // missing repository or commit: the instance never ran
	StatusTimeout = "exit_timeout" // the per-instance deadline passed
	StatusError   = "exit_error"   // the runner failed
)

// Job is what a runner gets for one instance: the task without its gold,
// a checkout at the base commit, and the folder its run files go to.
type Job struct {
	Task    swebench.Task
	Workdir string // a git repository holding the base commit, the runner's to change
	RunDir  string // the instance's run folder (staging: it appears under runs/ when done)
}

// Result is how a runner's work on one instance ended.
type Result struct {
	Status    string
	Message   string
	Model     string // model_name_or_path for predictions
	Patch     string // the diff from the base commit; "" for none
	Usage     event.UsageInfo
	Files     []string // ranked locations, best first
	Functions []string
	// Index is the checkout's index when the runner built one; the batch
	// uses it to derive and normalize gold locations for scoring.
	Index *index.Index
}

// Runner works on one instance. It must honour ctx (its deadline is the
// instance's time-out) and write what it saves into job.RunDir.
type Runner interface {
	Run(ctx context.Context, job Job) (Result, error)
}

// Config is one batch.
type Config struct {
	Instances []swebench.Instance
	BadLines  []swebench.LineError // malformed lines of the instances file, for the summary
	ReposDir  string               // DIR/OWNER/NAME: clones or bare mirrors
	OutDir    string
	Workers   int           // 0: 1
	Timeout   time.Duration // per instance; 0: none
	Runner    Runner
	// LocalizeOnly writes loc_outputs.jsonl and scores Acc@k where gold is
	// known, instead of predictions.
	LocalizeOnly bool
	KeepWork     bool // keep OUT/work/<id> after an instance is saved

	Progress io.Writer // progress lines; nil: none
	TTY      bool      // Progress is a terminal: draw a bar with an ETA
	Now      func() time.Time
}

// Run works through the instances with cfg.Workers in parallel. Cancelling
// ctx stops the instances in flight, which are not saved and run again on
// resume; every finished instance is saved when it finishes. The summary
// is written to OUT/summary.json and returned.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	st, err := begin(cfg, "batch")
	if err != nil {
		return nil, err
	}
	defer st.lock.release()
	cfg = st.cfg
	jobs := make(chan swebench.Instance)
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range jobs {
				st.prog.started(in.InstanceID)
				rec, ok := runOne(ctx, cfg, in)
				if !ok {
					st.prog.abandoned(in.InstanceID)
					continue
				}
				st.finish(rec)
			}
		}()
	}
feed:
	for _, in := range st.todo {
		select {
		case jobs <- in:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return st.end(ctx)
}

// started is a batch under way: its book of records, its progress, and
// the instances this invocation still has to finish.
type started struct {
	cfg   Config
	book  *book
	prog  *progress
	todo  []swebench.Instance
	start time.Time
	lock  *outLock
}

// begin checks the configuration, makes the output folders, loads what an
// earlier invocation finished and writes the batch files once, so a batch
// that resumes shows its state before the first new instance ends. It
// holds the output folder's lock until the caller releases st.lock.
func begin(cfg Config, role string) (*started, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for _, d := range []string{RunsDir, WorkDir} {
		if err := os.MkdirAll(filepath.Join(cfg.OutDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("batch output: %w", err)
		}
	}
	lock, err := lockOut(cfg.OutDir, role, cfg.Now())
	if err != nil {
		return nil, err
	}
	st := &started{cfg: cfg, start: cfg.Now(), book: newBook(cfg), lock: lock}
	st.todo = st.book.resume()
	st.prog = newProgress(cfg.Progress, cfg.TTY, len(cfg.Instances), len(cfg.Instances)-len(st.todo), cfg.Now)
	if err := st.book.save(); err != nil {
		lock.release()
		return nil, err
	}
	return st, nil
}

// finish books one finished instance and rewrites the batch files.
func (st *started) finish(rec Record) {
	if err := st.book.finish(rec); err != nil {
		slog.Error("save batch results", "instance", rec.InstanceID, "err", err)
	}
	st.prog.finished(rec)
}

// end closes the progress display and writes the final summary.
func (st *started) end(ctx context.Context) (*Summary, error) {
	st.prog.close()
	st.book.setWall(st.cfg.Now().Sub(st.start).Seconds())
	sum := st.book.summary()
	if err := st.book.save(); err != nil {
		return sum, err
	}
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("batch stopped with %d of %d instances finished: %w", sum.Finished, sum.Instances, err)
	}
	return sum, nil
}

func (cfg Config) check() error {
	switch {
	case cfg.OutDir == "":
		return errors.New("batch: no output folder")
	case cfg.Runner == nil:
		return errors.New("batch: no runner")
	case cfg.ReposDir == "":
		return errors.New("batch: no repositories folder")
	}
	return nil
}

// DirName is an instance id made safe as one folder name.
func DirName(id string) string {
	r := strings.NewReplacer("/", "__", "\\", "__", ":", "_", "\x00", "")
	s := r.Replace(id)
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, ".") {
		s = "_" + s
	}
	return s
}
