package index

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
)

// linkStore carries the links file through one build: loaded before
// resolution, written after it when anything changed.
type linkStore struct {
	path  string // the shards' base name (see linkShardPath); "" when the cache is off
	log   *slog.Logger
	in    linkInputs
	r     *linker
	keys  []fileKey
	iface []uint64
	// digested marks the files whose iface entry is filled in: those the
	// workers parsed, or all of them when stored links were reused.
	digested []bool
	dirty    bool // whether the saved shards no longer match this build
	// resolved is how many files had their calls resolved.
	resolved int
	prev     *linkSet
	keep     []bool
	loaded   chan loadedLinks // the stored links, once read
}

// save writes the dirty shards under a new stamp, then the manifest. A
// save that fails part way writes a manifest naming a stamp no shard has
// for every shard it meant to write, so the next build resolves every
// file but still finds the cache, whose layout the manifest gives.
func (ls *linkStore) save(files [][]int, dirty []bool, lay shardLayout) error {
	m := &manifest{stamps: make([]uint64, lay.n)}
	if ls.prev != nil && !lay.changed {
		copy(m.stamps, ls.prev.stamps)
	}
	stamp := rand.Uint64()
	for k := range files {
		if !dirty[k] {
			continue
		}
		m.stamps[k] = stamp
		err := writeAtomicFunc(linkShardPath(ls.path, lay.n, k), func(w io.Writer) error {
			return encodeLinks(w, ls.in, stamp, ls.r, files[k], ls.keys, ls.iface, ls.prev, ls.keep)
		})
		if err != nil {
			ls.saveBroken(m, dirty, stamp, lay)
			return fmt.Errorf("index links: %w", err)
		}
	}
	if err := writeManifest(ls.path, m); err != nil {
		return fmt.Errorf("index links: %w", err)
	}
	if lay.changed {
		// Only once the manifest names the new shards may the old go.
		return removeOtherLayouts(ls.path, lay.n)
	}
	return nil
}

// saveBroken writes a manifest under which the shards this save meant to
// write do not load, or if it cannot, removes the manifest.
func (ls *linkStore) saveBroken(m *manifest, dirty []bool, stamp uint64, lay shardLayout) {
	broken := stamp + 1
	for k := range m.stamps {
		if dirty[k] {
			m.stamps[k] = broken
		}
	}
	if writeManifest(ls.path, m) != nil {
		_ = os.Remove(manifestPath(ls.path))
		return
	}
	if lay.changed {
		_ = removeOtherLayouts(ls.path, lay.n)
	}
}

// openLinks starts loading the stored links of root, which overlaps with
// walking and extracting.
func openLinks(root string, c *fileCache, opts Options) *linkStore {
	ls := &linkStore{log: opts.Logger, in: linkInputs{maxSize: opts.MaxFileSize}}
	ls.in.rootBase = filepath.Base(root)
	ls.loaded = make(chan loadedLinks, 1)
	if c.off || c.base == "" {
		ls.loaded <- loadedLinks{}
		return ls
	}
	ls.path = c.base
	go func() {
		ls.in.goModule, ls.in.scripts, ls.in.program = readGoModule(root), readScriptConfig(root), programID()
		m, _ := c.manifest() // the cache's load reports a bad one
		prev, err := loadLinks(ls.path, ls.in, m)
		ls.loaded <- loadedLinks{prev, err}
	}()
	return ls
}

type loadedLinks struct {
	prev *linkSet
	err  error
}

// linkAll makes the linker and links every file, reusing the stored
// links where they still hold.
func linkAll(root string, res *extractResult, workers int, links *linkStore) *linker {
	iface := slices.Clone(res.iface)
	in, prev, keep := links.reusable(root, res, iface)
	r := linkFiles(filepath.Base(root), in, res, workers, keep)
	if keep != nil && !applyLinks(r, prev, keep) {
		links.log.Warn("index: stored links do not fit, resolving every file", "path", links.path)
		keep = nil
		r = linkFiles(filepath.Base(root), in, res, workers, nil)
	}
	links.record(r, res, iface, prev, keep)
	return r
}

// reusable waits for the stored links and decides which files keep theirs
// (nil: none); iface receives the digests it computes. It also gives the
// go.mod module path and the tsconfig.json paths, read beside the links.
func (ls *linkStore) reusable(root string, res *extractResult, iface []uint64) (in linkInputs, prev *linkSet, keep []bool) {
	if ls == nil || ls.path == "" {
		return linkInputs{goModule: readGoModule(root), scripts: readScriptConfig(root)}, nil, nil
	}
	loaded := <-ls.loaded
	if loaded.err != nil {
		ls.log.Warn("index: stored links ignored", "path", ls.path, "err", loaded.err)
	}
	return ls.in, loaded.prev, loaded.prev.reusable(res, iface, ls.in.goModule)
}

// record counts the files resolved and keeps what saving needs.
func (ls *linkStore) record(r *linker, res *extractResult, iface []uint64, prev *linkSet, keep []bool) {
	if ls == nil {
		return
	}
	ls.resolved = len(res.files)
	for _, k := range keep {
		if k {
			ls.resolved--
		}
	}
	if ls.path == "" {
		return
	}
	ls.r, ls.keys, ls.iface, ls.digested = r, res.keys, iface, res.digested
	if keep != nil {
		ls.digested = nil // reusable filled in every digest
	}
	ls.prev, ls.keep = prev, keep
	ls.dirty = keep == nil || len(res.files) == 0 || ls.resolved > 0
}

func linkFiles(rootBase string, in linkInputs, res *extractResult, workers int, keep []bool) *linker {
	r := newLinker(rootBase, res.files, workers)
	r.goModule, r.scripts = in.goModule, parseScriptConfig(in.scripts)
	r.keep = keep
	for _, link := range linkers {
		link(r)
	}
	return r
}

// linkers link the calls of each language family's files once every file
// is known, in this order. JavaScript and TypeScript share one, since a
// TypeScript file may import a JavaScript one and back.
var linkers = []func(r *linker){linkPython, linkGo, linkScripts}

// applyLinks gives the kept files their stored links, on the linker's
// workers, since each file writes only its own units.
func applyLinks(r *linker, prev *linkSet, keep []bool) bool {
	var failed atomic.Bool
	r.eachFileWhere(func(f int) bool { return keep[f] }, func(f int) {
		if !failed.Load() && !prev.apply(r, f, &prev.files[f]) {
			failed.Store(true)
		}
	})
	return !failed.Load()
}

// saveAsync writes the links shards this build changed, every one if the
// layout changed, unless it reused all of them.
func (ls *linkStore) saveAsync(lay shardLayout) <-chan error {
	out := make(chan error, 1)
	if ls.path == "" || ls.r == nil || !ls.dirty && !lay.changed {
		out <- nil
		return out
	}
	go func() {
		if ls.digested != nil {
			for i, f := range ls.r.files {
				if !ls.digested[i] {
					ls.iface[i] = ifaceDigest(f)
				}
			}
		}
		// Every shard is written after a full resolution, empty ones too,
		// since loading needs them all.
		files := byShard(ls.r.files, lay.n)
		dirty := make([]bool, lay.n)
		for k, in := range files {
			dirty[k] = lay.changed || ls.keep == nil || slices.ContainsFunc(in, func(i int) bool { return !ls.keep[i] })
		}
		out <- ls.save(files, dirty, lay)
	}()
	return out
}
