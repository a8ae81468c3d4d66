// The index's C scanners: a file is parsed by tree-sitter and its tree
// walked once with a cursor, in C, writing what extraction needs into a
// flat stream of uint32 records that Go reads without a cgo call per node.
// The tree-sitter runtime and the grammars are linked in by
// github.com/smacker/go-tree-sitter; the declarations below are the parts
// of its C API the scanners call.
//
// That module's api.h is not on cgo's include path, so the types and
// prototypes are copied here by hand. The value types are passed and
// returned by value across the library boundary, so a copy that drifts
// from the linked library corrupts memory without a compiler error.
// TestScanHeaderMatchesTreeSitter therefore compiles every scanner with the
// module's real api.h included first: the compiler then checks each
// prototype below against the real one, and the assertions below check
// each copied struct's size and field offsets against the real type.
#ifndef SWE_ADEPT_SCAN_H
#define SWE_ADEPT_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;

// The copies of tree-sitter's value types (TSPoint, TSNode, TSTreeCursor).
struct scan_point { uint32_t row; uint32_t column; };
struct scan_node { uint32_t context[4]; const void *id; const TSTree *tree; };
struct scan_cursor { const void *tree; const void *id; uint32_t context[3]; };

#ifdef TREE_SITTER_API_H_
// The real header came first (the layout test): check the copies.
#define SCAN_SAME_FIELD(copy, real, f) \
	_Static_assert(offsetof(struct copy, f) == offsetof(real, f) && \
		sizeof(((struct copy *)0)->f) == sizeof(((real *)0)->f), #real "." #f " differs from tree-sitter's")
#define SCAN_SAME_SIZE(copy, real) \
	_Static_assert(sizeof(copy) == sizeof(real) && _Alignof(copy) == _Alignof(real), #real " differs from tree-sitter's")
SCAN_SAME_SIZE(uint16_t, TSSymbol);
SCAN_SAME_SIZE(uint16_t, TSFieldId);
SCAN_SAME_SIZE(struct scan_point, TSPoint);
SCAN_SAME_FIELD(scan_point, TSPoint, row);
SCAN_SAME_FIELD(scan_point, TSPoint, column);
SCAN_SAME_SIZE(struct scan_node, TSNode);
SCAN_SAME_FIELD(scan_node, TSNode, context);
SCAN_SAME_FIELD(scan_node, TSNode, id);
SCAN_SAME_FIELD(scan_node, TSNode, tree);
SCAN_SAME_SIZE(struct scan_cursor, TSTreeCursor);
SCAN_SAME_FIELD(scan_cursor, TSTreeCursor, tree);
SCAN_SAME_FIELD(scan_cursor, TSTreeCursor, id);
SCAN_SAME_FIELD(scan_cursor, TSTreeCursor, context);
#else
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct scan_point TSPoint;
typedef struct scan_node TSNode;
typedef struct scan_cursor TSTreeCursor;
#endif

extern const TSLanguage *tree_sitter_python(void);
extern const TSLanguage *tree_sitter_javascript(void);
extern const TSLanguage *tree_sitter_typescript(void);
extern const TSLanguage *tree_sitter_tsx(void);
extern TSParser *ts_parser_new(void);
extern void ts_parser_delete(TSParser *);
extern bool ts_parser_set_language(TSParser *, const TSLanguage *);
extern void ts_parser_set_cancellation_flag(TSParser *, const size_t *);
extern TSTree *ts_parser_parse_string(TSParser *, const TSTree *, const char *, uint32_t);
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
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
extern TSSymbol ts_language_symbol_for_name(const TSLanguage *, const char *, uint32_t, bool);
extern TSFieldId ts_language_field_id_for_name(const TSLanguage *, const char *, uint32_t);

// The grammars a scanner parses; keep in step with the scan* constants in
// scan.go.
enum { LANG_PYTHON = 1, LANG_JAVASCRIPT, LANG_TYPESCRIPT, LANG_TSX, LANG_COUNT };

typedef struct chunk chunk;

// An arena is the memory of one file's parse: see scan.c.
typedef struct {
	chunk *head; // the chunk allocations come from; older ones follow
} arena;

// Python's symbols and fields, looked up once per scanner.
typedef struct {
	TSSymbol func, class, decorated, call, import, import_from, assign, ident, string;
	TSFieldId name, parameters, return_type, type_parameters, superclasses,
		definition, function, module_name, alias, left, right;
} pyids;

// A script grammar's table: the node kind each symbol is recorded as (0:
// not recorded), with KIND_LEAF set where the walk need not descend, and
// the field each field id is recorded as.
enum { KIND_OTHER = 1, KIND_LEAF = 0x80 };
typedef struct {
	const uint8_t *kinds;
	uint32_t nkinds;
	const uint8_t *fields;
	uint32_t nfields;
} scripttable;

typedef struct {
	arena arena;
	size_t cancel;
	int parse_only; // benchmarks: parse without walking the tree
	uint32_t *buf;
	size_t len, cap;
	int oom;
	const char *src;
	uint32_t n;
	pyids py;
	uint32_t *stack; // the script walker's, two words per tree level
	size_t stack_cap;
} scanner;

scanner *scanner_new(void);
void scanner_free(scanner *s);
void scanner_trim(scanner *s);
void scanner_cancel(scanner *s);
void scanner_arm(scanner *s);
void scanner_parse_only(scanner *s, int on);
int scanner_run(scanner *s, int lang, const char *src, uint32_t n);
void script_set_table(int lang, const uint8_t *kinds, uint32_t nkinds, const uint8_t *fields, uint32_t nfields);

// Walkers, one per language family, called by scanner_run on a parsed tree.
void py_init(scanner *s);
void py_walk(scanner *s, TSNode root);
void script_walk(scanner *s, int lang, TSNode root);

// reserve makes room for n more words; it sets oom if it cannot.
static inline bool reserve(scanner *s, size_t n) {
	if (s->cap - s->len >= n) return true;
	size_t cap = s->cap ? 2 * s->cap : 4096;
	while (cap - s->len < n) cap *= 2;
	uint32_t *b = realloc(s->buf, cap * sizeof(uint32_t));
	if (!b) {
		s->oom = 1;
		return false;
	}
	s->buf = b;
	s->cap = cap;
	return true;
}

static inline void put(scanner *s, uint32_t v) {
	if (reserve(s, 1)) s->buf[s->len++] = v;
}

static inline void put_span(scanner *s, TSNode n) {
	put(s, ts_node_start_byte(n));
	put(s, ts_node_end_byte(n));
}

#endif
