package export

import (
	"runtime/debug"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
)

// Trajectory is an SWE-agent-style trajectory (.traj) of one run.
type Trajectory struct {
	Trajectory  []Step         `json:"trajectory"`
	History     []HistoryEntry `json:"history"`
	Info        Info           `json:"info"`
	Environment string         `json:"environment"`
}

// Step is one tool call and what it returned.
type Step struct {
	Action        string         `json:"action"`
	Observation   string         `json:"observation"`
	Response      string         `json:"response"`
	Thought       string         `json:"thought"`
	ExecutionTime float64        `json:"execution_time"`
	State         map[string]any `json:"state"`
	Agent         string         `json:"agent"`
	Tool          string         `json:"tool"`
	Failed        bool           `json:"failed,omitempty"`
}

// HistoryEntry is one chat message, tagged with the agent whose context
// window it belongs to.
type HistoryEntry struct {
	Role        string         `json:"role"`
	Content     string         `json:"content"`
	Agent       string         `json:"agent"`
	MessageType string         `json:"message_type"`
	ToolCalls   []HistoryCall  `json:"tool_calls,omitempty"`
	ToolCallIDs []string       `json:"tool_call_ids,omitempty"`
	Extra       map[string]any `json:"extra_info,omitempty"`
}

// HistoryCall is a tool call in OpenAI's message shape.
type HistoryCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Info is the run's outcome.
type Info struct {
	ExitStatus      string     `json:"exit_status"`
	Submission      string     `json:"submission"`
	ModelStats      ModelStats `json:"model_stats"`
	SweAdeptVersion string     `json:"swe_adept_version"`
	Model           string     `json:"model_name"`
	InstanceID      string     `json:"instance_id"`
	RunID           string     `json:"run_id"`
	Seconds         float64    `json:"duration_seconds"`
	Locations       []string   `json:"edit_locations,omitempty"`
}

// ModelStats is token and cost accounting. InstanceCost is 0 with Priced
// false when a model had no price: read it as unknown, not free.
type ModelStats struct {
	InstanceCost   float64 `json:"instance_cost"`
	TokensSent     int     `json:"tokens_sent"`
	TokensReceived int     `json:"tokens_received"`
	APICalls       int     `json:"api_calls"`
	Priced         bool    `json:"priced"`
}

// Version is this build's version for the trajectory's info: the module
// version when built from a release, else "dev" with the commit it was
// built from when the build recorded one.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "dev"
	case dirty:
		return "dev+" + rev + "-dirty"
	}
	return "dev+" + rev
}

// SWEAgent builds the trajectory: steps from the events (tool calls paired
// with their results), history from the transcript (or, without one, from
// the events), info from the summary, the Done event and the patch.
func SWEAgent(r *Run, instanceID string) Trajectory {
	if instanceID == "" {
		instanceID = r.InstanceID()
	}
	t := Trajectory{
		Trajectory:  steps(r.Events),
		History:     history(r),
		Environment: "swe-adept",
	}
	u := r.Usage()
	t.Info = Info{
		ExitStatus: r.ExitStatus(),
		Submission: r.Patch,
		ModelStats: ModelStats{InstanceCost: u.Cost, TokensSent: u.PromptTokens,
			TokensReceived: u.CompletionTokens, APICalls: u.Calls, Priced: u.Priced},
		SweAdeptVersion: Version(),
		Model:           r.Model(),
		InstanceID:      instanceID,
		RunID:           r.ID(),
		Seconds:         r.seconds(),
	}
	if r.Locations != nil {
		t.Info.Locations = r.Locations.Functions
	}
	if t.Trajectory == nil {
		t.Trajectory = []Step{}
	}
	if t.History == nil {
		t.History = []HistoryEntry{}
	}
	return t
}

func (r *Run) seconds() float64 {
	if r.Summary != nil && r.Summary.Seconds > 0 {
		return r.Summary.Seconds
	}
	if d := r.done(); d != nil {
		return d.Seconds
	}
	return 0
}

// steps pairs each tool call with its result: by call id, else the oldest
// open call of the same agent and tool.
func steps(evs []event.Event) []Step {
	b := stepBuilder{thought: map[string]string{}, state: map[string]any{}}
	for _, e := range evs {
		b.add(e)
	}
	return b.out
}

type stepBuilder struct {
	out     []Step
	calls   []event.Event     // the call of each step, aligned with out
	open    []int             // steps still waiting for their result
	thought map[string]string // agent -> reply text not yet used
	state   map[string]any
}

func (b *stepBuilder) add(e event.Event) {
	switch e.Type {
	case event.RunStarted:
		if e.Run != nil {
			b.state["working_dir"] = e.Run.Workdir
		}
	case event.PhaseChanged:
		b.state["phase"] = e.Phase
	case event.Plan:
		if e.Plan != nil {
			b.state["hypothesis"] = e.Plan.Current
		}
	case event.ModelReply:
		b.thought[e.Agent] = strings.TrimSpace(e.Text)
	case event.ToolCall:
		if e.Tool != nil {
			b.call(e)
		}
	case event.ToolResult:
		if e.Tool != nil {
			b.result(e)
		}
	}
}

func (b *stepBuilder) call(e event.Event) {
	th := strings.TrimSpace(e.Tool.Thought)
	if th == "" {
		th = b.thought[e.Agent]
	}
	b.thought[e.Agent] = ""
	b.out = append(b.out, newStep(e, th, b.state))
	b.calls = append(b.calls, e)
	b.open = append(b.open, len(b.out)-1)
}

func (b *stepBuilder) result(e event.Event) {
	i := b.match(e)
	if i < 0 {
		b.out = append(b.out, newStep(e, "", b.state))
		b.calls = append(b.calls, e)
		i = len(b.out) - 1
	} else if d := e.Time.Sub(b.calls[i].Time); d > 0 && !b.calls[i].Time.IsZero() {
		b.out[i].ExecutionTime = d.Seconds()
	}
	b.out[i].Observation = e.Tool.Observation
	b.out[i].Failed = e.Tool.Failed
}

// match finds and closes the open call a result answers, or returns -1.
func (b *stepBuilder) match(e event.Event) int {
	pick := -1
	for k, i := range b.open {
		c := b.calls[i]
		if c.Tool.CallID != "" && c.Tool.CallID == e.Tool.CallID {
			pick = k
			break
		}
		if pick < 0 && c.Agent == e.Agent && c.Tool.Name == e.Tool.Name {
			pick = k
		}
	}
	if pick < 0 {
		return -1
	}
	i := b.open[pick]
	b.open = append(b.open[:pick], b.open[pick+1:]...)
	return i
}

func newStep(e event.Event, thought string, state map[string]any) Step {
	action := Action(e.Tool.Name, e.Tool.Arguments)
	resp := action
	if thought != "" {
		resp = thought + "\n\n```\n" + action + "\n```"
	}
	st := map[string]any{"agent": e.Agent}
	for k, v := range state {
		st[k] = v
	}
	return Step{Action: action, Response: resp, Thought: thought, State: st, Agent: e.Agent, Tool: e.Tool.Name}
}
