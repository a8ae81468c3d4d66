package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/testtree"
)

func buildT(t *testing.T, dir string, opts Options) *Index {
	t.Helper()
	ix, err := Build(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return ix
}

func TestCacheColdWarmIncremental(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	opts := Options{CacheDir: t.TempDir()}

	cold := buildT(t, dir, opts)
	if st := cold.Stats(); st.Cache != "cold" || st.Parsed != st.Files {
		t.Fatalf("first build: cache %s, parsed %d of %d; want cold, all parsed", st.Cache, st.Parsed, st.Files)
	}
	warm := buildT(t, dir, opts)
	if st := warm.Stats(); st.Cache != "warm" || st.Parsed != 0 {
		t.Fatalf("second build: cache %s, parsed %d; want warm, none parsed", st.Cache, st.Parsed)
	}
	if got, want := dump(warm), dump(cold); got != want {
		t.Fatalf("warm index differs from cold:\n%s", lineDiff(want, got))
	}

	// Editing one file re-parses it alone, and the edges into it from
	// other files follow the edit.
	util := filepath.Join(dir, "pkg", "util.py")
	src, err := os.ReadFile(util)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "def tidy(s):", "def spare():\n    return 0\n\n\ndef tidy(s):", 1)
	if err := os.WriteFile(util, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	inc := buildT(t, dir, opts)
	if st := inc.Stats(); st.Cache != "incremental" || st.Parsed != 1 {
		t.Fatalf("after edit: cache %s, parsed %d; want incremental, 1 parsed", st.Cache, st.Parsed)
	}
	fresh := buildT(t, dir, Options{NoCache: true})
	if got, want := dump(inc), dump(fresh); got != want {
		t.Fatalf("incremental index differs from a fresh one:\n%s", lineDiff(want, got))
	}
	// The cache saved by the incremental build (unchanged entries copied
	// as loaded, the edited one encoded anew) loads whole.
	again := buildT(t, dir, opts)
	if st := again.Stats(); st.Cache != "warm" {
		t.Fatalf("after the incremental build: cache %s, want warm", st.Cache)
	}
	if got, want := dump(again), dump(fresh); got != want {
		t.Fatalf("index from the re-saved cache differs:\n%s", lineDiff(want, got))
	}
	u, ok := inc.Unit("pkg/sub/models.py:Model.Meta.Options.describe")
	if !ok || !hasEdge(u, "pkg/util.py:tidy", Invokes) {
		t.Fatalf("describe should still invoke the moved tidy: %+v", u)
	}
	if tidy, _ := inc.Unit("pkg/util.py:tidy"); tidy == nil || tidy.Start != 12 {
		t.Fatalf("tidy should now start at line 12: %+v", tidy)
	}
}

func hasEdge(u *Unit, id string, rel Relation) bool {
	for _, e := range u.Children {
		if e.ID == id && e.Rel == rel {
			return true
		}
	}
	return false
}

func TestCacheCorruptIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "pyrepo"), dir)
	opts := Options{CacheDir: t.TempDir(), shards: maxShards}
	built := buildT(t, dir, opts)
	want := dump(built)
	shards, _ := filepath.Glob(filepath.Join(opts.CacheDir, "index-*.*.bin"))
	if len(shards) < 2 {
		t.Fatalf("want the cache in shards in %s, got %v", opts.CacheDir, shards)
	}
	// The victim is the shard holding the most files; corrupting it alone
	// re-parses its files and nothing else.
	inShard := make([]int, maxShards)
	for _, f := range built.Files() {
		inShard[shardOf(f.Path, maxShards)]++
	}
	victim := 0
	for k, n := range inShard {
		if n > inShard[victim] {
			victim = k
		}
	}
	path := shards[0][:len(shards[0])-len("00.bin")] + fmt.Sprintf("%02d.bin", victim)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"garbage":   []byte("not a cache at all"),
		"truncated": data[:len(data)/2],
		"bit flip":  flipByte(data, len(data)/3),
		"empty":     nil,
	}
	check := func(t *testing.T, ix *Index, kind string, parsed int) {
		t.Helper()
		if st := ix.Stats(); st.Cache != kind || st.Parsed != parsed {
			t.Errorf("after corruption: cache %s with %d parsed, want %s with %d", st.Cache, st.Parsed, kind, parsed)
		}
		if got := dump(ix); got != want {
			t.Errorf("index after corruption differs:\n%s", lineDiff(want, got))
		}
		if ix := buildT(t, dir, opts); ix.Stats().Cache != "warm" {
			t.Errorf("cache not rewritten: next build is %s", ix.Stats().Cache)
		}
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, buildT(t, dir, opts), "incremental", inShard[victim])
		})
	}
	t.Run("every shard", func(t *testing.T) {
		for _, p := range shards {
			if err := os.WriteFile(p, []byte("garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		check(t, buildT(t, dir, opts), "cold", len(built.Files()))
	})
}

func flipByte(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x55
	return out
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, []byte(cacheMagic), []byte(cacheMagic + "\x01\x02\x03\x04\x05")} {
		if _, err := decodeCache(data, DefaultMaxFileSize); err == nil {
			t.Errorf("decodeCache(%q) accepted garbage", data)
		}
	}
}

// TestCacheLivesInGitDir checks the default location: inside .git, out of
// every diff, shared by the worktree.
func TestCacheLivesInGitDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "testdata", "index", "gorepo"), dir)
	cmd := exec.Command("git", "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	buildT(t, dir, Options{})
	files, _ := filepath.Glob(filepath.Join(dir, ".git", "swe-adept", "index", "index-*.bin"))
	if len(files) == 0 {
		t.Fatalf("want the cache under .git/swe-adept/index, found %v", files)
	}
	if ix := buildT(t, dir, Options{}); ix.Stats().Cache != "warm" {
		t.Fatalf("second build is %s, want warm", ix.Stats().Cache)
	}
}

func TestFindGitDirFollowsGitFile(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real.git")
	wt := filepath.Join(root, "wt", "sub")
	for _, d := range []string{filepath.Join(real, "worktrees", "wt"), wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "wt", ".git"), []byte("gitdir: ../real.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gd, common, err := findGitDir(wt)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "worktrees", "wt"); filepath.Clean(gd) != want {
		t.Errorf("git dir %s, want %s", gd, want)
	}
	if common != real {
		t.Errorf("common dir %s, want %s", common, real)
	}
}
