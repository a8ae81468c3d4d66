package index

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// FindCodeDef looks a class or function up by name: exact (name, qualified
// name, module path, full id), then regex over names, then fuzzy. With only
// a file_path it lists that file's units.
func (s *Searcher) FindCodeDef(a FindCodeDefArgs) Result {
	const tool = "find_code_def"
	q := cleanName(a.DefinitionName)
	sc, msg := s.scopeOf(a.FilePath)
	if msg != "" {
		return failure(tool, q, msg)
	}
	if q == "" {
		if sc.dir != "" {
			return failure(tool, q, fmt.Sprintf("definition_name is empty and file_path %s is a folder. Give a definition_name to search in it, or use find_file with dir_path to list its files.\n", quote(sc.dir)))
		}
		if !sc.isFile() {
			return failure(tool, q, "definition_name is empty. Give a class or function name (Class.method works too), or a file_path to list that file's units.\n")
		}
		return s.enumerateUnits(tool, sc.file)
	}
	if len(q) > maxQueryLen {
		return failure(tool, q, fmt.Sprintf("definition_name is %d characters long; give a name of at most %d characters.\n", len(q), maxQueryLen))
	}
	if looksLikePath(q) {
		if fi, ok := s.resolveFile(q); ok {
			return s.enumerateUnits(tool, fi)
		}
	}
	if ids := s.exactUnits(q, sc); len(ids) > 0 {
		return s.unitResult(tool, q, ModeExact, nil, ids, fmt.Sprintf("%s %s: %s", tool, quote(q), plural(len(ids), "exact match", "exact matches")))
	}
	if ids, owners, viaAlias := s.inheritedUnits(q, sc); len(ids) > 0 {
		cls := q[:strings.LastIndex(q, ".")]
		how := "does not define it; inherited from"
		if viaAlias {
			how = "is an alias; defined on"
		}
		return s.unitResult(tool, q, ModeExact, nil, ids, fmt.Sprintf("%s %s: %s %s %s",
			tool, quote(q), quote(cls), how, strings.Join(owners, ", ")))
	}
	if al, ok := s.resolveAlias(q); ok {
		ids := s.inScope(al.target, sc)
		s.rankUnits(ids)
		if len(ids) > 0 {
			return s.unitResult(tool, q, ModeExact, nil, ids, fmt.Sprintf("%s %s: no definition of that name; it is an alias (%s:%d `%s`)",
				tool, quote(q), al.path, al.line, clipLine(al.text)))
		}
	}
	re, err := compileNameRegex(q)
	if err != nil {
		return failure(tool, q, fmt.Sprintf("no definition named %s, and it is not a valid regex (%v). Give a plain name, or escape special characters with \\.\n", quote(q), regexReason(err)))
	}
	if re != nil {
		lits := requiredLiterals(q)
		keep := s.keyInScope(sc)
		keys, matched, broad := s.names.matchKeys(re.MatchString, lits, regexLiteral(q), keep)
		if len(keys) == 0 && !strings.HasPrefix(re.String(), "(?") {
			// Smart case found nothing: the model may have guessed the case.
			if ci, err := regexp.Compile("(?i)" + q); err == nil {
				keys, matched, broad = s.names.matchKeys(ci.MatchString, lits, regexLiteral(q), keep)
			}
		}
		if ids, scores, total := s.expandKeys(keys, sc, MaxHits); len(ids) > 0 {
			count := plural(total, "regex match", "regex matches")
			switch {
			case broad:
				count = fmt.Sprintf("over %d names match the regex (too broad to rank them all; give a more specific pattern)", matched)
			case matched > len(keys):
				count = fmt.Sprintf("%d names match the regex, the shortest %d ranked", matched, len(keys))
				total += matched - len(keys)
			}
			head := fmt.Sprintf("%s %s: no exact match; %s on names, most similar first", tool, quote(q), count)
			return s.unitResultMore(tool, q, ModeRegex, scores, ids, head, total-len(ids))
		}
	}
	return s.fuzzyDef(tool, q, sc)
}

// fuzzyDef is the last fallback: names ranked by FuzzyScore.
func (s *Searcher) fuzzyDef(tool, q string, sc scope) Result {
	fq := q
	if parts := strings.Split(q, "."); len(parts) > 2 {
		fq = strings.Join(parts[len(parts)-2:], ".")
	}
	var keys []scoredKey
	if sc.isFile() {
		keys = s.fileKeys(fq, sc.file)
	} else {
		keep := s.keyInScope(sc)
		keys = s.names.fuzzy(fq, 60, keep)
		if strings.Contains(fq, ".") {
			// The leading part may be a module or a wrong class: the
			// last name alone competes too.
			keys = mergeScored(keys, s.names.fuzzy(lastPart(fq), 60, keep), &s.names)
		}
	}
	keep := keys[:0]
	floor := minFuzzyScore
	if len(keys) > 0 {
		floor = max(floor, keys[0].score*fuzzyRelative)
	}
	for _, k := range keys {
		if k.score >= floor {
			keep = append(keep, k)
		}
	}
	ids, scores, _ := s.expandKeys(keep, sc, MaxHits)
	if len(ids) == 0 {
		where := "the repository"
		if sc.isFile() {
			where = s.files[sc.file].Path
		} else if sc.dir != "" {
			where = sc.dir + "/"
		}
		return Result{Tool: tool, Query: q, Mode: ModeFuzzy, Observation: clip(fmt.Sprintf(
			"%s %s: no definition in %s has a similar name. Try a shorter part of the name, find_code_content for text in bodies, or find_file.\n", tool, quote(q), where))}
	}
	head := fmt.Sprintf("%s %s: no exact or regex match; closest names (fuzzy: trigram + Jaro-Winkler + LCS similarity)", tool, quote(q))
	return s.unitResultMore(tool, q, ModeFuzzy, scores, ids, head, 0)
}

// mergeScored unions two rankings, keeping each key's better score.
func mergeScored(a, b []scoredKey, t *nameTable) []scoredKey {
	best := map[int32]float64{}
	for _, k := range append(a, b...) {
		if sc, ok := best[k.key]; !ok || k.score > sc {
			best[k.key] = k.score
		}
	}
	out := make([]scoredKey, 0, len(best))
	for k, sc := range best {
		out = append(out, scoredKey{k, sc})
	}
	sortScored(out, t)
	return out
}

// minFuzzyScore drops candidates too unlike the query to be worth a line;
// fuzzyRelative drops candidates far below the best one.
const (
	minFuzzyScore = 0.3
	fuzzyRelative = 0.6
)

// fileKeys scores every unit name of one file against q: a file has few
// units, so the trigram prefilter is not needed.
func (s *Searcher) fileKeys(q string, fi int32) []scoredKey {
	low := strings.ToLower(q)
	seen := map[int32]bool{}
	var out []scoredKey
	for _, id := range s.files[fi].Units {
		u, ok := s.ix.Unit(id)
		if !ok || u.Kind == KindChunk {
			continue
		}
		for _, key := range []string{u.Name, u.QualName} {
			k, ok := s.names.byKey[key]
			if ok && !seen[k] {
				seen[k] = true
				out = append(out, scoredKey{k, FuzzyScore(low, s.names.lower[k])})
			}
		}
	}
	sortScored(out, &s.names)
	return out
}

// expandKeys turns ranked keys into ranked units inside the scope. limit 0
// keeps every unit; total counts all units in scope.
func (s *Searcher) expandKeys(keys []scoredKey, sc scope, limit int) ([]int32, []float64, int) {
	var ids []int32
	var scores []float64
	seen := map[int32]bool{}
	total := 0
	for _, k := range keys {
		group := s.inScope(s.names.units[k.key], sc)
		s.rankUnits(group)
		for _, u := range group {
			if seen[u] {
				continue
			}
			seen[u] = true
			total++
			if limit == 0 || len(ids) < limit {
				ids = append(ids, u)
				scores = append(scores, k.score)
			}
		}
	}
	return ids, scores, total
}

// keyInScope filters name keys to those with a unit in scope; nil for the
// whole repository.
func (s *Searcher) keyInScope(sc scope) func(int32) bool {
	if !sc.isFile() && sc.dir == "" {
		return nil
	}
	return func(k int32) bool {
		for _, u := range s.names.units[k] {
			if fi := s.unitFile[u]; fi >= 0 && sc.has(fi, s.units[u].Path) {
				return true
			}
		}
		return false
	}
}

func (s *Searcher) inScope(units []int32, sc scope) []int32 {
	out := make([]int32, 0, len(units))
	for _, u := range units {
		if fi := s.unitFile[u]; fi >= 0 && sc.has(fi, s.units[u].Path) {
			out = append(out, u)
		}
	}
	return out
}

// rankUnits orders units that match equally well: code before tests,
// top-level before nested, the most called first, then shorter paths.
func (s *Searcher) rankUnits(ids []int32) {
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		ta, tb := s.isTest[s.unitFile[a]], s.isTest[s.unitFile[b]]
		if ta != tb {
			return !ta
		}
		ua, ub := s.units[a], s.units[b]
		if (ua.Parent == "") != (ub.Parent == "") {
			return ua.Parent == ""
		}
		if s.inDeg[a] != s.inDeg[b] {
			return s.inDeg[a] > s.inDeg[b]
		}
		if len(ua.Path) != len(ub.Path) {
			return len(ua.Path) < len(ub.Path)
		}
		return ua.ID < ub.ID
	})
}

// exactUnits finds units by full id, qualified name, name, or module path
// ("pkg.mod.Class.method", or any dotted tail of it).
func (s *Searcher) exactUnits(q string, sc scope) []int32 {
	if i := strings.Index(q, ":"); i > 0 {
		return s.byID(q, sc)
	}
	var out []int32
	if k, ok := s.names.byKey[q]; ok {
		out = append(out, s.inScope(s.names.units[k], sc)...)
	}
	// A module path may start above the indexed root ("sympy.core.x" when
	// the root is sympy/ itself): drop leading parts while a dotted name
	// is left.
	for d := q; len(out) == 0 && strings.Contains(d, "."); {
		out = s.byDotted(d, sc)
		d = d[strings.Index(d, ".")+1:]
		if !strings.Contains(d, ".") {
			break
		}
	}
	s.rankUnits(out)
	return out
}

// byID looks up "path:Qualified.name", also written "path::Class::method".
func (s *Searcher) byID(q string, sc scope) []int32 {
	q = strings.ReplaceAll(q, "::", ":")
	i := strings.Index(q, ":")
	p, name := q[:i], strings.ReplaceAll(q[i+1:], ":", ".")
	fi, ok := s.resolveFile(p)
	if !ok || !sc.has(fi, s.files[fi].Path) {
		return nil
	}
	u, ok := s.ix.Unit(s.files[fi].Path + ":" + name)
	if !ok {
		return nil
	}
	return s.inScope([]int32{s.unitIndex(u)}, sc)
}

// byDotted matches a dotted name against module.path.QualName: first as a
// tail at a dot boundary, then with the leading parts only required to
// appear in order ("models.QuerySet" for a class re-exported by a package).
func (s *Searcher) byDotted(q string, sc scope) []int32 {
	parts := strings.Split(q, ".")
	last := parts[len(parts)-1]
	k, ok := s.names.byKey[last]
	if !ok {
		return nil
	}
	cands := s.inScope(s.names.units[k], sc)
	var tail, loose []int32
	for _, u := range cands {
		if s.units[u].Name != last {
			continue
		}
		d := s.dotted[u]
		switch {
		case d == q || strings.HasSuffix(d, "."+q):
			tail = append(tail, u)
		case inOrder(strings.Split(d, "."), parts):
			loose = append(loose, u)
		}
	}
	if len(tail) > 0 {
		return tail
	}
	return loose
}

// inOrder tells whether want is a subsequence of have ending at its end.
func inOrder(have, want []string) bool {
	if len(want) == 0 || len(have) == 0 || have[len(have)-1] != want[len(want)-1] {
		return false
	}
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}

func (s *Searcher) unitIndex(u *Unit) int32 {
	if i, ok := s.unitIdx[u.ID]; ok {
		return i
	}
	return -1
}

// looksLikePath tells a file path given as a definition name: it has a
// slash or ends in a source file extension, and no id colon.
func looksLikePath(q string) bool {
	if strings.Contains(q, ":") {
		return false
	}
	if strings.Contains(q, "/") {
		return true
	}
	for _, ext := range []string{".py", ".go", ".js", ".ts", ".java", ".rb", ".rs", ".c", ".h", ".cpp"} {
		if strings.HasSuffix(q, ext) {
			return true
		}
	}
	return false
}

// cleanName strips what models wrap names in: quotes, backticks, a "def " or
// "class " keyword, a trailing "()".
func cleanName(q string) string {
	q = strings.TrimSpace(q)
	q = strings.Trim(q, "`'\"")
	for _, kw := range []string{"def ", "class ", "func ", "function "} {
		q = strings.TrimPrefix(q, kw)
	}
	q = strings.TrimSuffix(strings.TrimSpace(q), "()")
	return strings.TrimSpace(q)
}

// compileNameRegex compiles q for the regex fallback, case-insensitively
// unless q has an upper-case letter (smart case). The pattern is at most
// maxQueryLen bytes and is matched against names, which are short, so
// matching stays cheap even for `.*`-heavy patterns. A nil regexp means q is
// not worth a regex pass.
func compileNameRegex(q string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(q); err != nil {
		return nil, err
	}
	if strings.ToLower(q) == q && !strings.HasPrefix(q, "(?") {
		q = "(?i)" + q
	}
	return regexp.Compile(q)
}

// regexReason is the part of a regexp error that helps.
func regexReason(err error) string {
	var se *syntax.Error
	if e, ok := err.(*syntax.Error); ok {
		se = e
		return fmt.Sprintf("%s in %s", se.Code, quote(se.Expr))
	}
	return err.Error()
}

// regexLiteral is the query with regex syntax removed, for ranking matches
// by similarity.
func regexLiteral(q string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`*+?()[]{}|^$\`, r) {
			return -1
		}
		return r
	}, q)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
