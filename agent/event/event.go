// Package event holds what the agents tell the outside world: typed events
// sent on a channel, approval requests that block an agent until someone
// answers, and the gate that lets an engineer pause, step and leave notes.
// The TUI draws events, headless mode writes them as JSON lines, and a run's
// events.jsonl keeps them for replay.
package event

import "time"

// Type names an event. The string values are stable: they are written to
// events.jsonl and read back by replay.
type Type string

const (
	RunStarted    Type = "run_started"    // Run
	PhaseChanged  Type = "phase"          // Phase: "index", "localize", "filter", "resolve", "done"
	IndexProgress Type = "index_progress" // Progress
	ModelCall     Type = "model_call"     // model call started (spinner on)
	ModelReply    Type = "model_reply"    // Text (assistant content, may be empty), Usage
	Delta         Type = "delta"          // Text, Delta: the model's words as they stream; published only, never saved
	ToolCall      Type = "tool_call"      // Tool (Observation empty: started)
	ToolResult    Type = "tool_result"    // Tool with Observation and Summary
	SearchNode    Type = "search_node"    // Node: a unit entered the DFS tree
	Shortlist     Type = "shortlist"      // Ranking: stage 1
	Ranked        Type = "ranked"         // Ranking: stage 2, the final locations
	Plan          Type = "plan"           // Plan: hypotheses/to-dos/insights changed (whole snapshot)
	Checkpoint    Type = "checkpoint"     // Checkpoint made by commit_todo
	Diff          Type = "diff"           // Diff available (checkpoint vs parent, hypothesis vs original, final patch)
	Approval      Type = "approval"       // Approval requested (Approval set; reply through its channel)
	ApprovalDone  Type = "approval_done"  // Approval answered (Approval.Reply set)
	Message       Type = "message"        // Text: a note for the activity log (engineer notes, runtime notices)
	Usage         Type = "usage"          // Usage totals per agent
	Error         Type = "error"          // Text: an error the run survived or ended with
	Retry         Type = "retry"          // Retry, Text: a model call failed and will be tried again
	Done          Type = "done"           // Done: the run ended
)

// Agent names which agent an event belongs to.
const (
	Localizer = "localize"
	Resolver  = "resolve"
	Runtime   = "runtime"
)

// Event is one thing that happened in a run. Exactly the payload fields its
// Type documents are set; the rest stay nil so events.jsonl stays small.
type Event struct {
	Seq   int       `json:"seq"`
	Time  time.Time `json:"time"`
	Type  Type      `json:"type"`
	Agent string    `json:"agent,omitempty"`

	Text       string           `json:"text,omitempty"`
	Phase      string           `json:"phase,omitempty"`
	Run        *RunInfo         `json:"run,omitempty"`
	Progress   *Progress        `json:"progress,omitempty"`
	Tool       *ToolStep        `json:"tool,omitempty"`
	Node       *Node            `json:"node,omitempty"`
	Ranking    *Ranking         `json:"ranking,omitempty"`
	Plan       *PlanSnapshot    `json:"plan,omitempty"`
	Checkpoint *CheckpointInfo  `json:"checkpoint,omitempty"`
	Diff       *DiffInfo        `json:"diff,omitempty"`
	Approval   *ApprovalRequest `json:"approval,omitempty"`
	Usage      *UsageInfo       `json:"usage,omitempty"`
	Retry      *RetryInfo       `json:"retry,omitempty"`
	Done       *DoneInfo        `json:"done,omitempty"`
	Delta      *DeltaInfo       `json:"delta,omitempty"`
}

// Terminal reports whether an event must never be dropped by a lossy
// consumer: approvals block an agent, and done/error end a run.
func (e Event) Terminal() bool {
	return e.Type == Approval || e.Type == Done || e.Type == Error || e.Type == ApprovalDone
}

// Ephemeral reports whether an event is only published: a streamed delta,
// which the ModelReply that follows supersedes. It gets no number, is not
// written to events.jsonl, and a run replays without it.
func (e Event) Ephemeral() bool { return e.Type == Delta }

// DeltaInfo is a piece of a model's answer as it streams; the answer's
// words are in the event's Text.
type DeltaInfo struct {
	Reasoning string `json:"reasoning,omitempty"` // the next words of the model's reasoning
	Restart   bool   `json:"restart,omitempty"`   // the call started over: forget the pieces before
}

// RunInfo describes the run at its start.
type RunInfo struct {
	ID       string `json:"id"`
	Repo     string `json:"repo"`
	Workdir  string `json:"workdir"` // where the agents work (a linked worktree by default)
	Issue    string `json:"issue"`
	Model    string `json:"model"`
	Localize string `json:"localize_model,omitempty"`
	// Unconfined says why the agent's commands are not confined; "" when
	// they are. The screen keeps it in view for the whole run.
	Unconfined string `json:"unconfined,omitempty"`
}

// Progress is long work's progress (indexing).
type Progress struct {
	Done  int    `json:"done"`
	Total int    `json:"total"`
	What  string `json:"what,omitempty"`
}

// ToolStep is one tool call and, once it ran, its observation.
type ToolStep struct {
	CallID      string `json:"call_id"`
	Name        string `json:"name"`
	Arguments   string `json:"arguments"` // raw JSON as the model sent it
	Thought     string `json:"thought,omitempty"`
	Observation string `json:"observation,omitempty"`
	Summary     string `json:"summary,omitempty"` // one line for the activity pane
	Failed      bool   `json:"failed,omitempty"`  // a malformed call or a tool-level error
	Iteration   int    `json:"iteration"`
}

// Node is a unit that entered the localization DFS tree.
type Node struct {
	ID      string `json:"id"`               // unit id, path:Qualified.name
	Parent  string `json:"parent,omitempty"` // unit whose preview listed it; "" for a root
	Kind    string `json:"kind"`
	Preview string `json:"preview"`         // one line
	Query   string `json:"query,omitempty"` // for roots: the entry-point search that found it
	Depth   int    `json:"depth"`
	DeadEnd bool   `json:"dead_end,omitempty"` // the agent backtracked without finding anything useful below
}

// Ranking is a list of locations, best first.
type Ranking struct {
	Files     []string `json:"files"`
	Functions []string `json:"functions"` // path:Qualified.name
	Reasons   []string `json:"reasons,omitempty"`
}

// PlanSnapshot is the whole visible state of the working memory after a change.
type PlanSnapshot struct {
	Current    string       `json:"current,omitempty"` // current hypothesis id
	Hypotheses []Hypothesis `json:"hypotheses"`
	Original   string       `json:"original,omitempty"` // hash of the original state
	Base       string       `json:"base,omitempty"`     // hash of the common working base
	Merged     string       `json:"merged,omitempty"`   // branch merged as the solution
}

// Hypothesis as shown to the engineer.
type Hypothesis struct {
	ID       string   `json:"id"`
	Content  string   `json:"content"`
	Status   string   `json:"status"` // " ", "-", "v", "!"
	Branch   string   `json:"branch,omitempty"`
	Todos    []Todo   `json:"todos,omitempty"`
	Insights []string `json:"insights,omitempty"`
}

// Todo as shown to the engineer.
type Todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
	Commit  string `json:"commit,omitempty"` // checkpoint hash
	Message string `json:"message,omitempty"`
	Stat    string `json:"stat,omitempty"` // "2 files changed, 5 insertions(+), 1 deletion(-)"
}

// CheckpointInfo is a commit made for a completed to-do.
type CheckpointInfo struct {
	Hypothesis string `json:"hypothesis"`
	Todo       string `json:"todo"`
	Hash       string `json:"hash"`
	Parent     string `json:"parent"`
	Branch     string `json:"branch"`
	Message    string `json:"message"`
	Stat       string `json:"stat"`
}

// DiffInfo is a unified diff between two states.
type DiffInfo struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"` // what the engineer reads: "checkpoint 3f2a1c (fix parser)", "final patch"
	Patch string `json:"patch"`
	Stat  string `json:"stat"`
}

// UsageInfo is token and cost accounting for one agent.
type UsageInfo struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Calls            int     `json:"calls"`
	Cost             float64 `json:"cost"`
	Priced           bool    `json:"priced"` // false: the model has no price; show "unpriced", never $0
	CachedTokens     int     `json:"cached_tokens,omitempty"`
	// Context is the size of the last call (prompt and reply), Window the
	// model's context window when known: how full the context is.
	Context int `json:"context,omitempty"`
	Window  int `json:"window,omitempty"`
}

// RetryInfo is a model call waiting to be tried again.
type RetryInfo struct {
	Attempt     int       `json:"attempt"`          // the attempt that failed
	Status      int       `json:"status,omitempty"` // its HTTP status; 0 for a connection failure
	WaitSeconds float64   `json:"wait_seconds"`
	Until       time.Time `json:"until"`
}

// DoneInfo ends a run.
type DoneInfo struct {
	Status     string  `json:"status"`          // submitted, exit_cost, exit_context, exit_format, exit_error, cancelled, ...
	Patch      string  `json:"patch,omitempty"` // path of the saved patch
	RunDir     string  `json:"run_dir,omitempty"`
	Seconds    float64 `json:"seconds"`
	Tokens     int     `json:"tokens"`
	Cost       float64 `json:"cost"`
	Priced     bool    `json:"priced"`
	Report     string  `json:"report,omitempty"` // markdown
	FilesFound int     `json:"files_found,omitempty"`
}
