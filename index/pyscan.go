package index

// Python files are parsed and scanned in C: a tree-sitter query costs
// about half a parse on top of it, and walking the tree node by node from
// Go costs a cgo call per node. One pass of a tree cursor in C, which
// writes what extraction needs (the same nodes the query would match) into
// a flat record stream, costs a few percent of the parse.
//
// The tree-sitter runtime and the Python grammar are linked in by
// github.com/smacker/go-tree-sitter; the declarations below are the parts
// of its C API this scanner calls.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

extern const TSLanguage *tree_sitter_python(void);
extern TSParser *ts_parser_new(void);
extern void ts_parser_delete(TSParser *);
extern bool ts_parser_set_language(TSParser *, const TSLanguage *);
extern void ts_parser_set_cancellation_flag(TSParser *, const size_t *);
extern void ts_parser_reset(TSParser *);
extern TSTree *ts_parser_parse_string(TSParser *, const TSTree *, const char *, uint32_t);
extern void ts_tree_delete(TSTree *);
extern TSNode ts_tree_root_node(const TSTree *);
extern TSSymbol ts_node_symbol(TSNode);
extern const char *ts_node_type(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern TSPoint ts_node_end_point(TSNode);
extern bool ts_node_is_null(TSNode);
extern bool ts_node_is_named(TSNode);
extern bool ts_node_has_error(TSNode);
extern TSNode ts_node_named_child(TSNode, uint32_t);
extern uint32_t ts_node_named_child_count(TSNode);
extern TSNode ts_node_child_by_field_id(TSNode, TSFieldId);
extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
extern TSSymbol ts_language_symbol_for_name(const TSLanguage *, const char *, uint32_t, bool);
extern TSFieldId ts_language_field_id_for_name(const TSLanguage *, const char *, uint32_t);

// The arena. Everything tree-sitter allocates while a file is parsed and
// scanned comes from one bump arena per thread, and the file's parser and
// tree are dropped by rewinding it: freeing a tree node by node, and the
// mallocs that built it, cost more than the scan itself. Outside a scan the
// hooks below pass through to the C library, so other parsers (tree-sitter
// is linked once for the whole process) are unaffected.
enum { ARENA_ALIGN = 16, ARENA_CHUNK = 8 << 20, ARENA_KEEP = 64 << 20 };

typedef struct chunk {
	struct chunk *next;
	size_t cap, used;
	size_t last; // offset of the newest allocation, which may grow or shrink in place
	_Alignas(16) char data[];
} chunk;

// The hooks abort when the arena cannot grow, as tree-sitter's own
// allocator does when malloc fails.
typedef struct {
	chunk *head; // the chunk allocations come from; older ones follow
} arena;

static __thread arena *active;

static chunk *chunk_new(size_t cap) {
	chunk *c = malloc(sizeof(chunk) + cap);
	if (!c) return NULL;
	c->next = NULL;
	c->cap = cap;
	c->used = 0;
	c->last = (size_t)-1;
	return c;
}

static chunk *arena_owner(arena *a, const void *p) {
	for (chunk *c = a->head; c; c = c->next) {
		if ((const char *)p >= c->data && (const char *)p < c->data + c->cap) return c;
	}
	return NULL;
}

// Each allocation is preceded by its size, so realloc can copy.
static void *arena_alloc(arena *a, size_t n) {
	size_t need = ARENA_ALIGN + ((n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1));
	chunk *c = a->head;
	if (!c || c->cap - c->used < need) {
		size_t cap = c ? 2 * c->cap : ARENA_CHUNK;
		if (cap < need) cap = need;
		chunk *nc = chunk_new(cap);
		if (!nc) return NULL;
		nc->next = c;
		a->head = c = nc;
	}
	char *p = c->data + c->used + ARENA_ALIGN;
	((size_t *)p)[-1] = n;
	c->last = c->used;
	c->used += need;
	return p;
}

static void *hook_malloc(size_t n) {
	arena *a = active;
	if (!a) return malloc(n);
	void *p = arena_alloc(a, n);
	if (!p && n) abort();
	return p;
}

static void *hook_calloc(size_t k, size_t n) {
	arena *a = active;
	if (!a) return calloc(k, n);
	if (n && k > SIZE_MAX / n) abort();
	void *p = arena_alloc(a, k * n);
	if (!p && k * n) abort();
	memset(p, 0, k * n);
	return p;
}

static void *hook_realloc(void *p, size_t n) {
	arena *a = active;
	if (!a) return realloc(p, n);
	if (!p) return hook_malloc(n);
	chunk *c = arena_owner(a, p);
	if (!c) return realloc(p, n); // allocated before the scan began
	size_t old = ((size_t *)p)[-1];
	char *base = (char *)p - ARENA_ALIGN;
	if (c == a->head && base == c->data + c->last) {
		size_t need = ARENA_ALIGN + ((n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1));
		if (c->last + need <= c->cap) {
			c->used = c->last + need;
			((size_t *)p)[-1] = n;
			return p;
		}
	}
	void *q = arena_alloc(a, n);
	if (!q) abort();
	memcpy(q, p, old < n ? old : n);
	return q;
}

static void hook_free(void *p) {
	arena *a = active;
	if (!p) return;
	if (!a || !arena_owner(a, p)) free(p);
}

// arena_rewind keeps one chunk of at most ARENA_KEEP bytes for the next
// file, sized for the largest file seen so far.
static void arena_rewind(arena *a) {
	size_t total = 0;
	for (chunk *c = a->head; c; c = c->next) total += c->cap;
	chunk *keep = a->head;
	if (keep && keep->next) {
		chunk *c = keep->next;
		while (c) {
			chunk *next = c->next;
			free(c);
			c = next;
		}
		keep->next = NULL;
		if (keep->cap < total && total <= ARENA_KEEP) {
			chunk *bigger = chunk_new(total);
			if (bigger) {
				free(keep);
				keep = bigger;
			}
		}
	}
	if (keep && keep->cap > ARENA_KEEP) {
		free(keep);
		keep = NULL;
	}
	if (keep) {
		keep->used = 0;
		keep->last = (size_t)-1;
	}
	a->head = keep;
}

static void arena_free(arena *a) {
	for (chunk *c = a->head; c;) {
		chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}

// arena_trim drops a chunk grown past the initial size, for a scanner that
// waits idle between builds.
static void arena_trim(arena *a) {
	if (a->head && a->head->cap > ARENA_CHUNK) arena_free(a);
}

static void install_hooks(void) { ts_set_allocator(hook_malloc, hook_calloc, hook_realloc, hook_free); }

// Record tags; keep in step with the py* constants in pyscan.go.
enum { R_FUNC, R_CLASS, R_DECORATED, R_CALL, R_IMPORT, R_IMPORT_FROM, R_ASSIGN };
// Kinds of the names an import record lists.
enum { I_DOTTED, I_ALIASED, I_WILDCARD };

typedef struct {
	arena arena;
	size_t cancel;
	int parse_only; // benchmarks: parse without walking the tree
	uint32_t *buf;
	size_t len, cap;
	int oom;
	TSSymbol s_func, s_class, s_decorated, s_call, s_import, s_import_from, s_assign, s_ident, s_string;
	const char *src;
	uint32_t n;
	TSFieldId f_name, f_parameters, f_return_type, f_type_parameters, f_superclasses,
		f_definition, f_function, f_module_name, f_alias, f_left, f_right;
} pyscan;

static TSSymbol sym(const char *name) {
	return ts_language_symbol_for_name(tree_sitter_python(), name, (uint32_t)strlen(name), true);
}

static TSFieldId field(const char *name) {
	return ts_language_field_id_for_name(tree_sitter_python(), name, (uint32_t)strlen(name));
}

static pyscan *pyscan_new(void) {
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_hooks);
	pyscan *s = calloc(1, sizeof(pyscan));
	if (!s) return NULL;
	s->s_func = sym("function_definition");
	s->s_class = sym("class_definition");
	s->s_decorated = sym("decorated_definition");
	s->s_call = sym("call");
	s->s_import = sym("import_statement");
	s->s_import_from = sym("import_from_statement");
	s->s_assign = sym("assignment");
	s->s_ident = sym("identifier");
	s->s_string = sym("string");
	s->f_name = field("name");
	s->f_parameters = field("parameters");
	s->f_return_type = field("return_type");
	s->f_type_parameters = field("type_parameters");
	s->f_superclasses = field("superclasses");
	s->f_definition = field("definition");
	s->f_function = field("function");
	s->f_module_name = field("module_name");
	s->f_alias = field("alias");
	s->f_left = field("left");
	s->f_right = field("right");
	return s;
}

static void pyscan_free(pyscan *s) {
	arena_free(&s->arena);
	free(s->buf);
	free(s);
}

static void put(pyscan *s, uint32_t v) {
	if (s->len == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		uint32_t *b = realloc(s->buf, cap * sizeof(uint32_t));
		if (!b) { s->oom = 1; return; }
		s->buf = b;
		s->cap = cap;
	}
	s->buf[s->len++] = v;
}

static void put_span(pyscan *s, TSNode n) {
	put(s, ts_node_start_byte(n));
	put(s, ts_node_end_byte(n));
}

// child is the node's first child in the field if that child is named, as
// a query's "field: (_)" demands; null otherwise.
static bool child(TSNode n, TSFieldId f, TSNode *out) {
	if (f == 0) return false;
	*out = ts_node_child_by_field_id(n, f);
	return !ts_node_is_null(*out) && ts_node_is_named(*out);
}

static bool is_type(TSNode n, const char *name) { return strcmp(ts_node_type(n), name) == 0; }

static void extend(TSNode n, TSFieldId f, uint32_t *end) {
	if (f == 0) return;
	TSNode c = ts_node_child_by_field_id(n, f);
	if (!ts_node_is_null(c) && ts_node_end_byte(c) > *end) *end = ts_node_end_byte(c);
}

// def: tag, start, end, start row, end row, end column, name span, header
// end, base count, base spans. Bases are the positional superclasses.
static void scan_def(pyscan *s, TSNode n, bool class) {
	TSNode name = ts_node_child_by_field_id(n, s->f_name);
	if (ts_node_is_null(name) || ts_node_symbol(name) != s->s_ident) return;
	TSPoint sp = ts_node_start_point(n), ep = ts_node_end_point(n);
	put(s, class ? R_CLASS : R_FUNC);
	put_span(s, n);
	put(s, sp.row);
	put(s, ep.row);
	put(s, ep.column);
	put_span(s, name);
	uint32_t header = ts_node_end_byte(name);
	extend(n, class ? s->f_type_parameters : s->f_parameters, &header);
	extend(n, class ? s->f_superclasses : s->f_return_type, &header);
	put(s, header);
	size_t count_at = s->len;
	put(s, 0);
	if (!class || s->f_superclasses == 0) return;
	TSNode args = ts_node_child_by_field_id(n, s->f_superclasses);
	if (ts_node_is_null(args)) return;
	uint32_t nb = 0, k = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < k; i++) {
		TSNode c = ts_node_named_child(args, i);
		if (is_type(c, "keyword_argument") || is_type(c, "list_splat") ||
			is_type(c, "dictionary_splat") || is_type(c, "comment")) continue;
		put_span(s, c);
		nb++;
	}
	if (!s->oom) s->buf[count_at] = nb;
}

// import names: kind, first span, second span (alias; zero for others).
static void put_name(pyscan *s, uint32_t kind, TSNode a, TSNode *b) {
	put(s, kind);
	put_span(s, a);
	if (b) {
		put_span(s, *b);
	} else {
		put(s, 0);
		put(s, 0);
	}
}

// import: tag, row, [module span,] name count, names.
static void scan_import(pyscan *s, TSNode n, bool from) {
	TSNode mod;
	if (from) {
		mod = ts_node_child_by_field_id(n, s->f_module_name);
		if (ts_node_is_null(mod)) return;
	}
	put(s, from ? R_IMPORT_FROM : R_IMPORT);
	put(s, ts_node_start_point(n).row);
	if (from) put_span(s, mod);
	size_t count_at = s->len;
	put(s, 0);
	uint32_t nn = 0, k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (from && ts_node_start_byte(c) == ts_node_start_byte(mod)) continue;
		if (is_type(c, "dotted_name")) {
			put_name(s, I_DOTTED, c, NULL);
		} else if (is_type(c, "aliased_import")) {
			TSNode a = ts_node_child_by_field_id(c, s->f_name), b = ts_node_child_by_field_id(c, s->f_alias);
			if (ts_node_is_null(a) || ts_node_is_null(b)) continue;
			put_name(s, I_ALIASED, a, &b);
		} else if (from && is_type(c, "wildcard_import")) {
			put_name(s, I_WILDCARD, c, NULL);
		} else {
			continue;
		}
		nn++;
	}
	if (!s->oom) s->buf[count_at] = nn;
}

// fstring is whether the string literal at src[at] has an f prefix, the
// only kind whose children can hold calls.
static bool fstring(const char *src, uint32_t n, uint32_t at) {
	for (; at < n; at++) {
		char c = src[at];
		if (c == 'f' || c == 'F') return true;
		if (c == '\'' || c == '"') return false;
	}
	return false;
}

// visit records n if it is one of the nodes extraction wants, and returns
// whether its children can hold any: well-formed strings without an f
// prefix, and imports, cannot, and skipping them saves a good part of the
// walk.
static bool visit(pyscan *s, TSNode n) {
	TSSymbol t = ts_node_symbol(n);
	TSNode a, b, c;
	if (t == s->s_call) {
		if (!child(n, s->f_function, &a)) return true;
		put(s, R_CALL);
		put_span(s, a);
		put(s, ts_node_start_point(a).row);
	} else if (t == s->s_string) {
		// Error recovery can put anything inside a broken literal.
		return ts_node_has_error(n) || fstring(s->src, s->n, ts_node_start_byte(n));
	} else if (t == s->s_func || t == s->s_class) {
		scan_def(s, n, t == s->s_class);
	} else if (t == s->s_decorated) {
		a = ts_node_child_by_field_id(n, s->f_definition);
		if (ts_node_is_null(a)) return true;
		put(s, R_DECORATED);
		put(s, ts_node_start_byte(n));
		put(s, ts_node_start_point(n).row);
		put(s, ts_node_start_byte(a));
	} else if (t == s->s_import || t == s->s_import_from) {
		scan_import(s, n, t == s->s_import_from);
		return ts_node_has_error(n);
	} else if (t == s->s_assign) {
		if (!child(n, s->f_left, &a) || !child(n, s->f_right, &b)) return true;
		if (ts_node_symbol(b) != s->s_call || !child(b, s->f_function, &c)) return true;
		put(s, R_ASSIGN);
		put_span(s, a);
		put(s, ts_node_start_point(a).row);
		put_span(s, c);
	}
	return true;
}

// pyscan_run parses src and records its definitions, calls, imports and
// assignments in document order. It returns -1 if the parse was cancelled
// or failed, -2 if memory ran out, else 1 if the tree has errors, 0 if not.
// The parser lives for one file, in the arena with its tree.
static int pyscan_run(pyscan *s, const char *src, uint32_t n) {
	s->len = 0;
	s->oom = 0;
	active = &s->arena;
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tree_sitter_python());
	ts_parser_set_cancellation_flag(parser, &s->cancel);
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, n);
	int rc = -1;
	if (tree && s->parse_only) {
		rc = 0;
	} else if (tree) {
		TSNode root = ts_tree_root_node(tree);
		rc = ts_node_has_error(root) ? 1 : 0;
		TSTreeCursor cur = ts_tree_cursor_new(root);
		s->src = src;
		s->n = n;
		for (;;) {
			if (visit(s, ts_tree_cursor_current_node(&cur)) && ts_tree_cursor_goto_first_child(&cur)) continue;
			bool more = false;
			while (!(more = ts_tree_cursor_goto_next_sibling(&cur))) {
				if (!ts_tree_cursor_goto_parent(&cur)) break;
			}
			if (!more) break;
		}
	}
	// The external scanner's own state is outside the arena; deleting the
	// parser releases it.
	ts_parser_delete(parser);
	active = NULL;
	arena_rewind(&s->arena);
	if (s->oom) return -2;
	return rc;
}

static void pyscan_trim(pyscan *s) {
	arena_trim(&s->arena);
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

static void pyscan_cancel(pyscan *s) { __atomic_store_n(&s->cancel, 1, __ATOMIC_RELAXED); }
static void pyscan_parse_only(pyscan *s, int on) { s->parse_only = on; }
static void pyscan_arm(pyscan *s) { __atomic_store_n(&s->cancel, 0, __ATOMIC_RELAXED); }
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"unsafe"
)

// Record tags of the scanner's stream (R_* in the C above).
const (
	recFunc = iota
	recClass
	recDecorated
	recCall
	recImport
	recImportFrom
	recAssign
)

// Kinds of import names (I_* in the C above).
const (
	impDotted = iota
	impAliased
	impWildcard
)

// pyScanner is one goroutine's Python parser and record buffer.
type pyScanner struct {
	s *C.pyscan
	// mu and scans keep a cancellation meant for one scan (its context
	// done as the scan ended) from reaching the next, which may belong to
	// another build.
	mu    sync.Mutex
	scans uint64
}

func newPyScanner() *pyScanner {
	s := C.pyscan_new()
	if s == nil {
		return nil
	}
	return &pyScanner{s: s}
}

// parseOnly makes scans parse and skip the walk, for benchmarks that tell
// the two costs apart.
func (p *pyScanner) parseOnly(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.pyscan_parse_only(p.s, v)
}

// trim gives back the memory a large file made the scanner keep.
func (p *pyScanner) trim() {
	if p != nil && p.s != nil {
		C.pyscan_trim(p.s)
	}
}

func (p *pyScanner) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s != nil {
		C.pyscan_free(p.s)
		p.s = nil
	}
}

var errScanMemory = errors.New("out of memory scanning the syntax tree")

// scan parses src and returns its records, which stay valid until the next
// scan, and whether the tree has syntax errors.
func (p *pyScanner) scan(ctx context.Context, src []byte) ([]uint32, bool, error) {
	if p == nil || p.s == nil {
		return nil, false, errScanMemory
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	p.mu.Lock()
	p.scans++
	this := p.scans
	C.pyscan_arm(p.s)
	p.mu.Unlock()
	if ctx.Done() != nil {
		// A callback rather than a watching goroutine: most files parse in
		// well under a millisecond.
		stop := context.AfterFunc(ctx, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.scans == this && p.s != nil {
				C.pyscan_cancel(p.s)
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
	rc := C.pyscan_run(p.s, ptr, C.uint32_t(len(src)))
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
