package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/swe-adept/swe-adept/index/parse"
)

// DefaultMaxFileSize is the size above which a file is not parsed but cut
// into plain chunks: one 1.5 MB generated file can cost as much as
// hundreds of ordinary ones.
const DefaultMaxFileSize = 1 << 20

// Options tune Build. The zero value is ready to use.
type Options struct {
	// Progress, if set, is called from Build's goroutine as files are
	// read and parsed: done of total.
	Progress func(done, total int)
	// MaxFileSize: files larger are indexed as plain chunks without
	// parsing. 0 means DefaultMaxFileSize; negative means no limit.
	MaxFileSize int64
	// NoCache neither reads nor writes the on-disk cache.
	NoCache bool
	// CacheDir overrides where the cache lives (default: the repository's
	// git dir under swe-adept/index/, or the user cache dir for folders
	// outside git).
	CacheDir string
	// Workers is how many files are parsed at once; 0 means one per CPU.
	Workers int
	// Logger receives skipped files and cache problems; nil discards.
	Logger *slog.Logger

	// shards fixes the cache's shard count (see shardCount), for tests
	// that need several shards on a small tree.
	shards int
}

func (o Options) withDefaults() Options {
	if o.MaxFileSize == 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Build indexes the repository at root: every source file of a supported
// language becomes code units linked by contains and invokes edges. Files
// that cannot be indexed are counted in Stats().Skipped and logged (a file
// the parser fails on is kept as plain chunks); only a bad root or a
// cancelled context stop it.
func Build(ctx context.Context, root string, opts Options) (*Index, error) {
	start := time.Now()
	opts = opts.withDefaults()
	abs, err := checkRoot(root)
	if err != nil {
		return nil, err
	}
	cache := openCache(abs, opts)
	links := openLinks(abs, cache, opts)
	// The sources weigh about twice their stored extraction; a build with
	// nothing stored is budgeted for its sources once the walk has sized
	// them (see gcHold).
	stored := cache.storedBytes()
	gc := holdGC(3 * stored)
	defer gc.release()
	sized := func(total int64) {
		if stored == 0 {
			gc.sizedCold(total)
		}
	}
	wr := startWalk(ctx, abs, openDirCache(cache.dirPath, opts.Logger), opts.Logger, sized)
	res, err := extractAll(ctx, wr.q, cache, opts)
	if wr.err != nil {
		return nil, fmt.Errorf("index %s: %w", abs, wr.err)
	}
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", abs, err)
	}
	tWalk, tExtract := wr.done, time.Now()
	lay := cache.layout(res)
	saved := cache.saveAsync(res, lay)
	ix := assemble(abs, res, opts.Workers, links)
	savedLinks := links.saveAsync(lay)
	tAssemble := time.Now()
	st := &ix.stats
	st.Skipped = wr.skipped
	st.Degraded = map[string]int{}
	for _, f := range res.files {
		countFlags(st.Degraded, f.Flags)
	}
	for reason, n := range res.skipped {
		st.Skipped[reason] += n
	}
	st.Parsed = res.parsed
	st.Cache = cache.kind(res)
	if err := <-saved; err != nil {
		opts.Logger.Warn("index: cache not saved", "err", err)
	}
	if err := <-savedLinks; err != nil {
		opts.Logger.Warn("index: resolved calls not saved", "err", err)
	}
	st.Seconds = time.Since(start).Seconds()
	opts.Logger.Debug("index: built", "root", abs, "files", st.Files, "cache", st.Cache,
		"walk", tWalk.Sub(start), "extract", tExtract.Sub(tWalk), "link", tAssemble.Sub(tExtract), "resolved_files", links.resolved,
		"save", time.Since(tAssemble), "total", time.Since(start))
	return ix, nil
}

// walkRun is a walk that queues the files it finds, so that extraction
// starts before it ends. Its fields are set before the queue closes, and
// extraction returns only once the queue has closed, so they may be read
// after it.
type walkRun struct {
	q       *fileQueue
	skipped map[string]int
	err     error
	done    time.Time
}

// startWalk walks root in the background; sized receives the candidates'
// total size before the queue closes.
func startWalk(ctx context.Context, root string, dirs *dirCache, log *slog.Logger, sized func(int64)) *walkRun {
	w := &walkRun{q: newFileQueue()}
	go func() {
		defer w.q.close()
		var total atomic.Int64
		_, w.skipped, w.err = walkFound(ctx, root, dirs, log, func(c candidate) {
			total.Add(c.size)
			w.q.push(c)
		})
		w.done = time.Now()
		sized(total.Load())
		if w.err == nil {
			if err := dirs.save(); err != nil {
				log.Warn("index: directory cache not saved", "err", err)
			}
		}
	}()
	return w
}

func checkRoot(root string) (string, error) {
	if root == "" {
		return "", errors.New("index: no repository directory given")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("index %s: %w", root, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("index %s: %w", root, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("index %s: not a directory", root)
	}
	return abs, nil
}

func countFlags(degraded map[string]int, flags uint8) {
	if flags&parse.FlagSyntaxError != 0 {
		degraded[SkipSyntaxError]++
	}
	if flags&parse.FlagNonUTF8 != 0 {
		degraded[SkipNonUTF8]++
	}
	if flags&parse.FlagTooLarge != 0 {
		degraded[SkipTooLarge]++
	}
}

// assemble links the raw files and makes the Index. With links, the calls
// of files whose resolution cannot have changed are copied from the
// previous run instead of resolved.
func assemble(root string, res *extractResult, workers int, links *linkStore) *Index {
	r := linkAll(root, res, workers, links)
	files := make([]*File, len(res.files))
	sources := make(map[string][]byte, len(res.files))
	st := Stats{Languages: map[string]int{}}
	for i, rf := range res.files {
		f := &File{Path: rf.Path, Lang: rf.Lang, Lines: rf.Lines, Size: rf.Size, Units: make([]string, len(rf.Units))}
		lo, _ := r.fileUnits(i)
		for j := range rf.Units {
			f.Units[j] = r.units[lo+int32(j)].ID
		}
		files[i] = f
		sources[rf.Path] = res.sources[i]
		st.Languages[rf.Lang]++
		st.Lines += rf.Lines
	}
	for _, u := range r.units {
		st.Edges += len(u.Children)
	}
	ix := New(root, files, r.units, sources)
	st.Files, st.Units = len(files), len(r.units)
	st.ResolvedCalls, st.UnresolvedCalls = r.totals()
	ix.stats = st
	return ix
}
