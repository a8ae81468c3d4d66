package search

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// scope restricts a search to one file, one folder, or (the zero value
// with file -1) the whole repository.
type scope struct {
	file int32  // -1 when not a single file
	dir  string // folder prefix without trailing slash, "" for the root
}

var wholeRepo = scope{file: -1}

func (sc scope) isFile() bool { return sc.file >= 0 }

// has tells whether file fi (at path p) is inside the scope.
func (sc scope) has(fi int32, p string) bool {
	switch {
	case sc.file >= 0:
		return fi == sc.file
	case sc.dir == "":
		return true
	default:
		return strings.HasPrefix(p, sc.dir+"/")
	}
}

// cleanPath turns what a model writes for a path into the index's form:
// slash-separated, relative to the root, no "./", no quotes.
func (s *Searcher) cleanPath(p string) string {
	p = strings.TrimSpace(p)
	p = strings.Trim(p, "`'\"")
	p = strings.ReplaceAll(p, "\\", "/")
	if root := s.ix.Root(); root != "" && strings.HasPrefix(p, root+"/") {
		p = p[len(root)+1:]
	}
	p = path.Clean("/" + p)[1:]
	return p
}

// resolveFile finds an indexed file for p: exactly, after dropping leading
// folders that are not part of the repo (an absolute or container path), or
// as the unique file ending in p.
func (s *Searcher) resolveFile(p string) (int32, bool) {
	abs := strings.HasPrefix(strings.TrimSpace(p), "/")
	p = s.cleanPath(p)
	if p == "" {
		return -1, false
	}
	if fi, ok := s.fileIdx[p]; ok {
		return fi, true
	}
	for q := p; strings.Contains(q, "/"); {
		q = q[strings.IndexByte(q, '/')+1:]
		if fi, ok := s.fileIdx[q]; ok && (abs || strings.Contains(q, "/")) {
			return fi, true
		}
	}
	found := int32(-1)
	for i, f := range s.files {
		if strings.HasSuffix(f.Path, "/"+p) {
			if found >= 0 {
				return -1, false
			}
			found = int32(i)
		}
	}
	return found, found >= 0
}

// resolveDir finds an indexed folder for p, dropping leading folders that
// are not part of the repo, or as the unique folder ending in p.
func (s *Searcher) resolveDir(p string) (string, bool) {
	p = s.cleanPath(p)
	if p == "" {
		return "", true
	}
	for q := p; ; {
		if s.dirs[q] > 0 {
			return q, true
		}
		i := strings.IndexByte(q, '/')
		if i < 0 {
			break
		}
		q = q[i+1:]
	}
	// A unique folder ending in p ("views" for shop/views).
	found := ""
	for d := range s.dirs {
		if strings.HasSuffix(d, "/"+p) {
			if found != "" {
				return "", false
			}
			found = d
		}
	}
	return found, found != ""
}

// scopeOf resolves a file_path argument that may name a file or a folder.
// The message, when not empty, is the observation for a path that does not
// exist.
func (s *Searcher) scopeOf(p string) (scope, string) {
	if strings.TrimSpace(p) == "" {
		return wholeRepo, ""
	}
	if fi, ok := s.resolveFile(p); ok {
		return scope{file: fi}, ""
	}
	if d, ok := s.resolveDir(p); ok {
		return scope{file: -1, dir: d}, ""
	}
	return wholeRepo, s.noSuchPath(p)
}

// noSuchPath is the observation for a path that is neither an indexed file
// nor a folder: the closest paths, so the model can retry.
func (s *Searcher) noSuchPath(p string) string {
	msg := fmt.Sprintf("no file or folder %s in the index.", quote(p))
	if close := s.closePaths(p, 5); len(close) > 0 {
		msg += " Closest paths:\n  " + strings.Join(close, "\n  ") + "\n"
	} else {
		msg += " Use find_file to look for it by name.\n"
	}
	return msg
}

// closePaths are the indexed files and folders most similar to p; same base
// name first. It scores every path, which is fine on this error path.
func (s *Searcher) closePaths(p string, n int) []string {
	p = strings.ToLower(s.cleanPath(p))
	if p == "" {
		return nil
	}
	base := path.Base(p)
	type cand struct {
		p     string
		score float64
	}
	var cs []cand
	consider := func(c string) {
		low := strings.ToLower(c)
		sc := FuzzyScore(p, low)
		if path.Base(low) == base {
			sc += 1
		}
		cs = append(cs, cand{c, sc})
	}
	for _, f := range s.files {
		consider(f.Path)
	}
	for d := range s.dirs {
		consider(d + "/")
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return cs[i].p < cs[j].p
	})
	var out []string
	for _, c := range cs {
		if len(out) == n || c.score < 0.35 {
			break
		}
		out = append(out, c.p)
	}
	return out
}
