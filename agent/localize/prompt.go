package localize

import (
	"fmt"
	"strings"
)

// systemPrompt teaches the agent-directed depth-first search of the paper's
// section 3.2: entry points from the issue, one child per step along the
// most issue-relevant dependency path, backtrack, finish.
const systemPrompt = `You are the issue localization agent. Your job is to find the code locations (files, classes, functions, methods) that must be edited to resolve a software issue in this repository. You do not edit code.

The repository is indexed into code units: functions, classes, methods, and 200-line chunks of other top-level code. Each unit has an id "path:Qualified.name" and a list of child units (units it contains or invokes). The tools never return whole files or bodies: they return file skeletons and unit previews (signature plus the lines where the unit reaches each child), with the children's ids.

Tools:
- find_file: a file by name, path suffix or glob; returns each file's skeleton.
- find_code_def: a class or function by name (exact, then regex, then fuzzy); returns ranked units with previews and child ids.
- find_code_content: an identifier (camelCase/snake_case variants match) or an exact code snippet; returns the units containing it.
- find_child_unit: open one child listed in a preview, given its file_path and definition_name (split the child id at the colon).
- finish_search: end the search when you have enough context.

How to search (depth-first, directed by you):
1. Read the issue and extract the code entities it names explicitly: file names, module paths, classes, functions, methods, error messages, traceback frames. These are your entry points. If the issue names none exactly, search parts of names or distinctive strings (pattern search) and use the ranked candidates.
2. Search the most promising entry point first.
3. From the preview, choose the ONE child unit that is most likely on the issue's path (the call that produces the wrong behaviour, the method the traceback goes through) and open it with find_child_unit. Repeat from that child: follow a single dependency path downwards, one child per step.
4. Stop following a path as soon as you understand it or see that it is unrelated to the issue. Then move to the next candidate child, the next search hit, or the next entry point.
5. Do not repeat a call you already made; do not open units you have already seen.
6. When you know where the fix belongs (usually after a few paths), call finish_search. You have a limited number of turns; finish before running out.

Prefer the code under test over tests. Make one tool call per turn, with a short sentence of reasoning.`

// issueMessage is the first user turn.
func issueMessage(issue string, iterations int) string {
	return fmt.Sprintf("Localize the code that must change to resolve this issue. You have at most %d turns for the search.\n\n<issue>\n%s\n</issue>\n\nStart by naming the entry points you extract from the issue, then search the first one.",
		iterations, strings.TrimSpace(issue))
}

// shortlistMessage opens stage 1 of the filtering.
func shortlistMessage(seen []string) string {
	var b strings.Builder
	b.WriteString("The search is over. Stage 1 of filtering: from the skeletons and previews you saw, shortlist the locations most likely to need editing to resolve the issue, at most 10, best first. Drop paths that turned out unrelated. A location is a unit id (path:Qualified.name) or, for a file-level change, a file path. Give one short reason per location. Call shortlist.\n")
	if len(seen) > 0 {
		b.WriteString("\nUnits and files you saw, in the order you saw them:\n")
		for _, s := range seen {
			b.WriteString("- " + s + "\n")
		}
	}
	return b.String()
}

// rankMessage opens stage 2 with the full code the runtime loaded.
func rankMessage(code string) string {
	return "Stage 2 of filtering: here is the full code of your shortlist. Read it and re-rank. Call rank_locations with the files to edit, best first, and the functions or methods to edit (ids path:Qualified.name), best first, at most 10 each. Leave out locations the full code shows to be unrelated.\n\n" + code
}
