// The JavaScript and TypeScript walker: see scan.h. It records the tree
// itself, cut down to what extraction reads, rather than matches: the
// patterns a script extractor needs are many and nested, and reading them
// from a flat table in Go costs less than one tree-sitter query.
#include "scan.h"

// A node's record: kind | field << 8, start byte, end byte, start row, end
// row, end column, parent's record (NONE for the root), and the record
// after the node's last descendant. Keep in step with scan_script.go.
enum { NODE_WORDS = 8, NONE = 0xffffffffu };

static scripttable tables[LANG_COUNT];

// script_set_table takes a copy of a grammar's table; the Go side sets
// every table once, before the first scan.
void script_set_table(int lang, const uint8_t *kinds, uint32_t nkinds, const uint8_t *fields, uint32_t nfields) {
	if (lang <= 0 || lang >= LANG_COUNT) return;
	uint8_t *k = malloc(nkinds ? nkinds : 1), *f = malloc(nfields ? nfields : 1);
	if (!k || !f) {
		free(k);
		free(f);
		return;
	}
	memcpy(k, kinds, nkinds);
	memcpy(f, fields, nfields);
	tables[lang] = (scripttable){k, nkinds, f, nfields};
}

// level makes room for two words per tree level up to depth.
static bool level(scanner *s, size_t depth) {
	if (2 * (depth + 1) <= s->stack_cap) return true;
	size_t cap = s->stack_cap ? 2 * s->stack_cap : 256;
	while (cap < 2 * (depth + 1)) cap *= 2;
	uint32_t *b = realloc(s->stack, cap * sizeof(uint32_t));
	if (!b) {
		s->oom = 1;
		return false;
	}
	s->stack = b;
	s->stack_cap = cap;
	return true;
}

// record writes n's record and returns its index. Only the children of
// recorded kinds other than KIND_OTHER are read by field, so only they
// look theirs up: the lookup searches the parent's field map, and most
// nodes are expressions and statements the extractor reads whole.
static uint32_t record(scanner *s, const scripttable *t, TSTreeCursor *cur, TSNode n, uint8_t kind, uint32_t parent) {
	uint8_t field = 0;
	if (parent != NONE && (s->buf[(size_t)parent * NODE_WORDS] & 0xff) != KIND_OTHER) {
		TSFieldId f = ts_tree_cursor_current_field_id(cur);
		field = f < t->nfields ? t->fields[f] : 0;
	}
	if (!reserve(s, NODE_WORDS)) return NONE;
	uint32_t me = (uint32_t)(s->len / NODE_WORDS);
	TSPoint sp = ts_node_start_point(n), ep = ts_node_end_point(n);
	uint32_t *r = s->buf + s->len;
	r[0] = (uint32_t)kind | (uint32_t)field << 8;
	r[1] = ts_node_start_byte(n);
	r[2] = ts_node_end_byte(n);
	r[3] = sp.row;
	r[4] = ep.row;
	r[5] = ep.column;
	r[6] = parent;
	r[7] = NONE;
	s->len += NODE_WORDS;
	return me;
}

// close sets the end of the record opened at depth, if any.
static void close_level(scanner *s, size_t depth) {
	uint32_t open = s->stack[2 * depth];
	if (open != NONE && !s->oom) s->buf[(size_t)open * NODE_WORDS + 7] = (uint32_t)(s->len / NODE_WORDS);
}

// script_walk records the tree's nodes of recorded kinds in document
// order, each with its parent among the recorded ones. Per level the stack
// holds the record opened there (NONE if the node is not recorded) and the
// nearest recorded node at or above it.
void script_walk(scanner *s, int lang, TSNode root) {
	const scripttable *t = lang > 0 && lang < LANG_COUNT ? &tables[lang] : NULL;
	if (!t || !t->kinds || !level(s, 0)) return;
	TSTreeCursor cur = ts_tree_cursor_new(root);
	size_t depth = 0;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol sym = ts_node_symbol(n);
		// ERROR nodes have a symbol of their own, past the table.
		uint8_t k = sym < t->nkinds ? t->kinds[sym] : sym == (TSSymbol)-1 ? KIND_OTHER : 0;
		uint32_t parent = depth ? s->stack[2 * depth - 1] : NONE;
		uint32_t me = (k & ~KIND_LEAF) ? record(s, t, &cur, n, k & ~KIND_LEAF, parent) : NONE;
		s->stack[2 * depth] = me;
		s->stack[2 * depth + 1] = me != NONE ? me : parent;
		if (s->oom) return;
		if (!(k & KIND_LEAF) && ts_tree_cursor_goto_first_child(&cur)) {
			if (!level(s, ++depth)) return;
			continue;
		}
		for (;;) {
			close_level(s, depth);
			if (ts_tree_cursor_goto_next_sibling(&cur)) break;
			if (depth == 0 || !ts_tree_cursor_goto_parent(&cur)) return;
			depth--;
		}
	}
}
