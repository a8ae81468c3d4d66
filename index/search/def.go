package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// FindCodeDef looks a class or function up by name: exact (name, qualified
// name, module path, full id; then through base classes and aliases), then
// regex over names, then fuzzy. With only a file_path it lists that file's
// units.
func (s *Searcher) FindCodeDef(a FindCodeDefArgs) Result {
	q := cleanName(a.DefinitionName)
	sc, msg := s.scopeOf(a.FilePath)
	if msg != "" {
		return failure(nameFindCodeDef, q, msg)
	}
	if r, done := s.defArgs(q, sc); done {
		return r
	}
	for _, stage := range []func(string, scope) (Result, bool){s.exactDef, s.inheritedDef, s.aliasDef, s.regexDef} {
		if r, ok := stage(q, sc); ok {
			return r
		}
	}
	return s.fuzzyDef(nameFindCodeDef, q, sc)
}

// defArgs answers the calls that need no search: an empty name (list a
// file, or say what to pass), a name too long, a file path as the name.
func (s *Searcher) defArgs(q string, sc scope) (Result, bool) {
	const tool = nameFindCodeDef
	switch {
	case q == "" && sc.dir != "":
		return failure(tool, q, fmt.Sprintf("definition_name is empty and file_path %s is a folder. Give a definition_name to search in it, or use find_file with dir_path to list its files.\n", quote(sc.dir))), true
	case q == "" && !sc.isFile():
		return failure(tool, q, "definition_name is empty. Give a class or function name (Class.method works too), or a file_path to list that file's units.\n"), true
	case q == "":
		return s.enumerateUnits(tool, sc.file), true
	case len(q) > maxQueryLen:
		return failure(tool, q, fmt.Sprintf("definition_name is %d characters long; give a name of at most %d characters.\n", len(q), maxQueryLen)), true
	}
	if looksLikePath(q) {
		if fi, ok := s.resolveFile(q); ok {
			return s.enumerateUnits(tool, fi), true
		}
	}
	return Result{}, false
}

func (s *Searcher) exactDef(q string, sc scope) (Result, bool) {
	ids := s.exactUnits(q, sc)
	if len(ids) == 0 {
		return Result{}, false
	}
	head := fmt.Sprintf("%s %s: %s", nameFindCodeDef, quote(q), plural(len(ids), "exact match", "exact matches"))
	return s.unitResult(nameFindCodeDef, q, ModeExact, nil, ids, head), true
}

func (s *Searcher) inheritedDef(q string, sc scope) (Result, bool) {
	ids, owners, viaAlias := s.inheritedUnits(q, sc)
	if len(ids) == 0 {
		return Result{}, false
	}
	cls := q[:strings.LastIndex(q, ".")]
	how := "does not define it; inherited from"
	if viaAlias {
		how = "is an alias; defined on"
	}
	head := fmt.Sprintf("%s %s: %s %s %s", nameFindCodeDef, quote(q), quote(cls), how, strings.Join(owners, ", "))
	return s.unitResult(nameFindCodeDef, q, ModeExact, nil, ids, head), true
}

func (s *Searcher) aliasDef(q string, sc scope) (Result, bool) {
	al, ok := s.resolveAlias(q)
	if !ok {
		return Result{}, false
	}
	ids := s.inScope(al.target, sc)
	if len(ids) == 0 {
		return Result{}, false
	}
	s.rankUnits(ids)
	head := fmt.Sprintf("%s %s: no definition of that name; it is an alias (%s:%d `%s`)",
		nameFindCodeDef, quote(q), al.path, al.line, clipLine(al.text))
	return s.unitResult(nameFindCodeDef, q, ModeExact, nil, ids, head), true
}

// regexDef matches q as a regex against names. An invalid regex ends the
// search with an observation saying so.
func (s *Searcher) regexDef(q string, sc scope) (Result, bool) {
	const tool = nameFindCodeDef
	re, err := compileNameRegex(q)
	if err != nil {
		return failure(tool, q, fmt.Sprintf("no definition named %s, and it is not a valid regex (%v). Give a plain name, or escape special characters with \\.\n", quote(q), regexReason(err))), true
	}
	lits, keep := requiredLiterals(q), s.keyInScope(sc)
	keys, matched, broad := s.names.matchKeys(re.MatchString, lits, regexLiteral(q), keep)
	if len(keys) == 0 && !strings.HasPrefix(re.String(), "(?") {
		// Smart case found nothing: the model may have guessed the case.
		if ci, err := regexp.Compile("(?i)" + q); err == nil {
			keys, matched, broad = s.names.matchKeys(ci.MatchString, lits, regexLiteral(q), keep)
		}
	}
	ids, scores, total := s.expandKeys(keys, sc, MaxHits)
	if len(ids) == 0 {
		return Result{}, false
	}
	count := plural(total, "regex match", "regex matches")
	switch {
	case broad:
		count = fmt.Sprintf("over %d names match the regex (too broad to rank them all; give a more specific pattern)", matched)
	case matched > len(keys):
		count = fmt.Sprintf("%d names match the regex, the shortest %d ranked", matched, len(keys))
		total += matched - len(keys)
	}
	head := fmt.Sprintf("%s %s: no exact match; %s on names, most similar first", tool, quote(q), count)
	return s.unitResultMore(tool, q, ModeRegex, scores, ids, head, total-len(ids)), true
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
		return Result{Tool: tool, Query: q, Mode: ModeFuzzy, Observation: clip(fmt.Sprintf(
			"%s %s: no definition in %s has a similar name. Try a shorter part of the name, find_code_content for text in bodies, or find_file.\n", tool, quote(q), s.scopeName(sc)))}
	}
	head := fmt.Sprintf("%s %s: no exact or regex match; closest names (fuzzy: trigram + Jaro-Winkler + LCS similarity)", tool, quote(q))
	return s.unitResultMore(tool, q, ModeFuzzy, scores, ids, head, 0)
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
// matching stays cheap even for `.*`-heavy patterns.
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
	if se, ok := err.(*syntax.Error); ok {
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
