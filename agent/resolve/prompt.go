package resolve

import (
	"fmt"
	"slices"
	"strings"
)

// systemPrompt teaches the paper's operation (§3.3): checkpoint the
// original state, reproduce, repair by hypotheses with one to-do list each,
// checkpoint every step, revert on a partly wrong path, compare, merge,
// submit. Without the hypothesis tools it falls back to plain SWE-agent
// work: reproduce, edit, test, submit.
func systemPrompt(tools []string) string {
	var b strings.Builder
	b.WriteString(`You are an expert software engineer resolving an issue in a git repository. You work in the repository's workspace through tools only: every answer must be a tool call.

Tools you always have:
- bash: run a non-interactive command in the repository root (tests, grep, running a script). Each call is a fresh shell with a time-out; output is capped; /tmp is emptied after each call, so keep files a later call needs in the repository. Editors, pagers and a bare python cannot run. The network is off.
- str_replace_editor: view files with line numbers (view_range for a window), create a new file, str_replace an exact snippet that occurs once, insert after a line, undo_edit.
- submit: end the run with your solution.

`)
	if hasHypTools(tools) {
		b.WriteString(hypWorkflow)
	} else {
		b.WriteString(plainWorkflow)
	}
	b.WriteString(`
Rules:
- Start from the ranked code locations you are given: they are where the localization search found the issue's code, best first. Read them before editing.
- Make the smallest change that fixes the root cause; keep the repository's style. Do not edit the tests that check the behaviour unless the issue is about them; do not delete tests to make them pass.
- After every edit, run the reproduction script and the most relevant existing tests.
- Reproduction scripts you create (reproduce*.py, repro_*.py, scratch files) are left out of the final patch; name a file in submit's keep_files only if it belongs in the patch (for example a new regression test).
- If a command is refused, read the reason and use another way; do not retry the same command.
`)
	return b.String()
}

const hypWorkflow = `How to work (hypothesis-driven, with checkpoints):
1. Read the ranked locations and the code around them with str_replace_editor view.
2. Write a reproduction script (for example reproduce.py) that shows the reported problem, run it with bash, and confirm it fails the way the issue says.
3. Call init_base: it saves the original code state and commits your reproduction script as the common working base for every hypothesis.
4. Call update_hypothesis with your hypotheses about the root cause and fix, most confident first, each tagged [ ] pending. One hypothesis is enough when the cause and the fix are clear; write several competing ones when the root cause is unclear or the fix could live in more than one place.
5. Explore one hypothesis at a time. Mark it [-] with update_hypothesis, call start_hypothesis with a short branch name, then update_todo with fine-grained edit and test steps for it.
6. Work the to-dos in order. Mark each [-] while you work on it, and after completing it mark it [v] (or [!] if it failed) and call commit_todo with the to-do and a one-line message: every completed to-do gets its own checkpoint. Add to-dos with update_todo when test feedback shows a missing step or an edge case.
7. After running tests, call log_insight with what the feedback taught you (what failed, why, what it rules out).
8. When a hypothesis is partly right (its early steps are useful but a later direction is wrong), call revert_to with that hypothesis, the last good to-do and a new branch name: it returns to that checkpoint on a new branch. Then update_hypothesis to add the corrected hypothesis and continue there with a fresh to-do list.
9. When a hypothesis is wrong altogether, mark it [!] and start the next one from the base with start_hypothesis.
10. When a hypothesis makes the reproduction script and the relevant tests pass, mark it [v]. After exploring the hypotheses worth trying, call compare_hypotheses, pick the best successful branch, call merge_solution with it, and then submit.
Use hypothesis and to-do names or ids (h1, t2) as arguments; the tools keep the git hashes. Do not run git commands that commit, branch, stash or reset: the tools do that.
`

const plainWorkflow = `How to work:
1. Read the ranked locations and the code around them with str_replace_editor view.
2. Write a reproduction script (for example reproduce.py) that shows the reported problem, run it with bash, and confirm it fails the way the issue says.
3. Find the root cause, edit the code with str_replace_editor, and run the reproduction script and the relevant tests after each edit.
4. When the reproduction script and the tests pass, call submit.
`

func hasHypTools(tools []string) bool {
	for _, n := range []string{"update_hypothesis", "update_todo", "init_base", "start_hypothesis", "commit_todo", "merge_solution"} {
		if !slices.Contains(tools, n) {
			return false
		}
	}
	return true
}

// taskMessage is the first user turn: the issue and where to look.
// EditedNote marks, in the task, a location list the engineer edited.
const EditedNote = "The engineer edited this list before resolution started."

func taskMessage(issue string, files, functions []string, edited bool) string {
	var b strings.Builder
	b.WriteString("<issue>\n")
	b.WriteString(strings.TrimSpace(issue))
	b.WriteString("\n</issue>\n\n")
	if len(files) == 0 && len(functions) == 0 {
		b.WriteString("No code locations were found for this issue; search the repository yourself (grep with bash, view directories).\n")
	} else {
		b.WriteString("Ranked code locations (from the localization search, or as the engineer edited them), best first:\n")
		if len(functions) > 0 {
			b.WriteString("Functions (path:Qualified.name):\n")
			for i, f := range functions {
				fmt.Fprintf(&b, "%d. %s\n", i+1, f)
			}
		}
		if len(files) > 0 {
			b.WriteString("Files:\n")
			for i, f := range files {
				fmt.Fprintf(&b, "%d. %s\n", i+1, f)
			}
		}
		if edited {
			b.WriteString(EditedNote + "\n")
		}
	}
	b.WriteString("\nThe repository is checked out in the current directory. Resolve the issue, then submit.")
	return b.String()
}

// ResumeNote tells the model that its run was interrupted and resumed.
const ResumeNote = "This run was interrupted and has now been resumed. The workspace, the hypothesis branches and the working memory are as they were saved; a command or edit in flight when it stopped may not have finished. Check the current state (bash: git status, git log --oneline -5; update_todo or compare_hypotheses to see the plan) and then continue from where you were."
