package memory

import (
	"fmt"
	"strconv"
	"time"
)

// Version is the schema version this package writes; Load refuses newer files.
const Version = 1

// Memory is the whole working memory of one resolution run.
type Memory struct {
	Version    int           `json:"version"`
	RunID      string        `json:"run_id"`
	Revision   int           `json:"revision"`           // bumped by every change, for observers
	Original   string        `json:"original,omitempty"` // hash of the original code state
	Base       string        `json:"base,omitempty"`     // hash of the common working base
	Current    string        `json:"current,omitempty"`  // id of the current hypothesis
	Merged     string        `json:"merged,omitempty"`   // branch merged as the solution
	Solution   string        `json:"solution,omitempty"` // the commit of the merged solution on the original state
	Hypotheses []*Hypothesis `json:"hypotheses"`         // confidence order; dropped ones last
	NextID     int           `json:"next_id"`            // next hypothesis number; ids are never reused

	// Now stamps insights; tests replace it. Nil means time.Now.
	Now func() time.Time `json:"-"`
}

// Hypothesis is one candidate solution.
type Hypothesis struct {
	ID       string    `json:"id"` // "h1", "h2", …
	Content  string    `json:"content"`
	Status   Status    `json:"status"`
	Branch   string    `json:"branch,omitempty"`
	Dropped  bool      `json:"dropped,omitempty"` // left out of the model's last list but kept for its work
	Todos    []*Todo   `json:"todos"`             // plan order; dropped ones last
	Insights []Insight `json:"insights"`
	NextTodo int       `json:"next_todo"` // next to-do number; ids are never reused
}

// Todo is one step of a hypothesis's plan and, once committed, its checkpoint.
type Todo struct {
	ID      string `json:"id"` // "t1", "t2", … within its hypothesis
	Content string `json:"content"`
	Status  Status `json:"status"`
	Hash    string `json:"hash,omitempty"`    // checkpoint commit
	Parent  string `json:"parent,omitempty"`  // its parent commit
	Message string `json:"message,omitempty"` // its commit message
	Stat    string `json:"stat,omitempty"`    // "2 files changed, 5 insertions(+), 1 deletion(-)"
	Dropped bool   `json:"dropped,omitempty"` // left out of the model's last list but kept for its checkpoint
}

// Insight is a lesson logged for a hypothesis.
type Insight struct {
	Text string    `json:"text"`
	Time time.Time `json:"time"`
}

// Checkpoint is the commit made for a completed to-do.
type Checkpoint struct {
	Hash    string
	Parent  string
	Message string
	Stat    string
}

// New returns an empty memory for a run.
func New(runID string) *Memory {
	return &Memory{Version: Version, RunID: runID, NextID: 1, Hypotheses: []*Hypothesis{}}
}

// HasCheckpoint reports whether the to-do was committed.
func (t *Todo) HasCheckpoint() bool { return t.Hash != "" }

// HasWork reports whether dropping the hypothesis would lose something: a branch, insights or
// a checkpoint.
func (h *Hypothesis) HasWork() bool {
	if h.Branch != "" || len(h.Insights) > 0 {
		return true
	}
	for _, t := range h.Todos {
		if t.HasCheckpoint() {
			return true
		}
	}
	return false
}

// Active returns the hypotheses of the model's last list, in confidence order.
func (m *Memory) Active() []*Hypothesis {
	var out []*Hypothesis
	for _, h := range m.Hypotheses {
		if !h.Dropped {
			out = append(out, h)
		}
	}
	return out
}

// ActiveTodos returns the to-dos of the model's last list, in plan order.
func (h *Hypothesis) ActiveTodos() []*Todo {
	var out []*Todo
	for _, t := range h.Todos {
		if !t.Dropped {
			out = append(out, t)
		}
	}
	return out
}

// Hypothesis returns the hypothesis with the id, or nil.
func (m *Memory) Hypothesis(id string) *Hypothesis {
	for _, h := range m.Hypotheses {
		if h.ID == id {
			return h
		}
	}
	return nil
}

// Todo returns the to-do with the id, or nil.
func (h *Hypothesis) Todo(id string) *Todo {
	for _, t := range h.Todos {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// CurrentHypothesis returns the current hypothesis, or nil when none is.
func (m *Memory) CurrentHypothesis() *Hypothesis {
	if m.Current == "" {
		return nil
	}
	return m.Hypothesis(m.Current)
}

// Clone returns a deep copy that shares no data with m (only the Now clock).
func (m *Memory) Clone() *Memory {
	c := *m
	c.Hypotheses = make([]*Hypothesis, len(m.Hypotheses))
	for i, h := range m.Hypotheses {
		hc := *h
		hc.Todos = make([]*Todo, len(h.Todos))
		for j, t := range h.Todos {
			tc := *t
			hc.Todos[j] = &tc
		}
		hc.Insights = append([]Insight(nil), h.Insights...)
		if hc.Insights == nil {
			hc.Insights = []Insight{}
		}
		c.Hypotheses[i] = &hc
	}
	return &c
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Memory) changed() { m.Revision++ }

func (m *Memory) newHypothesis(content string, status Status) *Hypothesis {
	if m.NextID < 1 {
		m.NextID = 1
	}
	h := &Hypothesis{ID: "h" + strconv.Itoa(m.NextID), Content: content, Status: status,
		Todos: []*Todo{}, Insights: []Insight{}, NextTodo: 1}
	m.NextID++
	return h
}

func (h *Hypothesis) newTodo(content string, status Status) *Todo {
	if h.NextTodo < 1 {
		h.NextTodo = 1
	}
	t := &Todo{ID: "t" + strconv.Itoa(h.NextTodo), Content: content, Status: status}
	h.NextTodo++
	return t
}

// SetBase records the original code state and the common working base (init_base).
func (m *Memory) SetBase(original, base string) error {
	if original == "" || base == "" {
		return fmt.Errorf("set base: both hashes are required (original %q, base %q)", original, base)
	}
	m.Original, m.Base = original, base
	m.changed()
	return nil
}

// SetCurrent makes the hypothesis named by ref (see FindHypothesis) the current one.
func (m *Memory) SetCurrent(ref string) error {
	h, err := m.FindHypothesis(ref)
	if err != nil {
		return fmt.Errorf("set current hypothesis: %w", err)
	}
	if m.Current != h.ID {
		m.Current = h.ID
		m.changed()
	}
	return nil
}

// SetBranch records the branch of the hypothesis with the id. A branch belongs to one hypothesis.
func (m *Memory) SetBranch(id, branch string) error {
	h := m.Hypothesis(id)
	if h == nil {
		return fmt.Errorf("set branch %q: %w", branch, m.unknownHypothesis(id))
	}
	if branch == "" {
		return fmt.Errorf("set branch of %s: empty branch name", id)
	}
	for _, o := range m.Hypotheses {
		if o != h && o.Branch == branch {
			return fmt.Errorf("set branch of %s: branch %q already belongs to %s %q", id, branch, o.ID, clip(o.Content, 60))
		}
	}
	h.Branch = branch
	m.changed()
	return nil
}

// SetMerged records the branch merged onto the original state as the
// solution, and the solution's commit.
func (m *Memory) SetMerged(branch, solution string) error {
	if branch == "" {
		return fmt.Errorf("set merged: empty branch name")
	}
	m.Merged, m.Solution = branch, solution
	m.changed()
	return nil
}

// SetCheckpoint stores the commit made for a to-do (commit_todo). A to-do that was pending or in
// progress becomes successful, since committing it says the step is done; a failed one stays failed.
func (m *Memory) SetCheckpoint(hypID, todoID string, cp Checkpoint) error {
	h := m.Hypothesis(hypID)
	if h == nil {
		return fmt.Errorf("set checkpoint %s: %w", short(cp.Hash), m.unknownHypothesis(hypID))
	}
	t := h.Todo(todoID)
	if t == nil {
		return fmt.Errorf("set checkpoint %s: %w", short(cp.Hash), unknownTodo(h, todoID))
	}
	if cp.Hash == "" {
		return fmt.Errorf("set checkpoint of %s/%s: empty commit hash", hypID, todoID)
	}
	t.Hash, t.Parent, t.Message, t.Stat = cp.Hash, cp.Parent, cp.Message, cp.Stat
	if t.Status != Failed {
		t.Status = Succeeded
	}
	m.changed()
	return nil
}

// AddHypothesis appends a new hypothesis after the listed ones (for tools that create one, such as
// revert_to); the model's next update_hypothesis list places it.
func (m *Memory) AddHypothesis(content string, status Status) (*Hypothesis, error) {
	content = normSpace(content)
	if content == "" {
		return nil, fmt.Errorf("add hypothesis: empty content")
	}
	if !status.Valid() {
		return nil, fmt.Errorf("add hypothesis %q: %s", clip(content, 60), status)
	}
	h := m.newHypothesis(content, status)
	m.Hypotheses = insertBeforeDropped(m.Hypotheses, h, func(x *Hypothesis) bool { return x.Dropped })
	m.changed()
	return h, nil
}

// AddTodo appends a to-do to the hypothesis with the id (for a commit_todo naming a step the plan
// lacks).
func (m *Memory) AddTodo(hypID, content string, status Status) (*Todo, error) {
	h := m.Hypothesis(hypID)
	if h == nil {
		return nil, fmt.Errorf("add to-do: %w", m.unknownHypothesis(hypID))
	}
	content = normSpace(content)
	if content == "" {
		return nil, fmt.Errorf("add to-do to %s: empty content", hypID)
	}
	if !status.Valid() {
		return nil, fmt.Errorf("add to-do %q: %s", clip(content, 60), status)
	}
	t := h.newTodo(content, status)
	h.Todos = insertBeforeDropped(h.Todos, t, func(x *Todo) bool { return x.Dropped })
	m.changed()
	return t, nil
}

func insertBeforeDropped[T any](list []T, x T, dropped func(T) bool) []T {
	i := len(list)
	for i > 0 && dropped(list[i-1]) {
		i--
	}
	list = append(list, x)
	copy(list[i+1:], list[i:])
	list[i] = x
	return list
}

// LogInsight attaches an insight to the current hypothesis (log_insight).
func (m *Memory) LogInsight(text string) (Insight, error) {
	h := m.CurrentHypothesis()
	if h == nil {
		return Insight{}, fmt.Errorf("log insight: no current hypothesis; start one (start_hypothesis) or update its to-dos first")
	}
	return m.LogInsightTo(h.ID, text)
}

// LogInsightTo attaches an insight to the hypothesis with the id.
func (m *Memory) LogInsightTo(hypID, text string) (Insight, error) {
	h := m.Hypothesis(hypID)
	if h == nil {
		return Insight{}, fmt.Errorf("log insight: %w", m.unknownHypothesis(hypID))
	}
	text = trimBlock(text)
	if text == "" {
		return Insight{}, fmt.Errorf("log insight for %s: empty insight", hypID)
	}
	in := Insight{Text: text, Time: m.now().UTC()}
	h.Insights = append(h.Insights, in)
	m.changed()
	return in, nil
}

func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}
