package index

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/testtree"
)

func TestShardCount(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name   string
		size   int64
		stored int
		want   int
	}{
		{"empty tree", 0, 0, 1},
		{"one MiB", mib, 0, 1},
		{"just over one MiB", mib + 1, 0, 2},
		{"six MiB", 6 * mib, 0, 8},
		{"huge", 1 << 40, 0, maxShards},
		{"stored count half the ideal is kept", 3 * mib / 2, 1, 1},
		{"stored count twice the ideal is kept", mib, 2, 2},
		{"stored count four times too small is left", 3 * mib, 1, 4},
		{"stored count four times too large is left", mib, 4, 1},
	} {
		if got := shardCount(c.size, c.stored); got != c.want {
			t.Errorf("%s: shardCount(%d, %d) = %d, want %d", c.name, c.size, c.stored, got, c.want)
		}
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := &manifest{stamps: []uint64{1, 1 << 60, 0, 42}}
	var buf bytes.Buffer
	if err := encodeManifest(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.stamps, m.stamps) {
		t.Fatalf("stamps %v, want %v", got.stamps, m.stamps)
	}
	for _, bad := range []*manifest{{stamps: make([]uint64, 3)}, {stamps: make([]uint64, 2*maxShards)}} {
		buf.Reset()
		if err := encodeManifest(&buf, bad); err != nil {
			t.Fatal(err)
		}
		if _, err := decodeManifest(buf.Bytes()); err == nil {
			t.Errorf("a manifest of %d shards was accepted", bad.shards())
		}
	}
}

// TestCacheChangesLayout checks that a tree whose shard count changes is
// read in its old layout, saved in its new one, and leaves no shard of the
// old one (nor of earlier versions) behind, while another tree's cache in
// the same directory is left alone.
func TestCacheChangesLayout(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	b := newCachedBuilds(t)
	b.opts.shards = 4
	first, _ := b.build(t, dir)
	want := dump(first)
	base, err := cacheBase(dir, b.opts.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	others := []string{
		base + ".bin", base + ".07.bin", base + ".07.links", // earlier versions
		filepath.Join(b.opts.CacheDir, "index-0123456789abcdef.4-00.bin"), // another tree
	}
	for _, p := range others {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.opts.shards = 1
	ix, n := b.build(t, dir)
	if st := ix.Stats(); st.Cache != "warm" || n != 0 {
		t.Errorf("build that changes the layout: cache %s with %d files resolved, want warm with none", st.Cache, n)
	}
	if got := dump(ix); got != want {
		t.Errorf("index read from the old layout differs:\n%s", lineDiff(want, got))
	}
	entries, err := os.ReadDir(b.opts.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	name := filepath.Base(base)
	wantNames := []string{"index-0123456789abcdef.4-00.bin", name + ".1-00.bin", name + ".1-00.links", name + ".dirs", name + ".links"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("cache dir holds\n%v\nwant\n%v", names, wantNames)
	}
	again, n := b.build(t, dir)
	if st := again.Stats(); st.Cache != "warm" || n != 0 {
		t.Errorf("build after the change: cache %s with %d files resolved, want warm with none", st.Cache, n)
	}
	if got := dump(again); got != want {
		t.Errorf("index read from the new layout differs:\n%s", lineDiff(want, got))
	}
}

// TestSmallTreeHasOneShard checks the default: a tree of less than a MiB
// is stored in one cache shard and one links shard.
func TestSmallTreeHasOneShard(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	opts := Options{CacheDir: t.TempDir()}
	buildT(t, dir, opts)
	for _, pattern := range []string{"index-*.*-*.bin", "index-*.*-*.links"} {
		files, _ := filepath.Glob(filepath.Join(opts.CacheDir, pattern))
		if len(files) != 1 || !strings.Contains(files[0], ".1-00.") {
			t.Errorf("%s: got %v, want one shard of one", pattern, files)
		}
	}
}

// TestLinksFailedSaveKeepsCache checks that links that cannot be saved
// cost the next build a full resolution, not the cache.
func TestLinksFailedSaveKeepsCache(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	b := newCachedBuilds(t)
	b.opts.shards = 1
	first, _ := b.build(t, dir)
	total := first.Stats().Files
	base, err := cacheBase(dir, b.opts.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	// A directory where the links shard goes makes its save fail.
	shard := linkShardPath(base, 1, 0)
	if err := os.Remove(shard); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(shard, 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo("pkg/base.py", "# x\n")(t, dir)
	b.build(t, dir)
	if !strings.Contains(b.log.String(), "resolved calls not saved") {
		t.Fatalf("the links save should have failed; log:\n%s", b.log.String())
	}
	if err := os.Remove(shard); err != nil {
		t.Fatal(err)
	}
	ix, n := b.build(t, dir)
	if st := ix.Stats(); st.Cache != "warm" || n != total {
		t.Errorf("after a failed links save: cache %s with %d of %d files resolved, want warm with all", st.Cache, n, total)
	}
	sameAsFresh(t, "after a failed links save", dir, ix)
}
