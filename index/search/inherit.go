package search

import (
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// maxBaseDepth bounds the walk up a class hierarchy.
const maxBaseDepth = 6

// inheritedUnits resolves "Class.method" when Class does not define method
// but one of its base classes does: issues name the class the user holds
// (Schema.validate), while the code defines it higher up (BaseSchema).
// It returns the nearest definitions and the classes they were found on;
// viaAlias tells that the class name was an alias of the class searched.
func (s *Searcher) inheritedUnits(q string, sc scope) (found []int32, owners []string, viaAlias bool) {
	i := strings.LastIndex(q, ".")
	if i <= 0 || i == len(q)-1 {
		return nil, nil, false
	}
	cls, method := q[:i], q[i+1:]
	level := s.classesNamed(cls)
	if len(level) == 0 {
		if al, ok := s.resolveAlias(cls); ok {
			level, viaAlias = classesOnly(s, al.target), true
		}
	}
	// Through an alias the class itself may define it (Processor.send
	// with Processor = Gateway); otherwise look one level up at a time.
	seen := map[int32]bool{}
	for _, c := range level {
		seen[c] = true
	}
	for depth := 0; depth <= maxBaseDepth && len(level) > 0; depth++ {
		if found, owners = s.methodsOn(level, method, sc); len(found) > 0 {
			return found, owners, viaAlias
		}
		var next []int32
		for _, c := range level {
			for _, b := range s.baseClasses(s.units[c]) {
				if !seen[b] {
					seen[b] = true
					next = append(next, b)
				}
			}
		}
		level = next
	}
	return nil, nil, false
}

// methodsOn are the units named method defined directly on the classes,
// in scope, and the classes that define them.
func (s *Searcher) methodsOn(classes []int32, method string, sc scope) ([]int32, []string) {
	var found []int32
	var on []string
	for _, c := range classes {
		cu := s.units[c]
		if k, ok := s.unitIdx[cu.Path+":"+cu.QualName+"."+method]; ok {
			if s.unitInScope(k, sc) {
				found = append(found, k)
				on = append(on, cu.QualName)
			}
		}
	}
	return found, on
}

// classesNamed are the class units a (possibly dotted) name denotes.
func (s *Searcher) classesNamed(name string) []int32 {
	var ids []int32
	if k, ok := s.names.byKey[name]; ok {
		ids = s.names.units[k]
	} else if strings.Contains(name, ".") {
		ids = s.byDotted(name, wholeRepo)
	}
	return classesOnly(s, ids)
}

func classesOnly(s *Searcher, ids []int32) []int32 {
	var out []int32
	for _, u := range ids {
		if s.units[u].Kind == index.KindClass {
			out = append(out, u)
		}
	}
	return out
}

// baseClasses are the classes of the repo that a class's base expressions
// name, by identifier: "with_metaclass(SchemaMeta, BaseSchema)" yields
// SchemaMeta and BaseSchema; "base.SchemaABC" yields SchemaABC. A base
// defined in the class's own file wins over same-named classes elsewhere.
func (s *Searcher) baseClasses(u *index.Unit) []int32 {
	var out []int32
	for _, expr := range u.Bases {
		for _, id := range identifiers(expr) {
			cands := s.classesNamed(id)
			var local []int32
			for _, c := range cands {
				if s.units[c].Path == u.Path {
					local = append(local, c)
				}
			}
			if len(local) > 0 {
				cands = local
			}
			out = append(out, cands...)
		}
	}
	return out
}

// identifiers are the identifier tokens of an expression.
func identifiers(expr string) []string {
	var out []string
	for i, j := range identTokens(expr) {
		out = append(out, expr[i:j])
	}
	return out
}
