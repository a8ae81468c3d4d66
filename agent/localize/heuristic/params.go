package heuristic

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Params are the weights of the final ranking. BM25 against the issue
// carries most of it; being named by the issue, appearing in its
// traceback, holding its error message and being reached along a followed
// path add to it; where a file sits in the repository scales it.
//
// They are fields rather than constants so an evaluation can tune them on
// some repositories and score others with what it chose (see
// evalloc.LeaveOneOut); DefaultParams are what the localizer ships with.
type Params struct {
	Name     float64 // times the naming entry point's weight
	Frame    float64 // divided by the frame number (innermost 1)
	Raises   float64 // holds the text of an error or log line the issue quotes
	Callee   float64 // called by a unit the issue names: the work is often delegated
	PathWord float64 // the file's own name is a word of the issue
	Opened   float64 // units the search opened rather than only listed
	Depth    float64 // per level below an entry point
	Class    float64 // classes rank below the methods that do the work
	Aside    float64 // tests, docs, examples, vendored and stray scripts rank below library code
	Init     float64 // a package's __init__ ranks below the modules it gathers
	// Lexical is what plain BM25's first rank adds, as a share of the
	// search's best score, falling off by reciprocal rank; 0 ranks by the
	// search alone.
	Lexical float64
	// History is what the first rank of the files and functions that the
	// most similar past changes touched adds, the same way; Recent that of
	// the files changed most lately; CoChange that of the files that
	// changed together with the best files.
	History  float64
	Recent   float64
	CoChange float64
}

// DefaultParams are the shipped weights.
func DefaultParams() Params {
	return Params{
		Name: 1.0 / 3, Frame: 0.8, Raises: 1.2, Callee: 0.15, PathWord: 0.15,
		Opened: 0.15, Depth: 0.05, Class: 0.8, Aside: 0.3, Init: 0.7, Lexical: 0.5,
		History: 0, Recent: 0, CoChange: 0,
	}
}

// rrfK damps reciprocal rank fusion: with 10, the first rank is worth
// twice the tenth, not ten times.
const rrfK = 10

// String is the params as "name=value" pairs, the form Set reads.
func (p Params) String() string {
	v := reflect.ValueOf(p)
	var parts []string
	for i := range v.NumField() {
		parts = append(parts, fmt.Sprintf("%s=%g", strings.ToLower(v.Type().Field(i).Name), v.Field(i).Float()))
	}
	return strings.Join(parts, ",")
}

// Set changes the weights named in "name=value,..." (names as String
// writes them, any case).
func (p *Params) Set(s string) error {
	v := reflect.ValueOf(p).Elem()
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("weight %q: want name=value", kv)
		}
		f := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, strings.TrimSpace(name)) })
		if !f.IsValid() {
			return fmt.Errorf("weight %q: unknown (known: %s)", name, p.names())
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return fmt.Errorf("weight %q: %w", name, err)
		}
		f.SetFloat(x)
	}
	return nil
}

func (p Params) names() string {
	t := reflect.TypeOf(p)
	var out []string
	for i := range t.NumField() {
		out = append(out, strings.ToLower(t.Field(i).Name))
	}
	return strings.Join(out, ", ")
}

// Rule is one rule of the ranking that can be turned off, for measuring
// what it is worth repository by repository.
type Rule struct {
	Name string
	// Off is the weights with the rule turned off.
	Off func(Params) Params
}

// Rules are the ranking's rules, each tied to the weight that carries it:
// additive ones are turned off at 0, multiplicative ones at 1.
func Rules() []Rule {
	zero := func(name string, f func(*Params)) Rule {
		return Rule{Name: name, Off: func(p Params) Params { f(&p); return p }}
	}
	return []Rule{
		zero("name", func(p *Params) { p.Name = 0 }),
		zero("frame", func(p *Params) { p.Frame = 0 }),
		zero("raises", func(p *Params) { p.Raises = 0 }),
		zero("callee", func(p *Params) { p.Callee = 0 }),
		zero("pathword", func(p *Params) { p.PathWord = 0 }),
		zero("opened", func(p *Params) { p.Opened, p.Depth = 0, 0 }),
		zero("class", func(p *Params) { p.Class = 1 }),
		zero("aside", func(p *Params) { p.Aside = 1 }),
		zero("init", func(p *Params) { p.Init = 1 }),
		zero("lexical", func(p *Params) { p.Lexical = 0 }),
		zero("history", func(p *Params) { p.History = 0 }),
		zero("recent", func(p *Params) { p.Recent = 0 }),
		zero("cochange", func(p *Params) { p.CoChange = 0 }),
	}
}

// usesHistory: the repository's history is read only when some weight
// uses it (reading it first costs seconds on a large repository).
func (p Params) usesHistory() bool { return p.History > 0 || p.Recent > 0 || p.CoChange > 0 }
