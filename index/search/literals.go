package search

import (
	"regexp/syntax"
	"strings"
)

// requiredLiterals are lower-cased strings that every match of the regex
// must contain. Checking them with strings.Contains first lets the regex
// fallback skip most names without running the (slower) regexp engine.
func requiredLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	collectLiterals(re.Simplify(), &out)
	return out
}

func collectLiterals(re *syntax.Regexp, out *[]string) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) > 0 {
			*out = append(*out, strings.ToLower(string(re.Rune)))
		}
	case syntax.OpCapture, syntax.OpPlus:
		collectLiterals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			collectLiterals(re.Sub[0], out)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			collectLiterals(sub, out)
		}
	}
}

// containsAll tells whether s contains every literal.
func containsAll(s string, lits []string) bool {
	for _, l := range lits {
		if !strings.Contains(s, l) {
			return false
		}
	}
	return true
}
