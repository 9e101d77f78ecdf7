/* test_stats.c - the statistics and the changed-stat detection. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "strbuf.h"

static const unsigned char ints[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
static const unsigned char floats[16] = { 0 };

static void test_mean_and_population_stddev(void **state)
{
	double a[] = { 1126061, 1161061, 1196061 };
	double one[] = { 42.5 };

	(void)state;
	assert_true(rm_stats_mean(a, ints, 3) == 1161061.0);
	/* population, not sample: sqrt(((35000^2)*2)/3) */
	assert_true(fabs(rm_stats_pstddev(a, ints, 3) - 28577.380332470415) < 1e-6);
	/* a single run has no stddev */
	assert_true(rm_stats_pstddev(one, floats, 1) == -1);
	assert_true(rm_stats_mean(one, floats, 1) == 42.5);
	assert_true(rm_stats_mean(NULL, NULL, 0) == 0);
}

static void test_ruby_sum_is_compensated(void **state)
{
	/* naive left-to-right summation gives 0.30000000000000004 */
	double v[] = { 0.1, 0.2 };
	double w[] = { 1e100, 1.0, -1e100 };

	(void)state;
	assert_true(rm_stats_ruby_sum(v, floats, 2) == 0.30000000000000004);
	/* Kahan-Babuska keeps the 1.0 that naive summation loses */
	assert_true(rm_stats_ruby_sum(w, floats, 3) == 1.0);
}

static void test_summary_upper_median_and_margin(void **state)
{
	double v[] = { 5, 1, 4, 2 };
	double w[40];
	double neg[] = { -1, -1, 3, 7, 5 };
	struct rm_summary s;
	int i;

	(void)state;
	assert_true(rm_stats_summarize(v, ints, 4, 3, &s));
	assert_true(s.min == 1 && s.mean == 4 && s.max == 5); /* s[size/2], the upper median */
	/* 40 runs: margin = min(40 >> 5, 3) = 1 value trimmed from each end */
	for (i = 0; i < 40; i++)
		w[i] = i;
	{
		unsigned char wi[40];

		memset(wi, 1, sizeof(wi));
		assert_true(rm_stats_summarize(w, wi, 40, 3, &s));
		assert_true(s.min == 1 && s.max == 38 && s.size == 38);
		assert_true(rm_stats_summarize(w, wi, 40, 0, &s));
		assert_true(s.min == 0 && s.max == 39);
	}
	/* leading -1 values are "empty data points" */
	assert_true(rm_stats_summarize(neg, ints, 5, 3, &s));
	assert_true(s.min == 3 && s.mean == 5 && s.max == 7 && s.size == 3);
}

/* The summary of any number of runs is that of a stable sort by value:
 * equal values keep their run order, so which run's Integer-or-Float class
 * the median has is the one lkp-tests' sort gives (checked against a plain
 * stable insertion sort of (value, run) on 1..300 runs of tied values). */
static void test_summary_is_a_stable_sort(void **state)
{
	static const double pick[] = { -1, 0, 1, 2, 2.5, 3, 1e9 };
	double v[300], sv[300];
	unsigned char is_int[300], si[300];
	unsigned long x = 12345;
	size_t n, i, j;

	(void)state;
	for (n = 1; n <= 300; n++) {
		struct rm_summary got, want;
		size_t margin = n >> 5, start = 0, size;
		bool ok;

		if (margin > 3)
			margin = 3;
		for (i = 0; i < n; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			v[i] = pick[(x >> 33) % (sizeof(pick) / sizeof(pick[0]))];
			is_int[i] = (unsigned char)((x >> 20) & 1);
		}
		/* the reference: insertion sort, moving only past larger values */
		for (i = 0; i < n; i++) {
			for (j = i; j > 0 && sv[j - 1] > v[i]; j--) {
				sv[j] = sv[j - 1];
				si[j] = si[j - 1];
			}
			sv[j] = v[i];
			si[j] = is_int[i];
		}
		while (start < n && sv[start] == -1)
			start++;
		size = n - start;
		memset(&want, 0, sizeof(want));
		ok = size > 2 * margin;
		if (ok) {
			size_t m = size - 2 * margin, f = start + margin;

			want.min = sv[f];
			want.mean = sv[f + m / 2];
			want.mean_is_int = si[f + m / 2];
			want.max = sv[f + m - 1];
			want.size = m;
		}
		assert_int_equal(rm_stats_summarize(v, is_int, n, 3, &got), ok);
		if (!ok)
			continue;
		assert_true(got.min == want.min && got.mean == want.mean && got.max == want.max);
		assert_int_equal(got.mean_is_int, want.mean_is_int);
		assert_int_equal(got.size, want.size);
	}
}

/* ---- building result roots in memory */

struct fake {
	const char *name;
	int n;
	double v[12];
	int is_float; /* values written as JSON floats */
};

static void fill_matrix(struct rm_matrix *m, const struct fake *f, size_t nf, size_t cols)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->s = rm_xcalloc(nf + 1, sizeof(*m->s));
	m->cols = cols;
	for (i = 0; i < nf; i++) {
		struct rm_series *s = &m->s[m->n++];
		size_t k, n = (size_t)f[i].n > cols ? (size_t)f[i].n : cols;

		s->name = rm_xstrdup(f[i].name);
		s->v = rm_xcalloc(n + 1, sizeof(double));
		s->is_int = rm_xcalloc(n + 1, 1);
		for (k = 0; k < n; k++) {
			s->v[k] = k < (size_t)f[i].n ? f[i].v[k] : 0;
			s->is_int[k] = k < (size_t)f[i].n ? !f[i].is_float : 1;
		}
		s->n = n;
		if (k && isnan(s->v[0]))
			s->is_bad = true;
	}
	/* sorted by name, as archive.c keeps them */
	for (i = 1; i < m->n; i++) {
		size_t j = i;

		while (j && strcmp(m->s[j - 1].name, m->s[j].name) > 0) {
			struct rm_series t = m->s[j];

			m->s[j] = m->s[j - 1];
			m->s[j - 1] = t;
			j--;
		}
	}
}

static void free_matrix(struct rm_matrix *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->s[i].name);
		free(m->s[i].v);
		free(m->s[i].is_int);
	}
	free(m->s);
}

static void make_root(struct rm_result_root *r, const struct fake *f, size_t nf, size_t cols)
{
	memset(r, 0, sizeof(*r));
	fill_matrix(&r->all, f, nf, cols);
	fill_matrix(&r->complete, f, nf, cols);
}

static void free_root(struct rm_result_root *r)
{
	free_matrix(&r->all);
	free_matrix(&r->complete);
}

static const struct rm_row *find(const struct rm_comparison *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name))
			return &c->rows[i];
	return NULL;
}

/* A file order for m (matrix.h: file_order), as the reader keeps one: name
 * order rotated by half, odd places then even ones (neither name order nor
 * its reverse). */
static void give_file_order(struct rm_matrix *m)
{
	size_t i, k = 0;

	m->file_order = rm_xmalloc((m->n + 1) * sizeof(*m->file_order));
	for (i = 1; i < m->n; i += 2)
		m->file_order[k++] = (uint32_t)((i + m->n / 2) % m->n);
	for (i = 0; i < m->n; i += 2)
		m->file_order[k++] = (uint32_t)((i + m->n / 2) % m->n);
}

static void compare(const struct fake *b, size_t nb, size_t cb, const struct fake *h, size_t nh,
		    size_t ch, struct rm_comparison *out)
{
	struct rm_result_root base, head;
	struct rm_comparison again;
	struct rm_error err;
	size_t i;

	make_root(&base, b, nb, cb);
	make_root(&head, h, nh, ch);
	assert_int_equal(rm_stats_compare(unit_rules(), &base, &head, out, &err), 0);
	/* the pass in the file's order (stats.c) finds exactly the same rows */
	give_file_order(&head.all);
	give_file_order(&head.complete);
	assert_int_equal(rm_stats_compare(unit_rules(), &base, &head, &again, &err), 0);
	assert_int_equal(again.n, out->n);
	assert_int_equal(again.nfailure, out->nfailure);
	assert_int_equal(again.skipped_bad, out->skipped_bad);
	for (i = 0; i < out->n; i++) {
		assert_string_equal(again.rows[i].name, out->rows[i].name);
		assert_memory_equal(again.rows[i].avg, out->rows[i].avg, sizeof(out->rows[i].avg));
		assert_true(again.rows[i].change == out->rows[i].change ||
			    (isnan(again.rows[i].change) && isnan(out->rows[i].change)));
	}
	rm_stats_comparison_free(&again);
	free(head.all.file_order);
	free(head.complete.file_order);
	head.all.file_order = head.complete.file_order = NULL;
	free_root(&base);
	free_root(&head);
}

static void test_detection_of_section8_example(void **state)
{
	static const struct fake b[] = {
		{ "stress-ng.mlockmany.ops", 3, { 1043210, 1051820, 1055324 }, 0 },
		{ "stress-ng.mlockmany.ops_per_sec", 3, { 17400.5, 17541.0, 17681.5 }, 1 },
		{ "stress-ng.mlockmany.pass", 3, { 1, 1, 1 }, 0 },
		{ "stress-ng.time.elapsed_time", 3, { 60.52, 60.49, 60.55 }, 1 },
		{ "stress-ng.time.involuntary_context_switches", 3, { 2913233, 2933233, 2953233 }, 0 },
		{ "stress-ng.time.user_time", 3, { 75.91, 76.26, 76.61 }, 1 },
		{ "vmstat.system.cs", 3, { 3379.2, 3401.5, 3365.8 }, 1 },
	};
	static const struct fake h[] = {
		{ "stress-ng.mlockmany.ops", 3, { 1126061, 1161061, 1196061 }, 0 },
		{ "stress-ng.mlockmany.ops_per_sec", 3, { 18900.0, 19384.0, 19868.0 }, 1 },
		{ "stress-ng.mlockmany.pass", 3, { 1, 1, 1 }, 0 },
		{ "stress-ng.time.elapsed_time", 3, { 60.51, 60.53, 60.48 }, 1 },
		{ "stress-ng.time.involuntary_context_switches", 3, { 2704192, 2714192, 2724192 }, 0 },
		{ "stress-ng.time.user_time", 3, { 94.9, 98.61, 102.32 }, 1 },
		{ "vmstat.system.cs", 3, { 3390.1, 3372.4, 3410.0 }, 1 },
	};
	struct rm_comparison c;

	(void)state;
	compare(b, 7, 3, h, 7, 3, &c);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.rows[0].name, "stress-ng.mlockmany.ops");
	assert_string_equal(c.rows[1].name, "stress-ng.mlockmany.ops_per_sec");
	assert_string_equal(c.rows[2].name, "stress-ng.time.involuntary_context_switches");
	assert_string_equal(c.rows[3].name, "stress-ng.time.user_time");
	assert_true(fabs(c.rows[0].change - 10.5649) < 1e-3);
	assert_true(c.rows[1].weight > 0); /* stress-ng.*_per_sec: higher is better */
	assert_true(c.rows[0].weight == 0); /* .ops has no direction */
	rm_stats_comparison_free(&c);
}

static void test_stat_only_in_head_is_never_shown(void **state)
{
	static const struct fake b[] = {
		{ "stress-ng.a.ops_per_sec", 3, { 10, 11, 12 }, 0 },
	};
	static const struct fake h[] = {
		{ "stress-ng.a.ops_per_sec", 3, { 10, 11, 12 }, 0 },
		{ "stress-ng.new.ops_per_sec", 3, { 1000, 1100, 1200 }, 0 },
	};
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 3, h, 2, 3, &c);
	assert_int_equal(c.n, 0);
	rm_stats_comparison_free(&c);
}

static void test_perf_profile_new_in_head_is_shown(void **state)
{
	/* a perf-profile stat new in the head is compared when the base has any
	 * perf-profile stat; its base mean is 0 */
	static const struct fake b[] = {
		{ "perf-profile.self.cycles-pp.a", 3, { 3.07, 3.08, 3.06 }, 1 },
	};
	static const struct fake h[] = {
		{ "perf-profile.self.cycles-pp.a", 3, { 3.07, 3.08, 3.06 }, 1 },
		{ "perf-profile.self.cycles-pp.mod_node_page_state", 3, { 0.72, 0.73, 0.74 }, 1 },
	};
	struct rm_comparison c;
	const struct rm_row *r;

	(void)state;
	compare(b, 1, 3, h, 2, 3, &c);
	r = find(&c, "perf-profile.self.cycles-pp.mod_node_page_state");
	assert_non_null(r);
	assert_true(r->abs_change);
	assert_true(r->avg[0] == 0);
	assert_true(fabs(r->change - 0.73) < 1e-9);
	assert_null(find(&c, "perf-profile.self.cycles-pp.a"));
	rm_stats_comparison_free(&c);
}

static void test_zero_base_uses_1e_minus_100(void **state)
{
	static const struct fake b[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 0, 0, 0 }, 0 },
	};
	static const struct fake h[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 2.6, 2.6, 2.6 }, 1 },
	};
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 3, h, 1, 3, &c);
	assert_int_equal(c.n, 1);
	assert_true(c.rows[0].change == 100.0 * (2.6 - 1e-100) / 1e-100);
	rm_stats_comparison_free(&c);
}

static void test_fewer_than_three_runs_on_both_sides_is_skipped(void **state)
{
	static const struct fake b[] = { { "stress-ng.x.ops_per_sec", 2, { 10, 10 }, 0 } };
	static const struct fake h[] = { { "stress-ng.x.ops_per_sec", 2, { 20, 20 }, 0 } };
	static const struct fake h3[] = { { "stress-ng.x.ops_per_sec", 3, { 20, 20, 20 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 2, h, 1, 2, &c);
	assert_int_equal(c.n, 0);
	rm_stats_comparison_free(&c);
	/* three runs on one side are enough */
	compare(b, 1, 2, h3, 1, 3, &c);
	assert_int_equal(c.n, 1);
	rm_stats_comparison_free(&c);
}

static void test_single_run_row_has_no_stddev(void **state)
{
	static const struct fake b[] = { { "stress-ng.x.ops_per_sec", 1, { 10 }, 0 } };
	static const struct fake h[] = { { "stress-ng.x.ops_per_sec", 3, { 20, 21, 22 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 1, h, 1, 3, &c);
	assert_int_equal(c.n, 1);
	assert_true(c.rows[0].stddev[0] == -1);
	rm_stats_comparison_free(&c);
}

static void test_small_changes_are_filtered(void **state)
{
	/* separated but ratio <= 1.01: dropped even for a perf metric */
	static const struct fake b[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 1000, 1001, 1002 }, 0 },
		/* a monitor stat (not a perf metric) changing 3%: needs > 5% */
		{ "mpstat.cpu.all.sys%", 3, { 10.0, 10.01, 10.02 }, 1 },
		/* a threshold entry: involuntary switches need max >= 1000 */
		{ "stress-ng.time.involuntary_context_switches", 3, { 100, 101, 102 }, 0 },
	};
	static const struct fake h[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 1008, 1009, 1010 }, 0 },
		{ "mpstat.cpu.all.sys%", 3, { 10.3, 10.31, 10.32 }, 1 },
		{ "stress-ng.time.involuntary_context_switches", 3, { 200, 201, 202 }, 0 },
	};
	struct rm_comparison c;

	(void)state;
	compare(b, 3, 3, h, 3, 3, &c);
	assert_int_equal(c.n, 0);
	rm_stats_comparison_free(&c);
}

static void test_overlapping_runs_are_not_a_change(void **state)
{
	static const struct fake b[] = { { "stress-ng.x.ops_per_sec", 3, { 10, 20, 30 }, 0 } };
	static const struct fake h[] = { { "stress-ng.x.ops_per_sec", 3, { 15, 25, 35 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 3, h, 1, 3, &c);
	assert_int_equal(c.n, 0);
	rm_stats_comparison_free(&c);
}

static void test_denylisted_monitor_never_shown(void **state)
{
	static const struct fake b[] = { { "interrupts.CPU0.LOC", 3, { 10, 11, 12 }, 0 },
					 { "softirqs.CPU1.RCU", 3, { 10, 11, 12 }, 0 } };
	static const struct fake h[] = { { "interrupts.CPU0.LOC", 3, { 100000, 110000, 120000 }, 0 },
					 { "softirqs.CPU1.RCU", 3, { 100000, 110000, 120000 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 2, 3, h, 2, 3, &c);
	assert_int_equal(c.n, 0);
	rm_stats_comparison_free(&c);
}

static void test_negative_mean_and_large_stddev(void **state)
{
	static const struct fake b[] = { { "stress-ng.x.ops_per_sec", 3, { -10, -11, -12 }, 0 } };
	static const struct fake h[] = { { "stress-ng.x.ops_per_sec", 3, { 0, 0, 300 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 1, 3, h, 1, 3, &c);
	assert_int_equal(c.n, 1);
	assert_true(c.rows[0].avg[0] == -11);
	/* stddev of {0,0,300} is 141.42, i.e. 141% of the mean 100 */
	assert_true(fabs(c.rows[0].stddev[1] / c.rows[0].avg[1] * 100 - 141.42) < 0.01);
	rm_stats_comparison_free(&c);
}

static void test_nan_stat_is_left_out_and_counted(void **state)
{
	static const struct fake b[] = { { "stress-ng.x.ops_per_sec", 3, { NAN, 1, 1 }, 1 },
					 { "stress-ng.y.ops_per_sec", 3, { 1, 1, 1 }, 0 } };
	static const struct fake h[] = { { "stress-ng.x.ops_per_sec", 3, { 5, 5, 5 }, 0 },
					 { "stress-ng.y.ops_per_sec", 3, { 5, 5, 5 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 2, 3, h, 2, 3, &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.rows[0].name, "stress-ng.y.ops_per_sec");
	assert_int_equal(c.skipped_bad, 1);
	rm_stats_comparison_free(&c);
}

static void test_failure_stats_and_reproduction(void **state)
{
	static const struct fake b[] = { { "dmesg.BUG:x", 4, { 0, 0, 0, 0 }, 0 },
					 { "dmesg.boot_failures", 4, { 0, 0, 0, 0 }, 0 } };
	static const struct fake h[] = { { "dmesg.BUG:x", 4, { 1, 1, 0, 1 }, 0 },
					 { "dmesg.boot_failures", 4, { 1, 1, 0, 1 }, 0 } };
	struct rm_comparison c;

	(void)state;
	compare(b, 2, 4, h, 2, 4, &c);
	/* dmesg.boot_failures is deny-listed; dmesg.BUG:x is a failure row */
	assert_int_equal(c.n, 1);
	assert_int_equal(c.nfailure, 1);
	assert_true(c.rows[0].failure);
	assert_true(c.rows[0].fails[1] == 3 && c.rows[0].runs[0] == 4);
	assert_true(c.rows[0].reproduction == 75);
	rm_stats_comparison_free(&c);
}

static void test_row_order_counts_then_names_then_change(void **state)
{
	static const struct fake b[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 10, 10, 10 }, 0 },
		{ "proc-vmstat.pgfault", 3, { 10000, 10000, 10000 }, 0 },
		{ "proc-vmstat.numa_hit", 3, { 10000, 10000, 10000 }, 0 },
		{ "perf-stat.i.ipc", 3, { 1.0, 1.0, 1.0 }, 1 },
		{ "perf-profile.self.cycles-pp.b", 3, { 2.0, 2.0, 2.0 }, 1 },
		{ "perf-profile.self.cycles-pp.a", 3, { 2.0, 2.0, 2.0 }, 1 },
		{ "perf-profile.children.cycles-pp.z", 3, { 2.0, 2.0, 2.0 }, 1 },
	};
	static const struct fake h[] = {
		{ "stress-ng.x.ops_per_sec", 3, { 20, 20, 20 }, 0 },
		{ "proc-vmstat.pgfault", 3, { 20000, 20000, 20000 }, 0 },
		{ "proc-vmstat.numa_hit", 3, { 20000, 20000, 20000 }, 0 },
		{ "perf-stat.i.ipc", 3, { 2.0, 2.0, 2.0 }, 1 },
		{ "perf-profile.self.cycles-pp.b", 3, { 1.5, 1.5, 1.5 }, 1 },
		{ "perf-profile.self.cycles-pp.a", 3, { 2.5, 2.5, 2.5 }, 1 },
		{ "perf-profile.children.cycles-pp.z", 3, { 2.5, 2.5, 2.5 }, 1 },
	};
	static const char *const want[] = {
		"stress-ng.x.ops_per_sec",		/* a test program: count 0 */
		"perf-stat.i.ipc",			/* 1 row */
		"proc-vmstat.numa_hit",			/* 2 rows, by name */
		"proc-vmstat.pgfault",
		"perf-profile.children.cycles-pp.z",	/* 3 rows; family, then change */
		"perf-profile.self.cycles-pp.b",	/* -0.5 */
		"perf-profile.self.cycles-pp.a",	/* +0.5 */
	};
	struct rm_comparison c;
	size_t i;

	(void)state;
	compare(b, 7, 3, h, 7, 3, &c);
	assert_int_equal(c.n, 7);
	for (i = 0; i < 7; i++)
		assert_string_equal(c.rows[i].name, want[i]);
	rm_stats_comparison_free(&c);
}

const struct CMUnitTest unit_stats_tests[] = {
	cmocka_unit_test(test_mean_and_population_stddev),
	cmocka_unit_test(test_ruby_sum_is_compensated),
	cmocka_unit_test(test_summary_upper_median_and_margin),
	cmocka_unit_test(test_summary_is_a_stable_sort),
	cmocka_unit_test(test_detection_of_section8_example),
	cmocka_unit_test(test_stat_only_in_head_is_never_shown),
	cmocka_unit_test(test_perf_profile_new_in_head_is_shown),
	cmocka_unit_test(test_zero_base_uses_1e_minus_100),
	cmocka_unit_test(test_fewer_than_three_runs_on_both_sides_is_skipped),
	cmocka_unit_test(test_single_run_row_has_no_stddev),
	cmocka_unit_test(test_small_changes_are_filtered),
	cmocka_unit_test(test_overlapping_runs_are_not_a_change),
	cmocka_unit_test(test_denylisted_monitor_never_shown),
	cmocka_unit_test(test_negative_mean_and_large_stddev),
	cmocka_unit_test(test_nan_stat_is_left_out_and_counted),
	cmocka_unit_test(test_failure_stats_and_reproduction),
	cmocka_unit_test(test_row_order_counts_then_names_then_change),
};
const size_t unit_stats_ntests = sizeof(unit_stats_tests) / sizeof(unit_stats_tests[0]);
