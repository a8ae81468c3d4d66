package search

import (
	"sync"
	"testing"
)

var (
	fuzzOnce     sync.Once
	fuzzSearcher *Searcher
)

// shopSearcher is one searcher over the hand-made shop index, shared by
// the fuzz targets (a Searcher is safe for concurrent use).
func shopSearcher(t testing.TB) *Searcher {
	fuzzOnce.Do(func() { fuzzSearcher = NewSearcher(handIndex(t)) })
	return fuzzSearcher
}

var fuzzNames = []string{
	"", "Order", "Order.total", "shop.payments.charge", "shop/payments.py:charge", "a.py::A::b",
	"(a*)*b", "[", "\\", "(?i).*", ".*.*.*.*=.*", "::", ":", "..", "/", "\xff\xfe", "日本語.名前",
	"def ", "`", "()", "x(", "GiftOrder.", ".total", "<chunk 1>",
}

var fuzzPaths = []string{
	"", "shop", "shop/", "shop/payments.py", "/testbed/shop/payments.py", "../etc/passwd", "\\shop\\payments.py",
	"nope.py", ".", "//", "*", "\x00",
}

func FuzzFindCodeDef(f *testing.F) {
	for i, n := range fuzzNames {
		f.Add(n, fuzzPaths[i%len(fuzzPaths)])
	}
	f.Fuzz(func(t *testing.T, name, file string) {
		checkResult(t, shopSearcher(t).FindCodeDef(FindCodeDefArgs{DefinitionName: name, FilePath: file}))
	})
}

func FuzzFindChildUnit(f *testing.F) {
	for i, n := range fuzzNames {
		f.Add(n, fuzzPaths[(i+3)%len(fuzzPaths)])
	}
	f.Fuzz(func(t *testing.T, name, file string) {
		checkResult(t, shopSearcher(t).FindChildUnit(FindChildUnitArgs{DefinitionName: name, FilePath: file}))
	})
}

func FuzzFindFile(f *testing.F) {
	for i, n := range []string{"", "*.py", "**/views/*.py", "/shop/*.py", "[a-", "**", "***/**", "models.py", "a/../../b"} {
		f.Add(n, fuzzPaths[i%len(fuzzPaths)])
	}
	f.Fuzz(func(t *testing.T, name, dir string) {
		checkResult(t, shopSearcher(t).FindFile(FindFileArgs{FileName: name, DirPath: dir}))
	})
}

func FuzzFindCodeContent(f *testing.F) {
	seeds := []string{"", "maxRetries", "max-retries", "self.lines.append( line )", "order.add_line(item['sku'],",
		"(", "\\s+", "\"'\"'", "-", "_", "__init__", "a\nb\n\nc", "\xff", "🙂 = 1", "\xca"}
	for i, c := range seeds {
		f.Add(c, fuzzPaths[i%len(fuzzPaths)], i*7-10, i*9-5)
	}
	f.Fuzz(func(t *testing.T, content, file string, start, end int) {
		checkResult(t, shopSearcher(t).FindCodeContent(FindCodeContentArgs{Content: content, FilePath: file, StartLine: start, EndLine: end}))
	})
}
