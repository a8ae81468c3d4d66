package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

// TestSnippetWindowsAgreeWithScan checks the windowed snippet search
// (candidate lines from the postings) against a plain scan of every file,
// for snippets cut from every line of the shop repository.
func TestSnippetWindowsAgreeWithScan(t *testing.T) {
	s := shopSearcher(t)
	all := func(posting) bool { return true }
	checked := 0
	for fi, f := range s.files {
		for l := 1; l <= s.lineCount(int32(fi)); l++ {
			line := strings.TrimSpace(s.lineText(int32(fi), l))
			for _, q := range snippetsOf(line) {
				sn, err := compileSnippet(q)
				if err != nil || len(sn.idents) == 0 {
					continue
				}
				got := s.snippetLines(sn, sn.re, wholeRepo, all)
				want := s.regexLines(sn, sn.re, "", wholeRepo, all)
				if !slices.Equal(got, want) {
					t.Errorf("snippet %q: windows found %v, a full scan %v", q, got, want)
				}
				if !slices.Contains(got, posting{int32(fi), int32(l)}) {
					t.Errorf("snippet %q cut from %s:%d does not find that line", q, f.Path, l)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d snippets checked", checked)
	}
}

// snippetsOf cuts a line into snippets: the whole line, its first half
// and its second half, re-spaced to test the whitespace tolerance.
func snippetsOf(line string) []string {
	if line == "" {
		return nil
	}
	fields := strings.Fields(line)
	out := []string{line, strings.Join(fields, "  ")}
	if len(fields) > 2 {
		out = append(out, strings.Join(fields[:len(fields)/2], " "), strings.Join(fields[len(fields)/2:], "\t"))
	}
	return out
}

// TestEveryUnitFindsItself: each unit is found by its id, by its
// qualified name and as a child id, on the hand index and on Build's.
func TestEveryUnitFindsItself(t *testing.T) {
	for name, s := range map[string]*Searcher{"hand": shopSearcher(t), "built": builtShop(t)} {
		for _, u := range s.units {
			r := s.FindCodeDef(FindCodeDefArgs{DefinitionName: u.ID})
			if len(r.Hits) != 1 || r.Hits[0].UnitID != u.ID {
				t.Errorf("%s: find_code_def %q gave %v", name, u.ID, hitIDs(r))
			}
			_, idName := splitID(u.ID)
			r = s.FindChildUnit(FindChildUnitArgs{DefinitionName: idName, FilePath: u.Path})
			if len(r.Hits) != 1 || r.Hits[0].UnitID != u.ID {
				t.Errorf("%s: find_child_unit %s %s gave %v", name, u.Path, u.QualName, hitIDs(r))
			}
			if u.Kind == index.KindChunk {
				continue
			}
			r = s.FindCodeDef(FindCodeDefArgs{DefinitionName: u.QualName, FilePath: u.Path})
			if r.Mode != ModeExact || !slices.Contains(hitIDs(r), u.ID) {
				t.Errorf("%s: find_code_def %q in %s gave %s %v", name, u.QualName, u.Path, r.Mode, hitIDs(r))
			}
		}
	}
}

func hitIDs(r Result) []string {
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.UnitID)
	}
	return ids
}
