package vcs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// conversionAttrs are the attributes that make git rewrite a file's bytes
// between the index and the working tree.
var conversionAttrs = []string{"text", "eol", "crlf", "ident", "working-tree-encoding"}

// conversionProblems finds tracked files that git converts on the way in
// or out (text, eol, ident, working-tree-encoding) in a way an in-place
// run could not undo. A fresh checkout of HEAD and of the index is made in
// a private folder, through the repository's own attributes:
//   - a file whose fresh checkout shows as modified is always dirty: the
//     restore's own `git checkout` would leave it changed;
//   - a file whose bytes in the working tree do not come back from their
//     own cleaned blob (an LF file under `eol=crlf`, say) would be
//     rewritten the first time the run or the restore touches it.
//
// Files without such attributes are not converted and are not checked.
func (r *Repo) conversionProblems(ctx context.Context) ([]string, error) {
	subset, err := r.convertedPaths(ctx)
	if err != nil || len(subset) == 0 {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.gitDir, "swe-adept-exact-")
	if err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	defer os.RemoveAll(tmp)
	var why []string
	for _, side := range []struct{ what, list string }{{"HEAD", "ls-tree"}, {"the index", "ls-files"}} {
		entries, err := r.entriesFor(ctx, side.list, subset)
		if err != nil {
			return nil, err
		}
		dirty, err := r.freshCheckout(ctx, entries, tmp)
		if err != nil {
			return nil, err
		}
		for _, p := range dirty {
			why = append(why, fmt.Sprintf("%s as in %s shows as modified right after a fresh checkout (its text/eol attributes convert it)", p, side.what))
		}
	}
	bad, err := r.worktreeRoundTrip(ctx, subset, tmp)
	if err != nil {
		return nil, err
	}
	for _, p := range bad {
		why = append(why, p+" would not come back byte for byte: its text/eol attributes convert its bytes on the way back")
	}
	return why, nil
}

// convertedPaths lists the tracked files with a conversion attribute set.
func (r *Repo) convertedPaths(ctx context.Context) (map[string]bool, error) {
	tracked, err := r.lsFiles(ctx, "--cached")
	if err != nil || len(tracked) == 0 {
		return nil, err
	}
	in := strings.Join(tracked, "\x00") + "\x00"
	c := r.cmd(append([]string{"check-attr", "-z", "--stdin"}, conversionAttrs...)...)
	c.stdin = []byte(in)
	out, err := c.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("read attributes: %w", err)
	}
	f := strings.Split(string(out), "\x00")
	subset := map[string]bool{}
	for i := 0; i+2 < len(f); i += 3 {
		if f[i+2] != "unspecified" {
			subset[f[i]] = true
		}
	}
	return subset, nil
}

// entriesFor lists "mode hash\tpath" index lines for the subset, from HEAD
// (ls-tree) or the index (ls-files), leaving out links and submodules.
func (r *Repo) entriesFor(ctx context.Context, from string, subset map[string]bool) (string, error) {
	args := []string{"ls-files", "-s", "-z"}
	if from == "ls-tree" {
		args = []string{"ls-tree", "-r", "-z", "HEAD"}
	}
	out, err := r.cmd(args...).run(ctx)
	if err != nil {
		return "", fmt.Errorf("list files: %w", err)
	}
	var b strings.Builder
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !subset[p] || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		hash := f[1] // ls-files -s: mode hash stage
		if from == "ls-tree" {
			hash = f[2] // ls-tree: mode type hash
		}
		fmt.Fprintf(&b, "%s %s\t%s\x00", f[0], hash, p)
	}
	return b.String(), nil
}

// freshCheckout checks the entries out into dir through a private index,
// as a new clone would, and lists those that then show as modified.
func (r *Repo) freshCheckout(ctx context.Context, entries, dir string) ([]string, error) {
	if entries == "" {
		return nil, nil
	}
	if err := r.mirrorAttributes(ctx, dir); err != nil {
		return nil, err
	}
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	env = append(env, "GIT_DIR="+r.gitDir, "GIT_WORK_TREE="+dir)
	run := func(stdin string, args ...string) ([]byte, error) {
		c := gitCmd{dir: dir, args: args, env: env}
		if stdin != "" {
			c.stdin = []byte(stdin)
		}
		return c.run(ctx)
	}
	if _, err := run(entries, "update-index", "-z", "--index-info"); err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	if _, err := run("", "checkout-index", "-a", "-f"); err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	if _, err := run("", "update-index", "-q", "--refresh"); err != nil && exitCode(err) != 1 {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	out, err := run("", "diff-files", "--name-only", "-z")
	if err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	var dirty []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			dirty = append(dirty, p)
		}
	}
	return dirty, nil
}

// worktreeRoundTrip cleans the working tree's copies of the subset into
// blobs, checks those out into dir, and lists the files whose bytes differ
// from the working tree's.
func (r *Repo) worktreeRoundTrip(ctx context.Context, subset map[string]bool, dir string) ([]string, error) {
	var present []string
	for _, p := range sortedKeys(subset) {
		if fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	env, cleanup, err := r.tempIndex(false)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	add := gitCmd{dir: r.dir, args: []string{"update-index", "--add", "-z", "--stdin"}, env: env, stdin: []byte(strings.Join(present, "\x00") + "\x00")}
	if _, err := add.run(ctx); err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := r.mirrorAttributes(ctx, dir); err != nil {
		return nil, err
	}
	out := gitCmd{dir: dir, args: []string{"checkout-index", "-a", "-f"}, env: append(env, "GIT_DIR="+r.gitDir, "GIT_WORK_TREE="+dir)}
	if _, err := out.run(ctx); err != nil {
		return nil, fmt.Errorf("check end-of-line conversion: %w", err)
	}
	var bad []string
	for _, p := range present {
		want, err1 := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		got, err2 := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err1 == nil && (err2 != nil || !bytes.Equal(want, got)) {
			bad = append(bad, p)
		}
	}
	return bad, nil
}

// mirrorAttributes copies every .gitattributes of the working tree into
// dir, so a private checkout there converts as the engineer's would.
func (r *Repo) mirrorAttributes(ctx context.Context, dir string) error {
	paths, err := r.lsFiles(ctx, "--cached", "--others", "--exclude-standard")
	if err != nil {
		return fmt.Errorf("list attribute files: %w", err)
	}
	for _, p := range paths {
		if path.Base(p) != ".gitattributes" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
