// Package memory is the resolution agent's working memory: the original and base code states,
// the competing hypotheses in confidence order, each hypothesis's to-dos with their checkpoint
// commits, the insights learned along the way, the current hypothesis and the merged branch.
//
// The model writes plans as status-tagged markdown lists ("- [ ] pending", "[-] in progress",
// "[v] successful", "[!] failed"); ParseStatusList reads them tolerantly. UpdateHypotheses and
// UpdateTodos take a whole re-sent list and keep the identity of every item that continues an
// old one (matching rules on oldItem in match.go), so an edited to-do keeps its id and checkpoint.
// Items the model leaves out are deleted unless that would lose work (a checkpoint, a branch, an
// insight); those are kept, marked Dropped, and rendered under a "Dropped" heading that the
// parser skips, so a rendered list sent back unchanged changes nothing.
//
// The renderers produce the observations of the hypothesis_plan and hypothesis_git tools;
// Store persists the memory as versioned JSON, atomically, and Load validates what it reads.
//
// A Memory is a plain value owned by one goroutine; hand copies to others with Clone. Its
// exported fields are the shape the event layer converts from: Status values are the characters
// between the brackets (" ", "-", "v", "!").
package memory
