package search

import (
	"cmp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// posting is one line of one file where an identifier occurs.
type posting struct {
	file int32
	line int32
}

// postings returns the identifier postings, building them on first use:
// normalized identifier -> lines, in file and line order, one entry per line.
func (s *Searcher) postings() map[string][]posting {
	s.postOnce.Do(s.buildPostings)
	return s.post
}

// buildPostings tokenizes the files in contiguous shards, one per CPU, and
// appends the shards' lists in order, so every list stays sorted by file
// and line.
func (s *Searcher) buildPostings() {
	shards := max(1, min(runtime.GOMAXPROCS(0), len(s.files)/64))
	parts := make([]map[string][]posting, shards)
	var wg sync.WaitGroup
	for i := range shards {
		lo, hi := i*len(s.files)/shards, (i+1)*len(s.files)/shards
		wg.Go(func() { parts[i] = s.tokenize(lo, hi) })
	}
	wg.Wait()
	m := parts[0]
	for _, p := range parts[1:] {
		for k, ps := range p {
			m[k] = append(m[k], ps...)
		}
	}
	s.post = m
}

// tokenize builds the postings of files lo..hi-1.
func (s *Searcher) tokenize(lo, hi int) map[string][]posting {
	m := make(map[string][]posting, 1<<14)
	var buf []byte
	for fi := lo; fi < hi; fi++ {
		src, _ := s.ix.Source(s.files[fi].Path)
		line := int32(1)
		for i := 0; i < len(src); {
			c := src[i]
			switch {
			case c == '\n':
				line++
				i++
			case isIdentStart(c):
				j := i + 1
				for j < len(src) && isIdentByte(src[j]) {
					j++
				}
				buf = normIdent(src[i:j], buf)
				ps := m[string(buf)]
				if n := len(ps); n == 0 || ps[n-1] != (posting{int32(fi), line}) {
					m[string(buf)] = append(ps, posting{int32(fi), line})
				}
				i = j
			case isIdentByte(c): // a number: skip it whole so 0x1F is no identifier
				for i < len(src) && isIdentByte(src[i]) {
					i++
				}
			default:
				i++
			}
		}
	}
	return m
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// normIdent folds an identifier's spelling variants together: lower case,
// and inner "_" or "-" dropped, so maxRetries, max_retries, MAX_RETRIES and
// max-retries share one key. Leading and trailing underscores stay: in
// Python `_x` and `__x__` are different names from `x`.
func normIdent(tok []byte, buf []byte) []byte {
	buf = buf[:0]
	lead := 0
	for lead < len(tok) && tok[lead] == '_' {
		lead++
	}
	trail := len(tok)
	for trail > lead && tok[trail-1] == '_' {
		trail--
	}
	for i, c := range tok {
		if (c == '_' || c == '-') && i >= lead && i < trail {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// isIdentifierQuery tells whether content is one identifier, possibly
// kebab-case, which find_code_content matches by variants.
func isIdentifierQuery(q string) bool {
	if q == "" || !isIdentStart(q[0]) || q[0] == '-' {
		return false
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if !isIdentByte(c) && c != '-' {
			return false
		}
	}
	return !strings.HasSuffix(q, "-")
}

// maxPartialKeys bounds how many identifiers containing a partial query are
// merged, so a one-letter query does not walk the whole vocabulary's lines.
const maxPartialKeys = 200

// partialKeys are the identifiers whose normalized form contains key, the
// most frequent first.
func (s *Searcher) partialKeys(key string) []string {
	post := s.postings()
	var out []string
	for k := range post {
		if strings.Contains(k, key) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(post[out[i]]) != len(post[out[j]]) {
			return len(post[out[i]]) > len(post[out[j]])
		}
		return out[i] < out[j]
	})
	if len(out) > maxPartialKeys {
		out = out[:maxPartialKeys]
	}
	return out
}

// mergePostings unions posting lists into one sorted list without repeats.
func mergePostings(lists [][]posting) []posting {
	var all []posting
	for _, l := range lists {
		all = append(all, l...)
	}
	sortPostings(all)
	return slices.Compact(all)
}

// sortPostings puts postings in file and line order.
func sortPostings(ps []posting) {
	slices.SortFunc(ps, func(a, b posting) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
}
