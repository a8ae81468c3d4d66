package index

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// fileCache holds the previous run's raw extractions, keyed by path and
// checked by size and content hash. The previous run's call resolution is
// kept beside it (see linkSet) and reused only for files whose resolution
// cannot have changed.
type fileCache struct {
	path    string
	dirPath string // directory listings, see dirCache
	maxSize int64
	log     *slog.Logger
	off     bool

	done    chan struct{}
	loaded  bool
	entries map[string]cacheEntry
}

type cacheEntry struct {
	key  fileKey
	lang string
	enc  []byte // the file's record in the loaded cache
	all  string // the loaded cache's body, of which enc starts at pos
	pos  int
}

func openCache(root string, opts Options) *fileCache {
	c := &fileCache{maxSize: opts.MaxFileSize, log: opts.Logger, off: opts.NoCache, done: make(chan struct{})}
	if c.off {
		close(c.done)
		return c
	}
	p, err := cachePath(root, opts.CacheDir)
	if err != nil {
		c.log.Warn("index: no cache", "err", err)
		c.off = true
		close(c.done)
		return c
	}
	c.path = p
	c.dirPath = strings.TrimSuffix(p, ".bin") + ".dirs"
	go c.load() // overlaps with the walk
	return c
}

func (c *fileCache) load() {
	defer close(c.done)
	data, err := os.ReadFile(c.path)
	if err != nil {
		if !os.IsNotExist(err) {
			c.log.Warn("index: cache unreadable, rebuilding", "path", c.path, "err", err)
		}
		return
	}
	entries, err := decodeCache(data, c.maxSize)
	if err != nil {
		c.log.Warn("index: cache ignored, rebuilding", "path", c.path, "err", err)
		return
	}
	c.entries, c.loaded = entries, true
}

func (c *fileCache) wait() { <-c.done }

// storedBytes is the size of the stored cache and links, 0 if there are
// none: what a build that loads them reads besides the sources.
func (c *fileCache) storedBytes() int64 {
	if c.off {
		return 0
	}
	info, err := os.Stat(c.path)
	if err != nil {
		return 0
	}
	n := info.Size()
	if info, err := os.Stat(strings.TrimSuffix(c.path, ".bin") + ".links"); err == nil {
		n += info.Size()
	}
	return n
}

// lookup returns the cached extraction of a file if its content is unchanged.
// lookup returns the cached extraction of a file, and its record, if its
// content is unchanged.
func (c *fileCache) lookup(rel, lang string, key fileKey) (*rawFile, []byte) {
	c.wait()
	if c.entries == nil {
		return nil, nil
	}
	e, ok := c.entries[rel]
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
	return raw, e.enc
}

// kind names how much of the cache this run used.
func (c *fileCache) kind(res *extractResult) string {
	switch {
	case c.off || !c.loaded:
		return "cold"
	case res.parsed == 0:
		return "warm"
	default:
		return "incremental"
	}
}

// saveAsync writes the cache while resolution runs; the channel yields the
// outcome. Nothing is written when nothing changed.
func (c *fileCache) saveAsync(res *extractResult) <-chan error {
	out := make(chan error, 1)
	if c.off || (c.loaded && res.parsed == 0 && len(c.entries) == len(res.files) && sameKeys(c.entries, res)) {
		out <- nil
		return out
	}
	go func() { out <- c.save(res) }()
	return out
}

func sameKeys(entries map[string]cacheEntry, res *extractResult) bool {
	for i, f := range res.files {
		if e, ok := entries[f.Path]; !ok || e.key != res.keys[i] {
			return false
		}
	}
	return true
}

func (c *fileCache) save(res *extractResult) error {
	err := writeAtomicFunc(c.path, func(w io.Writer) error { return encodeCache(w, res, c.maxSize) })
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
