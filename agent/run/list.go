package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/vcs"
)

// Listing is one run as `swe-adept runs` shows it.
type Listing struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"` // the summary's status; "running or crashed" without one
	Started  time.Time `json:"started"`
	Patch    string    `json:"patch,omitempty"`
	Stat     string    `json:"stat,omitempty"`
	Dir      string    `json:"dir,omitempty"`      // the run folder; "" when only git state is left
	Worktree string    `json:"worktree,omitempty"` // still on disk (gc removes it)
	InPlace  bool      `json:"in_place,omitempty"`
	Issue    string    `json:"issue,omitempty"` // first line
}

// List returns the runs of the repository containing repo, newest first:
// run folders joined with what git still holds of them.
func List(ctx context.Context, repo string) ([]Listing, error) {
	co, err := vcs.Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Listing{}
	get := func(id string) *Listing {
		if l, ok := byID[id]; ok {
			return l
		}
		l := &Listing{ID: id, Status: "running or crashed"}
		byID[id] = l
		return l
	}
	dir := runfolder.RunsDir(co.CommonDir())
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			fill(get(e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	infos, err := vcs.ListRuns(ctx, co.Dir())
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	for _, in := range infos {
		l := get(in.ID)
		l.Worktree, l.InPlace = in.Worktree, in.InPlace
		if l.Dir == "" && in.Finished {
			l.Status = "finished"
		}
		if in.Interrupted && l.Status == "running or crashed" {
			l.Status = "crashed; checkout restored (--resume continues)"
		}
	}
	out := make([]Listing, 0, len(byID))
	for _, l := range byID {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

func fill(l *Listing, runDir string) {
	l.Dir = runDir
	if m, err := runfolder.LoadMeta(runDir); err == nil {
		l.Started, l.InPlace, l.Issue = m.Started, m.InPlace, firstLine(m.Issue)
	}
	if s, err := runfolder.LoadSummary(runDir); err == nil {
		l.Status, l.Patch, l.Stat = s.Status, s.Patch, s.Stat
	}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 72 {
		s = s[:69] + "..."
	}
	return s
}
