package index

// RawFile is what parsing one file yields before any cross-file
// resolution. It depends on the file's bytes alone, which is what makes it
// cacheable: a warm run loads these and only redoes resolution.
type RawFile struct {
	Path  string
	Lang  string
	Lines int
	Size  int64
	// Flags record why the file was indexed specially (syntax error,
	// non-UTF-8, too large to parse).
	Flags   uint8
	Pkg     string // Go: package clause name
	Units   []RawUnit
	Imports []Import
	// Encoded, when set, holds the units' calls still Encoded: a file
	// loaded from the cache decodes them only if its calls are linked
	// again, which on a warm build none are.
	Encoded EncodedCalls
}

// EncodedCalls are a file's calls as the cache that loaded the file keeps
// them, encoded.
type EncodedCalls interface {
	// DecodeCalls gives each unit its calls, and reports whether they
	// decoded.
	DecodeCalls(units []RawUnit) bool
}

// LoadCalls decodes the units' calls if they are still encoded. The cache
// is checksummed, so calls that do not decode leave the units without
// calls rather than failing the build.
func (f *RawFile) LoadCalls() {
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

const (
	FlagSyntaxError uint8 = 1 << iota
	FlagNonUTF8
	FlagTooLarge
)

// RawKind is what a raw unit is: a function, class, method or chunk (the
// index names them as Kind). The cache stores the number, so a value never
// changes its meaning.
type RawKind uint8

const (
	RawFunction RawKind = iota
	RawClass
	RawMethod
	RawChunk
)

// RawUnit is a unit as extracted from one file: calls are still names.
type RawUnit struct {
	Kind RawKind
	Name string
	// Qual is the unique qualified name within the file (the ID's part after
	// "path:"); QualName is the same without the "#N" that tells apart
	// repeated definitions.
	Qual     string
	QualName string
	Start    int
	End      int
	Sig      string
	Parent   int // index into rawFile.Units, -1 at top level
	Bases    []string
	Calls    []RawCall
	// Go methods: the receiver's type name and variable.
	Recv    string
	RecvVar string
	// Vars are local names (and self.attributes) assigned the result of
	// a call, which tells resolution what x is in x.method().
	Vars []Var
}

// Var is "Name = Type(...)" inside a unit, first assignment only.
type Var struct {
	Name string
	Type string
}

// RawCall is one distinct callee expression of a unit, as written with
// white space removed (e.g. "self.save", "super().__init__", "os.path.join").
// Count is how many call sites share it; Line is the first.
type RawCall struct {
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
