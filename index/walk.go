package index

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/swe-adept/swe-adept/index/parse"
)

// Reasons a path is left out of the index or indexed specially; the keys
// of Stats.Skipped.
const (
	SkipIgnored     = "gitignored"
	SkipVendored    = "vendored"     // vendor/, node_modules/, virtualenvs, build output
	SkipGenerated   = "generated"    // "Code generated ... DO NOT EDIT"
	SkipBinary      = "binary"       // NUL byte in the first 8 KB
	SkipSymlink     = "symlink"      // symbolic links are not followed
	SkipUnreadable  = "unreadable"   // permission or I/O error
	SkipTooLarge    = "too_large"    // over MaxFileSize: indexed as plain chunks, not parsed
	SkipSyntaxError = "syntax_error" // indexed; units from the parts that parse
	SkipNonUTF8     = "non_utf8"     // indexed as bytes
	SkipDeclaration = "declaration"  // TypeScript .d.ts: generated or hand-written types, no code
	SkipMinified    = "minified"     // .min.js, or a script whose lines run to hundreds of bytes
)

// skipDirs are directory names never indexed: other people's code,
// environments and build output.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "vendor": true, "node_modules": true,
	"third_party": true, "site-packages": true, "build": true, "dist": true,
	".tox": true, ".nox": true, ".venv": true, "venv": true, "__pycache__": true,
	".mypy_cache": true, ".pytest_cache": true, ".eggs": true,
	".next": true, ".nuxt": true, ".svelte-kit": true, ".turbo": true, ".parcel-cache": true,
	"bower_components": true, ".yarn": true,
}

// skipSuffixes are file name endings left out of the index, and why.
var skipSuffixes = []struct{ suffix, reason string }{
	{".d.ts", SkipDeclaration}, {".d.mts", SkipDeclaration}, {".d.cts", SkipDeclaration},
	{".min.js", SkipMinified}, {".min.mjs", SkipMinified}, {".min.cjs", SkipMinified},
}

// candidate is a file the walk found for a known language.
type candidate struct {
	rel   string // slash-separated, relative to root
	abs   string
	size  int64
	mtime int64
	lang  *parse.Language
}

type walker struct {
	ctx  context.Context
	root string
	log  *slog.Logger
	dirs *dirCache // nil: list every directory
	// sem bounds the directories read at once: the walk is syscall-bound,
	// so a few goroutines beat one even on two cores.
	sem chan struct{}
	wg  sync.WaitGroup

	// found, when set, is handed each candidate as it is found, so work on
	// it can start before the walk ends; the walk then lists none itself.
	found func(candidate)

	mu      sync.Mutex
	files   []candidate
	skipped map[string]int
}

// walk lists the source files under root, honouring .gitignore files at
// every level and .git/info/exclude. Order is not defined; callers sort.
func walk(ctx context.Context, root string, dirs *dirCache, log *slog.Logger) ([]candidate, map[string]int, error) {
	return walkFound(ctx, root, dirs, log, nil)
}

// walkFound is walk that hands each candidate to found (from several
// goroutines) as soon as it is found, instead of listing them.
func walkFound(ctx context.Context, root string, dirs *dirCache, log *slog.Logger, found func(candidate)) ([]candidate, map[string]int, error) {
	w := &walker{ctx: ctx, root: root, log: log, dirs: dirs, skipped: map[string]int{}, sem: make(chan struct{}, 8), found: found}
	var ps []gitignore.Pattern
	if gd, _, err := findGitDir(root); err == nil && gd != "" {
		ps = readIgnoreFile(filepath.Join(gd, "info", "exclude"), nil, ps)
	}
	w.dir(root, nil, ps)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return w.files, w.skipped, nil
}

func (w *walker) dir(abs string, rel []string, ps []gitignore.Pattern) {
	if w.ctx.Err() != nil {
		return
	}
	l, err := w.dirs.listing(abs, strings.Join(rel, "/"))
	if err != nil {
		w.skip(SkipUnreadable, strings.Join(rel, "/"), err)
		return
	}
	if l.ignore {
		ps = readIgnoreFile(filepath.Join(abs, ".gitignore"), rel, ps)
	}
	m := gitignore.NewMatcher(ps)
	for _, name := range l.symlinks {
		w.skip(SkipSymlink, joinRel(rel, name), nil)
	}
	for _, name := range l.dirs {
		w.subdir(abs, rel, name, ps, m)
	}
	for _, name := range l.files {
		w.file(abs, rel, name, m)
	}
}

func (w *walker) subdir(abs string, rel []string, name string, ps []gitignore.Pattern, m gitignore.Matcher) {
	if skipDirs[name] || strings.HasSuffix(name, ".egg-info") {
		if name != ".git" {
			w.skip(SkipVendored, joinRel(rel, name), nil)
		}
		return
	}
	path := append(rel[:len(rel):len(rel)], name)
	if m.Match(path, true) {
		w.skip(SkipIgnored, joinRel(rel, name), nil)
		return
	}
	sub := filepath.Join(abs, name)
	select {
	case w.sem <- struct{}{}:
		w.wg.Add(1)
		go func() {
			defer func() { <-w.sem; w.wg.Done() }()
			w.dir(sub, path, ps)
		}()
	default:
		w.dir(sub, path, ps)
	}
}

// readDir lists a directory unsorted (callers sort what they keep).
func readDir(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func joinRel(rel []string, name string) string {
	if len(rel) == 0 {
		return name
	}
	return strings.Join(rel, "/") + "/" + name
}

func (w *walker) file(dirAbs string, rel []string, name string, m gitignore.Matcher) {
	relPath := joinRel(rel, name)
	if m.Match(append(rel[:len(rel):len(rel)], name), false) {
		w.skip(SkipIgnored, relPath, nil)
		return
	}
	for _, s := range skipSuffixes {
		if strings.HasSuffix(name, s.suffix) {
			w.skip(s.reason, relPath, nil)
			return
		}
	}
	abs := filepath.Join(dirAbs, name)
	info, err := os.Lstat(abs)
	if err != nil {
		w.skip(SkipUnreadable, relPath, err)
		return
	}
	if !info.Mode().IsRegular() { // replaced by a link or a directory since listed
		w.skip(SkipSymlink, relPath, nil)
		return
	}
	c := candidate{rel: relPath, abs: abs, size: info.Size(), mtime: info.ModTime().UnixNano(), lang: parse.ForPath(name)}
	if w.found != nil {
		w.found(c)
		return
	}
	w.mu.Lock()
	w.files = append(w.files, c)
	w.mu.Unlock()
}

func (w *walker) skip(reason, path string, err error) {
	w.mu.Lock()
	w.skipped[reason]++
	w.mu.Unlock()
	if err != nil {
		w.log.Warn("index: skipping", "path", path, "reason", reason, "err", err)
	} else {
		w.log.Debug("index: skipping", "path", path, "reason", reason)
	}
}

// readIgnoreFile appends the patterns of one ignore file; patterns of a
// nested .gitignore apply below its directory only (the domain).
func readIgnoreFile(path string, domain []string, ps []gitignore.Pattern) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil {
		return ps
	}
	out := ps[:len(ps):len(ps)] // never write into the parent's slice
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

// sniff reports why a file's content keeps it out of the index, if it
// does: a NUL byte early on means binary; Go's generated-file marker means
// generated; a script whose first 8 KB hold fewer than 16 lines is a
// minified bundle.
func sniff(src []byte, l *parse.Language) string {
	head := src
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if l != nil && parse.IsScript(l.Name()) && len(head) == 8192 && bytes.Count(head, []byte{'\n'}) < 16 {
		return SkipMinified
	}
	if i := bytes.Index(head, []byte("Code generated ")); i >= 0 {
		end := bytes.IndexByte(head[i:], '\n')
		if end < 0 {
			end = len(head) - i
		}
		if bytes.Contains(head[i:i+end], []byte("DO NOT EDIT")) {
			return SkipGenerated
		}
	}
	return ""
}
