// Package run is one whole run of swe-adept: it opens a workspace beside
// the engineer's checkout, indexes the code, localizes the issue, lets the
// resolution agent repair it with hypotheses and checkpoints, and saves
// everything under <git common dir>/swe-adept/runs/<id>/: events, locations,
// working memory, transcript, patch and summary. A crashed or cancelled run
// resumes from its memory, its git refs and its transcript.
package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/resolve"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/sandbox"
	"github.com/swe-adept/swe-adept/vcs"
)

// Options start a run.
type Options struct {
	Repo  string // a directory inside the engineer's git checkout
	Issue string // the issue text; ignored when resuming

	Model         llm.Model // both agents unless one of the next two is set
	LocalizeModel llm.Model
	ResolveModel  llm.Model
	// Localizer picks the localization model once the index exists (the
	// offline heuristic needs it), when neither LocalizeModel nor Model is
	// set. The notice, if any, is shown to the engineer.
	Localizer func(ix *index.Index) (m llm.Model, notice string, err error)

	Approve string // "ask" (the TUI answers), "auto" or "deny"; "" means auto
	// ApproveChosen: the engineer chose Approve. A default one tightens
	// when the shell cannot be confined: no command runs without the
	// engineer (see resolve.Permissions.Unconfined).
	ApproveChosen bool
	Allow         []string // extra shell command prefixes that run without asking
	// LocalizeOnly stops after localization, keeping the ranking: for a
	// workbench without a resolution model.
	LocalizeOnly bool
	// Sandbox confines the agent's shell (the zero value: auto).
	Sandbox sandbox.Options
	// Confidential is what the model settings hold: no command sees the
	// variables or the files, and their values are scrubbed from output.
	Confidential  models.Confidential
	CommandOutput int  // bytes of a command's output the model reads; 0: resolve.DefaultMaxOutput
	InPlace       bool // work in the checkout itself instead of a linked worktree

	MaxIterations         int     // resolution model calls; 0: resolve.DefaultMaxIterations
	LocalizeMaxIterations int     // 0: localize.DefaultMaxIterations
	MaxCost               float64 // dollars over the whole run; 0: no limit
	MaxTokens             int     // tokens over the whole run; 0: no limit
	CommandTimeout        time.Duration
	CommandBudget         time.Duration

	Apply     bool                // apply a submitted patch to the checkout as uncommitted changes
	Locations *localize.Locations // skip indexing and localization
	Resume    string              // id of a run to continue

	ID  string           // run id; "" makes one (NewID)
	Now func() time.Time // nil: time.Now
}

// Run is one run in progress.
type Run struct {
	ID  string
	Dir string // the run folder

	opts Options
	mode resolve.ApprovalMode
	// refusedLocs are the rankings the engineer refused, for the localizer.
	refusedLocs []refusedRanking
	asked       asked           // a resumed run's earlier questions
	repo        *vcs.Repo       // the engineer's checkout
	meta        *runfolder.Meta // set when resuming
	bus         *event.Bus
	log         *os.File
	events      <-chan event.Event
	taken       atomic.Bool
	gate        *event.Gate
	cancel      context.CancelFunc
	done        chan struct{}
	secrets     []string
	unconfined  string // why the commands are not confined; "" when they are
	// tornBytes: a resume cut this many bytes of a partial last line off
	// events.jsonl (the run had stopped mid-write).
	tornBytes int

	mu      sync.Mutex
	summary runfolder.Summary
	err     error
}

// Errors Start returns for bad input; each is wrapped with what to do.
var (
	ErrEmptyIssue = errors.New("the issue is empty")
	ErrNoModel    = errors.New("no model configured")
)

// Start checks the input, prepares the run folder and starts the run in a
// goroutine. Its events are subscribed before the goroutine starts, so
// Events sees every one; read them until the channel closes, or call Wait,
// which drains them if nobody took the channel.
func Start(ctx context.Context, opts Options) (*Run, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	mode, err := resolve.ParseApprovalMode(nonEmpty(opts.Approve, string(resolve.ModeAuto)))
	if err != nil {
		return nil, err
	}
	repo, err := vcs.Open(ctx, nonEmpty(opts.Repo, "."))
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	r := &Run{opts: opts, mode: mode, repo: repo, gate: event.NewGate(), done: make(chan struct{}),
		secrets: append(resolve.SecretValues(os.Environ()), opts.Confidential.Values...)}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	if err := r.checkConfinement(); err != nil {
		return nil, err
	}
	if err := r.openFolder(); err != nil {
		return nil, err
	}
	if r.meta != nil {
		r.recallQuestions()
	}
	if err := writeOwner(r.Dir, r.ID); err != nil {
		return nil, err
	}
	r.events = r.bus.Subscribe()
	ctx, r.cancel = context.WithCancel(ctx)
	// A warning both agents' models may raise (a server cutting prompts) is
	// said once in the run.
	go r.work(llm.WithOnce(ctx))
	return r, nil
}

// prepare checks the issue and the models, or the run to resume.
func (r *Run) prepare() error {
	if r.opts.Resume != "" {
		return r.prepareResume()
	}
	if strings.TrimSpace(r.opts.Issue) == "" {
		return fmt.Errorf("%w: give the issue text in a file or on stdin", ErrEmptyIssue)
	}
	if r.resolveModel() == nil && !r.opts.LocalizeOnly {
		return fmt.Errorf("%w for the resolution agent: set OPENAI_API_KEY and --model NAME (or OPENAI_BASE_URL for a local server), or play a transcript with --script-resolve FILE", ErrNoModel)
	}
	if r.opts.Locations == nil && r.localizeModel() == nil && r.opts.Localizer == nil {
		return fmt.Errorf("%w for the localization agent: use --localize-model heuristic (offline), --script-localize FILE, or a model with OPENAI_API_KEY", ErrNoModel)
	}
	r.ID = r.opts.ID
	if r.ID == "" {
		r.ID = runfolder.NewID(r.opts.Now())
	}
	r.Dir = filepath.Join(runfolder.RunsDir(r.repo.CommonDir()), r.ID)
	if _, err := os.Stat(r.Dir); err == nil {
		return fmt.Errorf("run %s already exists in %s; resume it with --resume %s or pick another id", r.ID, r.Dir, r.ID)
	}
	return nil
}

func (r *Run) openFolder() error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	if r.meta != nil {
		torn, err := runfolder.TrimTorn(filepath.Join(r.Dir, runfolder.EventsFile))
		if err != nil {
			return fmt.Errorf("run folder: repair %s: %w", runfolder.EventsFile, err)
		}
		r.tornBytes = len(torn)
	}
	f, err := os.OpenFile(filepath.Join(r.Dir, runfolder.EventsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	r.log = f
	r.bus = event.NewBus(&scrubWriter{w: f, secrets: r.secrets, offset: runfolder.LastSeq(filepath.Join(r.Dir, runfolder.EventsFile))})
	return nil
}

func (r *Run) localizeModel() llm.Model {
	if r.opts.LocalizeModel != nil {
		return r.opts.LocalizeModel
	}
	return r.opts.Model
}

func (r *Run) resolveModel() llm.Model {
	if r.opts.ResolveModel != nil {
		return r.opts.ResolveModel
	}
	return r.opts.Model
}

// Events is every event of the run, in order; it closes when the run ends.
func (r *Run) Events() <-chan event.Event {
	r.taken.Store(true)
	return r.events
}

// Gate pauses, steps and passes notes to the agents.
func (r *Run) Gate() *event.Gate { return r.gate }

// Cancel stops the run; it still saves what it has and puts the checkout back.
func (r *Run) Cancel() { r.cancel() }

// Wait blocks until the run ends and returns its summary. The error is the
// reason a run failed (not a limit or a refusal, which are statuses).
func (r *Run) Wait() (runfolder.Summary, error) {
	if !r.taken.Load() {
		go func() {
			for range r.events {
			}
		}()
	}
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.summary, r.err
}

func (r *Run) emit(e event.Event) {
	if e.Agent == "" {
		e.Agent = event.Runtime
	}
	r.bus.Emit(e)
}

func nonEmpty(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// approver answers approvals by the run's mode. In ask mode the Approval
// event (emitted by the tool that asks) carries the request, and the screen
// answers it with req.Answer; the agent waits here.
func (r *Run) approver() event.Approver {
	switch r.mode {
	case resolve.ModeAsk:
		return waiter{}
	case resolve.ModeDeny:
		return event.Policy(event.Refuse)
	}
	return event.Policy(event.Approve)
}

type waiter struct{}

func (waiter) Approve(ctx context.Context, req *event.ApprovalRequest) (event.Reply, error) {
	return req.Wait(ctx)
}
