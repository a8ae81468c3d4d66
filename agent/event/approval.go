package event

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// Decision is an answer to an approval request.
type Decision string

const (
	Approve Decision = "approve"
	Choose  Decision = "choose" // use Reply.Choice instead of what the agent asked for
	Refuse  Decision = "refuse" // Reply.Reason is what the agent reads
)

// ApprovalRequest asks the engineer (or a policy) before a revert or a merge.
type ApprovalRequest struct {
	// ID is unique within a run, a resumed run included: Ask gives a
	// request made without one its kind and the run's question number
	// ("locations-1", "bash-2", "revert-3", "locations-4").
	ID     string `json:"id"`
	Action string `json:"action"` // "revert_to" or "merge_solution" (or "bash" under --approve ask)
	// Target is what the agent asked for: "hypothesis/todo" for a revert, a branch for a merge.
	Target  string   `json:"target"`
	Summary string   `json:"summary"`           // one paragraph: what happens if approved
	Diff    string   `json:"diff,omitempty"`    // what changes: dropped checkpoint diff, or the branch's diff
	Report  string   `json:"report,omitempty"`  // compare report (merge)
	Options []string `json:"options,omitempty"` // alternatives the engineer may choose instead
	Reply   *Reply   `json:"reply,omitempty"`   // set on approval_done events

	reply chan Reply
	// answered is shared by the copies of a request (the approval_done
	// event carries one), so it is answered once whichever copy is used.
	answered *atomic.Bool
	// check vets an item the engineer adds to an answer; see SetCheck.
	check func(item string) error
}

// SetCheck lets the asker vet what the engineer adds to an answer before
// it is sent (for edit_locations: a location that names nothing in the
// repository is refused, with the reason). It is never saved.
func (r *ApprovalRequest) SetCheck(check func(item string) error) { r.check = check }

// Checks reports whether the asker set a check.
func (r *ApprovalRequest) Checks() bool { return r.check != nil }

// CheckItem vets one item the engineer adds; nil when the asker set no
// check. It may touch the file system: call it off the UI goroutine.
func (r *ApprovalRequest) CheckItem(item string) error {
	if r.check == nil {
		return nil
	}
	return r.check(item)
}

// Reply answers an ApprovalRequest.
type Reply struct {
	Decision Decision `json:"decision"`
	Choice   string   `json:"choice,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// NewApproval makes a request that can be answered exactly once. An empty
// id is filled in by Ask.
func NewApproval(id, action, target string) *ApprovalRequest {
	return &ApprovalRequest{ID: id, Action: action, Target: target, reply: make(chan Reply, 1), answered: new(atomic.Bool)}
}

// Answer resolves the request and reports whether this answer counts: only
// the first one does, so a double key press can neither block the UI nor
// answer twice.
func (r *ApprovalRequest) Answer(rep Reply) bool {
	if r.reply == nil || !r.answered.CompareAndSwap(false, true) {
		return false
	}
	r.reply <- rep // the one-slot buffer is empty: only one answer gets here
	return true
}

// Answered reports whether the request has its answer, from the screen or
// from a policy.
func (r *ApprovalRequest) Answered() bool { return r.answered != nil && r.answered.Load() }

// Same reports whether r and o are the same question: for live requests,
// the same reply channel (copies share it); for replayed ones, the same id.
func (r *ApprovalRequest) Same(o *ApprovalRequest) bool {
	switch {
	case r == nil || o == nil:
		return false
	case r.reply != nil || o.reply != nil:
		return r.reply == o.reply
	}
	return r.ID == o.ID
}

// Kind is the short name of an action in question ids.
func Kind(action string) string {
	switch action {
	case "edit_locations":
		return "locations"
	case "revert_to":
		return "revert"
	case "merge_solution":
		return "merge"
	}
	return action
}

// QuestionNumber is the run-wide number at the end of a question id
// ("revert-3": 3), or 0.
func QuestionNumber(id string) int {
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// LastQuestion is the highest question number among evs, so that a resumed
// run numbers its questions after those it asked before.
func LastQuestion(evs []Event) int {
	last := 0
	for _, e := range evs {
		if e.Approval != nil {
			last = max(last, QuestionNumber(e.Approval.ID))
		}
	}
	return last
}

// Wait blocks until the request is answered or ctx ends.
func (r *ApprovalRequest) Wait(ctx context.Context) (Reply, error) {
	if r.reply == nil {
		return Reply{}, fmt.Errorf("approval %s: request was not made with NewApproval", r.ID)
	}
	select {
	case rep := <-r.reply:
		return rep, nil
	case <-ctx.Done():
		return Reply{}, fmt.Errorf("approval %s: %w", r.ID, ctx.Err())
	}
}

// Approver decides approval requests. The TUI asks the engineer; headless
// runs use a Policy.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (Reply, error)
}

// Ask puts req to ap, telling the engineer through bus: an Approval event
// carries the request (the screen answers it there), and an ApprovalDone
// event records the reply. agent names who asks; a nil bus tells nobody.
func Ask(ctx context.Context, bus *Bus, agent string, ap Approver, req *ApprovalRequest) (Reply, error) {
	emit := func(e Event) {
		if bus != nil {
			e.Agent = agent
			bus.Emit(e)
		}
	}
	if req.ID == "" {
		req.ID = bus.question(Kind(req.Action))
	}
	emit(Event{Type: Approval, Approval: req})
	rep, err := ap.Approve(ctx, req)
	if err != nil {
		return rep, err
	}
	if req.answered != nil {
		req.answered.Store(true) // a policy's answer: the screen's key no longer counts
	}
	done := *req
	done.Reply = &rep
	emit(Event{Type: ApprovalDone, Approval: &done})
	return rep, nil
}

// Policy answers every request the same way, for headless runs.
type Policy Decision

// Approve implements Approver.
func (p Policy) Approve(_ context.Context, req *ApprovalRequest) (Reply, error) {
	if Decision(p) == Refuse {
		return Reply{Decision: Refuse, Reason: "refused by the run's approval policy (--approve deny); continue without this " + req.Action}, nil
	}
	return Reply{Decision: Approve}, nil
}
