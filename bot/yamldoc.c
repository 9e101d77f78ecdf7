/* yamldoc.c - see yamldoc.h. */
#include "yamldoc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "strbuf.h"

/*
 * One pass over libyaml's event stream builds the document and checks the
 * limits as the events arrive (libyaml's scanner and loader spend time and
 * memory in proportion to depth x tokens, so 100,000 nested '[' took some
 * 20 s; the walk stops at the first level too deep).
 *
 * Why not yaml_parser_load: it takes no limits, so the stream had to be
 * parsed twice (once to check them, once to load), and the scanner is most
 * of the cost.  Why not libyaml's document API (yaml_document_add_scalar
 * and friends): it copies and re-checks every string, refuses some tags the
 * parser accepts (an overlong %-escape) and leaves every mark at 0, so the
 * document would differ from what yaml_parser_load builds.  The composer
 * below is yaml_parser_load's (libyaml 0.2.5, loader.c), step for step: it
 * takes over the events' strings, gives untagged and "!" nodes the default
 * tags, keeps each node's start and end marks, refuses a duplicate anchor
 * and an undefined alias with libyaml's words and marks, and reads only
 * the first document.  Its memory is malloc'd as libyaml's is, so
 * yaml_document_delete frees it.
 *
 * The limits cover the whole stream as the check before it did (later
 * documents too), and a limit error wins over a composer error further
 * on, as before: after a composer error or the first document's end, the
 * walk goes on counting until the stream ends or libyaml finds a syntax
 * error (which yaml_parser_load never saw).
 */
struct compose {
	yaml_document_t *doc;
	size_t nodes_alloc;
	struct anchor {
		yaml_char_t *name; /* owned */
		int index;
	} *anchors;
	size_t nanchors, anchors_alloc;
	int open[RM_YAML_MAX_DEPTH + 1]; /* open collections, innermost last */
	size_t nopen;
	/* the composer error, kept apart from the parser's (which a syntax
	 * error later in the stream would overwrite) */
	const char *problem, *context;
	yaml_mark_t problem_mark;
};

/* libyaml's words; its context mark (the first anchor) is not in our
 * message, as it was not before. */
static int composer_error(struct compose *c, const char *context, const char *problem,
			  yaml_mark_t problem_mark)
{
	c->context = context;
	c->problem = problem;
	c->problem_mark = problem_mark;
	return -1;
}

static yaml_char_t *default_tag(yaml_char_t *tag, const char *def)
{
	if (!tag || !strcmp((char *)tag, "!")) {
		free(tag);
		return (yaml_char_t *)rm_xstrdup(def);
	}
	return tag;
}

/* Append a node (taking over its strings); its 1-based index. */
static int push_node(struct compose *c, const yaml_node_t *node)
{
	yaml_document_t *d = c->doc;
	size_t n = (size_t)(d->nodes.top - d->nodes.start);

	if (n == c->nodes_alloc) {
		c->nodes_alloc = n ? 2 * n : 16;
		d->nodes.start = rm_xrealloc(d->nodes.start, c->nodes_alloc * sizeof(*d->nodes.start));
		d->nodes.end = d->nodes.start + c->nodes_alloc;
		d->nodes.top = d->nodes.start + n;
	}
	*d->nodes.top++ = *node;
	return (int)n + 1;
}

static int register_anchor(struct compose *c, int index, yaml_char_t *name)
{
	size_t i;

	if (!name)
		return 0;
	for (i = 0; i < c->nanchors; i++)
		if (!strcmp((char *)c->anchors[i].name, (char *)name)) {
			free(name);
			return composer_error(c, "found duplicate anchor; first occurrence",
					      "second occurrence",
					      c->doc->nodes.start[index - 1].start_mark);
		}
	c->anchors = rm_xgrow(c->anchors, &c->anchors_alloc, c->nanchors + 1, sizeof(*c->anchors));
	c->anchors[c->nanchors].name = name;
	c->anchors[c->nanchors].index = index;
	c->nanchors++;
	return 0;
}

/* Hang node `index` into the innermost open collection (none: the root). */
static void add_to_parent(struct compose *c, int index)
{
	yaml_node_t *p;

	if (!c->nopen)
		return;
	p = &c->doc->nodes.start[c->open[c->nopen - 1] - 1];
	if (p->type == YAML_SEQUENCE_NODE) {
		size_t n = (size_t)(p->data.sequence.items.top - p->data.sequence.items.start);
		size_t alloc = (size_t)(p->data.sequence.items.end - p->data.sequence.items.start);

		if (n == alloc) {
			alloc = n ? 2 * n : 16;
			p->data.sequence.items.start =
				rm_xrealloc(p->data.sequence.items.start, alloc * sizeof(yaml_node_item_t));
			p->data.sequence.items.end = p->data.sequence.items.start + alloc;
			p->data.sequence.items.top = p->data.sequence.items.start + n;
		}
		*p->data.sequence.items.top++ = index;
	} else {
		size_t n = (size_t)(p->data.mapping.pairs.top - p->data.mapping.pairs.start);
		size_t alloc = (size_t)(p->data.mapping.pairs.end - p->data.mapping.pairs.start);

		if (n && !p->data.mapping.pairs.top[-1].value) {
			p->data.mapping.pairs.top[-1].value = index; /* the pending key's value */
			return;
		}
		if (n == alloc) {
			alloc = n ? 2 * n : 16;
			p->data.mapping.pairs.start =
				rm_xrealloc(p->data.mapping.pairs.start, alloc * sizeof(yaml_node_pair_t));
			p->data.mapping.pairs.end = p->data.mapping.pairs.start + alloc;
			p->data.mapping.pairs.top = p->data.mapping.pairs.start + n;
		}
		p->data.mapping.pairs.top->key = index;
		p->data.mapping.pairs.top->value = 0;
		p->data.mapping.pairs.top++;
	}
}

/* Compose one event of the first document, taking over its strings (the
 * caller must not delete it).  0, or -1 after a composer error. */
static int compose_event(struct compose *c, yaml_event_t *ev)
{
	yaml_node_t node;
	yaml_char_t *anchor = NULL;
	int index;
	size_t i;

	memset(&node, 0, sizeof(node));
	node.start_mark = ev->start_mark;
	node.end_mark = ev->end_mark;
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		for (i = 0; i < c->nanchors; i++)
			if (!strcmp((char *)c->anchors[i].name, (char *)ev->data.alias.anchor))
				break;
		free(ev->data.alias.anchor);
		if (i == c->nanchors)
			return composer_error(c, NULL, "found undefined alias", ev->start_mark);
		add_to_parent(c, c->anchors[i].index);
		return 0;
	case YAML_SCALAR_EVENT:
		node.type = YAML_SCALAR_NODE;
		node.tag = default_tag(ev->data.scalar.tag, YAML_DEFAULT_SCALAR_TAG);
		node.data.scalar.value = ev->data.scalar.value;
		node.data.scalar.length = ev->data.scalar.length;
		node.data.scalar.style = ev->data.scalar.style;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		node.type = YAML_SEQUENCE_NODE;
		node.tag = default_tag(ev->data.sequence_start.tag, YAML_DEFAULT_SEQUENCE_TAG);
		node.data.sequence.style = ev->data.sequence_start.style;
		anchor = ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		node.type = YAML_MAPPING_NODE;
		node.tag = default_tag(ev->data.mapping_start.tag, YAML_DEFAULT_MAPPING_TAG);
		node.data.mapping.style = ev->data.mapping_start.style;
		anchor = ev->data.mapping_start.anchor;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		c->doc->nodes.start[c->open[--c->nopen] - 1].end_mark = ev->end_mark;
		return 0;
	default: /* DOCUMENT-END: the caller's */
		yaml_event_delete(ev);
		return 0;
	}
	index = push_node(c, &node);
	if (register_anchor(c, index, anchor))
		return -1;
	add_to_parent(c, index);
	if (node.type != YAML_SCALAR_NODE)
		c->open[c->nopen++] = index; /* the depth limit keeps nopen <= RM_YAML_MAX_DEPTH */
	return 0;
}

int rm_yaml_load(struct rm_yaml *y, const char *file, const char *buf, size_t len,
		 struct rm_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct compose c;
	size_t depth = 0, nodes = 0, i;
	enum { BEFORE, IN_DOC, AFTER } state = BEFORE;
	int failed = 0; /* a composer error: the document is gone, the counting goes on */
	int syntax = 0; /* a syntax error within the first document */
	int rc = 0;

	memset(y, 0, sizeof(*y));
	if (len > RM_YAML_MAX_BYTES)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': %zu bytes of YAML; at most %u are read",
				    file, len, RM_YAML_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return rm_error_set(err, RM_ERR_INTERNAL, "'%s': cannot initialise YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	memset(&c, 0, sizeof(c));
	c.doc = &y->doc;
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev)) {
			/* past the first document or a composer error,
			 * yaml_parser_load would not have read this far */
			syntax = state != AFTER && !failed;
			break;
		}
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > RM_YAML_MAX_DEPTH)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s' line %zu column %zu: nested deeper than %d levels",
						  file, ev.start_mark.line + 1, ev.start_mark.column + 1,
						  RM_YAML_MAX_DEPTH);
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if ((type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
		     type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) &&
		    ++nodes > RM_YAML_MAX_NODES && !rc)
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu: more than %d nodes", file,
					  ev.start_mark.line + 1, RM_YAML_MAX_NODES);
		if (rc || type == YAML_STREAM_END_EVENT || failed || state == AFTER) {
			yaml_event_delete(&ev);
			if (rc || type == YAML_STREAM_END_EVENT)
				break;
			continue;
		}
		if (type == YAML_DOCUMENT_START_EVENT && state == BEFORE) {
			/* the document takes over the directives, as in yaml_parser_load */
			y->doc.version_directive = ev.data.document_start.version_directive;
			y->doc.tag_directives.start = ev.data.document_start.tag_directives.start;
			y->doc.tag_directives.end = ev.data.document_start.tag_directives.end;
			y->doc.start_implicit = ev.data.document_start.implicit;
			y->doc.start_mark = ev.start_mark;
			state = IN_DOC;
		} else if (type == YAML_DOCUMENT_END_EVENT) {
			y->doc.end_implicit = ev.data.document_end.implicit;
			y->doc.end_mark = ev.end_mark;
			state = AFTER;
		} else if (state == IN_DOC) {
			if (compose_event(&c, &ev))
				failed = 1;
		} else {
			yaml_event_delete(&ev); /* STREAM-START */
		}
	}
	for (i = 0; i < c.nanchors; i++)
		free(c.anchors[i].name);
	free(c.anchors);
	if (!rc && failed)
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu column %zu: invalid YAML: %s%s%s",
				  file, c.problem_mark.line + 1, c.problem_mark.column + 1, c.problem,
				  c.context ? " " : "", c.context ? c.context : "");
	else if (!rc && syntax)
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu column %zu: invalid YAML: %s%s%s",
				  file, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				  parser.problem ? parser.problem : "parse error",
				  parser.context ? " " : "", parser.context ? parser.context : "");
	yaml_parser_delete(&parser);
	if (rc) {
		yaml_document_delete(&y->doc);
		memset(y, 0, sizeof(*y));
		return -1;
	}
	y->file = rm_xstrdup(file);
	y->loaded = 1;
	return 0;
}

void rm_yaml_free(struct rm_yaml *y)
{
	if (y->arena) {
		free(y->doc.nodes.start);
		if (y->arena_mapped)
			munmap(y->arena, y->arena_mapped);
		else
			free(y->arena);
	} else if (y->loaded) {
		yaml_document_delete(&y->doc);
	}
	free(y->file);
	memset(y, 0, sizeof(*y));
}

yaml_node_t *rm_yaml_root(struct rm_yaml *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *rm_yaml_node(struct rm_yaml *y, int id)
{
	return yaml_document_get_node(&y->doc, id);
}

yaml_node_t *rm_yaml_get(struct rm_yaml *y, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *found = NULL;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(y, p->key);

		if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			found = rm_yaml_node(y, p->value);
	}
	return found;
}

const char *rm_yaml_scalar(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

int rm_yaml_line(yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

int rm_yaml_is_null(yaml_node_t *n)
{
	const char *s;

	if (!n)
		return 1;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

int rm_yaml_has_nul(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       strlen((char *)n->data.scalar.value) != n->data.scalar.length;
}

void rm_ruby_float_to_s(double d, char *out, size_t outlen)
{
	char digits[40];
	int prec, exp10;
	char *e;

	if (isnan(d)) {
		snprintf(out, outlen, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(out, outlen, d < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (d == 0) {
		snprintf(out, outlen, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	/* shortest digits that round-trip */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(digits, sizeof(digits), "%.*e", prec - 1, d);
		if (strtod(digits, NULL) == d)
			break;
	}
	/* digits = [-]D.DDDDe[+-]XX */
	e = strchr(digits, 'e');
	exp10 = (int)strtol(e + 1, NULL, 10);
	*e = '\0';
	{
		char mant[40];
		int m = 0, i;
		int neg = digits[0] == '-';

		for (i = neg; digits[i]; i++)
			if (isdigit((unsigned char)digits[i]))
				mant[m++] = digits[i];
		mant[m] = '\0';
		while (m > 1 && mant[m - 1] == '0')
			mant[--m] = '\0';
		int ndig = m;
		struct rm_sb sb = RM_SB_INIT;

		rm_sb_init(&sb);
		if (neg)
			rm_sb_addc(&sb, '-');
		if (exp10 < -4 || exp10 >= 16) {
			/* 1.0e+16, 1.5e-05 */
			rm_sb_addc(&sb, mant[0]);
			rm_sb_addc(&sb, '.');
			if (ndig > 1)
				rm_sb_adds(&sb, mant + 1);
			else
				rm_sb_addc(&sb, '0');
			rm_sb_addf(&sb, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		} else if (exp10 < 0) {
			rm_sb_adds(&sb, "0.");
			rm_sb_addn(&sb, '0', (size_t)(-exp10 - 1));
			rm_sb_adds(&sb, mant);
		} else {
			for (i = 0; i <= exp10; i++)
				rm_sb_addc(&sb, i < ndig ? mant[i] : '0');
			rm_sb_addc(&sb, '.');
			if (ndig > exp10 + 1)
				rm_sb_adds(&sb, mant + exp10 + 1);
			else
				rm_sb_addc(&sb, '0');
		}
		snprintf(out, outlen, "%s", sb.buf);
		rm_sb_release(&sb);
	}
}

static int all_match(const char *s, const char *set)
{
	for (; *s; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

char *rm_yaml_ruby_string(yaml_node_t *n)
{
	const char *s = rm_yaml_scalar(n);
	static const char *const truthy[] = { "yes", "Yes", "YES", "true", "True", "TRUE",
					      "on", "On", "ON", NULL };
	static const char *const falsy[] = { "no", "No", "NO", "false", "False", "FALSE",
					     "off", "Off", "OFF", NULL };
	char tmp[64];
	size_t len;
	int i;

	if (!s)
		return rm_xstrdup("");
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return rm_xstrdup(s);
	for (i = 0; truthy[i]; i++)
		if (!strcmp(s, truthy[i]))
			return rm_xstrdup("true");
	for (i = 0; falsy[i]; i++)
		if (!strcmp(s, falsy[i]))
			return rm_xstrdup("false");
	if (rm_yaml_is_null(n))
		return rm_xstrdup("");
	len = strlen(s);
	if (len == 0 || len > 40)
		return rm_xstrdup(s);
	/* integers: [-+]?(0|[1-9][0-9_]*), 0x.., 0b.., 0[0-7_]+ */
	{
		const char *p = s;
		int neg = 0;

		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		if (*p && all_match(p, "0123456789_") && (p[0] != '0' || !p[1]) && p[0] != '_') {
			char buf[64];
			size_t j = 0;

			if (neg)
				buf[j++] = '-';
			for (; *p && j < sizeof(buf) - 1; p++)
				if (*p != '_')
					buf[j++] = *p;
			buf[j] = '\0';
			if (!strcmp(buf, "-0"))
				return rm_xstrdup("0");
			return rm_xstrdup(buf);
		}
		if (p[0] == '0' && (p[1] == 'x') && p[2] && all_match(p + 2, "0123456789abcdefABCDEF_")) {
			unsigned long long v = 0;

			for (p += 2; *p; p++) {
				if (*p == '_')
					continue;
				if (v > (~0ULL >> 4))
					return rm_xstrdup(s);
				v = v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' :
							(tolower((unsigned char)*p) - 'a' + 10));
			}
			snprintf(tmp, sizeof(tmp), "%s%llu", neg ? "-" : "", v);
			return rm_xstrdup(tmp);
		}
	}
	/* floats: [-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)? as YAML 1.1 */
	{
		const char *p = s;
		int saw_dot = 0, saw_digit = 0;
		char buf[64];
		size_t j = 0;

		if (*p == '-' || *p == '+')
			buf[j++] = *p++;
		for (; *p && (isdigit((unsigned char)*p) || *p == '_' || *p == '.'); p++) {
			if (*p == '_')
				continue;
			if (*p == '.') {
				if (saw_dot)
					break;
				saw_dot = 1;
			} else {
				saw_digit = 1;
			}
			if (j < sizeof(buf) - 1)
				buf[j++] = *p;
		}
		if (saw_dot && saw_digit) {
			if ((*p == 'e' || *p == 'E') && (p[1] == '-' || p[1] == '+') && p[2] &&
			    all_match(p + 2, "0123456789")) {
				while (*p && j < sizeof(buf) - 1)
					buf[j++] = *p++;
			}
			if (!*p) {
				double d;

				buf[j] = '\0';
				errno = 0;
				d = strtod(buf, NULL);
				if (!errno) {
					rm_ruby_float_to_s(d, tmp, sizeof(tmp));
					return rm_xstrdup(tmp);
				}
			}
		}
	}
	return rm_xstrdup(s);
}
