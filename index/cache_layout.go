package index

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/index/parse"
)

// The cache and the links are split into shards by a hash of the path, so
// that an edit rewrites one shard of each and a load reads them in
// parallel. How many shards is a matter of size: each shard is a file to
// create, read and rename, which on a small tree costs more than the bytes
// it holds, while on a large one a single shard would be rewritten whole
// after every edit. So a tree gets one shard per MiB of source, a power of
// two up to maxShards, and the count is recorded in the manifest, which
// every load reads first.
const (
	maxShards     = 16
	bytesPerShard = 1 << 20
)

// shardCount is the shard count for a tree of srcBytes of source, given
// the count its stored shards have (0 if none). A stored count within a
// factor of two of the ideal is kept, so that a tree near a boundary does
// not rewrite every shard each time it grows or shrinks by a file.
func shardCount(srcBytes int64, stored int) int {
	n := 1
	for n < maxShards && int64(n)*bytesPerShard < srcBytes {
		n *= 2
	}
	if stored > 0 && stored*2 >= n && stored <= n*2 {
		return stored
	}
	return n
}

// shardLayout is how a build saves: in n shards, and whether that is
// another count than the stored one, so that every shard is rewritten.
type shardLayout struct {
	n       int
	changed bool
}

// shardOf is the shard of n a path's records live in (FNV-1a).
func shardOf(path string, n int) int {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		h = (h ^ uint32(path[i])) * 16777619
	}
	return int(h % uint32(n))
}

// byShard lists, per shard of n, the indexes of the files it holds.
func byShard(files []*parse.File, n int) [][]int {
	out := make([][]int, n)
	for i, f := range files {
		k := shardOf(f.Path, n)
		out[k] = append(out[k], i)
	}
	return out
}

// Shard file names carry the count, so that shards of another layout are
// never read as this one's.
func cacheShardPath(base string, n, k int) string {
	return fmt.Sprintf("%s.%d-%02d.bin", base, n, k)
}

func linkShardPath(base string, n, k int) string {
	return fmt.Sprintf("%s.%d-%02d.links", base, n, k)
}

func manifestPath(base string) string { return base + ".links" }

// dirCachePath is where the directory listings are kept (see dirCache).
func dirCachePath(base string) string { return base + ".dirs" }

// manifest is the layout of the stored shards: their count, and the stamp
// each links shard must carry (see linkSet).
type manifest struct {
	stamps []uint64 // one per shard
}

func (m *manifest) shards() int { return len(m.stamps) }

// readManifest reads the manifest at base: nil, nil if there is none.
func readManifest(base string) (*manifest, error) {
	data, err := os.ReadFile(manifestPath(base))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("links manifest: %w", err)
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, fmt.Errorf("links manifest: %w", err)
	}
	return m, nil
}

// writeManifest replaces the manifest at base with m.
func writeManifest(base string, m *manifest) error {
	return writeAtomicFunc(manifestPath(base), func(w io.Writer) error { return encodeManifest(w, m) })
}

// encodeManifest writes the layout, after every shard it names:
//
//	magic "SWEADLMF" | version | shard count | stamp per shard | CRC-32C
func encodeManifest(w io.Writer, m *manifest) error {
	out := &summed{w: w}
	e := &encoder{}
	e.buf = append(e.buf, manifestMagic...)
	e.uint(linksVersion)
	e.uint(uint64(len(m.stamps)))
	for _, s := range m.stamps {
		e.uint(s)
	}
	if _, err := out.Write(e.buf); err != nil {
		return err
	}
	return out.close()
}

func decodeManifest(data []byte) (*manifest, error) {
	body, err := checkedBody(data, manifestMagic)
	if err != nil {
		return nil, err
	}
	d := &decoder{buf: body, all: frozen(body)}
	if v := d.uint(); v != linksVersion {
		return nil, fmt.Errorf("version %d, want %d", v, linksVersion)
	}
	n := d.uint()
	if n == 0 || n > maxShards || n&(n-1) != 0 {
		return nil, fmt.Errorf("%d shards", n)
	}
	m := &manifest{stamps: make([]uint64, n)}
	for k := range m.stamps {
		m.stamps[k] = d.uint()
	}
	if d.err == nil && len(d.buf) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}

// removeOtherLayouts deletes the shards at base that are not of n shards:
// those of a layout the tree has left, and the files of earlier versions.
// The manifest and the directory listings stay.
func removeOtherLayouts(base string, n int) error {
	dir, prefix := filepath.Dir(base), filepath.Base(base)+"."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clean %s: %w", dir, err)
	}
	keep := fmt.Sprintf("%s%d-", prefix, n)
	stay := map[string]bool{filepath.Base(manifestPath(base)): true, filepath.Base(dirCachePath(base)): true}
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || strings.HasPrefix(name, keep) || stay[name] {
			continue
		}
		if rest == "bin" || strings.HasSuffix(rest, ".bin") || strings.HasSuffix(rest, ".links") {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
	return nil
}
