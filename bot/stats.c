/* stats.c - see stats.h. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* ------------------------------------------------------------ arithmetic */

double rm_stats_ruby_sum(const double *v, const unsigned char *is_int, size_t n)
{
	long double isum = 0;
	double f, c = 0;
	size_t i = 0;

	/* Array#sum adds the leading Integers exactly... */
	while (i < n && is_int[i])
		isum += (long double)v[i++];
	if (i == n)
		return (double)isum;
	/* ...then switches to Kahan-Babuska summation for the rest */
	f = (double)isum;
	for (; i < n; i++) {
		double x = v[i], t;

		if (isnan(f) || isinf(f) || isnan(x) || isinf(x)) {
			f += x;
			continue;
		}
		t = f + x;
		if (fabs(f) >= fabs(x))
			c += ((f - t) + x);
		else
			c += ((x - t) + f);
		f = t;
	}
	return f + c;
}

double rm_stats_mean(const double *v, const unsigned char *is_int, size_t n)
{
	if (!n)
		return 0;
	return rm_stats_ruby_sum(v, is_int, n) / (double)n;
}

double rm_stats_pstddev(const double *v, const unsigned char *is_int, size_t n)
{
	double avg, sum = 0;
	size_t i;

	if (n < 2)
		return -1;
	avg = rm_stats_mean(v, is_int, n);
	/* inject(0) { acc + (x - avg)**2 }, then 1 / n.to_f * sum */
	for (i = 0; i < n; i++)
		sum += (v[i] - avg) * (v[i] - avg);
	return sqrt(1 / (double)n * sum);
}

struct tv {
	double v;
	unsigned char is_int;
};

/* A stable sort of s[0..n) by value (tmp: room for n more): insertion sort
 * of runs of 16, then merges, each taking from the right run only when its
 * value is strictly smaller.  Stable, so the order is the one any stable sort
 * gives, that of the merge sort behind rm_sort (glibc's qsort) before it;
 * values are never NaN (the reader leaves such stats out).  Inline
 * comparisons: qsort's calls were 20% of `compare` on 50 runs x 20k stats. */
static void sort_tv(struct tv *s, size_t n, struct tv *tmp)
{
	size_t run = 16, i, w;

	for (i = 0; i < n; i += run) {
		size_t end = i + run < n ? i + run : n, k;

		for (k = i + 1; k < end; k++) {
			struct tv t = s[k];
			size_t j = k;

			for (; j > i && s[j - 1].v > t.v; j--)
				s[j] = s[j - 1];
			s[j] = t;
		}
	}
	for (w = run; w < n; w *= 2) {
		for (i = 0; i + w < n; i += 2 * w) {
			size_t mid = i + w, end = i + 2 * w < n ? i + 2 * w : n;
			size_t a = i, b = mid, o = i;

			while (a < mid && b < end)
				tmp[o++] = s[b].v < s[a].v ? s[b++] : s[a++];
			while (a < mid)
				tmp[o++] = s[a++];
			while (b < end)
				tmp[o++] = s[b++];
			memcpy(s + i, tmp + i, (end - i) * sizeof(*s));
		}
	}
}

bool rm_stats_summarize(const double *v, const unsigned char *is_int, size_t n, size_t max_margin,
		  struct rm_summary *out)
{
	struct tv stackbuf[128], *s = n <= 64 ? stackbuf : rm_xmalloc(2 * n * sizeof(*s));
	size_t margin = n >> 5, i, start = 0, size;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (margin > max_margin)
		margin = max_margin;
	for (i = 0; i < n; i++) {
		s[i].v = v[i];
		s[i].is_int = is_int[i];
	}
	/* a stat's runs are few: sorted here, not by rm_sort (glibc's qsort:
	 * its set-up per call was 11% of `compare` on 20k stats x 10 runs) */
	sort_tv(s, n, s + n);
	while (start < n && s[start].v == -1)
		start++;
	size = n - start;
	/* array[margin..-margin-1] */
	/* cppcheck-suppress knownConditionTrueFalse ; false positive */
	if (size > 2 * margin) {
		struct tv *t = s + start + margin;
		size_t m = size - 2 * margin;

		out->min = t[0].v;
		out->mean = t[m / 2].v;
		out->mean_is_int = t[m / 2].is_int;
		out->max = t[m - 1].v;
		out->size = m;
		ok = true;
	}
	if (s != stackbuf)
		free(s);
	return ok;
}

/* ------------------------------------------------------------ selection */

static const char *const log_prefixes[] = { "dmesg.", "kmsg.", "last_state.", "stderr." };

static bool starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool ends_with(const char *s, const char *p)
{
	size_t a = strlen(s), b = strlen(p);

	return a >= b && !strcmp(s + a - b, p);
}

static bool is_log_stat(const char *k, bool with_kmsg)
{
	size_t i;

	for (i = 0; i < sizeof(log_prefixes) / sizeof(log_prefixes[0]); i++) {
		if (!with_kmsg && i == 1)
			continue;
		if (starts_with(k, log_prefixes[i]))
			return true;
	}
	return false;
}

/* The base of a stat: the text before the first '.'. */
static size_t base_len(const char *k)
{
	const char *dot = strchr(k, '.');

	return dot ? (size_t)(dot - k) : strlen(k);
}

static bool matrix_has_base(const struct rm_matrix *m, const char *k, size_t blen)
{
	size_t i;

	/* series are sorted by name, so a base's stats are contiguous: binary
	 * search for the first name >= "<base>." */
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strncmp(m->s[mid].name, k, blen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < m->n && !strncmp(m->s[i].name, k, blen); i++)
		if (base_len(m->s[i].name) == blen)
			return true;
	/* or a row of that base was dropped while reading (matrix.h) */
	if (blen == 12 && !strncmp(k, "perf-profile", 12))
		return m->dropped_bases & RM_MATRIX_DROPPED_PERF_PROFILE;
	if (blen == 9 && !strncmp(k, "lock_stat", 9))
		return m->dropped_bases & RM_MATRIX_DROPPED_LOCK_STAT;
	return false;
}

/* lkp-tests' skip_function_stat? */
static bool skip_function_stat(const struct rm_rules *rules, const char *k,
			       const struct rm_matrix *b)
{
	char *stem;
	const char *last;
	bool skip = false;

	if (is_log_stat(k, true))
		return false;
	last = strrchr(k, '.');
	stem = rm_xstrndup(k, last ? (size_t)(last - k) : strlen(k));
	if (ends_with(k, ".error") || ends_with(k, ".warn") || ends_with(k, ".fail")) {
		char *pass = rm_xstrfmt("%s.pass", stem);

		skip = !rm_matrix_get(b, pass);
		free(pass);
	} else if (ends_with(k, ".pass")) {
		/* the stem is interpolated into a regex unescaped, as lkp-tests does */
		struct rm_sb re = RM_SB_INIT;
		size_t i;
		bool any = false, ok = true;

		rm_sb_init(&re);
		rm_sb_addf(&re, "^%s\\.(error|warn|fail)$", stem);
		for (i = 0; i < b->n && ok && !any; i++)
			any = rm_rules_regex_match(rules, re.buf, b->s[i].name, &ok);
		rm_sb_release(&re);
		skip = !any;
	}
	free(stem);
	return skip;
}

struct pass_ctx {
	const struct rm_rules *rules;
	const struct rm_matrix *a, *b;
	bool incomplete_pass;
	char **changed;
	size_t nchanged, alloc;
	size_t skipped_bad;
};

/* Duplicates (a key changed in both passes) are removed once sorted. */
static void mark_changed(struct pass_ctx *p, const char *k)
{
	p->changed = rm_xgrow(p->changed, &p->alloc, p->nchanged + 1, sizeof(char *));
	p->changed[p->nchanged++] = rm_xstrdup(k);
}

/* StatCompare#process for one key.  as/bs may be NULL (stat absent). */
static void process(struct pass_ctx *p, const char *k, const struct rm_series *as,
		    const struct rm_series *bs)
{
	const struct rm_rules *r = p->rules;
	size_t cols_a = p->a->cols, cols_b = p->b->cols, max_margin;
	bool func;
	struct rm_summary sa, sb;
	double *zeros = NULL;
	unsigned char *zint = NULL;
	const double *av, *bv;
	const unsigned char *ai, *bi;
	size_t an, bn;
	bool changed;

	if ((as && as->is_string) || (bs && bs->is_string))
		return;
	if ((as && as->is_bad) || (bs && bs->is_bad)) {
		p->skipped_bad++;
		return;
	}
	if (p->incomplete_pass && !is_log_stat(k, false))
		return;
	/* k is the rules' own copy of the name when the reader kept it so:
	 * the questions below then need no lookup by name */
	if (as ? as->name_kept && p->a->kept_by == r : bs->name_kept && p->b->kept_by == r)
		rm_rules_focus(r, k);
	if (!rm_rules_is_reportable(r, k))
		return;
	func = rm_rules_is_function_stat(r, k);
	if (func) {
		if (skip_function_stat(r, k, p->b))
			return;
	} else if (cols_a < 3 && cols_b < 3) {
		return;
	}
	if (!bs && !func) {
		size_t bl = base_len(k);

		if (!((starts_with(k, "lock_stat.") || starts_with(k, "perf-profile.")) &&
		      matrix_has_base(p->b, k, bl)))
			return;
	}
	/* a missing side is a column of Integer zeros (made only then: one
	 * malloc pair per row of a 200k-stat comparison otherwise) */
	if (!as || !bs) {
		size_t zn = (cols_a > cols_b ? cols_a : cols_b) + 1;

		zeros = rm_xcalloc(zn, sizeof(double));
		zint = rm_xmalloc(zn);
		memset(zint, 1, zn);
	}
	av = as ? as->v : zeros;
	ai = as ? as->is_int : zint;
	an = as ? as->n : cols_a;
	bv = bs ? bs->v : zeros;
	bi = bs ? bs->is_int : zint;
	bn = bs ? bs->n : cols_b;

	max_margin = func ? 0 : 3;
	if (!rm_stats_summarize(bv, bi, bn, max_margin, &sb))
		goto out;
	if (bn <= 3 && max_margin > 1)
		max_margin = 1;
	if (!rm_stats_summarize(av, ai, an, max_margin, &sa))
		goto out;

	if (starts_with(k, "perf-profile.") && sa.mean_is_int) {
		/* the threshold (an Integer) has the class of a.mean */
		double thr = (double)r->perf_profile_threshold;

		changed = sa.mean > thr || sb.mean > thr;
	} else if (func) {
		changed = sa.max != sb.max;
	} else {
		changed = (sb.min > sa.mean && sb.mean > sa.max) ||
			  (sa.min > sb.mean && sa.mean > sb.max);
	}
	if (!changed)
		goto out;

	/* skip_small_change? (never for perf-profile: the option is set) */
	if (!starts_with(k, "perf-profile.")) {
		const struct rm_summary *hi = sa.mean > sb.mean ? &sa : &sb;
		const struct rm_summary *lo = hi == &sa ? &sb : &sa;
		double delta = hi->mean - lo->mean;
		double ratio = lo->mean > 0 ? hi->mean / lo->mean : 5;
		double max = sa.max > sb.max ? sa.max : sb.max;

		if (ratio > 5)
			ratio = 5;
		if (!(ratio > 1.01))
			goto out;
		if (!(ratio > 1.05 || rm_rules_is_perf_metric(r, k)))
			goto out;
		if (!rm_rules_reasonable_change(r, k, delta, max))
			goto out;
	}
	mark_changed(p, k);
out:
	free(zeros);
	free(zint);
}

/* The series of `other` named like `s`, walking `other` forwards: both are
 * sorted by name and asked in that order (a merge, not a search per key).
 * A series found is stepped over: the next name asked is greater (a
 * matrix's names are distinct), and comparing it with the one found, a
 * strcmp of two names out of the cache, was one per key. */
static const struct rm_series *merge_get(const struct rm_matrix *other, size_t *j,
					 const struct rm_series *s)
{
	int c = 1;

	/* the same stat in both matrices usually has the same name pointer
	 * (both borrow the rules cache's copy, matrix.h): equal without a
	 * strcmp over the whole name (measured: 5% of `compare` at 10x200k) */
	while (*j < other->n &&
	       (c = other->s[*j].name == s->name ? 0 : strcmp(other->s[*j].name, s->name)) < 0)
		(*j)++;
	return *j < other->n && c == 0 ? &other->s[(*j)++] : NULL;
}

/* A series' values and Integer flags, asked for ahead: the reader's pool
 * holds them one after the other, 90 bytes for 10 runs on two or three
 * cache lines (prefetching the first only: the pass waited on the others,
 * -16% of the pass at 10x200k). */
static void prefetch_series(const struct rm_series *s)
{
	const char *v = (const char *)s->v;

	__builtin_prefetch(v);
	if (s->n * sizeof(*s->v) > 64)
		__builtin_prefetch(v + 64);
	if (s->n)
		__builtin_prefetch(s->is_int + s->n - 1);
}

/* The pass in the order the file of a listed its keys (the reader's
 * file_order): their values, and the rules' entries of their names (made
 * while the first file was read), lie in memory in that order, where
 * name order jumps about ~90 MiB of them at 10x200k stats.  Each key's
 * series in b is found first, by a merge in name order.  The order keys
 * are processed in changes nothing: the changed ones are sorted at the
 * end, every other effect is a count or a cached answer. */
static void run_pass_file_order(struct pass_ctx *p)
{
	const struct rm_matrix *a = p->a, *b = p->b;
	uint32_t *pair = rm_xmalloc(a->n * sizeof(*pair)); /* b index + 1; 0: none */
	unsigned char *paired = rm_xcalloc(b->n + 1, 1);
	size_t i, j = 0, f;

	for (i = 0; i < a->n; i++) {
		const struct rm_series *bs = merge_get(b, &j, &a->s[i]);

		pair[i] = bs ? (uint32_t)(bs - b->s) + 1 : 0;
		if (bs)
			paired[bs - b->s] = 1;
	}
	for (f = 0; f < a->n; f++) {
		/* the series 16 keys on (their places in s[] are random), then
		 * the values of those 8 on, read from those series */
		if (f + 16 < a->n) {
			i = a->file_order[f + 16];
			__builtin_prefetch(&a->s[i]);
			if (pair[i])
				__builtin_prefetch(&b->s[pair[i] - 1]);
		}
		if (f + 8 < a->n) {
			i = a->file_order[f + 8];
			prefetch_series(&a->s[i]);
			if (pair[i])
				prefetch_series(&b->s[pair[i] - 1]);
		}
		i = a->file_order[f];
		process(p, a->s[i].name, &a->s[i], pair[i] ? &b->s[pair[i] - 1] : NULL);
	}
	for (i = 0; i < b->n; i++)
		if (!paired[i])
			process(p, b->s[i].name, NULL, &b->s[i]);
	free(pair);
	free(paired);
}

/* One pass over every key of a, then the keys only in b. */
static void run_pass(struct pass_ctx *p)
{
	size_t i, j = 0;

	if (p->a->file_order && p->a->n && p->b->n < UINT32_MAX) {
		run_pass_file_order(p);
		return;
	}
	for (i = 0; i < p->a->n; i++) {
		/* the values of the stats 8 keys on, asked for now: by this pass
		 * they are out of the cache (read long ago, in file order, not
		 * name order), and waiting for them was ~1/8 of a 10x200k compare */
		if (i + 8 < p->a->n) {
			prefetch_series(&p->a->s[i + 8]);
			if (j + 8 < p->b->n)
				prefetch_series(&p->b->s[j + 8]);
		}
		process(p, p->a->s[i].name, &p->a->s[i], merge_get(p->b, &j, &p->a->s[i]));
	}
	for (i = 0, j = 0; i < p->b->n; i++)
		if (!merge_get(p->a, &j, &p->b->s[i]))
			process(p, p->b->s[i].name, NULL, &p->b->s[i]);
}

/* ------------------------------------------------------------ rows */

static void fill_row(const struct rm_rules *rules, struct rm_row *row, const char *k,
		     const struct rm_result_root *base, const struct rm_result_root *head)
{
	const struct rm_result_root *m[2] = { base, head };
	int i;

	memset(row, 0, sizeof(*row));
	row->name = rm_xstrdup(k);
	row->failure = rm_rules_is_function_stat(rules, k);
	row->weight = rm_rules_direction(rules, k);
	for (i = 0; i < 2; i++) {
		if (row->failure) {
			const struct rm_series *s = rm_matrix_get(&m[i]->all, k);

			row->fails[i] = s ? rm_stats_ruby_sum(s->v, s->is_int, s->n) : 0;
			row->runs[i] = m[i]->all.cols;
		} else {
			const struct rm_series *s = rm_matrix_get(&m[i]->complete, k);

			row->avg[i] = s && s->n ? rm_stats_mean(s->v, s->is_int, s->n) : 0;
			row->stddev[i] = s && s->n > 1 ? rm_stats_pstddev(s->v, s->is_int, s->n) : -1;
		}
	}
	if (row->failure) {
		/* lkp-tests divides the head's fails by the base's runs */
		double r0 = row->runs[0] ? (double)row->runs[0] : NAN;

		row->reproduction = 100 * (row->fails[1] / r0 - row->fails[0] / r0);
		row->change = row->reproduction;
	} else if (starts_with(k, "perf-profile") || ends_with(k, "%")) {
		row->abs_change = true;
		row->change = row->avg[1] - row->avg[0];
	} else {
		double avg0 = row->avg[0] == 0 ? 1e-100 : row->avg[0];

		row->change = 100.0 * (row->avg[1] - avg0) / avg0;
	}
}

struct sortable {
	struct rm_row *row;
	long count;
	size_t keylen;  /* bytes of the name that form the sort key */
};

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sortable *a = pa, *b = pb;
	size_t n;
	int c;

	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	/* sort_key: the full name, or "perf-profile.<family>" */
	n = a->keylen < b->keylen ? a->keylen : b->keylen;
	c = memcmp(a->row->name, b->row->name, n);
	if (c)
		return c;
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	if (a->row->change != b->row->change)
		return a->row->change < b->row->change ? -1 : 1;
	return strcmp(a->row->name, b->row->name);
}

static size_t sort_key_len(const char *k)
{
	const char *p;

	if (base_len(k) != 12 || strncmp(k, "perf-profile", 12))
		return strlen(k);
	/* first 2 dot components */
	p = strchr(k + 13, '.');
	return p ? (size_t)(p - k) : strlen(k);
}

static void sort_rows(const struct rm_rules *rules, long long when, struct rm_comparison *c)
{
	struct sortable *s = rm_xcalloc(c->n + 1, sizeof(*s));
	struct rm_row *sorted = rm_xcalloc(c->n + 1, sizeof(*sorted));
	size_t i, j;

	/* count[base]: starts at -10000 when the base's first row is a failure.
	 * Rows arrive in name order, so the rows of one base are adjacent. */
	for (i = 0; i < c->n; i = j) {
		size_t bl = base_len(c->rows[i].name), k;
		long count = c->rows[i].failure ? -10000 : 0;

		for (j = i; j < c->n && base_len(c->rows[j].name) == bl &&
			    !strncmp(c->rows[j].name, c->rows[i].name, bl); j++)
			count++;
		if (count > 0) {
			char *b = rm_xstrndup(c->rows[i].name, bl);

			if (rm_rules_resets_count(rules, b, when))
				count = 0;
			free(b);
		}
		for (k = i; k < j; k++) {
			s[k].row = &c->rows[k];
			s[k].count = count;
			s[k].keylen = sort_key_len(c->rows[k].name);
		}
	}
	rm_sort(s, c->n, sizeof(*s), cmp_rows);
	/* failure rows print first, in their sorted order, then the rest */
	j = 0;
	for (i = 0; i < c->n; i++)
		if (s[i].row->failure)
			sorted[j++] = *s[i].row;
	c->nfailure = j;
	for (i = 0; i < c->n; i++)
		if (!s[i].row->failure)
			sorted[j++] = *s[i].row;
	free(c->rows);
	free(s);
	c->rows = sorted;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rm_stats_compare(const struct rm_rules *rules, const struct rm_result_root *base,
	       const struct rm_result_root *head, struct rm_comparison *out, struct rm_error *err)
{
	struct pass_ctx p;
	bool incomplete = rm_matrix_get(&head->all, "last_state.is_incomplete_run") ||
			  rm_matrix_get(&base->all, "last_state.is_incomplete_run");
	size_t i;

	(void)err;
	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	p.rules = rules;
	if (incomplete) {
		/* first pass: the log stats only, over all runs */
		p.a = &head->all;
		p.b = &base->all;
		p.incomplete_pass = true;
		run_pass(&p);
		p.incomplete_pass = false;
		p.a = &head->complete;
		p.b = &base->complete;
		if (p.a->cols && p.b->cols)
			run_pass(&p);
	} else {
		p.a = &head->all;
		p.b = &base->all;
		run_pass(&p);
	}
	/* changed keys in name order (deterministic; see the count rule) */
	rm_sort(p.changed, p.nchanged, sizeof(char *), cmp_cstr);
	out->rows = rm_xcalloc(p.nchanged + 1, sizeof(*out->rows));
	for (i = 0; i < p.nchanged; i++) {
		if (!i || strcmp(p.changed[i - 1], p.changed[i]))
			fill_row(rules, &out->rows[out->n++], p.changed[i], base, head);
	}
	for (i = 0; i < p.nchanged; i++)
		free(p.changed[i]);
	free(p.changed);
	out->skipped_bad = p.skipped_bad;
	/* the job's end_time: the era of the table's row order (rm_rules_resets_count) */
	sort_rows(rules, (long long)rm_job_epoch(&head->job, "end_time"), out);
	return 0;
}

void rm_stats_comparison_free(struct rm_comparison *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->rows[i].name);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
