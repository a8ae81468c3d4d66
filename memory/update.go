package memory

import (
	"fmt"
	"sort"
	"strings"
)

// Changes says what an update did, by id, for the observation and the event log.
type Changes struct {
	Added         []string `json:"added,omitempty"`
	Edited        []string `json:"edited,omitempty"`         // text changed
	StatusChanged []string `json:"status_changed,omitempty"` // tag changed
	Revived       []string `json:"revived,omitempty"`        // dropped earlier, listed again
	Dropped       []string `json:"dropped,omitempty"`        // left out, kept for their work
	Removed       []string `json:"removed,omitempty"`        // left out and deleted
	Reordered     bool     `json:"reordered,omitempty"`
	// Todos holds, by hypothesis id, the changes of to-do lists nested in a hypothesis list.
	Todos map[string]Changes `json:"todos,omitempty"`
}

// Empty reports whether the update changed nothing.
func (c Changes) Empty() bool {
	for _, tc := range c.Todos {
		if !tc.Empty() {
			return false
		}
	}
	return len(c.Added)+len(c.Edited)+len(c.StatusChanged)+len(c.Revived)+len(c.Dropped)+len(c.Removed) == 0 && !c.Reordered
}

// String is a one-line summary such as "added h3; status changed h1; kept dropped h2 (has work)".
func (c Changes) String() string {
	if c.Empty() {
		return "no changes"
	}
	var parts []string
	add := func(label string, ids []string) {
		if len(ids) > 0 {
			parts = append(parts, label+" "+strings.Join(ids, ", "))
		}
	}
	add("added", c.Added)
	add("edited", c.Edited)
	add("status changed", c.StatusChanged)
	add("revived", c.Revived)
	add("kept dropped", c.Dropped)
	add("removed", c.Removed)
	if c.Reordered {
		parts = append(parts, "reordered")
	}
	ids := make([]string, 0, len(c.Todos))
	for id := range c.Todos {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if tc := c.Todos[id]; !tc.Empty() {
			parts = append(parts, "to-dos of "+id+": "+tc.String())
		}
	}
	return strings.Join(parts, "; ")
}

// UpdateHypotheses replaces the hypothesis list with the model's markdown (update_hypothesis),
// keeping identities as the comment on oldItem's matching describes. List order is confidence
// order. Items nested under a hypothesis are taken as its to-do list, as update_todo would take
// them; a hypothesis without nested items keeps its to-dos. When the current hypothesis is
// removed, or none is current, the first listed hypothesis in progress becomes current. On error
// the memory is unchanged.
func (m *Memory) UpdateHypotheses(md string) (Changes, error) {
	items, err := ParseStatusList(md)
	if err != nil {
		return Changes{}, fmt.Errorf("update hypotheses: %w", err)
	}
	top, nested := splitNested(items)
	currentBefore := m.Current
	list, ch := reconcile(m.Hypotheses, top, func(it Item) *Hypothesis {
		return m.newHypothesis(it.Content, it.Status)
	})
	m.Hypotheses = list
	for i, sub := range nested {
		h := list[i] // reconcile puts the listed items first, in order
		todos, tc := reconcile(h.Todos, sub, func(it Item) *Todo { return h.newTodo(it.Content, it.Status) })
		h.Todos = todos
		if !tc.Empty() {
			if ch.Todos == nil {
				ch.Todos = map[string]Changes{}
			}
			ch.Todos[h.ID] = tc
		}
	}
	if m.Current != "" && m.Hypothesis(m.Current) == nil {
		m.Current = ""
	}
	if m.Current == "" {
		for _, h := range m.Active() {
			if h.Status == InProgress {
				m.Current = h.ID
				break
			}
		}
	}
	if !ch.Empty() || m.Current != currentBefore {
		m.changed()
	}
	return ch, nil
}

// UpdateTodos replaces the to-do list of the hypothesis named by ref (see FindHypothesis) with the
// model's markdown (update_todo) and makes that hypothesis current, as the tool's
// current_hypothesis argument says. Identities are kept as for hypotheses. On error the memory is
// unchanged.
func (m *Memory) UpdateTodos(ref, md string) (Changes, error) {
	h, err := m.FindHypothesis(ref)
	if err != nil {
		return Changes{}, fmt.Errorf("update to-dos: %w", err)
	}
	items, err := ParseStatusList(md)
	if err != nil {
		return Changes{}, fmt.Errorf("update to-dos of %s: %w", h.ID, err)
	}
	list, ch := reconcile(h.Todos, items, func(it Item) *Todo {
		return h.newTodo(it.Content, it.Status)
	})
	h.Todos = list
	if !ch.Empty() || m.Current != h.ID {
		m.Current = h.ID
		m.changed()
	}
	return ch, nil
}

// splitNested separates top-level items from the items nested under each, keyed by the index of
// their top-level item.
func splitNested(items []Item) ([]Item, map[int][]Item) {
	var top []Item
	nested := map[int][]Item{}
	for _, it := range items {
		if it.Depth > 0 && len(top) > 0 {
			it.Depth = 0
			nested[len(top)-1] = append(nested[len(top)-1], it)
			continue
		}
		top = append(top, it)
	}
	return top, nested
}
