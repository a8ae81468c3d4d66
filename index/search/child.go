package search

import (
	"fmt"
	"sort"
	"strings"
)

// FindChildUnit opens one child of a unit by its id, given as file_path and
// definition_name (or the whole id in definition_name). With an empty
// definition_name it lists the file's units.
func (s *Searcher) FindChildUnit(a FindChildUnitArgs) Result {
	const tool = nameFindChildUnit
	name := cleanName(a.DefinitionName)
	fp := a.FilePath
	if i := strings.Index(name, ":"); i > 0 {
		fp, name = name[:i], strings.ReplaceAll(strings.TrimLeft(name[i+1:], ":"), "::", ".")
	}
	if strings.TrimSpace(fp) == "" && looksLikePath(name) {
		// A path alone names the file: list its units (or say it is not there).
		fp, name = name, ""
	}
	query := strings.TrimSpace(fp) + ":" + name
	if strings.TrimSpace(fp) == "" {
		return failure(tool, query, s.childNeedsFile(name))
	}
	if len(name) > maxQueryLen {
		return failure(tool, query, fmt.Sprintf("definition_name is %d characters long; pass a child id's name of at most %d characters.\n", len(name), maxQueryLen))
	}
	fi, ok := s.resolveFile(fp)
	if !ok {
		return failure(tool, query, s.noSuchPath(fp))
	}
	if name == "" {
		return s.enumerateUnits(tool, fi)
	}
	f := s.files[fi]
	id := f.Path + ":" + name
	if u, ok := s.ix.Unit(id); ok {
		return s.unitResult(tool, id, ModeExact, nil, []int32{s.unitIndex(u)}, fmt.Sprintf("%s %s:", tool, quote(id)))
	}
	// A bare method name is unambiguous often enough to accept.
	var byName []int32
	for _, uid := range f.Units {
		if u, ok := s.ix.Unit(uid); ok && u.Name == name {
			byName = append(byName, s.unitIndex(u))
		}
	}
	if len(byName) == 1 {
		u := s.units[byName[0]]
		return s.unitResult(tool, id, ModeExact, nil, byName, fmt.Sprintf("%s %s: no such id; the one unit named %s in this file is %s", tool, quote(id), quote(name), u.ID))
	}
	// The model may pair a child's name with its parent's file: an exact
	// name elsewhere is worth more than a refusal.
	if ids := s.exactUnits(name, wholeRepo); len(byName) == 0 && len(ids) > 0 && len(ids) <= 3 {
		return s.unitResult(tool, id, ModeExact, nil, ids, fmt.Sprintf("%s %s: no such unit in %s; %s elsewhere",
			tool, quote(id), f.Path, plural(len(ids), "unit of that name", "units of that name")))
	}
	return failure(tool, id, s.noSuchUnit(name, fi))
}

// childNeedsFile answers a call without a file: it names the ids the name
// could mean, so the model can retry with one.
func (s *Searcher) childNeedsFile(name string) string {
	msg := "file_path is required: pass the file part of the child id (path:Name) as file_path and the rest as definition_name."
	if name == "" {
		return msg + "\n"
	}
	ids := s.exactUnits(name, wholeRepo)
	if len(ids) == 0 {
		return msg + " To search by name alone, use find_code_def.\n"
	}
	msg += " Units named " + quote(name) + ":\n"
	for i, k := range ids {
		if i == MaxHits {
			msg += fmt.Sprintf("  ... %d more\n", len(ids)-i)
			break
		}
		msg += "  " + s.units[k].ID + "\n"
	}
	return msg
}

// noSuchUnit is the observation for an id that is not in the file: the
// file's units, most similar names first.
func (s *Searcher) noSuchUnit(name string, fi int32) string {
	f := s.files[fi]
	type cand struct {
		q     string
		score float64
	}
	var cs []cand
	low := strings.ToLower(name)
	for _, id := range f.Units {
		u, ok := s.ix.Unit(id)
		if !ok {
			continue
		}
		_, idName := splitID(u.ID)
		cs = append(cs, cand{idName, FuzzyScore(low, strings.ToLower(idName))})
	}
	if len(cs) == 0 {
		return fmt.Sprintf("no unit %s in %s; the file has no units. Try find_code_def with the name alone.\n", quote(name), f.Path)
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var b strings.Builder
	fmt.Fprintf(&b, "no unit %s in %s; its units (%d, most similar first) are:\n", quote(name), f.Path, len(cs))
	for i, c := range cs {
		if b.Len()+len(c.q)+120 > ObservationBudget {
			fmt.Fprintf(&b, "  ... %d more: find_code_def with file_path=%s lists them all\n", len(cs)-i, f.Path)
			break
		}
		b.WriteString("  " + c.q + "\n")
	}
	b.WriteString("Pass one of these as definition_name, or use find_code_def to search the whole repository.\n")
	return b.String()
}
