package memory

import "fmt"

// NextToStart is the hypothesis a start_hypothesis call without a name means: the current one if
// it has no branch yet, else the most confident listed hypothesis that has no branch and is not
// done. It is nil when every hypothesis has started.
func (m *Memory) NextToStart() *Hypothesis {
	if h := m.CurrentHypothesis(); h != nil && h.Branch == "" && !h.Dropped {
		return h
	}
	for _, h := range m.Active() {
		if h.Branch == "" && !h.Status.Done() {
			return h
		}
	}
	return nil
}

// Start records that the hypothesis with the id now lives on branch (start_hypothesis): it owns
// the branch, becomes current, and moves from pending to in progress.
func (m *Memory) Start(id, branch string) error {
	h := m.Hypothesis(id)
	if h == nil {
		return fmt.Errorf("start hypothesis on %q: %w", branch, m.unknownHypothesis(id))
	}
	if h.Branch != "" && h.Branch != branch {
		return fmt.Errorf("start %s on %q: it already lives on branch %q; to try again from a checkpoint use revert_to", id, branch, h.Branch)
	}
	if err := m.SetBranch(id, branch); err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	m.Current = id
	if h.Status == Pending {
		h.Status = InProgress
	}
	m.changed()
	return nil
}
