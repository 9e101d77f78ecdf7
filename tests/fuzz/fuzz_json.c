/*
 * fuzz_json.c - libFuzzer target: arbitrary bytes as LKP JSON (stats.json,
 * matrix.json), through rm_json_load's NaN/Infinity rewriting and jansson,
 * and through matrix.c's own scanner, which must accept exactly what
 * rm_json_load accepts (a difference traps); then through both matrix
 * readers (whole file, and streamed through a tiny window a few bytes at a
 * time), which must agree: the stream gives the same matrix or hands over.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonload.h"
#include "matrix.h"
#include "keep-intern.h"

struct chunks {
	const char *p;
	size_t left, step;
};

static long chunk_read(void *ctx, char *buf, size_t cap)
{
	struct chunks *c = ctx;
	size_t n = c->left < c->step ? c->left : c->step;

	if (n > cap)
		n = cap;
	memcpy(buf, c->p, n);
	c->p += n;
	c->left -= n;
	return (long)n;
}

/* an arbitrary, fixed choice of rows to drop */
static bool keep_even(void *ctx, const char *name, unsigned read, const char **stored, bool *again)
{
	(void)ctx;
	(void)read;
	(void)stored;
	(void)again;
	return strlen(name) % 2 == 0;
}

static bool even_length(const char *name)
{
	return strlen(name) % 2 == 0;
}

static void check_readers(const char *data, size_t size)
{
	struct rm_matrix a, b;
	struct rm_error err;
	struct chunks c = { data, size, 1 + size % 5 };
	struct interned t = { even_length, NULL, NULL, 0, 0 };
	rm_matrix_keep_fn keep = size % 3 ? keep_intern : keep_even;
	int ra, rb;
	size_t i, k;

	rm_error_clear(&err);
	ra = rm_matrix_read(&a, "fuzz/matrix.json", data, size, keep, &t, &err);
	if (ra && (err.kind == RM_OK || !err.msg[0]))
		__builtin_trap();
	rm_matrix_stream_window = 1 + size % 64;
	rb = rm_matrix_read_stream(&b, "fuzz/matrix.json", chunk_read, &c, keep, &t);
	if (ra && !rb)
		__builtin_trap();
	if (!ra && !rb) {
		if (a.n != b.n || a.cols != b.cols || a.ndropped != b.ndropped ||
		    a.dropped_bases != b.dropped_bases || a.regex_stem != b.regex_stem)
			__builtin_trap();
		for (i = 0; i < a.n; i++) {
			if (strcmp(a.s[i].name, b.s[i].name) || a.s[i].n != b.s[i].n ||
			    a.s[i].is_bad != b.s[i].is_bad || a.s[i].is_string != b.s[i].is_string)
				__builtin_trap();
			for (k = 0; k < a.s[i].n; k++)
				if (memcmp(&a.s[i].v[k], &b.s[i].v[k], sizeof(double)) ||
				    a.s[i].is_int[k] != b.s[i].is_int[k])
					__builtin_trap();
		}
	}
	if (!ra)
		rm_matrix_free(&a);
	if (!rb)
		rm_matrix_free(&b);
	keep_intern_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_error err;
	size_t nan = (size_t)-1;
	json_t *j;

	rm_error_clear(&err);
	j = rm_json_load("fuzz/stats.json", (const char *)data, size, &nan, &err);
	if (rm_matrix_json_valid((const char *)data, size) != (j != NULL))
		__builtin_trap();
	check_readers((const char *)data, size);
	if (!j) {
		if (err.kind == RM_OK || !err.msg[0])
			__builtin_trap();
		return 0;
	}
	/* at most one rewrite per 3 input bytes ("NaN" is the shortest token) */
	if (nan > size / 3)
		__builtin_trap();
	json_decref(j);
	return 0;
}
