package memory

import "fmt"

// Fork starts a new hypothesis from a checkpoint of another (revert_to): it copies the source
// hypothesis's listed to-dos up to and including the one named, with their statuses and
// checkpoints, since the new branch starts from that commit and shares that history. The new
// hypothesis is in progress, owns branch, is listed right after its source and becomes current.
// An empty content is derived from the source.
func (m *Memory) Fork(srcHyp, srcTodo, content, branch string) (*Hypothesis, error) {
	src := m.Hypothesis(srcHyp)
	if src == nil {
		return nil, fmt.Errorf("fork: %w", m.unknownHypothesis(srcHyp))
	}
	upto := src.Todo(srcTodo)
	if upto == nil {
		return nil, fmt.Errorf("fork %s: %w", srcHyp, unknownTodo(src, srcTodo))
	}
	if !upto.HasCheckpoint() {
		return nil, fmt.Errorf("fork %s from %s: the to-do has no checkpoint to start from; commit it first (commit_todo) or pick one of: %s",
			srcHyp, srcTodo, checkpointed(src))
	}
	if branch == "" {
		return nil, fmt.Errorf("fork %s from %s: empty branch name", srcHyp, srcTodo)
	}
	for _, o := range m.Hypotheses {
		if o.Branch == branch {
			return nil, fmt.Errorf("fork %s from %s: branch %q already belongs to %s", srcHyp, srcTodo, branch, o.ID)
		}
	}
	content = normSpace(content)
	if content == "" {
		content = fmt.Sprintf("%s (continued from %s %s)", src.Content, src.ID, upto.ID)
	}
	h := m.newHypothesis(content, InProgress)
	h.Branch = branch
	for _, t := range history(src, upto) {
		c := h.newTodo(t.Content, t.Status)
		c.Hash, c.Parent, c.Message, c.Stat = t.Hash, t.Parent, t.Message, t.Stat
		h.Todos = append(h.Todos, c)
	}
	m.Hypotheses = insertAfter(m.Hypotheses, src, h)
	m.Current = h.ID
	m.changed()
	return h, nil
}

// history is the to-dos whose checkpoints lead to upto's, oldest first, found by following parent
// hashes; without recorded parents it is the listed to-dos up to upto.
func history(h *Hypothesis, upto *Todo) []*Todo {
	byHash := map[string]*Todo{}
	for _, t := range h.Todos {
		if t.Hash != "" {
			byHash[t.Hash] = t
		}
	}
	if upto.Parent != "" {
		chain := []*Todo{upto}
		for t := byHash[upto.Parent]; t != nil && len(chain) <= len(h.Todos); t = byHash[t.Parent] {
			chain = append(chain, t)
		}
		for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		return chain
	}
	var out []*Todo
	for _, t := range h.Todos {
		if !t.Dropped {
			out = append(out, t)
		}
		if t == upto {
			if t.Dropped {
				out = append(out, t)
			}
			break
		}
	}
	return out
}

// insertAfter places h after src when src is listed, else before the dropped ones.
func insertAfter(list []*Hypothesis, src, h *Hypothesis) []*Hypothesis {
	if src.Dropped {
		return insertBeforeDropped(list, h, func(x *Hypothesis) bool { return x.Dropped })
	}
	for i, x := range list {
		if x == src {
			list = append(list, nil)
			copy(list[i+2:], list[i+1:])
			list[i+1] = h
			return list
		}
	}
	return append(list, h)
}

func checkpointed(h *Hypothesis) string {
	var out string
	for _, t := range h.Todos {
		if t.HasCheckpoint() {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%s %q (%s)", t.ID, clip(t.Content, 50), short(t.Hash))
		}
	}
	if out == "" {
		return "none yet"
	}
	return out
}
