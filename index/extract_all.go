package index

import (
	"context"
	"hash/crc32"
	"slices"
	"sort"
	"sync"

	"github.com/swe-adept/swe-adept/index/parse"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// contentHash is the cache's content check: CRC-32C runs at memory speed
// on this hardware, so checking every file costs little next to reading it.
func contentHash(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// extractResult is every kept file's raw units and bytes, in path order.
type extractResult struct {
	files   []*parse.File
	sources [][]byte
	keys    []fileKey
	// enc and iface are made by the workers, so that saving the cache and
	// the links later costs little: enc is the file's cache record (as
	// loaded, or encoded anew; nil when the cache is off), iface its
	// interface digest (valid where digested is set: the files parsed).
	enc      [][]byte
	iface    []uint64
	digested []bool
	parsed   int
	skipped  map[string]int
}

// fileKey is what decides whether a cached extraction is still good.
type fileKey struct {
	size  int64
	mtime int64
	hash  uint32
}

type extractOut struct {
	raw    *parse.File
	src    []byte
	key    fileKey
	enc    []byte
	iface  uint64
	parsed bool
	skip   string
	err    error
}

// extractAll reads every candidate the queue yields and parses the ones
// the cache does not vouch for, on opts.Workers goroutines, each with its
// own parser. It returns once the queue is closed and drained.
func extractAll(ctx context.Context, q *fileQueue, cache *fileCache, opts Options) (*extractResult, error) {
	done := make(chan struct{}, 256)
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{p: parse.GetParser()}
			defer w.p.Release()
			for j := q.pop(); j != nil; j = q.pop() {
				if ctx.Err() == nil {
					j.out = w.extractOne(ctx, &j.c, cache, opts)
				}
				done <- struct{}{}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	n := 0
	for range done {
		n++
		if opts.Progress != nil {
			opts.Progress(n, max(n, q.found()))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	jobs := q.all
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].c.rel < jobs[j].c.rel })
	return collect(jobs, opts)
}

func collect(jobs []*job, opts Options) (*extractResult, error) {
	res := &extractResult{skipped: map[string]int{}}
	for _, j := range jobs {
		o := &j.out
		if o.err != nil {
			return nil, o.err
		}
		if o.skip != "" {
			res.skipped[o.skip]++
			opts.Logger.Debug("index: skipping", "path", j.c.rel, "reason", o.skip)
			continue
		}
		res.files = append(res.files, o.raw)
		res.sources = append(res.sources, o.src)
		res.keys = append(res.keys, o.key)
		res.enc = append(res.enc, o.enc)
		res.iface = append(res.iface, o.iface)
		res.digested = append(res.digested, o.parsed)
		if o.parsed {
			res.parsed++
		}
	}
	return res, nil
}

// worker is one extraction goroutine's parser, and its buffers for each
// file's cache record and interface digest.
type worker struct {
	p      *parse.Parser
	enc    encoder
	digest digester
}

func (w *worker) extractOne(ctx context.Context, c *candidate, cache *fileCache, opts Options) extractOut {
	src, err := readSource(c.abs, c.size)
	if err != nil {
		opts.Logger.Warn("index: unreadable file", "path", c.rel, "err", err)
		return extractOut{skip: SkipUnreadable}
	}
	if reason := sniff(src, c.lang); reason != "" {
		return extractOut{skip: reason}
	}
	key := fileKey{size: int64(len(src)), mtime: c.mtime, hash: contentHash(src)}
	if raw, enc := cache.lookup(c.rel, c.lang.Name(), key); raw != nil {
		if enc == nil {
			enc = w.record(raw, key)
		}
		return extractOut{raw: raw, src: src, key: key, enc: enc}
	}
	raw, err := w.p.Extract(ctx, c.lang, c.rel, src, opts.MaxFileSize)
	if err != nil {
		if ctx.Err() != nil {
			return extractOut{err: ctx.Err()}
		}
		// A parser failure on one file must not stop the index: keep the
		// file as plain chunks.
		opts.Logger.Warn("index: parse failed", "path", c.rel, "err", err)
		raw = parse.Unparsed(c.lang, c.rel, src, parse.FlagSyntaxError)
	}
	out := extractOut{raw: raw, src: src, key: key, parsed: true, iface: w.digest.digest(raw)}
	if !cache.off {
		out.enc = w.record(raw, key)
	}
	return out
}

// record is the file's cache record.
func (w *worker) record(raw *parse.File, key fileKey) []byte {
	w.enc.buf = w.enc.buf[:0]
	w.enc.encodeFile(raw, key)
	return slices.Clone(w.enc.buf)
}
