package run

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/localize/heuristic"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
	"github.com/swe-adept/swe-adept/index/search"
)

func call(name string, args map[string]any) llm.Turn {
	b, _ := json.Marshal(args)
	return llm.Turn{ToolCalls: []llm.ScriptCall{{Name: name, Arguments: b}}}
}

// TestStatusNamesWhatWasMerged: a run that worked with hypotheses ends
// "submitted" only with a merged solution; a refused merge, whatever the
// agent says when it submits, ends "submitted_unmerged", and --apply
// applies nothing then and says so. An empty patch never ends "submitted".
func TestStatusNamesWhatWasMerged(t *testing.T) {
	needPython(t)
	edit := call("str_replace_editor", map[string]any{"command": "str_replace", "path": "inventory/pricing.py",
		"old_str": "    return round_cents(price - price * percent)", "new_str": "    return round_cents(price - price * percent / 100)"})
	work := []llm.Turn{
		call("init_base", map[string]any{}),
		call("update_hypothesis", map[string]any{"hypotheses_markdown": "- [-] apply_discount must divide percent by 100"}),
		call("start_hypothesis", map[string]any{"branch_name": "divide"}),
		call("update_todo", map[string]any{"current_hypothesis": "h1", "todos_markdown": "- [-] Divide by 100"}),
		edit,
		call("commit_todo", map[string]any{"todo_content": "t1", "commit_message": "Divide by 100"}),
		call("update_hypothesis", map[string]any{"hypotheses_markdown": "- [v] apply_discount must divide percent by 100"}),
		call("merge_solution", map[string]any{"branch_name": "divide"}),
	}
	tests := []struct {
		name, approve, summary, want string
		turns                        []llm.Turn
		applied                      bool
	}{
		{"merged", "auto", "divided by 100", "submitted", work, true},
		{"merge refused, submitted anyway", "deny", "divided by 100", runfolder.SubmittedUnmerged, work, false},
		{"merge refused, and the agent says so", "deny", "the engineer refused the merge; the branch divide holds the fix", runfolder.SubmittedUnmerged, work, false},
		{"nothing changed", "auto", "nothing to fix", runfolder.SubmittedEmpty, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turns := append(append([]llm.Turn{}, tc.turns...), call("submit", map[string]any{"summary": tc.summary}))
			repo, _ := sampleRepo(t)
			r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Approve: tc.approve, Apply: true,
				ResolveModel: llm.NewScripted(&llm.Script{Turns: turns}), Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}}})
			if err != nil {
				t.Fatal(err)
			}
			sum, _ := r.Wait()
			if sum.Status != tc.want {
				t.Fatalf("status %s, want %s (%s)", sum.Status, tc.want, sum.Message)
			}
			if tc.want == runfolder.SubmittedUnmerged && sum.Merged != "" {
				t.Errorf("merged %q with status %s", sum.Merged, sum.Status)
			}
			changed := strings.Contains(git(t, repo, "status", "--porcelain"), "inventory/pricing.py")
			if sum.Applied != tc.applied || changed != tc.applied {
				t.Errorf("applied %v, checkout changed %v; want %v (%s)", sum.Applied, changed, tc.applied, sum.Message)
			}
			if !tc.applied && !strings.Contains(sum.Message, "nothing applied") {
				t.Errorf("the summary does not say --apply applied nothing: %s", sum.Message)
			}
		})
	}
}

// TestRefusedLocationsGoBackToTheLocalizer: refusing the ranking with a
// reason localizes again with that reason in the localizer's task, and
// resolution starts only on a ranking the engineer accepted.
func TestRefusedLocationsGoBackToTheLocalizer(t *testing.T) {
	needPython(t)
	repo, _ := sampleRepo(t)
	var seen []string
	loc := &recordingModel{inner: heuristic.New, seen: &seen}
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Approve: "ask", ResolveModel: script(t, "resolve.json"),
		Localizer: loc.build})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for e := range r.Events() {
		if e.Type != event.Approval {
			continue
		}
		if e.Approval.Action == EditLocationsAction {
			asked++
			if asked == 1 {
				e.Approval.Answer(event.Reply{Decision: event.Refuse, Reason: "the bug is in how the cart calls it"})
				continue
			}
		}
		e.Approval.Answer(event.Reply{Decision: event.Approve})
	}
	sum, _ := r.Wait()
	if asked != 2 {
		t.Fatalf("the ranking was put to the engineer %d times, want 2", asked)
	}
	found := false
	for _, s := range seen {
		found = found || strings.Contains(s, "the bug is in how the cart calls it")
	}
	if !found {
		t.Errorf("the refusal's reason never reached the localizer")
	}
	if sum.Status == "" {
		t.Error("no status")
	}
}

// recordingModel wraps the offline localizer and keeps the first user
// message of each conversation it sees.
type recordingModel struct {
	inner func(*index.Index, *search.Searcher) *heuristic.Heuristic
	m     llm.Model
	seen  *[]string
}

func (r *recordingModel) build(ix *index.Index) (llm.Model, string, error) {
	r.m = r.inner(ix, search.NewSearcher(ix))
	return r, "", nil
}

func (r *recordingModel) Name() string { return r.m.Name() }

func (r *recordingModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	for _, m := range req.Messages {
		if m.Role == llm.User {
			*r.seen = append(*r.seen, m.Content)
			break
		}
	}
	return r.m.Complete(ctx, req)
}

// TestResumeOfALiveRunIsRefused: two processes must not share a workspace.
func TestResumeOfALiveRunIsRefused(t *testing.T) {
	needPython(t)
	repo, _ := sampleRepo(t)
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), Approve: "ask", ResolveModel: script(t, "resolve.json"),
		Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	evs := r.Events()
	for e := range evs {
		if e.Type == event.Approval {
			break // the run waits for an answer: it is alive
		}
	}
	_, err = Start(context.Background(), Options{Repo: repo, Resume: r.ID, ResolveModel: script(t, "resume.json"), Approve: "auto"})
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("resume of a live run: %v", err)
	}
	r.Cancel()
	for range evs {
	}
	r.Wait()
}
