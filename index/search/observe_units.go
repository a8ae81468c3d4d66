package search

import (
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// unitResult renders ranked units with their previews (find_code_def and
// find_child_unit).
func (s *Searcher) unitResult(tool, q, mode string, scores []float64, ids []int32, head string) Result {
	return s.unitResultMore(tool, q, mode, scores, ids, head, 0)
}

// unitResultMore is unitResult with a count of further matches that were
// not even ranked into ids.
func (s *Searcher) unitResultMore(tool, q, mode string, scores []float64, ids []int32, head string, more int) Result {
	if len(ids) > MaxHits {
		more += len(ids) - MaxHits
		ids = ids[:MaxHits]
	}
	hits := make([]Hit, 0, len(ids))
	blocks := make([]string, 0, len(ids))
	showScore := mode == ModeFuzzy || mode == ModeRegex
	for i, k := range ids {
		u := s.units[k]
		sc := 1.0
		if scores != nil {
			sc = scores[i]
		}
		h := s.unitHit(u, sc, s.Preview(u))
		hits = append(hits, h)
		blocks = append(blocks, renderUnitHit(i+1, h, showScore))
	}
	obs, shown := page(head+"\n", blocks, more, "narrow with file_path or a longer name.")
	return Result{Tool: tool, Query: q, Mode: mode, Hits: hits[:shown], More: more + len(ids) - shown, Observation: obs}
}

// enumerateUnits lists the units of one file, nested by parent, without
// previews: the file's table of contents.
func (s *Searcher) enumerateUnits(tool string, fi int32) Result {
	f := s.files[fi]
	head := fmt.Sprintf("%s: %s in %s (ids are %s:<name>; open one with find_child_unit)\n",
		tool, plural(len(f.Units), "unit", "units"), f.Path, f.Path)
	var b strings.Builder
	b.WriteString(head)
	var hits []Hit
	more := 0
	for i, id := range f.Units {
		u, ok := s.ix.Unit(id)
		if !ok {
			continue
		}
		// The id's name part, which find_child_unit takes; it differs from
		// QualName when the builder told same-named units apart ("f#2").
		_, name := splitID(u.ID)
		line := fmt.Sprintf("%s%s  [%s, lines %d-%d]\n", strings.Repeat("  ", 1+s.depth(u)), name, u.Kind, u.Start, u.End)
		if u.Kind == index.KindChunk {
			line = fmt.Sprintf("  %s  [chunk, lines %d-%d]\n", u.Name, u.Start, u.End)
		}
		if b.Len()+len(line)+80 > ObservationBudget {
			more = len(f.Units) - i
			break
		}
		b.WriteString(line)
		hits = append(hits, s.unitHit(u, 0, ""))
	}
	if len(f.Units) == 0 {
		b.WriteString("  (no units: the file is empty)\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "%d more not shown; give a definition_name to see one unit.\n", more)
	}
	return Result{Tool: tool, Query: f.Path, Mode: ModeEnumerate, Hits: hits, More: more, Observation: clip(b.String())}
}

// depth is how many parents a unit has, for indenting listings.
func (s *Searcher) depth(u *index.Unit) int {
	d := 0
	for p := u.Parent; p != "" && d < 16; d++ {
		pu, ok := s.ix.Unit(p)
		if !ok {
			break
		}
		p = pu.Parent
	}
	return d
}
