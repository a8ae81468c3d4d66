package history

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
	"github.com/swe-adept/swe-adept/vcs"
)

// storeVersion changes whenever what a Commit holds, or how it is
// derived from a diff, changes: an older cache is then read afresh.
const storeVersion = 1

// store is everything read from one repository: the ancestry of every
// revision read so far, and the commits among them that changed a file
// the pathspec matches. It is what the cache holds.
type store struct {
	Version int
	Paths   []string
	// Tips are revisions whose every ancestor is in Nodes.
	Tips    []string
	Nodes   []node
	Commits []Commit

	index map[string]int32 // hash -> node
}

// node is one commit of the ancestry graph.
type node struct {
	Hash    string
	Time    int64
	Parents []int32 // nodes; a parent never read (shallow clone) is left out
	Commit  int32   // into Commits, or -1 when it changed no matching file
}

func newStore(paths []string) *store {
	return &store{Version: storeVersion, Paths: slices.Clone(paths), index: map[string]int32{}}
}

// loadStore reads the cache at path; a missing, unreadable or outdated
// cache gives an empty store (and the history is read afresh).
func loadStore(path string, paths []string, log *slog.Logger) *store {
	if path == "" {
		return newStore(paths)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("history: cache unreadable, reading afresh", "path", path, "err", err)
		}
		return newStore(paths)
	}
	st := &store{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(st); err != nil || !st.valid(paths) {
		log.Info("history: cache outdated or damaged, reading afresh", "path", path, "err", err)
		return newStore(paths)
	}
	st.reindex()
	return st
}

// valid checks a decoded cache before it is trusted: its version and
// pathspec, and that every reference stays in range.
func (st *store) valid(paths []string) bool {
	if st.Version != storeVersion || !slices.Equal(st.Paths, paths) {
		return false
	}
	for _, n := range st.Nodes {
		if n.Commit < -1 || int(n.Commit) >= len(st.Commits) {
			return false
		}
		for _, p := range n.Parents {
			if p < 0 || int(p) >= len(st.Nodes) {
				return false
			}
		}
	}
	return true
}

func (st *store) reindex() {
	st.index = make(map[string]int32, len(st.Nodes))
	for i, n := range st.Nodes {
		st.index[n.Hash] = int32(i)
	}
}

func (st *store) save(path string) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(st); err != nil {
		return fmt.Errorf("encode history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	return atomicfile.Write(path, b.Bytes())
}

// update reads what head has that the store lacks: its new ancestry, and
// the new commits that changed a matching file. It reports how many
// commits it added.
func (st *store) update(ctx context.Context, gitDir, head string, paths []string) (int, error) {
	if _, ok := st.index[head]; ok {
		return 0, nil
	}
	not := st.Tips
	var graph []vcs.GraphCommit
	err := vcs.ReadGraph(ctx, gitDir, head, not, func(c vcs.GraphCommit) error {
		graph = append(graph, c)
		return nil
	})
	if err != nil {
		return 0, err
	}
	var commits []Commit
	err = vcs.ReadLog(ctx, gitDir, vcs.LogOptions{Rev: head, Not: not, Paths: paths}, func(c vcs.LogCommit) error {
		commits = append(commits, reduce(c))
		return nil
	})
	if err != nil {
		return 0, err
	}
	st.add(graph, commits)
	st.Tips = st.tipsAfter(head)
	return len(commits), nil
}

// add enters new graph commits (oldest last, as rev-list gives them) and
// the commits with changes.
func (st *store) add(graph []vcs.GraphCommit, commits []Commit) {
	for _, g := range graph {
		if _, ok := st.index[g.Hash]; ok {
			continue
		}
		st.index[g.Hash] = int32(len(st.Nodes))
		st.Nodes = append(st.Nodes, node{Hash: g.Hash, Time: g.Time, Commit: -1})
	}
	for _, g := range graph {
		n := &st.Nodes[st.index[g.Hash]]
		if len(n.Parents) > 0 {
			continue
		}
		for _, p := range g.Parents {
			if i, ok := st.index[p]; ok {
				n.Parents = append(n.Parents, i)
			}
		}
	}
	for _, c := range commits {
		i, ok := st.index[c.Hash]
		if !ok || st.Nodes[i].Commit >= 0 {
			continue
		}
		st.Nodes[i].Commit = int32(len(st.Commits))
		st.Commits = append(st.Commits, c)
	}
}

// tipsAfter is the tips once head is read: head, and the old tips that are
// not its ancestors.
func (st *store) tipsAfter(head string) []string {
	anc := map[int32]bool{}
	for _, n := range st.ancestors(head) {
		anc[n] = true
	}
	out := []string{head}
	for _, t := range st.Tips {
		if i, ok := st.index[t]; ok && !anc[i] && t != head {
			out = append(out, t)
		}
	}
	return out
}

// ancestors are the nodes reachable from hash, itself included.
func (st *store) ancestors(hash string) []int32 {
	start, ok := st.index[hash]
	if !ok {
		return nil
	}
	seen := make([]bool, len(st.Nodes))
	stack := []int32{start}
	var out []int32
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		stack = append(stack, st.Nodes[n].Parents...)
	}
	return out
}
