/*
 * template.h - the small template engine for templates/ (*.txt).
 *
 * Owns: parsing and rendering templates, and the data they are rendered
 * from.  The syntax is a strict subset of Mustache, without HTML escaping:
 *
 *   {{name}}            the string value of `name`
 *   {{#name}}...{{/name}}  a list: the block once per item, with the item's
 *                       values in scope; a string: the block once when it is
 *                       not empty
 *   {{^name}}...{{/name}}  the block when `name` is empty (or an empty list)
 *   {{> file.txt}}      another template of the same directory (a partial)
 *   {{! comment}}       nothing
 *
 * A line holding only a section, partial or comment tag (and blanks) is
 * removed whole, newline included, so templates can be laid out freely and
 * still produce blank lines, tabs and trailing blanks exactly.  Everything
 * else is copied byte for byte.
 *
 * Mail lines: a line of a value that would end beyond column
 * RM_TEMPLATE_VALUE_COL of the output is cut there, at a character
 * boundary, and ends in "..." (the value is text from commits, patch mails
 * and archives; a report must not be lost to a long one).  A rendered line
 * longer than RM_TEMPLATE_LINE_MAX octets (only the template's own text can
 * make one) is an error naming the template.
 *
 * Strict: a name that is not defined, a section not closed, a close that
 * does not match, a missing partial or an include loop is an error naming
 * the template file and line.  The whole template is checked before
 * anything is rendered.
 *
 * Must not: know about reports (report.c fills the data).
 */
#ifndef RM_TEMPLATE_H
#define RM_TEMPLATE_H

#include "error.h"
#include "strbuf.h"

#define RM_TEMPLATE_LINE_MAX 998 /* octets of a mail line (RFC 5322 2.1.1) */
#define RM_TEMPLATE_VALUE_COL 900 /* a value's line ends here at the latest */

struct rm_tdata;

/* A new, empty map.  Free with rm_tdata_free() (frees everything below). */
struct rm_tdata *rm_tdata_new(void);
void rm_tdata_free(struct rm_tdata *d);
/* Set a string (copied).  NULL sets the empty string. */
void rm_tdata_set(struct rm_tdata *d, const char *key, const char *value);
void rm_tdata_setf(struct rm_tdata *d, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Make `key` a list (empty if new) and append a new map item to it; the item
 * is owned by d. */
struct rm_tdata *rm_tdata_add(struct rm_tdata *d, const char *key);
/* Make `key` an empty list. */
void rm_tdata_list(struct rm_tdata *d, const char *key);
/* The string value of key in d itself, or NULL. */
const char *rm_tdata_get(const struct rm_tdata *d, const char *key);

/* Render `name` from directory `dir` with data d, appending to out.  On error
 * nothing is appended and err says "template '<dir>/<name>' line N: ...". */
int rm_template_render(const char *dir, const char *name, const struct rm_tdata *d,
		       struct rm_sb *out, struct rm_error *err);

/* Render template text held in memory (for tests and fuzzing); partials are
 * looked up in dir (may be NULL: partials are then errors). */
int rm_template_render_text(const char *dir, const char *name, const char *text, size_t len,
			    const struct rm_tdata *d, struct rm_sb *out, struct rm_error *err);

#endif
