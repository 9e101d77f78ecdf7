/*
 * keep-intern.h - for the matrix reader's tests (tests/unit/test_matrix.c,
 * tests/fuzz/fuzz_json.c): a keep() (matrix.h, rm_matrix_keep_fn) that
 * lends a copy of every name and marks it with the reading, as the rules'
 * decision cache does, so the reader finds duplicate keys by the marks.
 * Which rows it keeps is the caller's `want`.  Not part of robotmail.
 */
#ifndef RM_TEST_KEEP_INTERN_H
#define RM_TEST_KEEP_INTERN_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* ctx of keep_intern: zero it with want set; keep_intern_free at the end
 * (the copies live until then, longer than the matrices that borrow them). */
struct interned {
	bool (*want)(const char *name);
	char **name;
	unsigned *read;
	size_t n, alloc;
};

static inline bool keep_intern(void *ctx, const char *name, unsigned read, const char **stored,
			       bool *again)
{
	struct interned *t = ctx;
	size_t i;

	for (i = 0; i < t->n && strcmp(t->name[i], name); i++)
		;
	if (i == t->n) {
		size_t alloc = t->alloc;

		t->name = rm_xgrow(t->name, &t->alloc, t->n + 1, sizeof(*t->name));
		t->read = rm_xgrow(t->read, &alloc, t->n + 1, sizeof(*t->read));
		t->name[t->n] = rm_xstrdup(name);
		t->read[t->n++] = 0;
	}
	*stored = t->name[i];
	if (read) {
		*again = t->read[i] == read;
		t->read[i] = read;
	}
	return t->want(name);
}

static inline void keep_intern_free(struct interned *t)
{
	while (t->n)
		free(t->name[--t->n]);
	free(t->name);
	free(t->read);
	t->name = NULL;
	t->read = NULL;
	t->alloc = 0;
}

#endif
