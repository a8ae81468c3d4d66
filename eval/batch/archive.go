package batch

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxArchived bounds what unpacking one run folder may write, so a damaged
// or hostile archive on a shared server cannot fill the coordinator's disk.
const maxArchived = 2 << 30

// packFolder writes dir's regular files and folders as a gzipped tar.
// Links and devices are left out: a run folder holds neither.
func packFolder(dir string, w io.Writer) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		return packOne(tw, p, filepath.ToSlash(rel), d)
	})
	if err != nil {
		return fmt.Errorf("pack %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("pack %s: %w", dir, err)
	}
	return zw.Close()
}

func packOne(tw *tar.Writer, p, name string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	hdr, err := tar.FileInfoHeader(info, "")
	if err != nil {
		return err
	}
	hdr.Name = name
	if d.IsDir() {
		hdr.Name += "/"
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if d.IsDir() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// unpackFolder extracts a packFolder archive into dir, which must not
// exist yet. Entries that would land outside dir, and anything but files
// and folders, are refused.
func unpackFolder(r io.Reader, dir string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("unpack run folder: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("unpack run folder: %w", err)
	}
	tr := tar.NewReader(zr)
	var written int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("unpack run folder: %w", err)
		}
		n, err := unpackOne(tr, hdr, dir, maxArchived-written)
		if err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
		written += n
	}
}

func unpackOne(tr *tar.Reader, hdr *tar.Header, dir string, room int64) (int64, error) {
	name := filepath.FromSlash(strings.TrimSuffix(hdr.Name, "/"))
	if !filepath.IsLocal(name) {
		return 0, errors.New("the entry leaves the run folder")
	}
	target := filepath.Join(dir, name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		return 0, os.MkdirAll(target, 0o755)
	case tar.TypeReg:
	default:
		return 0, fmt.Errorf("entry type %q is not a file or a folder", hdr.Typeflag)
	}
	if hdr.Size > room {
		return 0, errors.New("the archive is larger than a run folder may be")
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, io.LimitReader(tr, hdr.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
