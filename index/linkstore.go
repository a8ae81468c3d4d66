package index

import (
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/swe-adept/swe-adept/index/parse"
)

// The links keep the previous run's call resolution: for every file, each
// unit's invokes edges and unresolved calls, a digest of the part of the
// file's extraction that other files' resolution can read (its interface),
// and the files its own resolution read (its deps; Python only). A file's
// resolution reads other files only through their interfaces, so after
// an edit the changed files are resolved again, and so are the files whose
// deps hold a changed interface; the rest keep their links. Go files'
// reads are not recorded: a changed Go interface resolves the Go files of
// its directory and of the directories that import it. Anything else (a
// file added or removed, a new go.mod module path) resolves every file, as
// a cold build does.
//
// Like the cache, the links are split into shards by path, and
// a build rewrites only the shards holding files it resolved. Unlike the
// cache's, the shards must come from one consistent state: each carries
// the stamp of the save that wrote it, and a manifest, written after them,
// lists the stamp each shard must have. A save cut short, or two builds
// saving at once, leave shards that do not match, and the next build
// resolves every file.
//
//	shard:    magic "SWEADLNK" | version | cache version | max size |
//	          root base | go module | program | stamp | files | CRC-32C
//
// The manifest (see encodeManifest) also gives the shard count.
const (
	linksMagic    = "SWEADLNK"
	manifestMagic = "SWEADLMF"
	linksVersion  = 5
)

var crc64Table = crc64.MakeTable(crc64.ECMA)

// linkFile is one file's entry in the links file.
type linkFile struct {
	path, lang string
	key        fileKey // size and hash only
	iface      uint64
	counts     callCounts
	deps       []int32 // files its resolution read, see fileMemo
	units      section // encoded per-unit links, decoded only when reused
}

// linkSet is every shard's files, in path order, and the shards' stamps.
type linkSet struct {
	files  []linkFile
	stamps []uint64
}

// linkInputs are what resolution depends on besides the files. The
// program's own size and time stand for the linker's code: a rebuilt
// program may resolve differently, so it starts from its own resolution.
type linkInputs struct {
	maxSize  int64
	rootBase string
	goModule string
	// scripts is the root's tsconfig.json module paths, as
	// readScriptConfig encodes them.
	scripts string
	program string
}

// programID names the running executable by path, size and time.
func programID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", exe, info.Size(), info.ModTime().UnixNano())
}

// ifaceDigest hashes what other files' resolution may read of f: every
// extracted field except positions, sizes, calls and chunks. A file's
// calls are read only when resolving that file; chunks are never call
// targets or parents; and resolution reads positions only to find a
// class's own members, which the parent links already fix.
func ifaceDigest(f *parse.File) uint64 {
	var d digester
	return d.digest(f)
}

// digester keeps its buffers from one file to the next.
type digester struct {
	units   []parse.Unit
	kept    []int
	imports []parse.Import
	e       encoder
}

func (d *digester) digest(f *parse.File) uint64 {
	p := *f
	p.Lines, p.Size, p.Encoded = 0, 0, nil
	d.units = d.units[:0]
	d.kept = slices.Grow(d.kept[:0], len(f.Units))[:len(f.Units)]
	for i := range f.Units {
		u := f.Units[i]
		if u.Kind == parse.KindChunk {
			d.kept[i] = -2
			continue
		}
		d.kept[i] = len(d.units)
		if u.Parent >= 0 {
			u.Parent = d.kept[u.Parent]
		}
		u.Start, u.End, u.Calls = 0, 0, nil
		d.units = append(d.units, u)
	}
	p.Units = d.units
	d.imports = append(d.imports[:0], f.Imports...)
	for i := range d.imports {
		d.imports[i].Line = 0
	}
	p.Imports = d.imports
	d.e.buf = d.e.buf[:0]
	d.e.encodeFile(&p, fileKey{})
	return crc64.Checksum(d.e.buf, crc64Table)
}

// encodeLinks writes the resolution of every file; iface holds each file's
// interface digest. Files in keep took their links from prev, whose bytes
// are copied rather than encoded again.
func encodeLinks(w io.Writer, in linkInputs, stamp uint64, r *linker, files []int, keys []fileKey, iface []uint64, prev *linkSet, keep []bool) error {
	out := &summed{w: w}
	e := &encoder{buf: make([]byte, 0, 64<<10)}
	e.buf = append(e.buf, linksMagic...)
	e.uint(linksVersion)
	e.uint(cacheVersion)
	e.int(in.maxSize)
	e.str(in.rootBase)
	e.str(in.goModule)
	e.str(in.scripts)
	e.str(in.program)
	e.uint(stamp)
	e.uint(uint64(len(files)))
	unit := &encoder{}
	for _, i := range files {
		f := r.files[i]
		e.str(f.Path)
		e.str(f.Lang)
		e.int(keys[i].size)
		e.uint(uint64(keys[i].hash))
		e.uint(iface[i])
		e.uint(uint64(r.counts[i].resolved))
		e.uint(uint64(r.counts[i].unresolved))
		if keep != nil && keep[i] {
			e.deps(prev.files[i].deps)
			e.bytes(prev.files[i].units.buf)
		} else {
			e.deps(r.deps[i])
			unit.buf = unit.buf[:0]
			lo, hi := r.fileUnits(i)
			for g := lo; g < hi; g++ {
				unit.encodeUnitLinks(r.units[g])
			}
			e.bytes(unit.buf)
		}
		if len(e.buf) >= 32<<10 {
			if _, err := out.Write(e.buf); err != nil {
				return err
			}
			e.buf = e.buf[:0]
		}
	}
	if _, err := out.Write(e.buf); err != nil {
		return err
	}
	return out.close()
}

// deps writes an ascending file list as a count and gaps.
func (e *encoder) deps(ds []int32) {
	e.uint(uint64(len(ds)))
	prev := int32(0)
	for _, d := range ds {
		e.uint(uint64(d - prev))
		prev = d
	}
}

func (d *decoder) deps() []int32 {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	prev := uint64(0)
	for i := range out {
		prev += d.uint()
		out[i] = int32(prev)
	}
	return out
}

func (e *encoder) encodeUnitLinks(u *Unit) {
	n := 0
	for _, c := range u.Children {
		if c.Rel == Invokes {
			n++
		}
	}
	e.uint(uint64(n))
	for _, c := range u.Children {
		if c.Rel == Invokes {
			e.str(c.ID)
			e.uint(uint64(c.Line))
		}
	}
	e.uint(uint64(len(u.Unresolved)))
	for _, c := range u.Unresolved {
		e.str(c.Name)
		e.uint(uint64(c.Line))
	}
}

func decodeLinks(data []byte, in linkInputs) ([]linkFile, uint64, error) {
	body, err := checkedBody(data, linksMagic)
	if err != nil {
		return nil, 0, err
	}
	d := &decoder{buf: body, all: frozen(body)}
	if v, cv := d.uint(), d.uint(); v != linksVersion || cv != cacheVersion {
		return nil, 0, fmt.Errorf("links version %d/%d, want %d/%d", v, cv, linksVersion, cacheVersion)
	}
	if d.int() != in.maxSize || d.str() != in.rootBase || d.str() != in.goModule || d.str() != in.scripts || d.str() != in.program {
		return nil, 0, fmt.Errorf("links made with other settings")
	}
	stamp := d.uint()
	n := d.count()
	files := make([]linkFile, n)
	for i := 0; i < n && d.err == nil; i++ {
		lf := &files[i]
		lf.path, lf.lang = d.str(), d.str()
		lf.key.size, lf.key.hash = d.int(), uint32(d.uint())
		lf.iface = d.uint()
		lf.counts.resolved, lf.counts.unresolved = int(d.uint()), int(d.uint())
		lf.deps = d.deps()
		lf.units = d.section()
	}
	if d.err == nil && len(d.buf) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, 0, d.err
	}
	return files, stamp, nil
}

// apply gives file f's units their stored links, after the contains edges
// the linker already made. It reports false if the entry does not fit.
func (ls *linkSet) apply(r *linker, f int, lf *linkFile) bool {
	d := lf.units.decoder()
	lo, hi := r.fileUnits(f)
	for g := lo; g < hi && d.err == nil; g++ {
		u := r.units[g]
		if n := d.count(); n > 0 {
			ch := make([]Edge, len(u.Children), len(u.Children)+n)
			copy(ch, u.Children)
			for j := 0; j < n; j++ {
				id := d.str()
				ch = append(ch, Edge{ID: id, Rel: Invokes, Line: int(d.uint())})
			}
			u.Children = ch
		}
		if n := d.count(); n > 0 {
			calls := make([]Call, n)
			for j := range calls {
				calls[j].Name = d.str()
				calls[j].Line = int(d.uint())
			}
			u.Unresolved = calls
		}
	}
	if d.err != nil || len(d.buf) != 0 {
		return false
	}
	r.counts[f] = lf.counts
	return true
}

// reusable decides which files can take their stored links: nil when
// every file must be resolved. iface is filled with each file's interface
// digest (computed only for files whose content changed). A file is
// resolved again when its content changed, or when it may read a file
// whose interface changed: for Python and scripts, a file its last resolution read
// (its deps); for Go, whose resolution reads whole packages, any file of
// its own directory or of a directory of the module it imports.
func (ls *linkSet) reusable(res *extractResult, iface []uint64, goModule string) []bool {
	if ls == nil || len(ls.files) != len(res.files) {
		return nil
	}
	reuse := make([]bool, len(res.files))
	changed := make([]uint64, (len(res.files)+63)/64) // Python files whose interface changed
	changedDirs := map[string]bool{}                  // directories of Go files whose interface changed
	for i, f := range res.files {
		lf := &ls.files[i]
		if lf.path != f.Path || lf.lang != f.Lang {
			return nil
		}
		if lf.key.size == res.keys[i].size && lf.key.hash == res.keys[i].hash {
			iface[i], reuse[i] = lf.iface, true
			continue
		}
		if !res.digested[i] {
			iface[i] = ifaceDigest(f)
		}
		if iface[i] == lf.iface {
			continue
		}
		switch f.Lang {
		case parse.Python, parse.JavaScript, parse.TypeScript:
			changed[i>>6] |= 1 << (i & 63)
		case parse.Go:
			changedDirs[goDir(f.Path)] = true
		default:
			return nil
		}
	}
	for i, f := range res.files {
		if reuse[i] && readsChanged(f, ls.files[i].deps, changed, changedDirs, goModule) {
			reuse[i] = false
		}
	}
	return reuse
}

// readsChanged is whether a file whose content did not change may read
// one whose interface did.
func readsChanged(f *parse.File, deps []int32, changed []uint64, changedDirs map[string]bool, goModule string) bool {
	switch f.Lang {
	case parse.Python, parse.JavaScript, parse.TypeScript:
		for _, d := range deps {
			if int(d)>>6 < len(changed) && changed[d>>6]&(1<<(d&63)) != 0 {
				return true
			}
		}
	case parse.Go:
		if len(changedDirs) == 0 {
			return false
		}
		if changedDirs[goDir(f.Path)] {
			return true
		}
		for _, im := range f.Imports {
			if dir, ok := moduleDir(goModule, im.Module); ok && goModule != "" && changedDirs[dir] {
				return true
			}
		}
	}
	return false
}

// loadLinks reads every shard of the links at base that m lists. Any
// shard missing, unreadable or not the one the manifest names makes the
// whole set unusable: resolution then starts over.
func loadLinks(base string, in linkInputs, m *manifest) (*linkSet, error) {
	if m == nil {
		return nil, nil
	}
	n := m.shards()
	shards := make([][]linkFile, n)
	stamps := make([]uint64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := os.ReadFile(linkShardPath(base, n, k))
			if err == nil {
				shards[k], stamps[k], err = decodeLinks(data, in)
			}
			errs[k] = err
		}()
	}
	wg.Wait()
	ls := &linkSet{stamps: m.stamps}
	for k, err := range errs {
		if err == nil && stamps[k] != m.stamps[k] {
			err = errors.New("written by another save than the manifest's")
		}
		if err != nil {
			return nil, fmt.Errorf("links shard %d: %w", k, err)
		}
		ls.files = append(ls.files, shards[k]...)
	}
	slices.SortFunc(ls.files, func(a, b linkFile) int { return strings.Compare(a.path, b.path) })
	return ls, nil
}
