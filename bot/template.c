/* template.c - see template.h. */
#include "template.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"

#define TEMPLATE_MAX_FILE (1u << 20)
#define TEMPLATE_MAX_DEPTH 8           /* partials within partials */
#define TEMPLATE_MAX_NESTING 64        /* sections within sections */
#define TEMPLATE_MAX_OUTPUT (16u << 20) /* nested lists multiply: a rendered report is far smaller */

/* ------------------------------------------------------------ data */

enum tval_type { TV_STR, TV_LIST };

struct tval {
	char *key;
	enum tval_type type;
	char *s;
	struct rm_tdata **items;
	size_t n;
};

struct rm_tdata {
	struct tval *v;
	size_t n, alloc;
};

struct rm_tdata *rm_tdata_new(void)
{
	return rm_xcalloc(1, sizeof(struct rm_tdata));
}

static void tval_clear(struct tval *t)
{
	size_t i;

	free(t->s);
	t->s = NULL;
	for (i = 0; i < t->n; i++)
		rm_tdata_free(t->items[i]);
	free(t->items);
	t->items = NULL;
	t->n = 0;
}

void rm_tdata_free(struct rm_tdata *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++) {
		tval_clear(&d->v[i]);
		free(d->v[i].key);
	}
	free(d->v);
	free(d);
}

static struct tval *slot(struct rm_tdata *d, const char *key)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].key, key))
			return &d->v[i];
	d->v = rm_xgrow(d->v, &d->alloc, d->n + 1, sizeof(*d->v));
	memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
	d->v[d->n].key = rm_xstrdup(key);
	return &d->v[d->n++];
}

void rm_tdata_set(struct rm_tdata *d, const char *key, const char *value)
{
	struct tval *t = slot(d, key);

	tval_clear(t);
	t->type = TV_STR;
	t->s = rm_xstrdup(value ? value : "");
}

void rm_tdata_setf(struct rm_tdata *d, const char *key, const char *fmt, ...)
{
	struct rm_sb sb = RM_SB_INIT;
	va_list ap;
	int n;

	rm_sb_init(&sb);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		rm_sb_grow(&sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb.buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb.len = (size_t)n;
	}
	rm_tdata_set(d, key, sb.buf);
	rm_sb_release(&sb);
}

void rm_tdata_list(struct rm_tdata *d, const char *key)
{
	struct tval *t = slot(d, key);

	if (t->type != TV_LIST) {
		tval_clear(t);
		t->type = TV_LIST;
	}
}

struct rm_tdata *rm_tdata_add(struct rm_tdata *d, const char *key)
{
	struct tval *t = slot(d, key);

	if (t->type != TV_LIST) {
		tval_clear(t);
		t->type = TV_LIST;
	}
	t->items = rm_xrealloc(t->items, (t->n + 1) * sizeof(*t->items));
	t->items[t->n] = rm_tdata_new();
	return t->items[t->n++];
}

const char *rm_tdata_get(const struct rm_tdata *d, const char *key)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].key, key))
			return d->v[i].type == TV_STR ? d->v[i].s : NULL;
	return NULL;
}

/* ------------------------------------------------------------ parsing */

enum node_type { N_TEXT, N_VAR, N_SECTION, N_INVERTED, N_PARTIAL };

struct node {
	enum node_type type;
	char *text;   /* text, or the name */
	size_t len;
	int line;
	struct node *children;
	size_t nchildren;
};

struct parser {
	const char *file;
	const char *s;
	size_t len, pos;
	int line;
	int nesting;
	struct rm_error *err;
};

static void free_nodes(struct node *n, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(n[i].text);
		free_nodes(n[i].children, n[i].nchildren);
	}
	free(n);
}

static struct node *push(struct node **v, size_t *n)
{
	*v = rm_xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	return &(*v)[(*n)++];
}

static int count_lines(const char *s, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

static bool valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return false;
	return true;
}

/* Parse until the end or a close tag for `open` (NULL at top level). */
static int parse_block(struct parser *p, const char *open, int open_line, struct node **out,
		       size_t *nout)
{
	*out = NULL;
	*nout = 0;
	for (;;) {
		const char *start = p->s + p->pos;
		const char *tag = p->pos < p->len ? strstr(start, "{{") : NULL;
		size_t textlen = tag ? (size_t)(tag - start) : p->len - p->pos;
		const char *close, *name;
		size_t namelen, after;
		char kind;

		if (tag && (size_t)(tag - p->s) >= p->len)
			tag = NULL, textlen = p->len - p->pos;
		if (!tag) {
			if (textlen) {
				struct node *n = push(out, nout);

				n->type = N_TEXT;
				n->text = rm_xstrndup(start, textlen);
				n->len = textlen;
				n->line = p->line;
			}
			p->line += count_lines(start, textlen);
			p->pos = p->len;
			if (open)
				return rm_error_set(p->err, RM_ERR_CONFIG,
						    "template '%s' line %d: section '%s' is not closed",
						    p->file, open_line, open);
			return 0;
		}
		close = strstr(tag + 2, "}}");
		if (!close || (size_t)(close - p->s) >= p->len)
			return rm_error_set(p->err, RM_ERR_CONFIG,
					    "template '%s' line %d: '{{' without '}}'", p->file,
					    p->line + count_lines(start, textlen));
		kind = tag[2];
		name = tag + 2;
		if (kind == '#' || kind == '^' || kind == '/' || kind == '>' || kind == '!')
			name++;
		while (name < close && *name == ' ')
			name++;
		namelen = (size_t)(close - name);
		while (namelen && name[namelen - 1] == ' ')
			namelen--;
		after = (size_t)(close + 2 - p->s);

		/* standalone: only blanks around the tag on its line */
		if (kind == '#' || kind == '^' || kind == '/' || kind == '>' || kind == '!') {
			size_t line_start = (size_t)(tag - p->s);

			while (line_start > 0 && (p->s[line_start - 1] == ' ' || p->s[line_start - 1] == '\t'))
				line_start--;
			if (line_start == 0 || p->s[line_start - 1] == '\n') {
				size_t k = after;

				while (k < p->len && (p->s[k] == ' ' || p->s[k] == '\t'))
					k++;
				if (k == p->len || p->s[k] == '\n') {
					textlen = line_start - p->pos;
					after = k < p->len ? k + 1 : k;
				}
			}
		}
		if (textlen) {
			struct node *n = push(out, nout);

			n->type = N_TEXT;
			n->text = rm_xstrndup(start, textlen);
			n->len = textlen;
			n->line = p->line;
		}
		p->line += count_lines(start, (size_t)(tag - start));
		{
			int tag_line = p->line;

			p->line += count_lines(tag, (size_t)(p->s + after - tag));
			p->pos = after;
			if (kind == '!')
				continue;
			if (!valid_name(name, namelen))
				return rm_error_set(p->err, RM_ERR_CONFIG,
						    "template '%s' line %d: bad tag '{{%.*s}}'", p->file,
						    tag_line, (int)(close - tag - 2), tag + 2);
			if (kind == '/') {
				if (!open || strlen(open) != namelen || strncmp(open, name, namelen))
					return rm_error_set(p->err, RM_ERR_CONFIG,
							    "template '%s' line %d: '{{/%.*s}}' closes %s%s%s",
							    p->file, tag_line, (int)namelen, name,
							    open ? "'" : "nothing", open ? open : "",
							    open ? "'" : "");
				return 0;
			}
			{
				struct node *n = push(out, nout);

				n->text = rm_xstrndup(name, namelen);
				n->len = namelen;
				n->line = tag_line;
				if (kind == '#' || kind == '^') {
					struct node *kids;
					size_t nkids;
					char *sect = rm_xstrdup(n->text);
					int rc;

					n->type = kind == '#' ? N_SECTION : N_INVERTED;
					if (++p->nesting > TEMPLATE_MAX_NESTING) {
						free(sect);
						return rm_error_set(p->err, RM_ERR_CONFIG,
								    "template '%s' line %d: sections nested deeper than %d",
								    p->file, tag_line, TEMPLATE_MAX_NESTING);
					}
					rc = parse_block(p, sect, tag_line, &kids, &nkids);
					p->nesting--;
					free(sect);
					/* `out` may have moved: find the node again */
					n = &(*out)[*nout - 1];
					n->children = kids;
					n->nchildren = nkids;
					if (rc)
						return -1;
				} else if (kind == '>') {
					n->type = N_PARTIAL;
				} else {
					n->type = N_VAR;
				}
			}
		}
	}
}

/* ------------------------------------------------------------ rendering */

struct scope {
	const struct rm_tdata *d;
	const struct scope *up;
};

static const struct tval *lookup(const struct scope *sc, const char *name)
{
	for (; sc; sc = sc->up) {
		size_t i;

		for (i = 0; i < sc->d->n; i++)
			if (!strcmp(sc->d->v[i].key, name))
				return &sc->d->v[i];
	}
	return NULL;
}

/* Append a variable's value; a line of it that would end beyond column
 * RM_TEMPLATE_VALUE_COL of the output is cut there (at a character
 * boundary) and ends in "...": whatever a value holds (a 2,000-character
 * patch subject, a slug of it), the line it lands on stays a mail line. */
static void add_value(struct rm_sb *out, const char *v)
{
	while (*v) {
		size_t seg = strcspn(v, "\n"), col = 0;

		while (col < out->len && out->buf[out->len - col - 1] != '\n')
			col++;
		if (col + seg > RM_TEMPLATE_VALUE_COL) {
			size_t room = col + 3 < RM_TEMPLATE_VALUE_COL ? RM_TEMPLATE_VALUE_COL - col - 3 : 0;
			while (room && ((unsigned char)v[room] & 0xc0) == 0x80)
				room--; /* do not split a UTF-8 character */
			rm_sb_add(out, v, room);
			rm_sb_adds(out, "...");
		} else {
			rm_sb_add(out, v, seg);
		}
		v += seg;
		if (*v == '\n') {
			rm_sb_addc(out, '\n');
			v++;
		}
	}
}

/* The template's own text can still make a line too long: an error naming
 * the template, since no value can be cut to help. */
static int check_lines(const char *name, const struct rm_sb *out, struct rm_error *err)
{
	size_t i = 0, line = 1;

	while (i < out->len) {
		const char *nl = memchr(out->buf + i, '\n', out->len - i);
		size_t l = nl ? (size_t)(nl - (out->buf + i)) : out->len - i;

		if (l > RM_TEMPLATE_LINE_MAX)
			return rm_error_set(err, RM_ERR_CONFIG,
					    "template '%s': output line %zu is %zu octets long; its text beside the variables must leave it at most %d",
					    name, line, l, RM_TEMPLATE_LINE_MAX);
		i += l + 1;
		line++;
	}
	return 0;
}

struct render {
	const char *dir;
	const char *file;
	int depth;
	struct rm_error *err;
};

static int render_file(struct render *r, const char *name, const struct scope *sc,
		       struct rm_sb *out, int line);

static int render_nodes(struct render *r, const struct node *n, size_t count,
			const struct scope *sc, struct rm_sb *out)
{
	size_t i, k;

	for (i = 0; i < count; i++) {
		const struct tval *t;

		if (out->len > TEMPLATE_MAX_OUTPUT)
			return rm_error_set(r->err, RM_ERR_CONFIG,
					    "template '%s' line %d: output larger than %u bytes (nested lists?)",
					    r->file, n[i].line, TEMPLATE_MAX_OUTPUT);
		switch (n[i].type) {
		case N_TEXT:
			rm_sb_add(out, n[i].text, n[i].len);
			break;
		case N_VAR:
			t = lookup(sc, n[i].text);
			if (!t)
				return rm_error_set(r->err, RM_ERR_CONFIG,
						    "template '%s' line %d: unknown variable '%s'",
						    r->file, n[i].line, n[i].text);
			if (t->type != TV_STR)
				return rm_error_set(r->err, RM_ERR_CONFIG,
						    "template '%s' line %d: '%s' is a list; use {{#%s}}",
						    r->file, n[i].line, n[i].text, n[i].text);
			add_value(out, t->s);
			break;
		case N_SECTION:
		case N_INVERTED: {
			bool truthy;

			t = lookup(sc, n[i].text);
			if (!t)
				return rm_error_set(r->err, RM_ERR_CONFIG,
						    "template '%s' line %d: unknown variable '%s'",
						    r->file, n[i].line, n[i].text);
			truthy = t->type == TV_LIST ? t->n > 0 : t->s[0] != '\0';
			if (n[i].type == N_INVERTED) {
				if (!truthy && render_nodes(r, n[i].children, n[i].nchildren, sc, out))
					return -1;
				break;
			}
			if (t->type == TV_STR) {
				if (truthy && render_nodes(r, n[i].children, n[i].nchildren, sc, out))
					return -1;
				break;
			}
			for (k = 0; k < t->n; k++) {
				struct scope inner = { t->items[k], sc };

				if (render_nodes(r, n[i].children, n[i].nchildren, &inner, out))
					return -1;
			}
			break;
		}
		case N_PARTIAL:
			if (render_file(r, n[i].text, sc, out, n[i].line))
				return -1;
			break;
		}
	}
	return 0;
}

static int render_text(struct render *r, const char *file, const char *text, size_t len,
		       const struct scope *sc, struct rm_sb *out)
{
	char *copy;
	struct parser p;
	struct node *nodes;
	size_t n;
	const char *saved = r->file;
	int rc;

	if (memchr(text, '\0', len))
		return rm_error_set(r->err, RM_ERR_CONFIG, "template '%s': contains a NUL byte", file);
	copy = rm_xstrndup(text, len); /* the parser needs a terminated string */
	p.file = file;
	p.s = copy;
	p.len = len;
	p.pos = 0;
	p.line = 1;
	p.nesting = 0;
	p.err = r->err;
	if (parse_block(&p, NULL, 0, &nodes, &n)) {
		free_nodes(nodes, n);
		free(copy);
		return -1;
	}
	free(copy);
	r->file = file;
	rc = render_nodes(r, nodes, n, sc, out);
	r->file = saved;
	free_nodes(nodes, n);
	return rc;
}

static int render_file(struct render *r, const char *name, const struct scope *sc,
		       struct rm_sb *out, int line)
{
	char *path, *buf;
	size_t len;
	int rc;

	if (!r->dir)
		return rm_error_set(r->err, RM_ERR_CONFIG,
				    "template '%s' line %d: no template directory for '%s'",
				    r->file ? r->file : "?", line, name);
	if (strstr(name, "..") || strchr(name, '/'))
		return rm_error_set(r->err, RM_ERR_CONFIG,
				    "template '%s' line %d: partial '%s' must be a plain file name",
				    r->file ? r->file : "?", line, name);
	if (++r->depth > TEMPLATE_MAX_DEPTH) {
		r->depth--;
		return rm_error_set(r->err, RM_ERR_CONFIG,
				    "template '%s' line %d: partials nested deeper than %d (a loop?)",
				    r->file ? r->file : "?", line, TEMPLATE_MAX_DEPTH);
	}
	path = rm_path_join(r->dir, name);
	if (rm_read_file(path, TEMPLATE_MAX_FILE, &buf, &len, r->err)) {
		if (r->file)
			rm_error_prefix(r->err, "template '%s' line %d", r->file, line);
		r->err->kind = RM_ERR_CONFIG;
		free(path);
		r->depth--;
		return -1;
	}
	rc = render_text(r, path, buf, len, sc, out);
	free(buf);
	free(path);
	r->depth--;
	return rc;
}

int rm_template_render(const char *dir, const char *name, const struct rm_tdata *d,
		       struct rm_sb *out, struct rm_error *err)
{
	struct render r = { dir, NULL, 0, err };
	struct scope sc = { d, NULL };
	struct rm_sb tmp = RM_SB_INIT;
	int rc;

	rm_sb_init(&tmp);
	rc = render_file(&r, name, &sc, &tmp, 0);
	if (!rc)
		rc = check_lines(name, &tmp, err);
	if (!rc)
		rm_sb_add(out, tmp.buf, tmp.len);
	rm_sb_release(&tmp);
	return rc;
}

int rm_template_render_text(const char *dir, const char *name, const char *text, size_t len,
			    const struct rm_tdata *d, struct rm_sb *out, struct rm_error *err)
{
	struct render r = { dir, NULL, 0, err };
	struct scope sc = { d, NULL };
	struct rm_sb tmp = RM_SB_INIT;
	int rc;

	rm_sb_init(&tmp);
	rc = render_text(&r, name, text, len, &sc, &tmp);
	if (!rc)
		rc = check_lines(name, &tmp, err);
	if (!rc)
		rm_sb_add(out, tmp.buf, tmp.len);
	rm_sb_release(&tmp);
	return rc;
}
