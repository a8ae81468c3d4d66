package memory

import (
	"fmt"
	"strconv"
	"strings"
)

// Validate checks the invariants the rest of the package relies on: a known version, unique
// well-formed ids below the id counters, valid statuses, non-empty contents, a current hypothesis
// that exists, and branches owned by one hypothesis each.
func (m *Memory) Validate() error {
	if m.Version < 1 || m.Version > Version {
		return fmt.Errorf("unsupported version %d (this swe-adept reads version %d)", m.Version, Version)
	}
	ids := map[string]bool{}
	branches := map[string]string{}
	for i, h := range m.Hypotheses {
		if h == nil {
			return fmt.Errorf("hypothesis %d is null", i+1)
		}
		if err := checkEntry("hypothesis", h.ID, "h", h.Content, h.Status, m.NextID, ids); err != nil {
			return err
		}
		if h.Branch != "" {
			if other, ok := branches[h.Branch]; ok {
				return fmt.Errorf("branch %q belongs to both %s and %s", h.Branch, other, h.ID)
			}
			branches[h.Branch] = h.ID
		}
		if err := validateTodos(h); err != nil {
			return err
		}
	}
	if m.Current != "" && !ids[m.Current] {
		return fmt.Errorf("current hypothesis %q does not exist", m.Current)
	}
	return nil
}

func validateTodos(h *Hypothesis) error {
	ids := map[string]bool{}
	for i, t := range h.Todos {
		if t == nil {
			return fmt.Errorf("%s: to-do %d is null", h.ID, i+1)
		}
		if err := checkEntry("to-do", t.ID, "t", t.Content, t.Status, h.NextTodo, ids); err != nil {
			return fmt.Errorf("%s: %w", h.ID, err)
		}
	}
	for i, in := range h.Insights {
		if strings.TrimSpace(in.Text) == "" {
			return fmt.Errorf("%s: insight %d is empty", h.ID, i+1)
		}
	}
	return nil
}

func checkEntry(kind, id, prefix, content string, st Status, next int, seen map[string]bool) error {
	n, err := strconv.Atoi(strings.TrimPrefix(id, prefix))
	if !strings.HasPrefix(id, prefix) || err != nil || n < 1 || strconv.Itoa(n) != id[len(prefix):] {
		return fmt.Errorf("%s id %q is not %s<number>", kind, id, prefix)
	}
	if n >= next {
		return fmt.Errorf("%s id %q is not below the next id number %d", kind, id, next)
	}
	if seen[id] {
		return fmt.Errorf("%s id %q appears twice", kind, id)
	}
	seen[id] = true
	if !st.Valid() {
		return fmt.Errorf("%s %s has %s", kind, id, st)
	}
	if strings.TrimSpace(content) == "" {
		return fmt.Errorf("%s %s has no content", kind, id)
	}
	return nil
}
