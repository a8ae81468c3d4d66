// Package resolve is the issue resolution agent: in its own context window
// it starts from the ranked locations, reproduces the issue, and repairs it
// hypothesis by hypothesis with checkpoints, through SWE-agent-style tools
// (bash, a file viewer/editor, submit) and the hypothesis_plan and
// hypothesis_git families its caller passes in.
package resolve

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/swe-adept/swe-adept/sandbox"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/tool"
)

// DefaultMaxIterations bounds the resolution's model calls when the run
// sets no limit: resolution takes many more turns than the search.
const DefaultMaxIterations = 100

// Config is what one resolution needs.
type Config struct {
	Model   llm.Model
	Workdir string // the run's workspace
	Issue   string
	// Files and Functions are the ranked locations, best first.
	Files, Functions []string
	// LocationsEdited: the engineer edited them (the task says so).
	LocationsEdited bool
	// Extra are the hypothesis_plan and hypothesis_git tools (agent/hypothesis);
	// without them the agent works SWE-agent style: reproduce, edit, submit.
	Extra []tool.Tool

	Bus      *event.Bus
	Gate     *event.Gate
	Approver event.Approver // asked for commands off the allow-list in ModeAsk
	Mode     ApprovalMode
	Allow    []string // extra allowed command prefixes

	MaxIterations  int // 0: DefaultMaxIterations
	MaxTokens      int
	MaxCost        float64
	Usage          *event.UsageInfo // accumulates across a resumed run; nil: own
	CommandTimeout time.Duration    // 0: DefaultTimeout
	CommandBudget  time.Duration    // all commands together; 0: no limit
	Sandbox        *sandbox.Policy  // confines the shell; nil: unconfined
	// GitDirs are the repository's git directories and .git entries
	// (vcs.Repo.GitPaths): the file tools refuse them by name, besides
	// anything that looks like a git directory.
	GitDirs []string
	// Unconfined says why the shell is not confined while the engineer did
	// not choose the approval mode: then no command runs without them (see
	// Permissions.Unconfined).
	Unconfined string
	Env        []string // the commands' environment; nil: CommandEnv(os.Environ(), nil, nil)
	Secrets    []string // values scrubbed from what the tools show, besides SecretValues(os.Environ())
	MaxOutput  int      // bytes of a command's output the model reads; 0: DefaultMaxOutput

	// History continues an earlier conversation (a resumed run); the agent
	// repairs an interrupted turn and adds ResumeNote.
	History []llm.Message
	// Rerun names calls of History's interrupted turn to run again before
	// the model is asked anything: those that waited on the engineer's
	// answer when the run stopped, so the question is put again.
	Rerun []string
	// Guard is asked before each tool call (see tool.Config.Guard).
	Guard func(ctx context.Context) error
	// Watch is called around each tool call (see tool.Config.Watch).
	Watch func(ctx context.Context, call llm.ToolCall) func(context.Context) error
	// Memo, when set, is what a conversation trimmed to fit the context
	// window must keep in view (the current hypothesis and its to-dos).
	Memo func() string
	// OnStep sees the conversation after every tool call, to save the
	// transcript as it grows. It runs on the agent's goroutine.
	OnStep func(msgs []llm.Message)
}

// Agent is one resolution.
type Agent struct {
	cfg    Config
	Shell  *Shell
	Editor *Editor
	tools  *tool.Registry
	loop   *tool.Loop
	rerun  []llm.ToolCall // interrupted calls to run again first
}

// Outcome is how the resolution ended.
type Outcome struct {
	tool.Result
	Submission *Submission // set when the agent called submit
}

// New builds the agent and its tools.
func New(cfg Config) (*Agent, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("resolution agent: no model")
	}
	ws, err := NewWorkspace(cfg.Workdir, cfg.GitDirs...)
	if err != nil {
		return nil, fmt.Errorf("resolution agent: %w", err)
	}
	if cfg.MaxIterations == 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	secrets := append(SecretValues(os.Environ()), cfg.Secrets...)
	limits := LimitsFor(llm.WindowOf(cfg.Model))
	a := &Agent{cfg: cfg, Editor: NewEditor(ws, secrets)}
	a.Editor.LimitView(limits.View)
	a.Shell = NewShell(ShellConfig{
		Workdir: ws.Root, Perm: Permissions{Mode: cfg.Mode, Workdir: ws.Root, Allow: cfg.Allow, Unconfined: cfg.Unconfined},
		Approver: cfg.Approver, Bus: cfg.Bus, Timeout: cfg.CommandTimeout, Budget: cfg.CommandBudget, Secrets: secrets,
		Sandbox: cfg.Sandbox, Env: cfg.Env, MaxOutput: limits.bash(cfg.MaxOutput),
	})
	a.tools = tool.NewRegistry(a.Shell.Tool(), a.Editor.Tool())
	for _, t := range cfg.Extra {
		a.tools.Add(t)
	}
	a.tools.Add(SubmitTool())
	msgs, rerun := a.opening()
	a.loop, a.rerun = tool.NewLoop(a.loopConfig(), msgs...), rerun
	return a, nil
}

func (a *Agent) loopConfig() tool.Config {
	return tool.Config{
		Agent: event.Resolver, Model: a.cfg.Model, Tools: a.tools, Bus: a.cfg.Bus, Gate: a.cfg.Gate,
		MaxIterations: a.cfg.MaxIterations, MaxTokens: a.cfg.MaxTokens, MaxCost: a.cfg.MaxCost, Usage: a.cfg.Usage,
		Memo: a.cfg.Memo, Guard: a.cfg.Guard, Watch: a.cfg.Watch, Paging: paging,
		AfterCall: func(context.Context, llm.ToolCall, tool.Output) {
			if a.cfg.OnStep != nil {
				a.cfg.OnStep(a.loop.Messages)
			}
		},
	}
}

// opening is the conversation the loop starts from: a fresh system prompt
// and task, or a resumed history with its loose ends tied, and the calls of
// its interrupted turn to run again (Run adds ResumeNote after them).
func (a *Agent) opening() ([]llm.Message, []llm.ToolCall) {
	if len(a.cfg.History) > 0 {
		return repairHistory(a.cfg.History, a.cfg.Rerun)
	}
	return []llm.Message{
		{Role: llm.System, Content: systemPrompt(a.tools.Names())},
		{Role: llm.User, Content: taskMessage(a.cfg.Issue, a.cfg.Files, a.cfg.Functions, a.cfg.LocationsEdited)},
	}, nil
}

// Messages is the conversation so far (read it when the agent is idle).
func (a *Agent) Messages() []llm.Message { return a.loop.Messages }

// Run drives the model until it submits, a limit ends the run, or ctx ends.
// The error is non-nil only when the model failed or the run was cancelled.
func (a *Agent) Run(ctx context.Context) (Outcome, error) {
	if len(a.cfg.History) > 0 {
		if err := a.loop.Rerun(ctx, a.rerun); err != nil {
			return Outcome{Result: tool.Result{Status: tool.Cancelled}}, err
		}
		a.loop.Messages = append(a.loop.Messages, llm.Message{Role: llm.User, Content: ResumeNote})
	}
	res, err := a.loop.Run(ctx)
	out := Outcome{Result: res}
	if s, ok := res.Last.Data.(Submission); ok && res.Status == tool.Submitted {
		out.Submission = &s
	}
	if a.cfg.OnStep != nil {
		a.cfg.OnStep(a.loop.Messages)
	}
	return out, err
}

// RepairHistory makes an interrupted conversation valid again: every tool
// call of the last assistant turn gets a tool message (those that never
// answered say so), and a trailing half turn is dropped.
func RepairHistory(msgs []llm.Message) []llm.Message {
	out, _ := repairHistory(msgs, nil)
	return out
}

// repairHistory is RepairHistory, except that the calls named in rerun
// lose any tool message the stop gave them and are returned, to be run
// again.
func repairHistory(msgs []llm.Message, rerun []string) ([]llm.Message, []llm.ToolCall) {
	out := append([]llm.Message(nil), msgs...)
	last := -1
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == llm.Assistant {
			last = i
			break
		}
	}
	if last < 0 {
		return out, nil
	}
	answered := map[string]bool{}
	kept := out[:last+1]
	for _, m := range out[last+1:] {
		if m.Role == llm.ToolRole && slices.Contains(rerun, m.ToolCallID) {
			continue // what the stop made of it: it runs again
		}
		if m.Role == llm.ToolRole {
			answered[m.ToolCallID] = true
		}
		kept = append(kept, m)
	}
	out = kept
	var again []llm.ToolCall
	for _, c := range out[last].ToolCalls {
		switch {
		case answered[c.ID]:
		case slices.Contains(rerun, c.ID):
			again = append(again, c)
		default:
			out = append(out, llm.Message{Role: llm.ToolRole, ToolCallID: c.ID, Name: c.Name,
				Content: "not known: the run stopped while this call was in flight; check its effect before repeating it"})
		}
	}
	return out, again
}
