package vcs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Before an in-place run touches anything, it records what of the
// engineer's checkout git itself would not give back: the exact bytes of
// every untracked and ignored file (whatever .gitignore says at the end,
// they are the engineer's), the permissions of every file, and ORIG_HEAD.
// The record is one commit on StashRefPrefix+<run>/record: record.json
// lists the entries, and files/<path> holds each file's raw bytes (no
// filter or end-of-line conversion, so they come back as they were).

// recordName is the StashName of a run's record.
const recordName = "record"

// Limits on what a record holds: above them an in-place run is refused up
// front rather than started without a way back.
const (
	recordMaxBytes = 1 << 30
	recordMaxFiles = 200_000
)

// checkoutRecord is record.json.
type checkoutRecord struct {
	Version int           `json:"version"`
	Files   []recordEntry `json:"files"` // untracked and ignored files and links
	Modes   []fileMode    `json:"modes"` // every regular file's permissions, tracked ones included
	// OrigHead is .git/ORIG_HEAD as it was; nil when there was none.
	OrigHead *string `json:"orig_head"`
}

// recordEntry is one untracked or ignored path.
type recordEntry struct {
	Path    string `json:"path"`
	Ignored bool   `json:"ignored,omitempty"`
	Link    bool   `json:"link,omitempty"`
	// Other: a fifo, socket or device; only its path is kept, and it is
	// never touched.
	Other bool `json:"other,omitempty"`
}

// ErrTooMuchToRecord: the untracked and ignored files are more than an
// in-place run sets aside.
var ErrTooMuchToRecord = errors.New("too many untracked and ignored files to set aside")

// recordCheckout writes the record of the checkout on ref.
func (r *Repo) recordCheckout(ctx context.Context, ref string) error {
	rec, err := r.collectRecord(ctx)
	if err != nil {
		return err
	}
	if err := r.checkRecordSize(rec); err != nil {
		return err
	}
	return r.writeRecord(ctx, ref, rec)
}

func (r *Repo) collectRecord(ctx context.Context) (*checkoutRecord, error) {
	rec := &checkoutRecord{Version: 1}
	untracked, err := r.lsFiles(ctx, "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list untracked files: %w", err)
	}
	ignored, err := r.lsFiles(ctx, "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list ignored files: %w", err)
	}
	tracked, err := r.lsFiles(ctx, "--cached")
	if err != nil {
		return nil, fmt.Errorf("list tracked files: %w", err)
	}
	for _, set := range []struct {
		paths   []string
		ignored bool
	}{{untracked, false}, {ignored, true}} {
		for _, p := range set.paths {
			rec.Files = append(rec.Files, r.entryOf(p, set.ignored))
		}
	}
	all := append(append(tracked, untracked...), ignored...)
	rec.Modes = r.allModes(all)
	if b, err := os.ReadFile(filepath.Join(r.gitDir, "ORIG_HEAD")); err == nil {
		s := string(b)
		rec.OrigHead = &s
	}
	return rec, nil
}

// lsFiles lists paths, NUL-separated so that any name survives, leaving
// out untracked nested repositories ("dir/"): they are never touched.
func (r *Repo) lsFiles(ctx context.Context, args ...string) ([]string, error) {
	out, err := r.cmd(append([]string{"ls-files", "-z"}, args...)...).run(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !strings.HasSuffix(p, "/") && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths, nil
}

func (r *Repo) entryOf(p string, ignored bool) recordEntry {
	e := recordEntry{Path: p, Ignored: ignored}
	fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p)))
	switch {
	case err != nil:
		e.Other = true // gone already: nothing to keep
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Link = true
	case !fi.Mode().IsRegular():
		e.Other = true
	}
	return e
}

// allModes is every regular file's permissions.
func (r *Repo) allModes(paths []string) []fileMode {
	var out []fileMode
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err == nil && fi.Mode().IsRegular() {
			out = append(out, fileMode{Path: p, Perm: fi.Mode().Perm()})
		}
	}
	return out
}

func (r *Repo) checkRecordSize(rec *checkoutRecord) error {
	var n int
	var size int64
	for _, e := range rec.Files {
		if e.Other {
			continue
		}
		n++
		if fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(e.Path))); err == nil {
			size += fi.Size()
		}
	}
	if n > recordMaxFiles || size > recordMaxBytes {
		return fmt.Errorf("%w: %d files, %d MiB (an in-place run sets aside at most %d files and %d MiB so that it can put them back byte for byte); "+
			"remove what you do not need (git clean -ndX lists the ignored files)", ErrTooMuchToRecord, n, size>>20, recordMaxFiles, recordMaxBytes>>20)
	}
	return nil
}

// writeRecord stores the record with one `git fast-import`: the files'
// raw bytes stream into a pack, and the commit lands on ref.
func (r *Repo) writeRecord(ctx context.Context, ref string, rec *checkoutRecord) error {
	meta, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record the checkout: %w", err)
	}
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, configOverrides...), "fast-import", "--quiet", "--done", "--force")...)
	cmd.Dir, cmd.Env = r.dir, gitEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("record the checkout: %w", err)
	}
	werr := r.streamRecord(bufio.NewWriterSize(stdin, 1<<16), ref, rec, meta)
	stdin.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		return fmt.Errorf("record the checkout: %w", errors.Join(werr, err, errors.New(strings.TrimSpace(stderr.String()))))
	}
	return nil
}

func (r *Repo) streamRecord(w *bufio.Writer, ref string, rec *checkoutRecord, meta []byte) error {
	fmt.Fprintf(w, "commit %s\ncommitter swe-adept <swe-adept@localhost> %d +0000\n", ref, time.Now().Unix())
	msg := "swe-adept: record of the checkout before an in-place run\n"
	fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
	fmt.Fprintf(w, "M 100644 inline record.json\ndata %d\n%s\n", len(meta), meta)
	for _, e := range rec.Files {
		if e.Other {
			continue
		}
		if err := r.streamFile(w, e); err != nil {
			return err
		}
	}
	fmt.Fprint(w, "\ndone\n")
	return w.Flush()
}

// streamFile writes one file (or link) inline. The size is taken once and
// checked again after the copy, so a file changed meanwhile fails the
// record rather than storing a torn copy.
func (r *Repo) streamFile(w *bufio.Writer, e recordEntry) error {
	full := filepath.Join(r.dir, filepath.FromSlash(e.Path))
	path := fastImportPath("files/" + e.Path)
	if e.Link {
		target, err := os.Readlink(full)
		if err != nil {
			return fmt.Errorf("record %q: %w", e.Path, err)
		}
		_, err = fmt.Fprintf(w, "M 120000 inline %s\ndata %d\n%s\n", path, len(target), target)
		return err
	}
	f, err := os.Open(full)
	if err != nil {
		return fmt.Errorf("record %q: %w", e.Path, err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return fmt.Errorf("record %q: %w", e.Path, err)
	}
	mode := "100644"
	if before.Mode()&0o100 != 0 {
		mode = "100755"
	}
	fmt.Fprintf(w, "M %s inline %s\ndata %d\n", mode, path, before.Size())
	if _, err := io.CopyN(w, f, before.Size()); err != nil {
		return fmt.Errorf("record %q (did it change meanwhile?): %w", e.Path, err)
	}
	after, err := f.Stat()
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		return fmt.Errorf("record %q: it changed while it was being set aside; try again", e.Path)
	}
	return w.WriteByte('\n')
}

// fastImportPath quotes a path the way fast-import reads it: C-style, when
// it holds a newline, a quote, a backslash or another control character.
func fastImportPath(p string) string {
	if !strings.ContainsAny(p, "\"\\") && !strings.ContainsFunc(p, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// loadRecord reads the record of a run, and the blob of each saved file.
func (r *Repo) loadRecord(ctx context.Context, ref string) (*checkoutRecord, map[string]treeEntry, error) {
	out, err := r.cmd("cat-file", "blob", ref+":record.json").run(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read the record of your checkout on %s: %w", ref, err)
	}
	rec := &checkoutRecord{}
	if err := json.Unmarshal(out, rec); err != nil {
		return nil, nil, fmt.Errorf("read the record of your checkout on %s: %w", ref, err)
	}
	blobs, err := r.lsTree(ctx, ref, "files/")
	if err != nil {
		return nil, nil, err
	}
	return rec, blobs, nil
}

// treeEntry is one file of a tree.
type treeEntry struct {
	Mode, Hash string
}

// lsTree lists the files of a commit's tree beneath prefix, by path
// relative to it.
func (r *Repo) lsTree(ctx context.Context, rev, prefix string) (map[string]treeEntry, error) {
	out, err := r.cmd("ls-tree", "-r", "-z", "--full-tree", rev).run(ctx)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rev, err)
	}
	files := map[string]treeEntry{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		if rel, ok := strings.CutPrefix(path, prefix); ok {
			files[rel] = treeEntry{Mode: f[0], Hash: f[2]}
		}
	}
	return files, nil
}

// ignoredPaths is the set of paths a record holds as ignored.
func ignoredPaths(rec *checkoutRecord) map[string]bool {
	keep := map[string]bool{}
	if rec == nil {
		return keep
	}
	for _, e := range rec.Files {
		if e.Ignored {
			keep[e.Path] = true
		}
	}
	return keep
}
