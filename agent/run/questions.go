package run

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

// asked is what the events of a run being resumed say about the questions
// it put to the engineer, so that the resumed run asks again what was never
// answered, and what was refused when it stopped.
type asked struct {
	last int // the highest question number: new ones continue from it
	// locations: a ranking was approved or edited; refused are the
	// rankings refused, with the reasons, for the localizer's notes.
	locations bool
	refused   []refusedRanking
	// pending are the resolver's tool calls whose question was never
	// answered (the stop ended them, answered or not): they run again, and
	// so ask again.
	pending []string
	// merge is the branch of a merge the engineer refused, with nothing
	// merged after it: the run ended on that refusal.
	merge string
	allow []string // command prefixes the engineer allowed for the run
}

// readAsked reads the questions of a run's events.jsonl.
func readAsked(runDir string) asked {
	path := filepath.Join(runDir, runfolder.EventsFile)
	f, err := os.Open(path)
	if err != nil {
		return asked{}
	}
	defer f.Close()
	evs, _ := runfolder.ReadEvents(f, path) // what could be read: a crash may cut the last line
	return askedIn(evs)
}

func askedIn(evs []event.Event) asked {
	a := asked{last: event.LastQuestion(evs)}
	callOf := map[string]string{} // question id → the resolver call that asked it
	waiting := map[string]bool{}  // calls whose last question has no answer
	current := ""
	for _, e := range evs {
		switch {
		case e.Type == event.ToolCall && e.Agent == event.Resolver && e.Tool != nil:
			current = e.Tool.CallID
			delete(waiting, current) // run again: its earlier question is superseded
		case e.Type == event.Approval && e.Approval != nil && e.Agent == event.Resolver:
			callOf[e.Approval.ID] = current
			waiting[current] = true
		case e.Type == event.ApprovalDone && e.Approval != nil && e.Approval.Reply != nil:
			delete(waiting, callOf[e.Approval.ID])
			a.answered(*e.Approval)
		case e.Type == event.Plan && e.Plan != nil && e.Plan.Merged != "":
			a.merge = ""
		}
	}
	for call := range waiting {
		if call != "" {
			a.pending = append(a.pending, call)
		}
	}
	slices.Sort(a.pending)
	return a
}

// answered notes one answer.
func (a *asked) answered(q event.ApprovalRequest) {
	rep := q.Reply
	switch q.Action {
	case EditLocationsAction:
		if rep.Decision == event.Refuse {
			a.refused = append(a.refused, refusedRanking{reason: nonEmpty(rep.Reason, "no reason given"), locs: q.Options})
		} else {
			a.locations = true
		}
	case "merge_solution":
		a.merge = ""
		if rep.Decision == event.Refuse {
			a.merge = q.Target
		}
	case "bash":
		if p, ok := strings.CutPrefix(rep.Choice, "always:"); ok && rep.Decision == event.Choose {
			a.allow = append(a.allow, strings.TrimSpace(p))
		}
	}
}
