package parse

// Python, JavaScript and TypeScript files are parsed and scanned in C
// (scan.h): a tree-sitter query costs about half a parse on top of it, and
// walking the tree node by node from Go costs a cgo call per node. One
// pass of a tree cursor in C, which writes what extraction needs into a
// flat record stream, costs a few percent of the parse. Each file's parser
// and tree live in an arena that is rewound rather than freed.

// #include "scan.h"
import "C"

import (
	"context"
	"errors"
	"sync"
	"unsafe"
)

// The grammars a scanner parses (LANG_* in scan.h); zero for a language
// read by a query.
const (
	scanNone = iota
	scanPython
	scanJavaScript
	scanTypeScript
	scanTSX
)

// Record tags of the Python walker's stream (R_* in scan_python.c).
const (
	recFunc = iota
	recClass
	recDecorated
	recCall
	recImport
	recImportFrom
	recAssign
)

// Kinds of Python import names (I_* in scan_python.c).
const (
	impDotted = iota
	impAliased
	impWildcard
)

// scanner is one goroutine's C parser and record buffer.
type scanner struct {
	s *C.scanner
	// mu and scans keep a cancellation meant for one scan (its context
	// done as the scan ended) from reaching the next, which may belong to
	// another build.
	mu    sync.Mutex
	scans uint64
}

// newScanner makes a scanner: nil if C memory ran out.
//
// The first call changes tree-sitter for the whole process: scanner_new
// installs allocator hooks (ts_set_allocator, see scan.c) that every
// tree-sitter allocation in the process goes through from then on,
// go-tree-sitter's own parsers, queries and trees included. On a thread
// inside scanner_run the hooks allocate from that scanner's arena, which
// is rewound when the scan returns; on any other thread, and outside a
// scan, they pass through to malloc, calloc, realloc and free, and free
// anything the arena does not own. So nothing tree-sitter makes during a
// scan may outlive it (scanner_run deletes its parser and tree before the
// rewind), and tree-sitter must not be given another allocator anywhere
// else in the process.
func newScanner() *scanner {
	setScriptTables()
	s := C.scanner_new()
	if s == nil {
		return nil
	}
	return &scanner{s: s}
}

// parseOnly makes scans parse and skip the walk, for benchmarks that tell
// the two costs apart.
func (p *scanner) parseOnly(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.scanner_parse_only(p.s, v)
}

// trim gives back the memory a large file made the scanner keep.
func (p *scanner) trim() {
	if p != nil && p.s != nil {
		C.scanner_trim(p.s)
	}
}

func (p *scanner) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s != nil {
		C.scanner_free(p.s)
		p.s = nil
	}
}

var errScanMemory = errors.New("out of memory scanning the syntax tree")

// scan parses src in the grammar lang (scanPython, ...) and returns its
// records, which stay valid until the next scan, and whether the tree has
// syntax errors.
func (p *scanner) scan(ctx context.Context, lang int, src []byte) ([]uint32, bool, error) {
	if p == nil || p.s == nil {
		return nil, false, errScanMemory
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	p.mu.Lock()
	p.scans++
	this := p.scans
	C.scanner_arm(p.s)
	p.mu.Unlock()
	if ctx.Done() != nil {
		// A callback rather than a watching goroutine: most files parse in
		// well under a millisecond.
		stop := context.AfterFunc(ctx, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.scans == this && p.s != nil {
				C.scanner_cancel(p.s)
			}
		})
		defer stop()
	}
	var ptr *C.char
	if len(src) > 0 {
		ptr = (*C.char)(unsafe.Pointer(&src[0]))
	} else {
		ptr = (*C.char)(unsafe.Pointer(&emptySource[0]))
	}
	rc := C.scanner_run(p.s, C.int(lang), ptr, C.uint32_t(len(src)))
	switch {
	case rc == -1:
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		return nil, false, errors.New("tree-sitter returned no tree")
	case rc == -2:
		return nil, false, errScanMemory
	}
	if p.s.len == 0 {
		return nil, rc == 1, nil
	}
	recs := unsafe.Slice((*uint32)(unsafe.Pointer(p.s.buf)), int(p.s.len))
	return recs, rc == 1, nil
}

var emptySource = []byte{0}

var scriptTablesOnce sync.Once

// setScriptTables gives the C walker each script grammar's table, once.
func setScriptTables() {
	scriptTablesOnce.Do(func() {
		for _, l := range []*Language{jsLang, tsLang, tsxLang} {
			kinds, fields := scriptTable(l.grammar())
			C.script_set_table(C.int(l.scan),
				(*C.uint8_t)(unsafe.Pointer(&kinds[0])), C.uint32_t(len(kinds)),
				(*C.uint8_t)(unsafe.Pointer(&fields[0])), C.uint32_t(len(fields)))
		}
	})
}
