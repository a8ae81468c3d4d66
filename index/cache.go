package index

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/swe-adept/swe-adept/index/parse"
)

// fileCache holds the previous run's raw extractions, keyed by path and
// checked by size and content hash. The previous run's call resolution is
// kept beside it (see linkSet) and reused only for files whose resolution
// cannot have changed.
//
// The cache is split into shards (see shardCount), loaded in parallel; a
// build rewrites only the shards whose files changed.
type fileCache struct {
	base    string // every cache file's path begins with it (see cacheBase)
	dirPath string // directory listings, see dirCache
	maxSize int64
	log     *slog.Logger
	off     bool
	fixed   int // Options.shards
	// manifest reads the stored layout once, for the cache and the links.
	manifest func() (*manifest, error)

	done   chan struct{}
	loaded bool // whether any shard loaded
	shards []cacheShard
}

type cacheShard struct {
	loaded  bool
	entries map[string]cacheEntry
}

type cacheEntry struct {
	key  fileKey
	lang string
	rec  section // the file's record in the loaded cache
}

func openCache(root string, opts Options) *fileCache {
	c := &fileCache{maxSize: opts.MaxFileSize, log: opts.Logger, off: opts.NoCache, fixed: opts.shards, done: make(chan struct{})}
	if c.off {
		close(c.done)
		return c
	}
	base, err := cacheBase(root, opts.CacheDir)
	if err != nil {
		c.log.Warn("index: no cache", "err", err)
		c.off = true
		close(c.done)
		return c
	}
	c.base = base
	c.dirPath = dirCachePath(base)
	c.manifest = sync.OnceValues(func() (*manifest, error) { return readManifest(base) })
	go c.load() // overlaps with the walk
	return c
}

func (c *fileCache) load() {
	defer close(c.done)
	m, err := c.manifest()
	if err != nil {
		c.log.Warn("index: cache ignored, rebuilding", "err", err)
	}
	if m == nil {
		return
	}
	c.shards = make([]cacheShard, m.shards())
	var wg sync.WaitGroup
	for k := range c.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shards[k] = c.loadShard(cacheShardPath(c.base, len(c.shards), k))
		}()
	}
	wg.Wait()
	for _, sh := range c.shards {
		c.loaded = c.loaded || sh.loaded
	}
}

func (c *fileCache) loadShard(path string) cacheShard {
	data, err := os.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			c.log.Warn("index: cache unreadable, rebuilding its files", "path", path, "err", err)
		}
		return cacheShard{}
	}
	entries, err := decodeCache(data, c.maxSize)
	if err != nil {
		c.log.Warn("index: cache ignored, rebuilding its files", "path", path, "err", err)
		return cacheShard{}
	}
	return cacheShard{loaded: true, entries: entries}
}

func (c *fileCache) wait() { <-c.done }

// storedBytes is the size of the stored cache and links, 0 if there are
// none: what a build that loads them reads besides the sources.
func (c *fileCache) storedBytes() int64 {
	if c.off {
		return 0
	}
	m, _ := c.manifest()
	if m == nil {
		return 0
	}
	var n int64
	for k := range m.shards() {
		for _, path := range []string{cacheShardPath(c.base, m.shards(), k), linkShardPath(c.base, m.shards(), k)} {
			if info, err := os.Stat(path); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// lookup returns the cached extraction of a file, and its record, if its
// content is unchanged.
func (c *fileCache) lookup(rel, lang string, key fileKey) (*parse.File, []byte) {
	c.wait()
	if len(c.shards) == 0 {
		return nil, nil
	}
	e, ok := c.shards[shardOf(rel, len(c.shards))].entries[rel]
	if !ok || e.key.size != key.size || e.key.hash != key.hash || e.lang != lang {
		return nil, nil
	}
	raw, err := e.decode()
	if err != nil {
		c.log.Warn("index: cached entry unreadable, parsing again", "path", rel, "err", err)
		return nil, nil
	}
	if e.key != key {
		return raw, nil // touched but unchanged: the record needs the new key
	}
	return raw, e.rec.buf
}

// kind names how much of the cache this run used.
func (c *fileCache) kind(res *extractResult) string {
	<-c.done // a tree with no files never waited for the load
	switch {
	case c.off || !c.loaded:
		return "cold"
	case res.parsed == 0:
		return "warm"
	default:
		return "incremental"
	}
}

// layout is how this build saves: in the shard count its sources call
// for (see shardCount).
func (c *fileCache) layout(res *extractResult) shardLayout {
	if c.off {
		return shardLayout{}
	}
	c.wait() // a tree with no files never waited for the load
	var size int64
	for _, k := range res.keys {
		size += k.size
	}
	n := shardCount(size, len(c.shards))
	if c.fixed > 0 {
		n = c.fixed
	}
	return shardLayout{n: n, changed: n != len(c.shards)}
}

// saveAsync writes the shards whose files changed, every one if the
// layout changed, while resolution runs; the channel yields the outcome.
func (c *fileCache) saveAsync(res *extractResult, lay shardLayout) <-chan error {
	out := make(chan error, 1)
	if c.off {
		out <- nil
		return out
	}
	files := byShard(res.files, lay.n)
	var dirty []int
	for k := range files {
		if lay.changed || !c.unchanged(k, files[k], res) {
			dirty = append(dirty, k)
		}
	}
	if len(dirty) == 0 {
		out <- nil
		return out
	}
	go func() {
		var errs []error
		for _, k := range dirty {
			errs = append(errs, c.saveShard(cacheShardPath(c.base, lay.n, k), files[k], res))
		}
		out <- errors.Join(errs...)
	}()
	return out
}

// unchanged is whether shard k as loaded holds exactly these files, each
// with the record this build would write.
func (c *fileCache) unchanged(k int, files []int, res *extractResult) bool {
	sh := &c.shards[k]
	if !sh.loaded {
		return len(files) == 0 && !fileExists(cacheShardPath(c.base, len(c.shards), k))
	}
	if len(sh.entries) != len(files) {
		return false
	}
	for _, i := range files {
		e, ok := sh.entries[res.files[i].Path]
		if !ok || e.key != res.keys[i] || res.digested[i] {
			return false
		}
	}
	return true
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *fileCache) saveShard(path string, files []int, res *extractResult) error {
	err := writeAtomicFunc(path, func(w io.Writer) error { return encodeCache(w, res, files, c.maxSize) })
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}
