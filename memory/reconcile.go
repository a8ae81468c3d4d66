package memory

// listed is what reconcile needs of a hypothesis or a to-do.
type listed interface {
	ident() (id, content string, dropped bool)
	apply(it Item) (edited, statusChanged, revived bool)
	drop()
	hasWork() bool
}

func (h *Hypothesis) ident() (string, string, bool) { return h.ID, h.Content, h.Dropped }
func (t *Todo) ident() (string, string, bool)       { return t.ID, t.Content, t.Dropped }
func (h *Hypothesis) drop()                         { h.Dropped = true }
func (t *Todo) drop()                               { t.Dropped = true }
func (h *Hypothesis) hasWork() bool                 { return h.HasWork() }
func (t *Todo) hasWork() bool                       { return t.HasCheckpoint() }

func (h *Hypothesis) apply(it Item) (bool, bool, bool) {
	e, s, r := h.Content != it.Content, h.Status != it.Status, h.Dropped
	h.Content, h.Status, h.Dropped = it.Content, it.Status, false
	return e, s, r
}

func (t *Todo) apply(it Item) (bool, bool, bool) {
	e, s, r := t.Content != it.Content, t.Status != it.Status, t.Dropped
	t.Content, t.Status, t.Dropped = it.Content, it.Status, false
	return e, s, r
}

// reconcile turns the old list and the model's new items into the new list: matched items
// updated in the new order, new ones created, then the unlisted ones that hold work, dropped.
func reconcile[T listed](old []T, items []Item, create func(Item) T) ([]T, Changes) {
	olds := make([]oldItem, len(old))
	nActive := 0
	for j, o := range old {
		id, content, dropped := o.ident()
		olds[j] = oldItem{id: id, content: content, pos: -1}
		if !dropped {
			olds[j].pos = nActive
			nActive++
		}
	}
	for j := range olds {
		olds[j].nActive = nActive
	}
	res := matchItems(olds, items)

	var ch Changes
	out := make([]T, 0, len(items)+len(old))
	used := make([]bool, len(old))
	lastPos := -1
	for i, it := range items {
		j := res[i]
		if j < 0 {
			n := create(it)
			id, _, _ := n.ident()
			ch.Added = append(ch.Added, id)
			out = append(out, n)
			continue
		}
		used[j] = true
		id := olds[j].id
		if olds[j].pos >= 0 {
			if olds[j].pos < lastPos {
				ch.Reordered = true
			}
			lastPos = olds[j].pos
		}
		edited, status, revived := old[j].apply(it)
		if edited {
			ch.Edited = append(ch.Edited, id)
		}
		if status {
			ch.StatusChanged = append(ch.StatusChanged, id)
		}
		if revived {
			ch.Revived = append(ch.Revived, id)
		}
		out = append(out, old[j])
	}
	for j, o := range old {
		if used[j] {
			continue
		}
		if !o.hasWork() {
			ch.Removed = append(ch.Removed, olds[j].id)
			continue
		}
		if olds[j].pos >= 0 {
			ch.Dropped = append(ch.Dropped, olds[j].id)
		}
		o.drop()
		out = append(out, o)
	}
	return out, ch
}
