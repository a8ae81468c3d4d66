package memory

import (
	"fmt"
	"strings"
)

// FuzzyThreshold is the least similarity (Jaccard of normalized word sets) at which a reference
// or a re-sent item is taken to mean an existing one.
const FuzzyThreshold = 0.5

// FindHypothesis resolves what the model called a hypothesis: its id ("h2"), its branch name or
// that name's last part, its content exactly (case and spacing ignored), a line copied from a
// rendered list, a unique prefix of its content, or the one best fuzzy match at or above
// FuzzyThreshold. Dropped hypotheses are found too. The error lists the known hypotheses so the
// model can retry.
func (m *Memory) FindHypothesis(ref string) (*Hypothesis, error) {
	cands := make([]candidate, len(m.Hypotheses))
	for i, h := range m.Hypotheses {
		cands[i] = candidate{id: h.ID, content: h.Content, exact: []string{h.Branch, branchLeaf(h.Branch)}}
	}
	i, err := resolve("hypothesis", ref, cands)
	if err != nil {
		return nil, fmt.Errorf("%w; %s", err, m.knownHypotheses())
	}
	return m.Hypotheses[i], nil
}

// FindTodo resolves what the model called a to-do of h: its id ("t3"), its checkpoint hash or a
// prefix of it (4+ characters), its content exactly, a copied rendered line, a unique prefix, or
// the one best fuzzy match at or above FuzzyThreshold. The error lists h's to-dos.
func FindTodo(h *Hypothesis, ref string) (*Todo, error) {
	cands := make([]candidate, len(h.Todos))
	for i, t := range h.Todos {
		cands[i] = candidate{id: t.ID, content: t.Content, hash: t.Hash}
	}
	i, err := resolve("to-do of "+h.ID, ref, cands)
	if err != nil {
		return nil, fmt.Errorf("%w; %s", err, knownTodos(h))
	}
	return h.Todos[i], nil
}

type candidate struct {
	id, content string
	exact       []string // other names that match exactly (a branch)
	hash        string   // a checkpoint, matched by prefix
}

func resolve(kind, ref string, cands []candidate) (int, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return -1, fmt.Errorf("no %s named: the reference is empty", kind)
	}
	if i := resolveExact(ref, cands); i >= 0 {
		return i, nil
	}
	// A line copied from a rendered list: "2. [-] Fix it  (h2, branch …)".
	content, id := cleanRef(ref)
	if i := resolveExact(id, cands); i >= 0 {
		return i, nil
	}
	if content != "" && content != ref {
		if i := resolveExact(content, cands); i >= 0 {
			return i, nil
		}
		ref = content
	}
	return resolveLoose(kind, ref, cands)
}

func cleanRef(ref string) (content, id string) {
	if it, ok := parseItemLine(0, ref); ok {
		return it.Content, it.Ref
	}
	return stripAnnotation(ref)
}

// resolveExact matches ids, exact names, hash prefixes and normalized content.
func resolveExact(ref string, cands []candidate) int {
	if ref == "" {
		return -1
	}
	for i, c := range cands {
		if strings.EqualFold(c.id, ref) {
			return i
		}
	}
	for i, c := range cands {
		for _, e := range c.exact {
			if e != "" && e == ref {
				return i
			}
		}
	}
	if len(ref) >= 4 && isHex(ref) {
		for i, c := range cands {
			if c.hash != "" && strings.HasPrefix(c.hash, strings.ToLower(ref)) {
				return i
			}
		}
	}
	key := normKey(ref)
	for i, c := range cands {
		if normKey(c.content) == key {
			return i
		}
	}
	return -1
}

// resolveLoose matches a unique content prefix, then the single best fuzzy match.
func resolveLoose(kind, ref string, cands []candidate) (int, error) {
	key := normKey(ref)
	prefix := -1
	for i, c := range cands {
		if len(key) >= 3 && strings.HasPrefix(normKey(c.content), key) {
			if prefix >= 0 {
				return -1, fmt.Errorf("%s %q is ambiguous: it starts both %q and %q", kind, ref, clip(cands[prefix].content, 50), clip(c.content, 50))
			}
			prefix = i
		}
	}
	if prefix >= 0 {
		return prefix, nil
	}
	best, second, bestScore := -1, -1, 0.0
	toks := tokens(ref)
	for i, c := range cands {
		s := jaccard(toks, tokens(c.content))
		switch {
		case s > bestScore:
			best, second, bestScore = i, -1, s
		case s == bestScore && best >= 0:
			second = i
		}
	}
	if best >= 0 && bestScore >= FuzzyThreshold {
		if second >= 0 {
			return -1, fmt.Errorf("%s %q is ambiguous: it matches %q and %q equally", kind, ref, clip(cands[best].content, 50), clip(cands[second].content, 50))
		}
		return best, nil
	}
	return -1, fmt.Errorf("unknown %s %q", kind, clip(ref, 80))
}

func (m *Memory) unknownHypothesis(id string) error {
	return fmt.Errorf("unknown hypothesis %q; %s", id, m.knownHypotheses())
}

func unknownTodo(h *Hypothesis, id string) error {
	return fmt.Errorf("unknown to-do %q in %s; %s", id, h.ID, knownTodos(h))
}

func (m *Memory) knownHypotheses() string {
	if len(m.Hypotheses) == 0 {
		return "there are no hypotheses yet: create them with update_hypothesis"
	}
	parts := make([]string, len(m.Hypotheses))
	for i, h := range m.Hypotheses {
		parts[i] = fmt.Sprintf("%s %s %q", h.ID, h.Status.Tag(), clip(h.Content, 60))
		if h.Branch != "" {
			parts[i] += " (branch " + h.Branch + ")"
		}
	}
	return "known hypotheses: " + strings.Join(parts, ", ")
}

func knownTodos(h *Hypothesis) string {
	if len(h.Todos) == 0 {
		return "it has no to-dos yet: create them with update_todo"
	}
	parts := make([]string, len(h.Todos))
	for i, t := range h.Todos {
		parts[i] = fmt.Sprintf("%s %s %q", t.ID, t.Status.Tag(), clip(t.Content, 60))
		if t.Hash != "" {
			parts[i] += " (checkpoint " + short(t.Hash) + ")"
		}
	}
	return "its to-dos: " + strings.Join(parts, ", ")
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexByte(s[i]) {
			return false
		}
	}
	return true
}

// branchLeaf is the last part of a namespaced branch: "retry" for "swe-adept/run1/retry".
func branchLeaf(branch string) string {
	if i := strings.LastIndexByte(branch, '/'); i >= 0 {
		return branch[i+1:]
	}
	return ""
}
