#include <pthread.h>

#include "scan.h"

// The arena. Everything tree-sitter allocates while a file is parsed and
// scanned comes from one bump arena per thread, and the file's parser and
// tree are dropped by rewinding it: freeing a tree node by node, and the
// mallocs that built it, cost more than the scan itself. Outside a scan the
// hooks below pass through to the C library, so other parsers (tree-sitter
// is linked once for the whole process) are unaffected.
enum { ARENA_ALIGN = 16, ARENA_CHUNK = 8 << 20, ARENA_KEEP = 64 << 20 };

struct chunk {
	struct chunk *next;
	size_t cap, used;
	size_t last; // offset of the newest allocation, which may grow or shrink in place
	_Alignas(16) char data[];
};

// The hooks abort when the arena cannot grow, as tree-sitter's own
// allocator does when malloc fails.

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

// install_hooks replaces tree-sitter's allocator for the whole process, once
// (newScanner in scan.go says what that means for Go code).
static void install_hooks(void) { ts_set_allocator(hook_malloc, hook_calloc, hook_realloc, hook_free); }

static const TSLanguage *grammar(int lang) {
	switch (lang) {
	case LANG_PYTHON: return tree_sitter_python();
	case LANG_JAVASCRIPT: return tree_sitter_javascript();
	case LANG_TYPESCRIPT: return tree_sitter_typescript();
	case LANG_TSX: return tree_sitter_tsx();
	}
	return NULL;
}

scanner *scanner_new(void) {
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_hooks);
	scanner *s = calloc(1, sizeof(scanner));
	if (!s) return NULL;
	py_init(s);
	return s;
}

void scanner_free(scanner *s) {
	arena_free(&s->arena);
	free(s->buf);
	free(s->stack);
	free(s);
}

// scanner_trim gives back what a large file made the scanner keep.
void scanner_trim(scanner *s) {
	arena_trim(&s->arena);
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
	free(s->stack);
	s->stack = NULL;
	s->stack_cap = 0;
}

void scanner_cancel(scanner *s) { __atomic_store_n(&s->cancel, 1, __ATOMIC_RELAXED); }
void scanner_arm(scanner *s) { __atomic_store_n(&s->cancel, 0, __ATOMIC_RELAXED); }
void scanner_parse_only(scanner *s, int on) { s->parse_only = on; }

// scanner_run parses src in the language and records what its walker
// finds, in document order. It returns -1 if the parse was cancelled or
// failed, -2 if memory ran out, else 1 if the tree has errors, 0 if not.
// The parser lives for one file, in the arena with its tree.
int scanner_run(scanner *s, int lang, const char *src, uint32_t n) {
	const TSLanguage *g = grammar(lang);
	if (!g) return -1;
	s->len = 0;
	s->oom = 0;
	s->src = src;
	s->n = n;
	active = &s->arena;
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, g);
	ts_parser_set_cancellation_flag(parser, &s->cancel);
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, n);
	int rc = -1;
	if (tree) {
		TSNode root = ts_tree_root_node(tree);
		rc = ts_node_has_error(root) ? 1 : 0;
		if (!s->parse_only && lang == LANG_PYTHON) py_walk(s, root);
		if (!s->parse_only && lang != LANG_PYTHON) script_walk(s, lang, root);
	}
	// An external scanner's own state is outside the arena; deleting the
	// parser releases it.
	ts_parser_delete(parser);
	active = NULL;
	arena_rewind(&s->arena);
	if (s->oom) return -2;
	return rc;
}
