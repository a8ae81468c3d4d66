// Package index turns a repository into definition-level code units and the
// code-structure tree that links them. Build is the way in: it walks the
// repository, parses each file (index/parse), links the calls across files,
// and caches both for the next build. The search behind the localization
// tools is in index/search.
package index

// Kind is what a code unit is.
type Kind string

const (
	KindFunction Kind = "function"
	KindClass    Kind = "class"
	KindMethod   Kind = "method"
	KindChunk    Kind = "chunk"
)

// Relation is how a parent unit reaches a child unit.
type Relation string

const (
	Contains Relation = "contains"
	Invokes  Relation = "invokes"
)

// Edge is one entry of a unit's adjacency list. Line is the 1-based line in
// the parent where the child is defined (contains) or called (invokes), so a
// preview can show the invocation context without the whole body.
type Edge struct {
	ID   string   `json:"id"`
	Rel  Relation `json:"rel"`
	Line int      `json:"line"`
}

// Call is a call site the index could not resolve to a unit of the repo.
// The names still matter to search, so they stay on the unit.
type Call struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

// Unit is one node of the code-structure tree: a function, class, method or
// a chunk of at most 200 lines of the remaining top-level code.
type Unit struct {
	// ID is "path:Qualified.name" (chunks: "path:<chunk N>", N from 1).
	ID        string `json:"id"`
	Kind      Kind   `json:"kind"`
	Name      string `json:"name"`
	QualName  string `json:"qual_name"`
	Path      string `json:"path"`
	Start     int    `json:"start"` // 1-based, inclusive
	End       int    `json:"end"`   // 1-based, inclusive
	Signature string `json:"signature"`
	// Parent is the ID of the enclosing unit, "" at top level.
	Parent     string `json:"parent,omitempty"`
	Children   []Edge `json:"children,omitempty"`
	Unresolved []Call `json:"unresolved,omitempty"`
	// Bases are the class's base-class expressions as written (classes only).
	Bases []string `json:"bases,omitempty"`
}

// File is one indexed source file.
type File struct {
	Path  string `json:"path"` // slash-separated, relative to the repo root
	Lang  string `json:"lang"`
	Lines int    `json:"lines"`
	Size  int64  `json:"size"`
	// Units are the IDs of the file's units in source order (nested ones
	// follow their parent).
	Units []string `json:"units"`
}
