package search

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

// FindFile finds files by exact name, path suffix or glob, optionally under
// a folder, each with its skeleton; with no name it lists the folder.
func (s *Searcher) FindFile(a FindFileArgs) Result {
	const tool = nameFindFile
	name := strings.Trim(strings.TrimSpace(a.FileName), "`'\"")
	name = strings.ReplaceAll(name, "\\", "/")
	query := name
	if d := strings.TrimSpace(a.DirPath); d != "" {
		query = strings.TrimSpace(name + " in " + d)
	}
	dir, ok := s.resolveDir(a.DirPath)
	if !ok {
		if fi, isFile := s.resolveFile(a.DirPath); isFile && name == "" {
			return s.fileResult(tool, query, ModeExact, []int32{fi}, fmt.Sprintf("%s: %s is a file, not a folder", tool, s.files[fi].Path))
		}
		return failure(tool, query, "dir_path: "+s.noSuchPath(a.DirPath))
	}
	sc := scope{file: -1, dir: dir}
	if name == "" {
		return s.listDir(tool, query, dir)
	}
	if len(name) > maxQueryLen {
		return failure(tool, query, fmt.Sprintf("file_name is %d characters long; give a name or glob of at most %d characters.\n", len(name), maxQueryLen))
	}
	where := s.scopeName(sc)
	if strings.ContainsAny(name, "*?[") {
		if _, err := path.Match(name, ""); err != nil {
			return failure(tool, query, fmt.Sprintf("file_name %s is not a valid glob (%v). Use * for any name part, ** for any folders, e.g. **/views/*.py.\n", quote(name), err))
		}
		fis := s.globFiles(name, sc)
		if len(fis) == 0 {
			return Result{Tool: tool, Query: query, Mode: ModeRegex, Observation: clip(fmt.Sprintf(
				"%s %s: no file in %s matches the glob. Try a looser pattern (**/name*), or leave file_name empty to list the folder.\n", tool, quote(name), where))}
		}
		return s.fileResult(tool, query, ModeRegex, fis, fmt.Sprintf("%s %s: %s in %s", tool, quote(name), plural(len(fis), "file matches", "files match"), where))
	}
	if fis := s.namedFiles(name, sc); len(fis) > 0 {
		return s.fileResult(tool, query, ModeExact, fis, fmt.Sprintf("%s %s: %s in %s", tool, quote(name), plural(len(fis), "file", "files"), where))
	}
	if d, ok := s.resolveDir(path.Join(dir, name)); ok && d != "" {
		return s.listDir(tool, query, d)
	}
	if fis := s.closeFiles(name, sc); len(fis) > 0 {
		return s.fileResult(tool, query, ModeFuzzy, fis, fmt.Sprintf("%s %s: no file of that name in %s; closest names", tool, quote(name), where))
	}
	return Result{Tool: tool, Query: query, Mode: ModeFuzzy, Observation: clip(fmt.Sprintf(
		"%s %s: no file in %s has that or a similar name. Try a glob (*name*), or find_code_def for a definition.\n", tool, quote(name), where))}
}

// namedFiles matches a base name (case-sensitive, then not) or a path tail at
// a folder boundary.
func (s *Searcher) namedFiles(name string, sc scope) []int32 {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	var exact, folded []int32
	for i, f := range s.files {
		fi := int32(i)
		if !sc.has(fi, f.Path) {
			continue
		}
		switch {
		case f.Path == name || strings.HasSuffix(f.Path, "/"+name):
			exact = append(exact, fi)
		case strings.EqualFold(path.Base(f.Path), name):
			folded = append(folded, fi)
		}
	}
	if len(exact) > 0 {
		return s.rankFiles(exact)
	}
	return s.rankFiles(folded)
}

// closeFiles are files whose base name is like name (fuzzy), best first.
func (s *Searcher) closeFiles(name string, sc scope) []int32 {
	low := strings.ToLower(path.Base(name))
	type cand struct {
		fi    int32
		score float64
	}
	var cs []cand
	for i, f := range s.files {
		if !sc.has(int32(i), f.Path) {
			continue
		}
		if sc := FuzzyScore(low, strings.ToLower(path.Base(f.Path))); sc >= 0.5 {
			cs = append(cs, cand{int32(i), sc})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var out []int32
	for _, c := range cs {
		if len(out) == 5 {
			break
		}
		out = append(out, c.fi)
	}
	return out
}

// globFiles matches a glob against base names (no slash in the pattern) or
// against path tails at folder boundaries; ** spans any folders.
func (s *Searcher) globFiles(pat string, sc scope) []int32 {
	pat = strings.TrimPrefix(pat, "./")
	var out []int32
	for i, f := range s.files {
		fi := int32(i)
		if !sc.has(fi, f.Path) {
			continue
		}
		rel := f.Path
		if sc.dir != "" {
			rel = f.Path[len(sc.dir)+1:]
		}
		if globTail(pat, rel) {
			out = append(out, fi)
		}
	}
	return s.rankFiles(out)
}

// globTail tells whether pattern matches p or a tail of it that starts at a
// folder boundary. A leading "/" anchors the pattern at p's start.
func globTail(pat, p string) bool {
	if strings.HasPrefix(pat, "/") {
		return globSegs(strings.Split(pat[1:], "/"), strings.Split(p, "/"))
	}
	ps := strings.Split(pat, "/")
	segs := strings.Split(p, "/")
	for i := range segs {
		if globSegs(ps, segs[i:]) {
			return true
		}
	}
	return false
}

// globSegs matches path segments, "**" standing for zero or more segments.
func globSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range segs {
				if globSegs(pat, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// rankFiles puts code before tests, then shallower and shorter paths first.
func (s *Searcher) rankFiles(fis []int32) []int32 {
	sort.SliceStable(fis, func(i, j int) bool {
		a, b := fis[i], fis[j]
		if s.isTest[a] != s.isTest[b] {
			return !s.isTest[a]
		}
		pa, pb := s.files[a].Path, s.files[b].Path
		if da, db := strings.Count(pa, "/"), strings.Count(pb, "/"); da != db {
			return da < db
		}
		return pa < pb
	})
	return fis
}

// fileResult renders matched files, each with a skeleton sized so the whole
// page fits the budget: one file gets a long skeleton, many get short ones.
func (s *Searcher) fileResult(tool, query, mode string, fis []int32, head string) Result {
	more := 0
	if len(fis) > MaxHits {
		more = len(fis) - MaxHits
		fis = fis[:MaxHits]
	}
	skelLines := max(6, 70/len(fis))
	hits := make([]Hit, 0, len(fis))
	blocks := make([]string, 0, len(fis))
	for i, fi := range fis {
		f := s.files[fi]
		sk := s.skeleton(fi, skelLines)
		hits = append(hits, Hit{Path: f.Path, Kind: KindFile, Start: 1, End: s.lineCount(fi), Skeleton: sk})
		blocks = append(blocks, fmt.Sprintf("%d. %s  [%d lines]\n%s", i+1, f.Path, s.lineCount(fi), indent(sk, "   ")))
	}
	obs, shown := page(head+"\n", blocks, more, "narrow with dir_path or a longer file_name.")
	return Result{Tool: tool, Query: query, Mode: mode, Hits: hits[:shown], More: more + len(fis) - shown, Observation: obs}
}

func indent(text, pre string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return pre + strings.Join(lines, "\n"+pre) + "\n"
}

// Skeleton lists the signatures of a file's classes and functions, nested by
// class, with their line spans; "" for a file not in the index.
func (s *Searcher) Skeleton(p string) string {
	fi, ok := s.resolveFile(p)
	if !ok {
		return ""
	}
	return s.skeleton(fi, 10*PreviewLines)
}

// skeleton renders at most limit lines (the last a "more" notice). When
// not every definition fits, the shallowest are kept (top-level classes and
// functions before methods, methods before nested helpers), still shown in
// source order.
func (s *Searcher) skeleton(fi int32, limit int) string {
	f := s.files[fi]
	var units []*index.Unit
	var depths []int
	for _, id := range f.Units {
		if u, ok := s.ix.Unit(id); ok && u.Kind != index.KindChunk {
			units = append(units, u)
			depths = append(depths, s.depth(u))
		}
	}
	if len(units) == 0 {
		return "(no classes or functions)\n"
	}
	keep := make([]bool, len(units))
	room := limit
	if len(units) > limit {
		room = limit - 1 // the notice takes a line
	}
	for d := 0; room > 0 && d <= slices.Max(depths); d++ {
		for i := range units {
			if depths[i] == d && room > 0 {
				keep[i] = true
				room--
			}
		}
	}
	var lines []string
	for i, u := range units {
		if keep[i] {
			lines = append(lines, fmt.Sprintf("%s%d-%d %s", strings.Repeat("  ", depths[i]), u.Start, u.End, s.signatureLine(fi, u)))
		}
	}
	if left := len(units) - len(lines); left > 0 {
		lines = append(lines, fmt.Sprintf("... %d more definitions: find_code_def with file_path=%s lists them", left, f.Path))
	}
	return strings.Join(lines, "\n") + "\n"
}

// signatureLine is a unit's first signature line, trimmed, with " ..." when
// the signature goes on.
func (s *Searcher) signatureLine(fi int32, u *index.Unit) string {
	sig := u.Signature
	if h := s.headerLines(u); len(h) > 0 {
		sig = s.lineText(fi, h[0])
		if len(h) > 1 {
			sig = strings.TrimRight(sig, " \t") + " ..."
		}
	}
	return clipLine(strings.TrimSpace(sig))
}

// listDir enumerates a folder: its files when they are few, else its
// sub-folders with file counts and the files directly in it.
func (s *Searcher) listDir(tool, query, dir string) Result {
	sc := scope{file: -1, dir: dir}
	var fis []int32
	for i, f := range s.files {
		if sc.has(int32(i), f.Path) {
			fis = append(fis, int32(i))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s\n", tool, plural(len(fis), "file", "files"), s.scopeName(sc))
	direct := fis
	if len(fis) > 60 {
		direct = s.listSubfolders(&b, dir, fis)
		if len(direct) > 0 {
			b.WriteString("files:\n")
		}
	}
	hits, more := s.listFiles(&b, direct)
	if more > 0 {
		fmt.Fprintf(&b, "%d more files not shown; narrow with a file_name glob or a deeper dir_path.\n", more)
	}
	return Result{Tool: tool, Query: query, Mode: ModeEnumerate, Hits: hits, More: more, Observation: clip(b.String())}
}

// listSubfolders writes the folders directly under dir with their file
// counts, and returns the files directly in dir.
func (s *Searcher) listSubfolders(b *strings.Builder, dir string, fis []int32) []int32 {
	subs := map[string]int{}
	var direct []int32
	for _, fi := range fis {
		rel := strings.TrimPrefix(s.files[fi].Path[len(dir):], "/")
		if i := strings.IndexByte(rel, '/'); i >= 0 {
			subs[rel[:i]]++
		} else {
			direct = append(direct, fi)
		}
	}
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("folders (pass one as dir_path):\n")
	for _, n := range names {
		fmt.Fprintf(b, "  %s/  [%s]\n", path.Join(dir, n), plural(subs[n], "file", "files"))
	}
	return direct
}

// listFiles writes one line per file while the budget lasts and returns
// the files shown and how many were not.
func (s *Searcher) listFiles(b *strings.Builder, fis []int32) ([]Hit, int) {
	var hits []Hit
	for i, fi := range fis {
		f := s.files[fi]
		line := fmt.Sprintf("  %s  [%d lines]\n", f.Path, s.lineCount(fi))
		if b.Len()+len(line)+100 > ObservationBudget {
			return hits, len(fis) - i
		}
		b.WriteString(line)
		hits = append(hits, Hit{Path: f.Path, Kind: KindFile, Start: 1, End: s.lineCount(fi)})
	}
	return hits, 0
}
