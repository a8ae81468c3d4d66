package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// presence is a connected worker as the workers bucket shows it. A worker
// renews its entry every beat; the bucket drops entries six beats old, so
// the bucket holds the workers that are alive and reachable (a worker
// starved of CPU for a few beats is not given up for dead).
type presence struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	// Lacks names the repositories this worker cannot set instances up
	// for, with why; it leaves their instances to other workers.
	Lacks map[string]string `json:"lacks,omitempty"`
	// Running is the instances under way, by batch.
	Running map[string][]string `json:"running,omitempty"`
}

// capable reports whether the worker may be able to run an instance of repo.
func (p presence) capable(repo string) bool {
	_, lacks := p.Lacks[repo]
	return !lacks
}

// livePresence reads every connected worker's entry.
func livePresence(ctx context.Context, kv jetstream.KeyValue) ([]presence, error) {
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	var all []presence
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			continue // lapsed since it was listed
		case err != nil:
			// A worker that may be there must be counted: callers fail
			// instances on the strength of who is missing.
			return nil, fmt.Errorf("read worker %s: %w", k, err)
		}
		var p presence
		if json.Unmarshal(e.Value(), &p) == nil {
			all = append(all, p)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// myPresence is a worker's own entry, kept current.
type myPresence struct {
	kv jetstream.KeyValue
	mu sync.Mutex
	p  presence
}

func newPresence(kv jetstream.KeyValue, name, id string) *myPresence {
	return &myPresence{kv: kv, p: presence{Name: name, ID: id, Lacks: map[string]string{}, Running: map[string][]string{}}}
}

// put writes the entry, which also renews it.
func (m *myPresence) put(ctx context.Context) {
	m.mu.Lock()
	b, err := json.Marshal(m.p)
	m.mu.Unlock()
	if err != nil {
		return
	}
	if _, err := m.kv.Put(ctx, m.p.ID, b); err != nil && ctx.Err() == nil {
		slog.Warn("renew this worker's presence", "err", err)
	}
}

// announce writes the entry for the first time, trying until it is
// there: a worker takes no instance before others can see it, or a
// worker without a repository would take it for gone and fail instances
// this one can run.
func (m *myPresence) announce(ctx context.Context) error {
	for {
		m.mu.Lock()
		b, err := json.Marshal(m.p)
		m.mu.Unlock()
		if err != nil {
			return err
		}
		if _, err = m.kv.Put(ctx, m.p.ID, b); err == nil {
			return nil
		}
		slog.Warn("announce this worker", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// lack records a repository this worker cannot set up; it reports whether
// the repository is new to the list.
func (m *myPresence) lack(repo, why string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, had := m.p.Lacks[repo]
	m.p.Lacks[repo] = why
	return !had
}

// snapshot is a copy of the entry as it stands.
func (m *myPresence) snapshot() presence {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.p
	p.Lacks = maps.Clone(m.p.Lacks)
	p.Running = maps.Clone(m.p.Running)
	return p
}

func (m *myPresence) lacks(repo string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	why, ok := m.p.Lacks[repo]
	return why, ok
}

func (m *myPresence) started(batch, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.p.Running[batch] = append(m.p.Running[batch], id)
}

func (m *myPresence) ended(batch, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := slices.DeleteFunc(slices.Clone(m.p.Running[batch]), func(s string) bool { return s == id })
	if len(ids) == 0 {
		delete(m.p.Running, batch)
		return
	}
	m.p.Running[batch] = ids
}

// leave removes the entry, so coordinators stop counting on this worker
// at once rather than when the entry lapses.
func (m *myPresence) leave(ctx context.Context) {
	if err := m.kv.Delete(ctx, m.p.ID); err != nil {
		slog.Warn("remove this worker's presence", "err", err)
	}
}

// nobodyCan explains why no connected worker can run an instance of repo,
// or returns "" when one may: every worker but self that is connected and
// has not said it lacks the repository.
func nobodyCan(all []presence, self presence, repo string) string {
	whys := map[string]string{self.Name: self.Lacks[repo]}
	for _, p := range all {
		if p.ID == self.ID {
			continue
		}
		if p.capable(repo) {
			return ""
		}
		whys[p.Name] = p.Lacks[repo]
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(whys)) {
		parts = append(parts, name+": "+firstLine(whys[name]))
	}
	return "no connected worker can set it up (" + strings.Join(parts, "; ") + ")"
}
