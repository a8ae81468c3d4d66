package parse

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileSize is the index's default size limit, above which a file is
// not parsed.
const maxFileSize = 1 << 20

// source is one file of a corpus and its language.
type source struct {
	src  []byte
	lang *Language
}

// corpusSources reads the files under dir that the index would parse and
// keep picks, for the benchmarks and corpus tests that run on real code.
// It stands in for the index's walk and its checks of content, which this
// package cannot import: it leaves out the folders the walk skips by name
// (other people's code, environments, build output), symbolic links, type
// declarations, binary, generated and minified files, and files over the
// size limit.
func corpusSources(tb testing.TB, dir string, keep func(l *Language) bool) []source {
	tb.Helper()
	var out []source
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (walkSkipsDir[name] || strings.HasSuffix(name, ".egg-info")) {
				return filepath.SkipDir
			}
			return nil
		}
		l := ForPath(name)
		if !d.Type().IsRegular() || l == nil || !keep(l) || walkSkipsFile(name) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize || notSource(src, l) {
			return nil
		}
		out = append(out, source{src, l})
		return nil
	})
	if err != nil {
		tb.Fatalf("list %s: %v", dir, err)
	}
	return out
}

// walkSkipsDir are the folder names the index's walk never enters.
var walkSkipsDir = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "vendor": true, "node_modules": true,
	"third_party": true, "site-packages": true, "build": true, "dist": true,
	".tox": true, ".nox": true, ".venv": true, "venv": true, "__pycache__": true,
	".mypy_cache": true, ".pytest_cache": true, ".eggs": true,
	".next": true, ".nuxt": true, ".svelte-kit": true, ".turbo": true, ".parcel-cache": true,
	"bower_components": true, ".yarn": true,
}

// walkSkipsFile is whether the walk leaves a file out by its name: type
// declarations and minified bundles.
func walkSkipsFile(name string) bool {
	for _, s := range []string{".d.ts", ".d.mts", ".d.cts", ".min.js", ".min.mjs", ".min.cjs"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// notSource is whether the index leaves a file out by its content: a NUL
// byte early on, a script whose first 8 KB hold fewer than 16 lines, or
// Go's generated-file marker.
func notSource(src []byte, l *Language) bool {
	head := src[:min(len(src), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if IsScript(l.Name()) && len(head) == 8192 && bytes.Count(head, []byte{'\n'}) < 16 {
		return true
	}
	i := bytes.Index(head, []byte("Code generated "))
	if i < 0 {
		return false
	}
	line, _, _ := bytes.Cut(head[i:], []byte{'\n'})
	return bytes.Contains(line, []byte("DO NOT EDIT"))
}
