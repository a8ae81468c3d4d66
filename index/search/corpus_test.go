package search

import (
	"path"
	"testing"
)

// TestSympyIssueNames looks up names quoted in real SymPy issues (SWE-bench
// instances) and wants the defining unit on top.
func TestSympyIssueNames(t *testing.T) {
	if testing.Short() || searchRace {
		t.Skip("indexes all of SymPy: not in -short mode or under -race")
	}
	s := sympyCorpus(t)
	tests := []struct {
		query, wantQual, wantFile, wantMode string
	}{
		{"Symbol", "Symbol", "symbol.py", ModeExact},
		{"sympy.core.symbol.Symbol", "Symbol", "symbol.py", ModeExact},
		{"Basic.subs", "Basic.subs", "basic.py", ModeExact},
		{"Poly.sqf_list", "Poly.sqf_list", "polytools.py", ModeExact},
		{"nthroot_mod", "nthroot_mod", "residue_ntheory.py", ModeExact},
		{"LatexPrinter._print_Subs", "LatexPrinter._print_Subs", "latex.py", ModeExact},
		{"Intersection", "Intersection", "sets.py", ModeExact},
		{"Symbl", "Symbol", "symbol.py", ModeFuzzy},
		{"Matrix", "MutableDenseMatrix", "dense.py", ModeExact},
		{"Matrix.col_insert", "MatrixShaping.col_insert", "common.py", ModeExact},
	}
	for _, tt := range tests {
		r := s.FindCodeDef(FindCodeDefArgs{DefinitionName: tt.query})
		if r.Mode != tt.wantMode || len(r.Hits) == 0 {
			t.Errorf("%s: mode %s with %d hits, want %s with hits", tt.query, r.Mode, len(r.Hits), tt.wantMode)
			continue
		}
		u, ok := s.Index().Unit(r.Hits[0].UnitID)
		if !ok || u.QualName != tt.wantQual || path.Base(u.Path) != tt.wantFile {
			t.Errorf("%s: top hit %s, want %s in %s\n%s", tt.query, r.Hits[0].UnitID, tt.wantQual, tt.wantFile, r.Observation)
		}
	}
}
