// The Python walker: see scan.h.
#include "scan.h"

// Record tags; keep in step with the rec* constants in scan.go.
enum { R_FUNC, R_CLASS, R_DECORATED, R_CALL, R_IMPORT, R_IMPORT_FROM, R_ASSIGN };
// Kinds of the names an import record lists.
enum { I_DOTTED, I_ALIASED, I_WILDCARD };


static TSSymbol sym(const char *name) {
	return ts_language_symbol_for_name(tree_sitter_python(), name, (uint32_t)strlen(name), true);
}

static TSFieldId field(const char *name) {
	return ts_language_field_id_for_name(tree_sitter_python(), name, (uint32_t)strlen(name));
}

void py_init(scanner *s) {
	pyids *p = &s->py;
	p->func = sym("function_definition");
	p->class = sym("class_definition");
	p->decorated = sym("decorated_definition");
	p->call = sym("call");
	p->import = sym("import_statement");
	p->import_from = sym("import_from_statement");
	p->assign = sym("assignment");
	p->ident = sym("identifier");
	p->string = sym("string");
	p->name = field("name");
	p->parameters = field("parameters");
	p->return_type = field("return_type");
	p->type_parameters = field("type_parameters");
	p->superclasses = field("superclasses");
	p->definition = field("definition");
	p->function = field("function");
	p->module_name = field("module_name");
	p->alias = field("alias");
	p->left = field("left");
	p->right = field("right");
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
static void scan_def(scanner *s, TSNode n, bool class) {
	TSNode name = ts_node_child_by_field_id(n, s->py.name);
	if (ts_node_is_null(name) || ts_node_symbol(name) != s->py.ident) return;
	TSPoint sp = ts_node_start_point(n), ep = ts_node_end_point(n);
	put(s, class ? R_CLASS : R_FUNC);
	put_span(s, n);
	put(s, sp.row);
	put(s, ep.row);
	put(s, ep.column);
	put_span(s, name);
	uint32_t header = ts_node_end_byte(name);
	extend(n, class ? s->py.type_parameters : s->py.parameters, &header);
	extend(n, class ? s->py.superclasses : s->py.return_type, &header);
	put(s, header);
	size_t count_at = s->len;
	put(s, 0);
	if (!class || s->py.superclasses == 0) return;
	TSNode args = ts_node_child_by_field_id(n, s->py.superclasses);
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
static void put_name(scanner *s, uint32_t kind, TSNode a, TSNode *b) {
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
static void scan_import(scanner *s, TSNode n, bool from) {
	TSNode mod;
	if (from) {
		mod = ts_node_child_by_field_id(n, s->py.module_name);
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
			TSNode a = ts_node_child_by_field_id(c, s->py.name), b = ts_node_child_by_field_id(c, s->py.alias);
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
static bool py_visit(scanner *s, TSNode n) {
	TSSymbol t = ts_node_symbol(n);
	TSNode a, b, c;
	if (t == s->py.call) {
		if (!child(n, s->py.function, &a)) return true;
		put(s, R_CALL);
		put_span(s, a);
		put(s, ts_node_start_point(a).row);
	} else if (t == s->py.string) {
		// Error recovery can put anything inside a broken literal.
		return ts_node_has_error(n) || fstring(s->src, s->n, ts_node_start_byte(n));
	} else if (t == s->py.func || t == s->py.class) {
		scan_def(s, n, t == s->py.class);
	} else if (t == s->py.decorated) {
		a = ts_node_child_by_field_id(n, s->py.definition);
		if (ts_node_is_null(a)) return true;
		put(s, R_DECORATED);
		put(s, ts_node_start_byte(n));
		put(s, ts_node_start_point(n).row);
		put(s, ts_node_start_byte(a));
	} else if (t == s->py.import || t == s->py.import_from) {
		scan_import(s, n, t == s->py.import_from);
		return ts_node_has_error(n);
	} else if (t == s->py.assign) {
		if (!child(n, s->py.left, &a) || !child(n, s->py.right, &b)) return true;
		if (ts_node_symbol(b) != s->py.call || !child(b, s->py.function, &c)) return true;
		put(s, R_ASSIGN);
		put_span(s, a);
		put(s, ts_node_start_point(a).row);
		put_span(s, c);
	}
	return true;
}

// py_walk records the definitions, calls, imports and assignments of a
// Python tree.
void py_walk(scanner *s, TSNode root) {
	TSTreeCursor cur = ts_tree_cursor_new(root);
	for (;;) {
		if (py_visit(s, ts_tree_cursor_current_node(&cur)) && ts_tree_cursor_goto_first_child(&cur)) continue;
		bool more = false;
		while (!(more = ts_tree_cursor_goto_next_sibling(&cur))) {
			if (!ts_tree_cursor_goto_parent(&cur)) break;
		}
		if (!more) break;
	}
}
