package hypothesis

import (
	"context"

	"github.com/swe-adept/swe-adept/agent/tool"
)

type hypothesesArgs struct {
	HypothesesMarkdown string `json:"hypotheses_markdown" description:"The whole hypothesis list as markdown, most confident first, each line tagged [ ] pending, [-] in progress, [v] successful or [!] failed."`
}

type todoArgs struct {
	CurrentHypothesis string `json:"current_hypothesis" description:"The hypothesis these to-dos belong to: its id (h1) or its text. It becomes the current hypothesis."`
	TodosMarkdown     string `json:"todos_markdown" description:"The whole to-do list of that hypothesis as markdown, in order, each line tagged [ ], [-], [v] or [!]."`
}

type insightArgs struct {
	Insight string `json:"insight" description:"What the last test or run taught you about the current hypothesis."`
}

type branchArgs struct {
	BranchName string `json:"branch_name" description:"A short branch name such as fix-tokenizer."`
}

type commitArgs struct {
	TodoContent   string `json:"todo_content" description:"The completed to-do of the current hypothesis: its id (t2) or its text."`
	CommitMessage string `json:"commit_message" description:"A one-line message saying what this step changed."`
}

type revertArgs struct {
	SourceHypothesis string `json:"source_hypothesis" description:"The hypothesis whose checkpoint to return to: id or text."`
	SourceTodo       string `json:"source_todo" description:"The committed to-do of that hypothesis to return to: id or text."`
	NewBranchName    string `json:"new_branch_name" description:"A new short branch name to continue on."`
}

type noArgs struct{}

// Tools are the nine commands of hypothesis_plan and hypothesis_git.
func (f *Tracker) Tools() []tool.Tool {
	return []tool.Tool{
		tool.New("update_hypothesis", "Create, reorder and update the hypotheses (alternative fixes), most confident first, with status tags [ ] [-] [v] [!]. Returns the hypothesis overview.",
			func(ctx context.Context, a hypothesesArgs) (tool.Output, error) {
				return f.UpdateHypothesis(ctx, a.HypothesesMarkdown)
			}),
		tool.New("update_todo", "Create and update the to-do list of one hypothesis (fine-grained edit and test steps) with status tags; makes it current. Returns its to-do list.",
			func(ctx context.Context, a todoArgs) (tool.Output, error) {
				return f.UpdateTodo(ctx, a.CurrentHypothesis, a.TodosMarkdown)
			}),
		tool.New("log_insight", "Record what execution feedback taught you about the current hypothesis; used for reverts and the final comparison.",
			func(ctx context.Context, a insightArgs) (tool.Output, error) { return f.LogInsight(ctx, a.Insight) }),
		tool.New("init_base", "Save the original code state and commit the reproduction script as the common working base for every hypothesis branch. Call once, after writing the reproduction script.",
			func(ctx context.Context, _ noArgs) (tool.Output, error) { return f.InitBase(ctx) }),
		tool.New("start_hypothesis", "Check out a new branch from the common working base for the current hypothesis.",
			func(ctx context.Context, a branchArgs) (tool.Output, error) {
				return f.StartHypothesis(ctx, a.BranchName)
			}),
		tool.New("commit_todo", "Commit the current changes as the checkpoint of one completed to-do of the current hypothesis.",
			func(ctx context.Context, a commitArgs) (tool.Output, error) {
				return f.CommitTodo(ctx, a.TodoContent, a.CommitMessage)
			}),
		tool.New("revert_to", "Return to the checkpoint of a completed to-do and continue on a new branch (when later steps went wrong). Needs the engineer's approval.",
			func(ctx context.Context, a revertArgs) (tool.Output, error) {
				return f.RevertTo(ctx, a.SourceHypothesis, a.SourceTodo, a.NewBranchName)
			}),
		tool.New("compare_hypotheses", "Compare the hypotheses: status, to-dos, commits, insights and diff statistics against the original state.",
			func(ctx context.Context, _ noArgs) (tool.Output, error) { return f.CompareHypotheses(ctx) }),
		tool.New("merge_solution", "Apply the changes of a successful hypothesis branch onto the original code state, producing the patch to submit. Needs the engineer's approval.",
			func(ctx context.Context, a branchArgs) (tool.Output, error) {
				return f.MergeSolution(ctx, a.BranchName)
			}),
	}
}
