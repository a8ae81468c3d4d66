package vcs

import (
	"bufio"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// recordDiffers lists the recorded untracked and ignored paths whose bytes,
// link target or executable bit differ from the record now.
func (r *Repo) recordDiffers(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) ([]string, error) {
	newHash, err := r.blobHasher(ctx)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, e := range rec.Files {
		if e.Other {
			continue
		}
		want, ok := blobs[e.Path]
		if !ok {
			return nil, fmt.Errorf("the record lacks the bytes of %q", e.Path)
		}
		if !r.sameAsBlob(e.Path, want, newHash) {
			bad = append(bad, e.Path)
		}
	}
	return bad, nil
}

// sameAsBlob: the file at p has the blob's type, executable bit and bytes.
func (r *Repo) sameAsBlob(p string, want treeEntry, newHash func() hash.Hash) bool {
	full := filepath.Join(r.dir, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	if err != nil {
		return false
	}
	var data io.Reader
	var size int64
	switch {
	case want.Mode == "120000":
		if fi.Mode()&fs.ModeSymlink == 0 {
			return false
		}
		target, err := os.Readlink(full)
		if err != nil {
			return false
		}
		data, size = strings.NewReader(target), int64(len(target))
	case !fi.Mode().IsRegular() || (fi.Mode()&0o100 != 0) != (want.Mode == "100755"):
		return false
	default:
		f, err := os.Open(full)
		if err != nil {
			return false
		}
		defer f.Close()
		data, size = f, fi.Size()
	}
	h := newHash()
	fmt.Fprintf(h, "blob %d\x00", size)
	if n, err := io.Copy(h, data); err != nil || n != size {
		return false
	}
	return fmt.Sprintf("%x", h.Sum(nil)) == want.Hash
}

// obstacles are the paths that stand, as a file or a link, where a folder
// of a recorded file was: the run put them there (a link out of the
// checkout, say). Each is the first such component from the top, so every
// folder above it is a real folder of the checkout.
func (r *Repo) obstacles(rec *checkoutRecord) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range rec.Files {
		if e.Other {
			continue
		}
		parts := strings.Split(e.Path, "/")
		for i := 1; i < len(parts); i++ {
			p := strings.Join(parts[:i], "/")
			fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p)))
			if err != nil {
				break // missing: writeBeneath makes it
			}
			if !fi.IsDir() {
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// blobHasher returns the hash of the repository's object format.
func (r *Repo) blobHasher(ctx context.Context) (func() hash.Hash, error) {
	format, err := r.git(ctx, "rev-parse", "--show-object-format")
	if err != nil {
		return nil, fmt.Errorf("read the object format: %w", err)
	}
	if format == "sha256" {
		return sha256.New, nil
	}
	return sha1.New, nil
}

// restoreRecordFiles writes back, byte for byte, every recorded untracked
// and ignored file that differs, then the permissions of every recorded
// file, then ORIG_HEAD.
func (r *Repo) restoreRecordFiles(ctx context.Context, rec *checkoutRecord, blobs map[string]treeEntry) error {
	bad, err := r.recordDiffers(ctx, rec, blobs)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		for _, o := range r.obstacles(rec) {
			if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(o))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("clear %q, which stands where a folder of yours was: %w", o, err)
			}
		}
		if err := r.writeBlobs(ctx, bad, blobs); err != nil {
			return err
		}
	}
	if err := r.applyModes(rec.Modes); err != nil {
		return err
	}
	return r.restoreOrigHead(rec)
}

// writeBlobs streams the blobs of paths out of `git cat-file --batch` and
// writes each beneath the working tree.
func (r *Repo) writeBlobs(ctx context.Context, paths []string, blobs map[string]treeEntry) error {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, configOverrides...), "cat-file", "--batch")...)
	cmd.Dir, cmd.Env = r.dir, gitEnv()
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(blobs[p].Hash + "\n")
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("read the recorded files: %w", err)
	}
	br := bufio.NewReaderSize(out, 1<<16)
	var werr error
	for _, p := range paths {
		data, err := readBatchBlob(br)
		if err != nil {
			werr = fmt.Errorf("read the recorded bytes of %q: %w", p, err)
			break
		}
		e := blobs[p]
		if err := writeBeneath(r.dir, p, data, e.Mode); err != nil {
			werr = fmt.Errorf("put back %q: %w", p, err)
			break
		}
	}
	io.Copy(io.Discard, br)
	return errors.Join(werr, cmd.Wait())
}

// readBatchBlob reads one "<hash> blob <size>\n<bytes>\n" answer.
func readBatchBlob(br *bufio.Reader) ([]byte, error) {
	head, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[1] != "blob" {
		return nil, fmt.Errorf("unexpected answer %q", strings.TrimSpace(head))
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, err
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, err
	}
	return data[:n], nil
}

// restoreOrigHead puts .git/ORIG_HEAD back as it was (git reset and
// checkout during the run rewrite it), or removes it when there was none.
func (r *Repo) restoreOrigHead(rec *checkoutRecord) error {
	path := filepath.Join(r.gitDir, "ORIG_HEAD")
	if rec.OrigHead == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the run's ORIG_HEAD: %w", err)
		}
		return nil
	}
	if b, err := os.ReadFile(path); err == nil && string(b) == *rec.OrigHead {
		return nil
	}
	if err := atomicfile.Write(path, []byte(*rec.OrigHead)); err != nil {
		return fmt.Errorf("put ORIG_HEAD back: %w", err)
	}
	return nil
}

// origHeadDiffers: ORIG_HEAD is not as recorded.
func (r *Repo) origHeadDiffers(rec *checkoutRecord) bool {
	b, err := os.ReadFile(filepath.Join(r.gitDir, "ORIG_HEAD"))
	if rec.OrigHead == nil {
		return err == nil
	}
	return err != nil || string(b) != *rec.OrigHead
}
