package index

import (
	"math/bits"
	"runtime"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index/parse"
)

// Call linking turns the calls that parsing records as names into invokes
// edges to the units they name, one language family at a time
// (link_go.go, link_python*.go, link_script.go), once every file is known.
// A file whose links cannot have changed since the last build takes them
// from it instead (linkstore.go).

// linker turns raw files into linked units. Units are numbered globally
// (file by file, in source order); a unit's members (methods, nested defs)
// and each file's top-level names are found through one map keyed by
// (scope, name), where a file's scope is -(file index + 1).
type linker struct {
	files []*parse.File
	// rootBase is the root directory's name: a root that is itself a
	// Python package is imported under it.
	rootBase string
	// goModule is the module path in the root's go.mod, "" if none.
	goModule string
	// scripts maps bare module specifiers to paths (tsconfig.json).
	scripts *scriptConfig
	offs    []int32 // first global unit index of each file
	units   []*Unit
	raw     []*parse.Unit
	parent  []int32
	fileOf  []int32
	// hasMembers marks units with child definitions, so name lookups
	// skip the scopes that cannot hold the name.
	hasMembers []bool
	members    map[scopeName]int32
	workers    int
	// keep marks files whose calls are not resolved: their links come
	// from the previous run (see linkSet). nil resolves every file.
	keep []bool

	counts []callCounts // per file, summed at the end
	// deps are, per file whose calls were resolved, the files its
	// resolution read (Python only; nil for other languages).
	deps [][]int32
}

type scopeName struct {
	scope int32
	name  string
}

type callCounts struct{ resolved, unresolved int }

func fileScope(f int) int32 { return -int32(f) - 1 }

// newLinker creates the Unit values with IDs, parents and contains edges;
// calls are linked by each language's linker.
func newLinker(rootBase string, files []*parse.File, workers int) *linker {
	r := &linker{files: files, rootBase: rootBase, offs: make([]int32, len(files)), workers: workers,
		counts: make([]callCounts, len(files)), deps: make([][]int32, len(files))}
	n := 0
	for i, f := range files {
		r.offs[i] = int32(n)
		n += len(f.Units)
	}
	r.units = make([]*Unit, n)
	r.raw = make([]*parse.Unit, n)
	r.parent = make([]int32, n)
	r.fileOf = make([]int32, n)
	r.hasMembers = make([]bool, n)
	members := make(chan map[scopeName]int32)
	go func() { members <- memberTable(files, r.offs, n) }() // half the work, on another core
	idc := make(chan []string)
	go func() { idc <- unitIDs(files, n) }()
	block := make([]Unit, n) // one allocation for every unit
	edges := containsBlocks(files, block)
	ids := <-idc
	for fi, f := range files {
		for j := range f.Units {
			ru := &f.Units[j]
			g := r.offs[fi] + int32(j)
			u := &block[g]
			*u = Unit{
				ID: ids[g], Kind: unitKinds[ru.Kind], Name: ru.Name, QualName: ru.QualName, Children: edges[g],
				Path: f.Path, Start: ru.Start, End: ru.End, Signature: ru.Sig, Bases: ru.Bases,
			}
			r.units[g], r.raw[g], r.fileOf[g] = u, ru, int32(fi)
			r.parent[g] = -1
			if ru.Parent >= 0 {
				r.attach(g, r.offs[fi]+int32(ru.Parent))
			}
		}
	}
	r.members = <-members
	return r
}

// unitKinds names each kind of raw unit.
var unitKinds = [...]Kind{parse.KindFunction: KindFunction, parse.KindClass: KindClass, parse.KindMethod: KindMethod, parse.KindChunk: KindChunk}

// memberTable maps every scope's names to their units: a file's top-level
// definitions and a unit's nested ones. A later definition of a name wins,
// as in Python.
func memberTable(files []*parse.File, offs []int32, n int) map[scopeName]int32 {
	m := make(map[scopeName]int32, n)
	for fi, f := range files {
		for j := range f.Units {
			ru := &f.Units[j]
			switch g := offs[fi] + int32(j); {
			case ru.Parent >= 0:
				m[scopeName{offs[fi] + int32(ru.Parent), ru.Name}] = g
			case ru.Kind != parse.KindChunk:
				m[scopeName{fileScope(fi), ru.Name}] = g
			}
		}
	}
	return m
}

// unitIDs makes every unit's ID, "path:Qual", as slices of one string:
// one allocation instead of one per unit.
func unitIDs(files []*parse.File, n int) []string {
	size := 0
	for _, f := range files {
		for j := range f.Units {
			size += len(f.Path) + 1 + len(f.Units[j].Qual)
		}
	}
	var b strings.Builder
	b.Grow(size)
	ends := make([]int, 0, n)
	for _, f := range files {
		for j := range f.Units {
			b.WriteString(f.Path)
			b.WriteByte(':')
			b.WriteString(f.Units[j].Qual)
			ends = append(ends, b.Len())
		}
	}
	all := b.String()
	ids := make([]string, n)
	start := 0
	for i, end := range ends {
		ids[i], start = all[start:end], end
	}
	return ids
}

// containsBlocks gives each unit with nested units an empty Children slice
// with room for its contains edges, all cut from one array; the capacity
// ends at each unit's share, so appending past it cannot reach a
// neighbour's edges.
func containsBlocks(files []*parse.File, block []Unit) [][]Edge {
	counts := make([]int32, len(block))
	total, off := 0, 0
	for _, f := range files {
		for j := range f.Units {
			if p := f.Units[j].Parent; p >= 0 {
				counts[off+p]++
				total++
			}
		}
		off += len(f.Units)
	}
	edges := make([][]Edge, len(block))
	all := make([]Edge, total)
	next := 0
	for g, c := range counts {
		if c > 0 {
			edges[g] = all[next : next : next+int(c)]
			next += int(c)
		}
	}
	return edges
}

// setParent links child under parent: Parent ID, a contains edge, and a
// member entry so that names resolve through the parent.
func (r *linker) setParent(child, parent int32) {
	r.attach(child, parent)
	r.members[scopeName{parent, r.units[child].Name}] = child
}

// attach is setParent without the member table entry.
func (r *linker) attach(child, parent int32) {
	r.parent[child] = parent
	c, p := r.units[child], r.units[parent]
	c.Parent = p.ID
	p.Children = append(p.Children, Edge{ID: c.ID, Rel: Contains, Line: c.Start})
	r.hasMembers[parent] = true
}

// link records that unit u calls unit target at line.
func (r *linker) link(u, target int32, line int) {
	pu := r.units[u]
	id := r.units[target].ID
	for _, e := range pu.Children {
		if e.Rel == Invokes && e.ID == id {
			return
		}
	}
	pu.Children = append(pu.Children, Edge{ID: id, Rel: Invokes, Line: line})
}

func (r *linker) unresolved(u int32, c *parse.Call) {
	r.units[u].Unresolved = append(r.units[u].Unresolved, Call{Name: c.Name, Line: c.Line})
	r.counts[r.fileOf[u]].unresolved += c.Count
}

func (r *linker) resolvedCall(u int32, c *parse.Call) {
	r.counts[r.fileOf[u]].resolved += c.Count
}

// linkCalls resolves every call of file f's units, links what resolve
// finds and counts the rest. Calling a class also links what ctor gives
// for it, when ctor is set: the class is where a reader lands, its
// constructor the code that runs.
func (r *linker) linkCalls(f int, resolve func(u int32, name string) int32, ctor func(class int32) int32) {
	lo, hi := r.fileUnits(f)
	for u := lo; u < hi; u++ {
		ru := r.raw[u]
		for i := range ru.Calls {
			c := &ru.Calls[i]
			t := resolve(u, c.Name)
			if t < 0 {
				r.unresolved(u, c)
				continue
			}
			r.resolvedCall(u, c)
			r.link(u, t, c.Line)
			if ctor != nil && r.kind(t) == KindClass {
				if m := ctor(t); m >= 0 {
					r.link(u, m, c.Line)
				}
			}
		}
	}
}

// eachFile runs fn over the files of one language on the linker's
// workers. fn may write only to the units of its own file.
func (r *linker) eachFile(lang string, fn func(f int)) {
	r.eachFileWhere(func(f int) bool { return r.files[f].Lang == lang }, fn)
}

// eachFileWhere is eachFile over the files that want picks.
func (r *linker) eachFileWhere(want func(f int) bool, fn func(f int)) {
	workers := r.workers
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	next := make(chan int, len(r.files))
	for i := range r.files {
		if want(i) {
			next <- i
		}
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				fn(f)
			}
		}()
	}
	wg.Wait()
}

// eachCallFile is eachFile over the files whose calls must be resolved.
func (r *linker) eachCallFile(lang string, fn func(f int)) {
	r.eachCallFileWhere(func(f int) bool { return r.files[f].Lang == lang }, fn)
}

// eachCallFileWhere is eachCallFile over the files that want picks.
func (r *linker) eachCallFileWhere(want func(f int) bool, fn func(f int)) {
	r.eachFileWhere(want, func(f int) {
		if r.keep == nil || !r.keep[f] {
			r.files[f].LoadCalls()
			fn(f)
		}
	})
}

// enclosingClass is the nearest class around unit u, -1 if none.
func (r *linker) enclosingClass(u int32) int32 {
	for s := u; s >= 0; s = r.parent[s] {
		if r.kind(s) == KindClass {
			return s
		}
	}
	return -1
}

// depSet is a set of files, a bit each: the files one file's resolution
// read. An edit to what one of them defines or imports may change how that
// file resolves, and nothing else can. A nil set records nothing.
type depSet []uint64

func newDepSet(files int) depSet { return make(depSet, (files+63)/64) }

func (d depSet) add(f int) {
	if d != nil {
		d[f>>6] |= 1 << (f & 63)
	}
}

func (d depSet) addAll(fs []int32) {
	for _, f := range fs {
		d.add(int(f))
	}
}

// list is the set's files in order.
func (d depSet) list() []int32 {
	var out []int32
	for w, word := range d {
		for ; word != 0; word &= word - 1 {
			out = append(out, int32(w*64+bits.TrailingZeros64(word)))
		}
	}
	return out
}

// fileUnits is the global index range of a file's units.
func (r *linker) fileUnits(f int) (int32, int32) {
	return r.offs[f], r.offs[f] + int32(len(r.files[f].Units))
}

func (r *linker) kind(u int32) Kind { return r.units[u].Kind }

// totals sums the per-file call counts.
func (r *linker) totals() (resolved, unresolved int) {
	for _, c := range r.counts {
		resolved += c.resolved
		unresolved += c.unresolved
	}
	return resolved, unresolved
}
