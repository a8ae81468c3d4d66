package parse

import (
	"context"
	"fmt"
	"runtime"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Parser is one goroutine's tree-sitter state: a parser and compiled query
// per language. Tree-sitter parsers and cursors are not safe to share.
type Parser struct {
	langs map[*Language]*langParser
	qc    *sitter.QueryCursor
	sc    *scanner // made on first use
}

type langParser struct {
	p     *sitter.Parser
	q     *sitter.Query
	names []string // capture names by index
}

// idleParsers keeps parsers, with their compiled queries, from one Build
// to the next: compiling the queries costs more than re-parsing the one
// file an incremental build parses. (A sync.Pool would not do: every build
// runs the collector, which empties it.)
var idleParsers = make(chan *Parser, 2*runtime.NumCPU())

// GetParser returns a parser for one goroutine: one an earlier build left
// idle, or a new one. Give it back with Release.
func GetParser() *Parser {
	select {
	case p := <-idleParsers:
		return p
	default:
		return newParser()
	}
}

// Release keeps the parser for the next build, or closes it if enough are
// kept. It must not be used again.
func (p *Parser) Release() {
	p.sc.trim()
	select {
	case idleParsers <- p:
	default:
		p.close()
	}
}

func newParser() *Parser {
	return &Parser{langs: map[*Language]*langParser{}, qc: sitter.NewQueryCursor()}
}

func (p *Parser) close() {
	for _, lp := range p.langs {
		lp.q.Close()
		lp.p.Close()
	}
	p.qc.Close()
	p.sc.close()
}

func (p *Parser) forLang(l *Language) (*langParser, error) {
	if lp, ok := p.langs[l]; ok {
		return lp, nil
	}
	q, err := sitter.NewQuery([]byte(l.query), l.grammar())
	if err != nil {
		return nil, fmt.Errorf("compile %s query: %w", l.name, err)
	}
	sp := sitter.NewParser()
	sp.SetLanguage(l.grammar())
	lp := &langParser{p: sp, q: q}
	for i := uint32(0); i < q.CaptureCount(); i++ {
		lp.names = append(lp.names, q.CaptureNameForId(i))
	}
	p.langs[l] = lp
	return lp, nil
}

// Extract turns one file's bytes into its raw units. Files above
// maxSize are not parsed: they become plain chunks, since one huge
// generated file can cost more than the rest of a repository.
func (p *Parser) Extract(ctx context.Context, l *Language, path string, src []byte, maxSize int64) (*File, error) {
	var flags uint8
	if !utf8.Valid(src) {
		flags |= FlagNonUTF8
	}
	if maxSize > 0 && int64(len(src)) > maxSize {
		return Unparsed(l, path, src, flags|FlagTooLarge), nil
	}
	rf := &File{Path: path, Lang: l.name, Lines: countLines(src), Size: int64(len(src)), Flags: flags}
	parsed := src
	if rf.Flags&FlagNonUTF8 != 0 {
		// Legacy sources are most often Latin-1 (PEP 263 coding lines);
		// decoding them keeps names like "café" whole, and lines stay where
		// they were because newlines are untouched.
		parsed = latin1ToUTF8(src)
	}
	if l.scan != scanNone {
		return p.scanNative(ctx, l, rf, parsed)
	}
	lp, err := p.forLang(l)
	if err != nil {
		return nil, err
	}
	tree, err := lp.p.ParseCtx(ctx, nil, parsed)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		rf.Flags |= FlagSyntaxError
	}
	x := &extraction{src: parsed, names: lp.names, qc: p.qc, out: rf}
	p.qc.Exec(lp.q, root)
	l.extract(x)
	return rf, nil
}

// Unparsed is a file of the language kept as plain chunks without parsing
// it, with flags saying why.
func Unparsed(l *Language, path string, src []byte, flags uint8) *File {
	rf := &File{Path: path, Lang: l.name, Lines: countLines(src), Size: int64(len(src)), Flags: flags}
	rf.Units = makeChunks(src, nil, rf.Lines)
	return rf
}

// scanNative parses and scans a file in C (scan.h).
func (p *Parser) scanNative(ctx context.Context, l *Language, rf *File, src []byte) (*File, error) {
	if p.sc == nil {
		p.sc = newScanner()
	}
	recs, hasError, err := p.sc.scan(ctx, l.scan, src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", rf.Path, err)
	}
	if hasError {
		rf.Flags |= FlagSyntaxError
	}
	l.extract(&extraction{src: src, recs: recs, out: rf})
	return rf, nil
}

// latin1ToUTF8 reads every byte as a Latin-1 code point.
func latin1ToUTF8(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(src)/8)
	for _, b := range src {
		out = utf8.AppendRune(out, rune(b))
	}
	return out
}
