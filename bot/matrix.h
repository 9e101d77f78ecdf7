/*
 * matrix.h - an LKP matrix (one commit's stats, one column per run) and the
 * single-pass reader of matrix.json that builds it.
 *
 * Owns: struct rm_series / struct rm_matrix, looking a stat up by name, and
 * rm_matrix_read(): matrix.json bytes straight into per-stat arrays of
 * doubles, in one pass, without a JSON tree.  NaN, Infinity and -Infinity
 * (LKP's Ruby writer uses allow_nan) are read as "not a number" in the same
 * pass; rows the caller's keep() refuses are dropped while reading, so memory
 * follows the stats kept, not the file.
 *
 * Why not jansson: jansson has no event (SAX) interface; json_loadb and
 * json_load_callback both build the whole tree first (measured: 47% of
 * `compare` on 2 x 10 x 20,000 stats went into that tree, 15% more into
 * rewriting NaN so jansson would take it).  The reader accepts exactly what
 * jansson accepts (grammar, UTF-8, escapes and surrogates, integer and real
 * overflow, duplicate keys at any depth, NUL only in values, nesting depth);
 * when it refuses a file, the message is jansson's own (rm_json_load is run on
 * the same bytes for the wording only), so errors read exactly as before.
 *
 * Limits (hostile input): nesting deeper than RM_MATRIX_MAX_DEPTH (the
 * limit of rm_json_load, RM_JSON_MAX_DEPTH, so both readers accept the same
 * files) is refused; the reader keeps no recursion, so the C stack does
 * not grow with depth; the file size is the caller's limit (archive.c caps a
 * member at RM_ARCHIVE_MAX_MEMBER).
 *
 * Must not: know the archive layout or compute statistics.
 */
#ifndef RM_MATRIX_H
#define RM_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jsonload.h"

#define RM_MATRIX_MAX_DEPTH (RM_JSON_MAX_DEPTH + 1) /* values, the innermost scalar too: rm_json_load counts containers */

/* One stat across the runs (columns) of one commit.  Values keep whether the
 * JSON wrote them as integers: lkp-tests' perf-profile rule compares Ruby
 * classes (archive-format.md 3.2 step 4). */
struct rm_series {
	char *name;
	double *v;
	unsigned char *is_int;
	size_t n;
	bool is_string; /* some value was a string: lkp-tests skips the stat */
	bool is_bad;    /* NaN/Infinity/null/boolean/array/object: the stat is left out */
	bool pooled;    /* name, v and is_int live in the matrix's pool (not freed one by one) */
	bool name_kept; /* name is the copy keep() lent (rm_matrix_keep_fn), of rm_matrix.kept_by */
};

/* Rows of these bases were dropped while reading (stats.c asks whether the
 * base has any stat: lkp-tests' perf-profile/lock_stat rule, 3.2 step 2). */
#define RM_MATRIX_DROPPED_PERF_PROFILE 1u
#define RM_MATRIX_DROPPED_LOCK_STAT 2u

/* A commit's matrix: series sorted by name, `cols` = number of runs. */
struct rm_matrix {
	struct rm_series *s;
	size_t n;
	size_t cols;
	bool shared;            /* s[] belongs to another matrix: not freed here */
	void *pool;             /* the reader's allocations for pooled series */
	unsigned dropped_bases; /* RM_MATRIX_DROPPED_* bits */
	size_t ndropped;        /* rows dropped while reading */
	/* a ".pass" name whose stem holds regex syntax: lkp-tests interpolates
	 * the stem into a regex matched against every name, so such a matrix
	 * must be read again with nothing dropped (archive.c does) */
	bool regex_stem;
	/* the ctx the reader passed to keep(): the series with name_kept
	 * borrow their names from it (stats.c asks the rules about such a
	 * name by that copy, rm_rules_focus, when it is its rules) */
	const void *kept_by;
	/* s[file_order[0]], s[file_order[1]], ...: the series in the order the
	 * file listed them, which is the order of their values in the
	 * reader's pool (a pass in that order reads memory in sequence); NULL
	 * for a matrix the reader did not make */
	uint32_t *file_order;
};

/* A series by name or NULL (binary search). */
const struct rm_series *rm_matrix_get(const struct rm_matrix *m, const char *name);
void rm_matrix_free(struct rm_matrix *m);

/* Which rows to keep: called once per stat name (NUL-terminated) before its
 * values are read.  A row whose values hold a string or a non-number is kept
 * whatever keep() says (stats.c counts and skips such stats by name).  keep()
 * may set *stored to a copy of name it keeps for longer than the matrix
 * lives (the rules' decision cache does): the series then points at it
 * instead of holding a copy of its own (a 10x20k comparison held each name
 * three times: both matrices and the cache).  *stored is NULL on the call.
 * A keep() that lends copies lends one for a name every time or never, and
 * marks it: `read` names the reading (never 0 when marks are asked for, a
 * new number for each reading), and *again (false on the call) is set when
 * the copy lent now was lent before with the same `read`: a duplicate key,
 * found without the reader's own set of keys (a hash and a probe of a
 * table of every key, ~10% of a 10x200k compare).  With read 0 nothing is
 * marked and *again is left alone. */
typedef bool (*rm_matrix_keep_fn)(void *ctx, const char *name, unsigned read, const char **stored,
				  bool *again);

/* Read a _result_root/matrix.json held in buf[0..len) (need not be
 * NUL-terminated) into m, as archive-format.md 2.4 says: every key but
 * "stats_source" a stat with an array of one value per run; cols = the
 * stats_source count, else the longer of the first and the last array in
 * file order; short arrays padded with Integer 0; series sorted by name.
 * keep may be NULL (keep every row).  `file` names the file in errors:
 *   "'<file>' line L column C: invalid JSON: <jansson's text>",
 *   "'<file>': expected a JSON object of stat arrays",
 *   "'<file>': 'stats_source': expected an array",
 *   "'<file>': stat '<name>': expected an array with one value per run",
 *   "'<file>': stat '<name>': expected a stat name without white space ...".
 * On error m is left empty.  On success the caller owns m (rm_matrix_free). */
int rm_matrix_read(struct rm_matrix *m, const char *file, const char *buf, size_t len,
		   rm_matrix_keep_fn keep, void *ctx, struct rm_error *err);

/* Read into buf up to cap bytes: how many (0 at the end), or -1. */
typedef long (*rm_matrix_read_fn)(void *ctx, char *buf, size_t cap);

/* rm_matrix_read over a stream of the file's bytes, holding about one
 * window (64 KiB, more only for a longer stat) instead of the whole file.
 * Returns 0 with m filled, exactly as rm_matrix_read would; or 1, with m
 * empty, whenever it cannot be sure without the whole file (any error, a
 * read failure, a hash of a dropped key met twice): the caller then reads
 * the whole file and calls rm_matrix_read, which decides and words it. */
/* The stream's first window in bytes (64 KiB: a 1 MiB window added 0.8 MiB
 * to the peak RSS of a 10x20k comparison, and refills cost nothing measurable;
 * tests make it tiny so that
 * every pair straddles a refill). */
extern size_t rm_matrix_stream_window;

int rm_matrix_read_stream(struct rm_matrix *m, const char *file, rm_matrix_read_fn rd,
			  void *rctx, rm_matrix_keep_fn keep, void *ctx);
/* rm_matrix_read_stream, sorting by name with the help of `like`, a matrix
 * read before by the same keep() and ctx and alive (or NULL): where the two
 * share most names (a base and a head commit of one job), m's are put in
 * like's order without being read (the same matrix either way). */
int rm_matrix_read_stream_like(struct rm_matrix *m, const char *file, rm_matrix_read_fn rd,
			       void *rctx, rm_matrix_keep_fn keep, void *ctx,
			       const struct rm_matrix *like);

/* archive-format.md 2.6: a stat name has no white space or control
 * character.  Otherwise err names the file and the (escaped) stat. */
int rm_matrix_check_name(const char *file, const char *key, struct rm_error *err);

/* Is buf[0..len) JSON that jansson (as rm_json_load calls it) accepts?
 * The reader's syntax check alone; for tests and the fuzz targets. */
bool rm_matrix_json_valid(const char *buf, size_t len);

#endif
