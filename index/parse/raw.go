package parse

// File is what parsing one file yields, before any call is linked to
// another file's units. It depends on the file's bytes alone, which is
// what makes it cacheable: a warm build loads these and only links again.
type File struct {
	Path  string
	Lang  string
	Lines int
	Size  int64
	// Flags record why the file was indexed specially (syntax error,
	// non-UTF-8, too large to parse).
	Flags   uint8
	Pkg     string // Go: package clause name
	Units   []Unit
	Imports []Import
	// Encoded, when set, holds the units' calls still encoded: a file
	// loaded from the cache decodes them only if its calls are linked
	// again, which on a warm build none are.
	Encoded EncodedCalls
}

// EncodedCalls are a file's calls as the cache that loaded the file keeps
// them, encoded.
type EncodedCalls interface {
	// DecodeCalls gives each unit its calls, and reports whether they
	// decoded.
	DecodeCalls(units []Unit) bool
}

// LoadCalls decodes the units' calls if they are still encoded. The cache
// is checksummed, so calls that do not decode leave the units without
// calls rather than failing the build.
func (f *File) LoadCalls() {
	if f.Encoded == nil {
		return
	}
	if !f.Encoded.DecodeCalls(f.Units) {
		for i := range f.Units {
			f.Units[i].Calls = nil
		}
	}
	f.Encoded = nil
}

// Flags of a File: why it was indexed specially.
const (
	FlagSyntaxError uint8 = 1 << iota // kept what parses
	FlagNonUTF8                       // read as Latin-1
	FlagTooLarge                      // cut into plain chunks, not parsed
)

// Kind is what a unit is: a function, class, method or chunk (index.Kind
// names them). The cache stores the number, so a value never changes its
// meaning.
type Kind uint8

const (
	KindFunction Kind = iota
	KindClass
	KindMethod
	KindChunk
)

// Unit is a unit as extracted from one file: calls are still names.
type Unit struct {
	Kind Kind
	Name string
	// Qual is the unique qualified name within the file (the ID's part after
	// "path:"); QualName is the same without the "#N" that tells apart
	// repeated definitions.
	Qual     string
	QualName string
	Start    int
	End      int
	Sig      string
	Parent   int // index into File.Units, -1 at top level
	Bases    []string
	Calls    []Call
	// Go methods: the receiver's type name and variable.
	Recv    string
	RecvVar string
	// Vars are local names (and self.attributes) assigned the result of
	// a call, which tells linking what x is in x.method().
	Vars []Var
}

// Var is "Name = Type(...)" inside a unit, first assignment only.
type Var struct {
	Name string
	Type string
}

// Call is one distinct callee expression of a unit, as written with
// white space removed (e.g. "self.save", "super().__init__", "os.path.join").
// Count is how many call sites share it; Line is the first.
type Call struct {
	Name  string
	Line  int
	Count int
}

// Import is one imported name. Python: `from ..a.b import c as d` is
// {Module: "a.b", Level: 2, Name: "c", Alias: "d"}; `import a.b` is
// {Module: "a.b"}; `from m import *` has Name "*". Go: Module is the import
// path, Alias the explicit package name if any.
type Import struct {
	Module string
	Level  int
	Name   string
	Alias  string
	Line   int
}
