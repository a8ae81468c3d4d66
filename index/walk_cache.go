package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/swe-adept/swe-adept/index/parse"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// dirListing is what the walk needs from one directory. A directory's
// mtime changes whenever an entry is added, removed or renamed, so an
// unchanged mtime lets the next walk take the listing from the cache for
// one lstat instead of open, getdents and close: on trees with thousands
// of directories (Django's locales) that is most of a warm build.
type dirListing struct {
	mtime    int64
	listed   int64 // when the listing was read
	dirs     []string
	files    []string // names with a known language extension
	symlinks []string
	ignore   bool // has a .gitignore, whose content is always re-read
}

// racyWindow: a directory modified this close to when it was listed may
// have changed again within the same mtime tick, so it is listed afresh.
const racyWindow = int64(2 * time.Second)

type dirCache struct {
	path string
	old  map[string]*dirListing // loaded; read-only during the walk

	mu      sync.Mutex
	now     map[string]*dirListing
	changed bool
}

const dirCacheMagic = "SWEADDIR"

// openDirCache loads the listings saved by the previous walk; nil when
// caching is off.
func openDirCache(path string, log *slog.Logger) *dirCache {
	if path == "" {
		return nil
	}
	dc := &dirCache{path: path, now: map[string]*dirListing{}}
	data, err := os.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			log.Warn("index: directory cache unreadable, relisting", "path", path, "err", err)
		}
		return dc
	}
	old, err := decodeDirCache(data)
	if err != nil {
		log.Warn("index: directory cache ignored, relisting", "path", path, "err", err)
		return dc
	}
	dc.old = old
	return dc
}

// listing returns the directory's listing, from the cache when the
// directory has not changed since, else read from disk.
func (dc *dirCache) listing(abs, key string) (*dirListing, error) {
	info, err := os.Lstat(abs)
	if err != nil {
		return nil, err
	}
	mtime := info.ModTime().UnixNano()
	if dc != nil {
		if l := dc.old[key]; l != nil && l.mtime == mtime && mtime < l.listed-racyWindow {
			dc.keep(key, l, false)
			return l, nil
		}
	}
	l, err := readListing(abs, mtime)
	if err != nil {
		return nil, err
	}
	if dc != nil {
		dc.keep(key, l, true)
	}
	return l, nil
}

func (dc *dirCache) keep(key string, l *dirListing, fresh bool) {
	dc.mu.Lock()
	dc.now[key] = l
	dc.changed = dc.changed || fresh
	dc.mu.Unlock()
}

// readListing reads a directory; mtime was taken before reading, so a
// change during the read shows as a newer mtime next time.
func readListing(abs string, mtime int64) (*dirListing, error) {
	listed := time.Now().UnixNano()
	entries, err := readDir(abs)
	if err != nil {
		return nil, err
	}
	l := &dirListing{mtime: mtime, listed: listed}
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		switch {
		case typ&fs.ModeSymlink != 0:
			l.symlinks = append(l.symlinks, name)
		case e.IsDir():
			l.dirs = append(l.dirs, name)
		case typ.IsRegular() && name == ".gitignore":
			l.ignore = true
		case typ.IsRegular() && parse.ForPath(name) != nil:
			l.files = append(l.files, name)
		}
	}
	return l, nil
}

// save writes this walk's listings when any was read afresh or any
// directory went away.
func (dc *dirCache) save() error {
	if dc == nil || (!dc.changed && len(dc.now) == len(dc.old)) {
		return nil
	}
	e := &encoder{buf: make([]byte, 0, 64*len(dc.now))}
	e.buf = append(e.buf, dirCacheMagic...)
	e.uint(cacheVersion)
	e.uint(uint64(len(dc.now)))
	for key, l := range dc.now {
		e.str(key)
		e.int(l.mtime)
		e.int(l.listed)
		for _, names := range [][]string{l.dirs, l.files, l.symlinks} {
			e.uint(uint64(len(names)))
			for _, n := range names {
				e.str(n)
			}
		}
		if l.ignore {
			e.uint(1)
		} else {
			e.uint(0)
		}
	}
	data := binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf, castagnoli))
	return writeAtomic(dc.path, data)
}

func decodeDirCache(data []byte) (map[string]*dirListing, error) {
	body, err := checkedBody(data, dirCacheMagic)
	if err != nil {
		return nil, err
	}
	d := &decoder{buf: body, all: frozen(body)}
	if v := d.uint(); v != cacheVersion {
		return nil, fmt.Errorf("version %d, want %d", v, cacheVersion)
	}
	n := d.count()
	out := make(map[string]*dirListing, n)
	for i := 0; i < n && d.err == nil; i++ {
		key := d.str()
		l := &dirListing{mtime: d.int(), listed: d.int()}
		for _, names := range []*[]string{&l.dirs, &l.files, &l.symlinks} {
			if c := d.count(); c > 0 {
				*names = make([]string, c)
				for j := range *names {
					(*names)[j] = d.str()
				}
			}
		}
		l.ignore = d.uint() == 1
		out[key] = l
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// writeAtomic replaces path with data atomically, so a reader never sees
// half a cache.
func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicFunc replaces path atomically with what write writes, making
// its folder first. Large caches are streamed rather than built in memory
// first: a fresh buffer as big as the file costs more than writing it.
func writeAtomicFunc(path string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return atomicfile.WriteFunc(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// summed writes through to w and keeps the CRC-32C of what it wrote, which
// the cache files end with.
type summed struct {
	w   io.Writer
	sum uint32
}

func (s *summed) Write(p []byte) (int, error) {
	s.sum = crc32.Update(s.sum, castagnoli, p)
	return s.w.Write(p)
}

// close writes the sum.
func (s *summed) close() error {
	_, err := s.w.Write(binary.LittleEndian.AppendUint32(nil, s.sum))
	return err
}
