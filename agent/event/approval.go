package event

import (
	"context"
	"fmt"
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
}

// Reply answers an ApprovalRequest.
type Reply struct {
	Decision Decision `json:"decision"`
	Choice   string   `json:"choice,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// NewApproval makes a request that can be answered exactly once.
func NewApproval(id, action, target string) *ApprovalRequest {
	return &ApprovalRequest{ID: id, Action: action, Target: target, reply: make(chan Reply, 1)}
}

// Answer resolves the request. Only the first answer counts; later ones are
// ignored so a double key press cannot block the UI.
func (r *ApprovalRequest) Answer(rep Reply) {
	if r.reply == nil {
		return
	}
	select {
	case r.reply <- rep:
	default:
	}
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
	emit(Event{Type: Approval, Approval: req})
	rep, err := ap.Approve(ctx, req)
	if err != nil {
		return rep, err
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
