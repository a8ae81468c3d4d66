package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/hypothesis"
	"github.com/swe-adept/swe-adept/agent/tool"
	"github.com/swe-adept/swe-adept/memory"
	"github.com/swe-adept/swe-adept/vcs"
)

func init() {
	register(&command{
		name:    "hyp",
		summary: "run the hypothesis tools by hand: plan (update_hypothesis, update_todo, log_insight) and git (init_base, ...)",
		usage: `plan|git COMMAND [ARGS] [--repo DIR] [--run ID] [--approve auto|deny] [--json]

  plan update_hypothesis MARKDOWN|-        plan update_todo HYPOTHESIS MARKDOWN|-
  plan log_insight TEXT
  git init_base                             git start_hypothesis BRANCH
  git commit_todo TODO MESSAGE              git revert_to HYPOTHESIS TODO NEW_BRANCH
  git compare_hypotheses                    git merge_solution BRANCH
  git finish                                (back to your branch, your work, and the solution on top)

Works in the checkout itself, as the agent does in its workspace. init_base sets your uncommitted
work aside (exactly, on a private ref) and detaches HEAD so your branch never moves; the session
holds the checkout until 'hyp git finish', which checks your branch out again, restores your
uncommitted work, and applies the merged solution, if any, on top as uncommitted changes.
Working memory: .git/swe-adept/hyp/<run>/memory.json.`,
		flags: hypFlags(),
	})
}

type hypCall struct {
	family string
	args   int // positional arguments after the command name
	run    func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error)
}

var hypCalls = map[string]hypCall{
	"update_hypothesis": {"plan", 1, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.UpdateHypothesis(ctx, a[0])
	}},
	"update_todo": {"plan", 2, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.UpdateTodo(ctx, a[0], a[1])
	}},
	"log_insight": {"plan", 1, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.LogInsight(ctx, a[0])
	}},
	"init_base": {"git", 0, func(ctx context.Context, f *hypothesis.Tracker, _ []string) (tool.Output, error) {
		return f.InitBase(ctx)
	}},
	"start_hypothesis": {"git", 1, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.StartHypothesis(ctx, a[0])
	}},
	"commit_todo": {"git", 2, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.CommitTodo(ctx, a[0], a[1])
	}},
	"revert_to": {"git", 3, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.RevertTo(ctx, a[0], a[1], a[2])
	}},
	"compare_hypotheses": {"git", 0, func(ctx context.Context, f *hypothesis.Tracker, _ []string) (tool.Output, error) {
		return f.CompareHypotheses(ctx)
	}},
	"merge_solution": {"git", 1, func(ctx context.Context, f *hypothesis.Tracker, a []string) (tool.Output, error) {
		return f.MergeSolution(ctx, a[0])
	}},
	"finish": {"git", 0, nil}, // runHyp ends the session itself
}

// finishHand ends a session by hand: the engineer's branch and work come
// back, with the merged solution on top as uncommitted changes.
func finishHand(ctx context.Context, dir, runID string, f *hypothesis.Tracker, w io.Writer) error {
	mem := f.Memory()
	patch := ""
	if mem.Solution != "" {
		repo, err := vcs.Open(ctx, dir)
		if err != nil {
			return err
		}
		if patch, err = repo.Patch(ctx, mem.Original, mem.Solution); err != nil {
			return fmt.Errorf("finish: the merged solution: %w", err)
		}
	}
	res, err := vcs.FinishHand(ctx, dir, runID, patch)
	if errors.Is(err, vcs.ErrNoHandSession) {
		return usagef("no hypothesis session by hand is open for --run %s (init_base opens one)", runID)
	}
	if err != nil {
		return err
	}
	w = textOut(w)
	where := nonEmptyStr(res.Branch, "commit "+res.Head)
	if patch == "" {
		fmt.Fprintf(w, "Back on %s with your uncommitted work as it was; nothing was merged.\n", where)
		return nil
	}
	fmt.Fprintf(w, "Back on %s with your uncommitted work as it was, and the merged solution (%s) applied on top as uncommitted changes.\n", where, mem.Merged)
	return nil
}

// hypFlags declares the flags of hyp and returns the command.
func hypFlags() declare {
	return func(fs *flag.FlagSet) func(context.Context, []string, streams) error {
		repoDir := fs.String("repo", ".", "the git repository")
		runID := fs.String("run", "manual", "the run whose working memory and branches to use")
		approve := fs.String("approve", "auto", "answer revert_to and merge_solution: auto or deny")
		asJSON := fs.Bool("json", false, "print the observation and working memory as JSON")
		return func(ctx context.Context, pos []string, std streams) error {
			call, a, err := hypArgs(pos, std.in)
			if err != nil {
				return err
			}
			if !runIDPattern.MatchString(*runID) || strings.Contains(*runID, "..") {
				return usagef("--run %q: use letters, digits, '.', '_' and '-' (it names a folder and a branch namespace)", *runID)
			}
			policy, err := approvalPolicy(*approve)
			if err != nil {
				return err
			}
			f, err := openFamilies(ctx, *repoDir, *runID, policy)
			if err != nil {
				return err
			}
			if pos[1] == "init_base" && f.Memory().Original == "" {
				if err := vcs.OpenHand(ctx, *repoDir, *runID); err != nil {
					return fmt.Errorf("init_base: %w", err)
				}
			}
			if pos[1] == "finish" {
				return finishHand(ctx, *repoDir, *runID, f, std.out)
			}
			out, err := call.run(ctx, f, a)
			if err != nil {
				return err
			}
			return printHyp(std.out, out, f, *asJSON)
		}
	}
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func hypArgs(pos []string, stdin io.Reader) (hypCall, []string, error) {
	if len(pos) < 2 {
		return hypCall{}, nil, usagef("name a family (plan or git) and a command")
	}
	call, ok := hypCalls[pos[1]]
	if !ok || call.family != pos[0] {
		return hypCall{}, nil, usagef("%s %s is not a hypothesis command", pos[0], pos[1])
	}
	a := pos[2:]
	if len(a) != call.args {
		return hypCall{}, nil, usagef("%s takes %d argument(s), got %d", pos[1], call.args, len(a))
	}
	for i, v := range a {
		if v == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				return hypCall{}, nil, fmt.Errorf("read standard input: %w", err)
			}
			a[i] = string(b)
		}
	}
	return call, a, nil
}

func approvalPolicy(s string) (event.Policy, error) {
	switch s {
	case "auto", "approve":
		return event.Policy(event.Approve), nil
	case "deny", "refuse":
		return event.Policy(event.Refuse), nil
	}
	return "", usagef("--approve must be auto or deny, not %q", s)
}

func openFamilies(ctx context.Context, dir, runID string, approver event.Approver) (*hypothesis.Tracker, error) {
	repo, err := vcs.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	store := memory.NewStore(filepath.Join(repo.CommonDir(), "swe-adept", "hyp", runID, "memory.json"))
	mem, err := store.LoadOrNew(runID)
	if err != nil {
		return nil, err
	}
	return hypothesis.New(hypothesis.Config{Repo: repo, Store: store, Memory: mem, RunID: runID, Approver: approver}), nil
}

func printHyp(w io.Writer, out tool.Output, f *hypothesis.Tracker, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(jsonOut(w))
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Observation string              `json:"observation"`
			Failed      bool                `json:"failed"`
			Memory      *event.PlanSnapshot `json:"memory"`
		}{out.Text, out.Failed, hypothesis.Snapshot(f.Memory())})
	}
	fmt.Fprintln(textOut(w), strings.TrimRight(out.Text, "\n"))
	if out.Failed {
		return fmt.Errorf("the command was not carried out (see above)")
	}
	return nil
}
