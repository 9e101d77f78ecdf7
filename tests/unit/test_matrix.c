/* test_matrix.c - the single-pass matrix.json reader (bot/matrix.c) and the
 * rules' per-name decisions it leans on (bot/rules.c). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "unit.h"

#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "jsonload.h"
#include "matrix.h"

#include "../fuzz/keep-intern.h"
#include "strbuf.h"

static int read_text(struct rm_matrix *m, const char *text, rm_matrix_keep_fn keep,
		     struct rm_error *err)
{
	rm_error_clear(err);
	return rm_matrix_read(m, "r/matrix.json", text, strlen(text), keep, NULL, err);
}

static void test_matrix_values_sorted_and_padded(void **state)
{
	const char *text = "{\n  \"b.x\": [1, 2.5, -0, 3e2],\n"
			   "  \"stats_source\": [\"1\", \"2\", \"3\", \"4\", \"5\"],\n"
			   "  \"a.y\": [4]\n}";
	struct rm_matrix m;
	struct rm_error err;
	const struct rm_series *s;

	(void)state;
	assert_int_equal(read_text(&m, text, NULL, &err), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.cols, 5); /* the stats_source count */
	assert_string_equal(m.s[0].name, "a.y");
	assert_string_equal(m.s[1].name, "b.x");
	s = rm_matrix_get(&m, "b.x");
	assert_non_null(s);
	assert_int_equal(s->n, 5);
	assert_true(s->v[0] == 1 && s->is_int[0]);
	assert_true(s->v[1] == 2.5 && !s->is_int[1]);
	/* "-0" is json_integer 0: a positive zero, as jansson held it */
	assert_true(s->v[2] == 0 && !signbit(s->v[2]) && s->is_int[2]);
	assert_true(s->v[3] == 300 && !s->is_int[3]);
	assert_true(s->v[4] == 0 && s->is_int[4]); /* padded with Integer 0 */
	s = rm_matrix_get(&m, "a.y");
	assert_true(s->n == 5 && s->v[0] == 4 && s->v[1] == 0 && s->is_int[1]);
	assert_false(s->is_bad || s->is_string);
	rm_matrix_free(&m);

	/* no stats_source: the longer of the first and the last array */
	assert_int_equal(read_text(&m, "{\"a\": [1, 2], \"b\": [1], \"c\": [1, 2, 3]}", NULL,
				   &err), 0);
	assert_int_equal(m.cols, 3);
	rm_matrix_free(&m);
	assert_int_equal(read_text(&m, "{\"a\": [1, 2], \"b\": [1, 2, 3, 4], \"c\": [1]}", NULL,
				   &err), 0);
	assert_int_equal(m.cols, 2);
	rm_matrix_free(&m);
}

static void test_matrix_nan_infinity_strings(void **state)
{
	const char *text = "{\"n\": [1, NaN], \"i\": [Infinity, 2], \"m\": [-Infinity],"
			   " \"s\": [\"NaN in a string\", 1], \"o\": [{\"k\": [null]}, true],"
			   " \"ok\": [1e-400, 0.5]}";
	struct rm_matrix m;
	struct rm_error err;

	(void)state;
	assert_int_equal(read_text(&m, text, NULL, &err), 0);
	assert_true(rm_matrix_get(&m, "n")->is_bad);
	assert_true(rm_matrix_get(&m, "i")->is_bad);
	assert_true(rm_matrix_get(&m, "m")->is_bad);
	assert_true(rm_matrix_get(&m, "o")->is_bad);
	assert_true(rm_matrix_get(&m, "s")->is_string);
	assert_false(rm_matrix_get(&m, "s")->is_bad);
	/* an underflow is 0 (strtod), not an error, as in jansson */
	assert_false(rm_matrix_get(&m, "ok")->is_bad);
	assert_true(rm_matrix_get(&m, "ok")->v[0] == 0);
	rm_matrix_free(&m);
}

/* The reader's refusal reads exactly as jansson's (rm_json_load's) did. */
static void test_matrix_syntax_errors_are_janssons(void **state)
{
	static const char *const bad[] = {
		"{\"a\": [1, 2",                 /* truncated */
		"{\"a\": [1, 2]}\n{",            /* trailing data */
		"{\"a\": [1,]}",                 /* trailing comma */
		"{\"a\": [01]}",                 /* leading zero */
		"{\"a\": [1.]}",                 /* no fraction digits */
		"{\"a\": [1e]}",                 /* no exponent digits */
		"{\"a\": [-]}",                  /* a bare minus */
		"{\"a\": [-NaN]}",               /* not a token */
		"{\"a\": [NaNa]}",               /* not a token */
		"{\"a\": [9223372036854775808]}", /* too big integer */
		"{\"a\": [-9223372036854775809]}",
		"{\"a\": [1e400]}",              /* real number overflow */
		"{\"a\": [1], \"a\": [2]}",      /* duplicate key */
		"{\"ab\": [1], \"a\\u0062\": [2]}", /* duplicate once decoded */
		"{\"a\": [{\"k\": 1, \"k\": 2}]}", /* duplicate in a nested object */
		"{\"a\\u0000\": [1]}",           /* NUL in a key */
		"{\"a\": [\"\\ud800\"]}",        /* lone surrogate */
		"{\"a\": [\"\\udc00\\ud800\"]}",
		"{\"a\": [\"\\x\"]}",            /* bad escape */
		"{\"a\": [\"\x01\"]}",           /* control character */
		"{\"a\": [\"\xc0\x80\"]}",       /* overlong UTF-8 */
		"{\"a\": [\"\xed\xa0\x80\"]}",   /* UTF-8 surrogate */
		"{\"a\": [\"\xf4\x90\x80\x80\"]}", /* beyond U+10FFFF */
		"{\"a\": [tru]}",
		"{a: [1]}",
		"{\"a\" [1]}",
		"\"just a string\"",
		"",
		"NaN",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rm_matrix m;
		struct rm_error err, jerr;

		rm_error_clear(&jerr);
		assert_false(rm_matrix_json_valid(bad[i], strlen(bad[i])));
		assert_null(rm_json_load("r/matrix.json", bad[i], strlen(bad[i]), NULL, &jerr));
		assert_int_equal(read_text(&m, bad[i], NULL, &err), -1);
		assert_int_equal(err.kind, RM_ERR_INPUT);
		assert_string_equal(err.msg, jerr.msg);
		assert_non_null(strstr(err.msg, "'r/matrix.json' line "));
		assert_int_equal(m.n, 0);
	}
}

/* Valid JSON the reader must take as jansson does. */
static void test_matrix_valid_like_jansson(void **state)
{
	static const char *const good[] = {
		"{}",
		"[]",
		" \t\r\n{\"a\": [] }\n",
		"{\"a\": [\"\\ud83d\\ude00 \\u00e9 \xc3\xa9 \\\"\\\\\\/\\b\\f\\n\\r\\t\"]}",
		"{\"a\": [\"\\u0000\"]}", /* NUL in a value: JSON_ALLOW_NUL */
		"{\"a\": [-9223372036854775808, 9223372036854775807, -0.0e-0, 1E+2]}",
		"{\"a\": [{\"k\": 1, \"j\": {\"k\": 2}}, [[[]]]], \"b\": {\"k\": [1], \"l\": 2}}",
		"[1, NaN, Infinity, -Infinity, true, false, null, \"x\", {}]",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rm_error jerr;
		json_t *j = rm_json_load("x.json", good[i], strlen(good[i]), NULL, &jerr);

		assert_non_null(j);
		json_decref(j);
		assert_true(rm_matrix_json_valid(good[i], strlen(good[i])));
	}
}

static void test_matrix_depth_limit(void **state)
{
	struct rm_sb sb = RM_SB_INIT;
	struct rm_error jerr;
	json_t *j;
	int depth;

	(void)state;
	/* depth counts every value, the top object is 1: both readers allow
	 * RM_MATRIX_MAX_DEPTH (rm_json_load's limit) */
	for (depth = RM_MATRIX_MAX_DEPTH - 1; depth <= RM_MATRIX_MAX_DEPTH + 1; depth++) {
		bool ok;

		rm_sb_init(&sb);
		rm_sb_adds(&sb, "{\"a\": ");
		rm_sb_addn(&sb, '[', (size_t)depth - 2);
		rm_sb_adds(&sb, "1");
		rm_sb_addn(&sb, ']', (size_t)depth - 2);
		rm_sb_adds(&sb, "}");
		j = rm_json_load("x.json", sb.buf, sb.len, NULL, &jerr);
		ok = rm_matrix_json_valid(sb.buf, sb.len);
		assert_int_equal(ok, j != NULL);
		assert_int_equal(ok, depth <= RM_MATRIX_MAX_DEPTH);
		json_decref(j);
		rm_sb_release(&sb);
	}
}

static void test_matrix_shape_errors(void **state)
{
	struct rm_matrix m;
	struct rm_error err;

	(void)state;
	assert_int_equal(read_text(&m, "[1, 2]", NULL, &err), -1);
	assert_string_equal(err.msg, "'r/matrix.json': expected a JSON object of stat arrays");
	/* stats_source is checked before any stat, wherever it is */
	assert_int_equal(read_text(&m, "{\"a\": 1, \"stats_source\": 3}", NULL, &err), -1);
	assert_string_equal(err.msg, "'r/matrix.json': 'stats_source': expected an array");
	assert_int_equal(read_text(&m, "{\"a\": [1], \"b\": 2, \"c\": {}}", NULL, &err), -1);
	assert_string_equal(err.msg,
			    "'r/matrix.json': stat 'b': expected an array with one value per run");
	assert_int_equal(read_text(&m, "{\"a b\": [1]}", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "stat 'a b': expected a stat name without white space"));
	/* a syntax error anywhere wins over a shape error before it */
	assert_int_equal(read_text(&m, "{\"b\": 2, \"c\": [1,]}", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "invalid JSON"));
}

static bool keep_k(void *ctx, const char *name, unsigned read, const char **stored, bool *again)
{
	(void)ctx;
	(void)read;
	(void)stored;
	(void)again;
	return !strncmp(name, "k.", 2);
}

static bool k_prefix(const char *name)
{
	return !strncmp(name, "k.", 2);
}

static void test_matrix_drops_rows_while_reading(void **state)
{
	const char *text = "{\"k.a\": [1, 2], \"d.b\": [3, 4], \"perf-profile.x\": [1.5],"
			   " \"d.bad\": [1, NaN], \"d.str\": [\"x\"], \"k.c\": [5]}";
	struct rm_matrix m;
	struct rm_error err;

	(void)state;
	assert_int_equal(read_text(&m, text, keep_k, &err), 0);
	/* k.a, k.c kept; d.bad and d.str kept for their flags only */
	assert_int_equal(m.n, 4);
	assert_int_equal(m.ndropped, 2);
	assert_null(rm_matrix_get(&m, "d.b"));
	assert_null(rm_matrix_get(&m, "perf-profile.x"));
	assert_true(rm_matrix_get(&m, "d.bad")->is_bad);
	assert_true(rm_matrix_get(&m, "d.str")->is_string);
	assert_true(m.dropped_bases & RM_MATRIX_DROPPED_PERF_PROFILE);
	assert_false(m.dropped_bases & RM_MATRIX_DROPPED_LOCK_STAT);
	/* cols counts dropped rows too: the first and the last array */
	assert_int_equal(m.cols, 2);
	assert_true(rm_matrix_get(&m, "k.c")->n == 2 && rm_matrix_get(&m, "k.c")->v[1] == 0);
	assert_false(m.regex_stem);
	rm_matrix_free(&m);

	/* a .pass stat whose stem is regex syntax: the caller must re-read */
	assert_int_equal(read_text(&m, "{\"x|y.pass\": [1]}", keep_k, &err), 0);
	assert_true(m.regex_stem);
	rm_matrix_free(&m);
}

/* The stream reader, fed a few bytes at a time through a tiny window, gives
 * the whole-file reader's matrix, or hands over (1) and never decides alone. */
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

/* keep() that keeps every row and lends its own copies of the names. */
static const char *lent[] = { "k.a", "k.c", "d.b" };

static unsigned lent_read[3];

static bool keep_lend(void *ctx, const char *name, unsigned read, const char **stored, bool *again)
{
	size_t i;

	(void)ctx;
	assert_null(*stored);
	assert_false(*again);
	for (i = 0; i < sizeof(lent) / sizeof(lent[0]); i++)
		if (!strcmp(lent[i], name)) {
			*stored = lent[i];
			if (read) {
				*again = lent_read[i] == read;
				lent_read[i] = read;
			}
		}
	return true;
}

/* Series borrow the names keep() lends (matrix.h), whole file or streamed;
 * a name it does not lend is the matrix's own copy; values are as read. */
static void test_matrix_borrows_stored_names(void **state)
{
	const char *text = "{\"k.a\": [1, 2], \"d.b\": [3, 4], \"x.own\": [7, 8], \"k.c\": [5]}";
	struct rm_matrix m;
	struct rm_error err;
	const struct rm_series *s;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		struct chunks c = { text, strlen(text), 3 };

		if (pass == 0)
			assert_int_equal(read_text(&m, text, keep_lend, &err), 0);
		else
			assert_int_equal(rm_matrix_read_stream(&m, "r/matrix.json", chunk_read, &c,
							       keep_lend, NULL),
					 0);
		assert_int_equal(m.n, 4);
		assert_ptr_equal(rm_matrix_get(&m, "k.a")->name, lent[0]);
		assert_ptr_equal(rm_matrix_get(&m, "d.b")->name, lent[2]);
		s = rm_matrix_get(&m, "x.own");
		assert_non_null(s);
		assert_string_equal(s->name, "x.own");
		assert_true(s->v[0] == 7 && s->v[1] == 8);
		/* k.c is padded to the 2 columns: its own arrays and name */
		s = rm_matrix_get(&m, "k.c");
		assert_ptr_not_equal(s->name, lent[1]);
		assert_string_equal(s->name, "k.c");
		assert_int_equal(s->n, 2);
		assert_true(s->v[0] == 5 && s->v[1] == 0);
		s = rm_matrix_get(&m, "d.b");
		assert_true(s->v[0] == 3 && s->v[1] == 4);
		rm_matrix_free(&m);
	}
}

static void assert_same_matrix(const struct rm_matrix *a, const struct rm_matrix *b)
{
	size_t i, k;

	assert_int_equal(a->n, b->n);
	assert_int_equal(a->cols, b->cols);
	assert_int_equal(a->ndropped, b->ndropped);
	assert_int_equal(a->dropped_bases, b->dropped_bases);
	assert_int_equal(a->regex_stem, b->regex_stem);
	for (i = 0; i < a->n; i++) {
		assert_string_equal(a->s[i].name, b->s[i].name);
		assert_int_equal(a->s[i].n, b->s[i].n);
		assert_int_equal(a->s[i].is_bad, b->s[i].is_bad);
		assert_int_equal(a->s[i].is_string, b->s[i].is_string);
		for (k = 0; k < a->s[i].n; k++) {
			assert_memory_equal(&a->s[i].v[k], &b->s[i].v[k], sizeof(double));
			assert_int_equal(a->s[i].is_int[k], b->s[i].is_int[k]);
		}
	}
}

static void test_matrix_stream_matches_whole_file(void **state)
{
	static const char *const texts[] = {
		"{\"k.a\": [1, 2.5, 3], \"stats_source\": [\"x\", \"y\", \"z\", \"w\"], \"d.b\": [3],"
		" \"perf-profile.x\": [1.5], \"k.long-name-longer-than-the-window\": [123456.789e-3],"
		" \"k.o\": [{\"k\": {\"j\": [1, 2]}, \"l\": \"\\u00e9\"}], \"k.s\": [\"NaN\", -Infinity],"
		" \"k.z\": []}\n",
		"{}",
		" { \"k.a\" : [ 1 , 2 ] } ",
		"{\"k.a\": [1], \"k.a\": [2]}",  /* duplicate: handed over */
		"{\"d.a\": [1], \"d.a\": [2]}",  /* duplicate of a dropped key */
		"{\"k.a\": [1], \"b\": 2}",      /* shape error: handed over */
		"{\"k.a\": [1, 2]",              /* truncated */
		"{\"k.a\": [1, 2]} x",
		"[1]",
		/* stats_source twice (fuzz_json): alone, and with a series
		 * between (the stream took the second for another key) */
		"{\"stats_source\": [\"x\"], \"stats_source\": [\"y\"]}",
		"{\"stats_source\": [\"x\"], \"k.a\": [1], \"stats_source\": [\"y\"]}",
	};
	size_t i, window, step;
	size_t saved = rm_matrix_stream_window;
	struct interned t;
	int lend;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.want = k_prefix;
	/* keep_k lends no name (the reader's set of keys finds duplicates),
	 * keep_intern lends each (its marks do) */
	for (lend = 0; lend < 2; lend++)
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct rm_matrix whole;
		struct rm_error err;
		rm_matrix_keep_fn keep = lend ? keep_intern : keep_k;
		int wrc = rm_matrix_read(&whole, "r/matrix.json", texts[i], strlen(texts[i]), keep, &t,
					 &err);

		for (window = 1; window <= 64; window *= 2)
			for (step = 1; step <= 7; step += 3) {
				struct chunks c = { texts[i], strlen(texts[i]), step };
				struct rm_matrix m;
				int rc;

				rm_matrix_stream_window = window;
				rc = rm_matrix_read_stream(&m, "r/matrix.json", chunk_read, &c, keep, &t);
				if (wrc) {
					assert_int_equal(rc, 1);
				} else {
					assert_int_equal(rc, i == 0 || i == 1 || i == 2 ? 0 : 1);
					if (!rc)
						assert_same_matrix(&whole, &m);
				}
				assert_true(rc || m.n == whole.n);
				rm_matrix_free(&m);
			}
		if (!wrc)
			rm_matrix_free(&whole);
	}
	rm_matrix_stream_window = saved;
	keep_intern_free(&t);
}

/* A matrix read with `like` (a matrix read before through the same keep()
 * lending marked copies) is the matrix read without it: the same series
 * in the same order, the same file order; names like lacks are put in
 * between, first, last; with fewer than half of its names in like, or
 * like's names lent by another keep(), the plain sort does it. */
static void test_matrix_sorted_like(void **state)
{
	static const char *const heads[] = {
		/* k.a, k.c, k.z, k.0 not in the base */
		"{\"k.h\": [1], \"k.a\": [2], \"k.f\": [3], \"k.c\": [4], \"k.b\": [5],"
		" \"k.z\": [6], \"k.d\": [7], \"k.0\": [8], \"k.g\": [9]}",
		/* the base's names in another order */
		"{\"k.h\": [1], \"k.g\": [2], \"k.f\": [3], \"k.d\": [4], \"k.b\": [5]}",
		/* too few of the base's names */
		"{\"k.y\": [1], \"k.x\": [2], \"k.w\": [3], \"k.b\": [4], \"k.v\": [5]}",
		"{}",
	};
	const char *base = "{\"k.b\": [1], \"k.d\": [2], \"k.f\": [3], \"k.h\": [4], \"k.g\": [5]}";
	struct interned t, other;
	struct rm_matrix like, alien;
	size_t i, f;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&other, 0, sizeof(other));
	t.want = other.want = k_prefix;
	{
		struct chunks c = { base, strlen(base), 64 };
		struct chunks d = { base, strlen(base), 64 };

		assert_int_equal(rm_matrix_read_stream(&like, "b/matrix.json", chunk_read, &c, keep_intern, &t), 0);
		assert_int_equal(rm_matrix_read_stream(&alien, "b/matrix.json", chunk_read, &d, keep_intern, &other), 0);
	}
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		struct chunks c = { heads[i], strlen(heads[i]), 64 };
		struct chunks d = { heads[i], strlen(heads[i]), 64 };
		struct chunks e = { heads[i], strlen(heads[i]), 64 };
		struct rm_matrix want, got, got2;

		assert_int_equal(rm_matrix_read_stream(&want, "h/matrix.json", chunk_read, &c, keep_intern, &t), 0);
		assert_int_equal(rm_matrix_read_stream_like(&got, "h/matrix.json", chunk_read, &d, keep_intern, &t,
							    &like), 0);
		assert_int_equal(rm_matrix_read_stream_like(&got2, "h/matrix.json", chunk_read, &e, keep_intern, &t,
							    &alien), 0);
		assert_same_matrix(&want, &got);
		assert_same_matrix(&want, &got2);
		for (f = 0; f < want.n; f++) {
			assert_int_equal(got.file_order[f], want.file_order[f]);
			assert_int_equal(got2.file_order[f], want.file_order[f]);
			assert_ptr_equal(got.s[f].name, want.s[f].name);
		}
		/* file order: the keys as the text lists them, its first key first */
		if (want.n)
			assert_memory_equal(got.s[got.file_order[0]].name, heads[i] + 2, 3);
		rm_matrix_free(&want);
		rm_matrix_free(&got);
		rm_matrix_free(&got2);
	}
	rm_matrix_free(&like);
	rm_matrix_free(&alien);
	keep_intern_free(&t);
	keep_intern_free(&other);
}

/* Reals the reader converts itself give strtod's double, bit for bit. */
static void test_matrix_reals_are_strtods(void **state)
{
	struct rm_sb text = RM_SB_INIT, one = RM_SB_INIT;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct rm_matrix m;
	struct rm_error err;
	const struct rm_series *se;
	char **nums = calloc(20000, sizeof(char *));
	size_t i;

	(void)state;
	rm_sb_init(&text);
	rm_sb_adds(&text, "{\"r\": [");
	for (i = 0; i < 20000; i++) {
		unsigned long long mant;
		int frac, ex;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		mant = (x >> 11) % (i % 3 ? 100000000ull : 90071992547409930ull);
		frac = (int)((x >> 3) % 24);
		ex = (int)((x >> 40) % 60) - 30;
		rm_sb_init(&one);
		rm_sb_addf(&one, "%s%llu", (x >> 63) ? "-" : "", mant);
		if (frac && one.len > (size_t)frac + 1) {
			/* a decimal point inside the digits */
			char *t = rm_xmalloc(one.len + 2);
			size_t cut = one.len - (size_t)frac;

			memcpy(t, one.buf, cut);
			t[cut] = '.';
			memcpy(t + cut + 1, one.buf + cut, (size_t)frac + 1);
			rm_sb_reset(&one);
			rm_sb_adds(&one, t);
			free(t);
		} else {
			rm_sb_adds(&one, ".5");
		}
		if (i % 4 == 0)
			rm_sb_addf(&one, "e%d", ex);
		nums[i] = rm_sb_detach(&one, NULL);
		rm_sb_addf(&text, "%s%s", i ? ", " : "", nums[i]);
	}
	rm_sb_adds(&text, "]}");
	assert_int_equal(read_text(&m, text.buf, NULL, &err), 0);
	se = rm_matrix_get(&m, "r");
	assert_int_equal(se->n, 20000);
	for (i = 0; i < 20000; i++) {
		double want = strtod(nums[i], NULL);

		if (memcmp(&want, &se->v[i], sizeof(double)))
			fail_msg("'%s': strtod %.17g, reader %.17g", nums[i], want, se->v[i]);
		assert_false(se->is_int[i]);
		free(nums[i]);
	}
	free(nums);
	rm_matrix_free(&m);
	rm_sb_release(&text);
}

/* Numbers at the edges of the one-pass conversion (matrix.c scan_number):
 * many significant digits, leading zeros, long exponents, integer limits;
 * every real is strtod's double, every integer the exact one. */
static void test_matrix_number_edges(void **state)
{
	static const char *const reals[] = {
		"0.000000000000000000123456", "1234567890123456.5", "9007199254740993.0",
		"12345678901234567890.5", "0.1e-22", "1e22", "1e23", "-4.5e-23",
		"123456789012345678901234567890e-10", "1e-1000", "0.5e+0", "-0.0",
		"9007199254740992e-22", "000.5e1",
	};
	struct rm_matrix m;
	struct rm_error err;
	struct rm_sb text = RM_SB_INIT;
	const struct rm_series *se;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		char *doc = rm_xstrfmt("{\"r\": [%s]}", reals[i]);
		bool leading_zero = reals[i][0] == '0' && reals[i][1] == '0';

		if (leading_zero) {
			/* jansson refuses a leading zero; so does the reader */
			assert_int_equal(rm_matrix_read(&m, "m.json", doc, strlen(doc), NULL, NULL, &err), -1);
			free(doc);
			continue;
		}
		assert_int_equal(rm_matrix_read(&m, "m.json", doc, strlen(doc), NULL, NULL, &err), 0);
		se = rm_matrix_get(&m, "r");
		assert_non_null(se);
		assert_false(se->is_int[0]);
		assert_memory_equal(&se->v[0], &(double){ strtod(reals[i], NULL) }, sizeof(double));
		rm_matrix_free(&m);
		free(doc);
	}
	rm_sb_init(&text);
	rm_sb_adds(&text, "{\"i\": [9223372036854775807, -9223372036854775808, 0, -0, "
			  "1000000000000000000, 4503599627370497]}");
	assert_int_equal(rm_matrix_read(&m, "m.json", text.buf, text.len, NULL, NULL, &err), 0);
	se = rm_matrix_get(&m, "i");
	assert_non_null(se);
	assert_true(se->v[0] == (double)9223372036854775807LL);
	assert_true(se->v[1] == (double)(-9223372036854775807LL - 1));
	assert_true(se->v[2] == 0 && se->v[3] == 0 && se->is_int[3]);
	assert_true(se->v[4] == 1e18 && se->v[5] == 4503599627370497.0);
	rm_matrix_free(&m);
	rm_sb_release(&text);
	/* beyond long long, and a real beyond DBL_MAX: refused as jansson does
	 * (the same documents within the limits are read) */
	{
		static const char *const bad[] = { "9223372036854775808", "-9223372036854775809",
						   "1e309" };
		static const char *const good[] = { "922337203685477580", "-922337203685477580",
						    "1e308" };

		for (i = 0; i < 3; i++) {
			char *b = rm_xstrfmt("{\"i\": [%s]}", bad[i]);
			char *g = rm_xstrfmt("{\"i\": [%s]}", good[i]);

			assert_int_equal(rm_matrix_read(&m, "m.json", b, strlen(b), NULL, NULL, &err), -1);
			assert_int_equal(rm_matrix_read(&m, "m.json", g, strlen(g), NULL, NULL, &err), 0);
			rm_matrix_free(&m);
			free(b);
			free(g);
		}
	}
}

/* ------------------------------------------------------------ rules */

static void test_rules_keep_decisions(void **state)
{
	const struct rm_rules *r = unit_rules();

	(void)state;
	assert_true(rm_rules_keep_stat(r, "will-it-scale.per_thread_ops"));
	assert_true(rm_rules_keep_stat(r, "perf-profile.self.cycles-pp.memset"));
	assert_false(rm_rules_keep_stat(r, "interrupts.CPU1.LOC:Local_timer_interrupts"));
	assert_false(rm_rules_keep_stat(r, "softirqs.CPU3.RCU"));
	assert_false(rm_rules_keep_stat(r, "diskstats.sda.reads"));
	/* names stats.c looks up for other stats */
	assert_true(rm_rules_keep_stat(r, "last_state.is_incomplete_run"));
	assert_true(rm_rules_keep_stat(r, "interrupts.x.pass"));
	assert_true(rm_rules_keep_stat(r, "interrupts.x.fail"));
	/* cached answers are the same answers */
	assert_false(rm_rules_keep_stat(r, "interrupts.CPU1.LOC:Local_timer_interrupts"));
	assert_true(rm_rules_is_reportable(r, "will-it-scale.per_thread_ops"));
	assert_true(rm_rules_is_reportable(r, "will-it-scale.per_thread_ops"));
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows come out in strcmp's order of their names (the merge of two
 * matrices and rm_matrix_get rely on it): names with long shared prefixes,
 * prefixes of each other, bytes above 0x7f, the empty name, in random,
 * sorted and reversed file order. */
static void test_matrix_rows_in_strcmp_order(void **state)
{
	static const char *const heads[] = {
		"perf-profile.calltrace.cycles-pp.", "perf-profile.children.", "p", "pe", "",
		"interrupts.CPU", "\xc3\xa9t\xc3\xa9.", "z", "perf-profile.calltrace.cycles-pp.a",
	};
	static const char *const bits[] = { "a", "b", ".", "A", "_", "9", "\xc3\xa9", "-", "aa" };
	size_t n = 0, i, k, order;
	char **names = rm_xcalloc(6000, sizeof(*names));
	unsigned long x = 12345;

	(void)state;
	for (i = 0; i < 6000; i++) {
		struct rm_sb sb = RM_SB_INIT;
		size_t len;

		rm_sb_init(&sb);
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		rm_sb_adds(&sb, heads[(x >> 33) % (sizeof(heads) / sizeof(heads[0]))]);
		for (len = (x >> 40) % 9; len; len--) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			rm_sb_adds(&sb, bits[(x >> 33) % (sizeof(bits) / sizeof(bits[0]))]);
		}
		names[n++] = rm_sb_detach(&sb, NULL);
	}
	qsort(names, n, sizeof(*names), cmp_cstr);
	for (i = k = 1; i < n; i++) /* unique, as a matrix's keys are */
		if (strcmp(names[i], names[k - 1]))
			names[k++] = names[i];
		else
			free(names[i]);
	n = k;
	assert_true(n > 2000);
	for (order = 0; order < 3; order++) {
		struct rm_sb text = RM_SB_INIT;
		struct rm_matrix m;
		struct rm_error err;

		rm_sb_init(&text);
		rm_sb_addc(&text, '{');
		for (i = 0; i < n; i++) {
			/* random (a stride prime to n), sorted, reversed */
			size_t j = order == 0 ? (i * 7919) % n : order == 1 ? i : n - 1 - i;

			rm_sb_addf(&text, "%s\"%s\": [%zu]", i ? ", " : "", names[j], j);
		}
		rm_sb_addc(&text, '}');
		assert_int_equal(n % 7919 != 0, 1);
		assert_int_equal(read_text(&m, text.buf, NULL, &err), 0);
		assert_int_equal(m.n, n);
		for (i = 0; i < n; i++) {
			assert_string_equal(m.s[i].name, names[i]);
			assert_true(m.s[i].v[0] == (double)i);
		}
		rm_matrix_free(&m);
		rm_sb_release(&text);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The decision cache keeps its names in 64 KiB chunks: thousands of names
 * (several chunks, several table growths) and one name longer than a chunk
 * are answered the same when asked again, and as a fresh rule set answers. */
static void test_rules_cache_many_names(void **state)
{
	const struct rm_rules *shared = unit_rules();
	struct rm_rules r;
	struct rm_error err;
	char name[96], *longname;
	bool first[6000];
	size_t i, n = sizeof(first) / sizeof(first[0]);

	(void)state;
	rm_error_clear(&err);
	assert_int_equal(rm_rules_load(&r, shared->metrics_file, shared->programs_file, &err), 0);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), i % 2 ? "interrupts.CPU%zu.LOC:Local_timer_interrupts"
						   : "will-it-scale.%zu.per_thread_ops_padded_to_be_long",
			 i);
		first[i] = rm_rules_keep_stat(&r, name);
		assert_int_equal(first[i], !(i % 2));
	}
	longname = malloc(70000 + 1);
	assert_non_null(longname);
	memcpy(longname, "will-it-scale.", 14);
	memset(longname + 14, 'a', 70000 - 14);
	longname[70000] = '\0';
	assert_int_equal(rm_rules_keep_stat(&r, longname), rm_rules_keep_stat(shared, longname));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), i % 2 ? "interrupts.CPU%zu.LOC:Local_timer_interrupts"
						   : "will-it-scale.%zu.per_thread_ops_padded_to_be_long",
			 i);
		assert_int_equal(rm_rules_keep_stat(&r, name), first[i]);
		assert_int_equal(rm_rules_is_reportable(&r, name), rm_rules_is_reportable(shared, name));
	}
	assert_int_equal(rm_rules_keep_stat(&r, longname), rm_rules_keep_stat(shared, longname));
	free(longname);
	rm_rules_free(&r);
}

/* A stat name that the pattern likely matches (for the comparison below). */
static char *sample_of(const char *p)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			rm_sb_addc(&sb, p[1]);
			p++;
		} else if (*p == '.' && (p[1] == '+' || p[1] == '*')) {
			rm_sb_adds(&sb, "ab");
			p++;
		} else if (!strchr("^$()?[]|+*", *p)) {
			rm_sb_addc(&sb, *p);
		}
	}
	return rm_sb_detach(&sb, NULL);
}

/* The marked alternation finds the same first rule as trying them in order. */
static void test_rules_combined_first_match(void **state)
{
	const struct rm_rules *r = unit_rules();
	struct rm_rules one;
	struct rm_error err;
	size_t i, tried = 0, hits = 0;

	(void)state;
	assert_int_equal(rm_rules_load(&one, r->metrics_file, r->programs_file, &err), 0);
	assert_non_null(r->direction_any);
	assert_non_null(r->thresholds_any);
	pcre2_code_free(one.direction_any);
	pcre2_code_free(one.thresholds_any);
	one.direction_any = one.thresholds_any = NULL;
	for (i = 0; i < r->ndirection + r->nthresholds; i++) {
		const char *pat = i < r->ndirection ? r->direction[i].pattern
						    : r->thresholds[i - r->ndirection].pattern;
		char *name = sample_of(pat);
		static const double deltas[] = { 0, 3, 40, 600, 20000, 1e9 };
		size_t k;

		hits += rm_rules_direction(r, name) != 0;
		assert_true(rm_rules_direction(r, name) == rm_rules_direction(&one, name));
		for (k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++)
			assert_int_equal(rm_rules_reasonable_change(r, name, deltas[k], deltas[k]),
					 rm_rules_reasonable_change(&one, name, deltas[k], deltas[k]));
		tried++;
		free(name);
	}
	assert_true(tried > 200);
	assert_true(hits > tried / 2); /* the samples do reach the rules */
	rm_rules_free(&one);
}

/* Does one pattern of list l, alone, match name?  (the list's mode, as
 * rules.h says) */
static bool one_matches(const struct rm_rules *r, const struct rm_pattern_list *l, size_t i,
			const char *name)
{
	struct rm_sb re = RM_SB_INIT;
	bool ok = false, m;

	if (l->match == RM_MATCH_PREFIX)
		return !strncmp(name, l->patterns[i], strlen(l->patterns[i]));
	rm_sb_init(&re);
	rm_sb_addf(&re, "%s(?:%s)%s", l->match == RM_MATCH_SEARCH ? "" : "^", l->patterns[i],
		   l->match == RM_MATCH_FULL ? "$" : "");
	m = rm_rules_regex_match(r, re.buf, name, &ok);
	assert_true(ok);
	rm_sb_release(&re);
	return m;
}

/* A list (split by first byte, anchored, searched) answers as its patterns
 * tried one by one do: every list of the real rules, on names made from
 * each pattern and on changed copies of them (first byte, prefix, case). */
static void test_rules_list_as_patterns_one_by_one(void **state)
{
	const struct rm_rules *r = unit_rules();
	const struct rm_pattern_list *lists[] = {
		&r->failure, &r->pass, &r->stat_denylist, &r->stat_allowlist,
		&r->report_allowlist, &r->perf_metrics_patterns, &r->perf_metrics_prefixes,
	};
	size_t li, i, k, j, tried = 0, hits = 0, split = 0, lits = 0, ascii = 0;

	(void)state;
	for (li = 0; li < sizeof(lists) / sizeof(lists[0]); li++) {
		const struct rm_pattern_list *l = lists[li];

		for (k = 0; k < RM_RULES_FIRST; k++)
			split += l->first[k] != NULL;
		lits += l->nlits;
		for (i = 0; i < l->n; i++) {
			char *base = sample_of(l->patterns[i]);
			char *names[9];

			names[0] = rm_xstrdup(base);
			names[1] = rm_xstrfmt("x%s", base);
			names[2] = rm_xstrfmt("%s.tail", base);
			names[3] = rm_xstrdup(base);
			if (names[3][0])
				names[3][0] = names[3][0] == 'd' ? 'k' : 'd';
			names[4] = rm_xstrfmt("perf-profile.%s", base);
			/* the literal patterns' edges: "ab" (what ".+" became)
			 * dropped, so the literal is at offset 0; a newline
			 * (which '$' may stand before); not ASCII; not UTF-8 */
			names[5] = rm_xstrdup(base + (strlen(base) >= 2 ? 2 : 0));
			names[6] = rm_xstrfmt("%s\n", base);
			names[7] = rm_xstrfmt("\xc3\xa9%s", base);
			names[8] = rm_xstrfmt("\xff%s", base);
			for (k = 0; k < 9; k++) {
				bool want = false;

				for (j = 0; j < l->n && !want; j++)
					want = one_matches(r, l, j, names[k]);
				assert_int_equal(rm_rules_list_match(r, l, names[k]), want);
				hits += want;
				tried++;
				free(names[k]);
			}
			free(base);
		}
	}
	for (li = 0; li < sizeof(lists) / sizeof(lists[0]); li++)
		for (k = 0; k < RM_RULES_ASCII_SLOTS; k++)
			ascii += lists[li]->ascii[k].code != NULL;
	assert_true(tried > 1500);
	assert_true(hits > tried / 4); /* the samples do reach the patterns */
	assert_true(split > 10);       /* and the prefix table is in use */
	assert_true(lits >= 4);        /* so are the literal patterns */
	assert_true(ascii > split);    /* and the copies without UTF (made when asked) */
}

/* The literal patterns' shapes, and what is not one: the real rules with
 * the pass list replaced by made-up patterns; the list decides as its
 * patterns one by one on names at each edge. */
static void test_rules_literal_shapes(void **state)
{
	static const char *const pats[] = {
		".+ab?", ".*x\\.y$", ".+\\$z.*", ".+a{2}", ".+q", ".*\\ \\-", ".+k.*?",
	};
	static const char *const names[] = {
		"ab", "xab", "xa", "x.y", "ax.y", "ax.y\n", "ax.yz", "axxy", "a$z", "$z", "a$zb",
		"aaa", "xaa", "xa", "q", "xq", "xqx", "x -", " -", "x-", "xk", "k", "\xc3\xa9q",
		"a\x01q", "\xffq", "",
	};
	const struct rm_rules *real = unit_rules();
	const char *t = getenv("TMPDIR");
	char *dir = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *file, *text, *at;
	size_t len, i, j;
	struct rm_sb sb = RM_SB_INIT;
	struct rm_rules r;
	struct rm_error err;
	const char *old = "    - '.+\\.pass$'\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rm_read_file(real->metrics_file, 1 << 24, &text, &len, &err), 0);
	at = strstr(text, old);
	assert_non_null(at);
	rm_sb_init(&sb);
	rm_sb_add(&sb, text, (size_t)(at - text));
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		rm_sb_addf(&sb, "    - '%s'\n", pats[i]);
	rm_sb_adds(&sb, at + strlen(old));
	file = rm_path_join(dir, "metrics.yaml");
	assert_int_equal(rm_write_file(file, sb.buf, sb.len), 0);
	assert_int_equal(rm_rules_load(&r, file, real->programs_file, &err), 0);
	assert_int_equal(r.pass.n, sizeof(pats) / sizeof(pats[0]));
	assert_int_equal(r.pass.nlits, 4); /* x.y$, $z.*, q, " -" */
	for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
		bool want = false;

		for (i = 0; i < r.pass.n && !want; i++)
			want = one_matches(&r, &r.pass, i, names[j]);
		assert_int_equal(rm_rules_list_match(&r, &r.pass, names[j]), want);
	}
	rm_rules_free(&r);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
	rm_sb_release(&sb);
	free(text);
	free(file);
	free(dir);
}

const struct CMUnitTest unit_matrix_tests[] = {
	cmocka_unit_test(test_matrix_values_sorted_and_padded),
	cmocka_unit_test(test_matrix_rows_in_strcmp_order),
	cmocka_unit_test(test_matrix_nan_infinity_strings),
	cmocka_unit_test(test_matrix_syntax_errors_are_janssons),
	cmocka_unit_test(test_matrix_valid_like_jansson),
	cmocka_unit_test(test_matrix_depth_limit),
	cmocka_unit_test(test_matrix_shape_errors),
	cmocka_unit_test(test_matrix_drops_rows_while_reading),
	cmocka_unit_test(test_matrix_borrows_stored_names),
	cmocka_unit_test(test_matrix_stream_matches_whole_file),
	cmocka_unit_test(test_matrix_sorted_like),
	cmocka_unit_test(test_matrix_reals_are_strtods),
	cmocka_unit_test(test_matrix_number_edges),
	cmocka_unit_test(test_rules_keep_decisions),
	cmocka_unit_test(test_rules_cache_many_names),
	cmocka_unit_test(test_rules_combined_first_match),
	cmocka_unit_test(test_rules_list_as_patterns_one_by_one),
	cmocka_unit_test(test_rules_literal_shapes),
};
const size_t unit_matrix_ntests = sizeof(unit_matrix_tests) / sizeof(unit_matrix_tests[0]);
