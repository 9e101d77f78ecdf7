/* test_report.c - picking what a compared test reports (report.h):
 * rm_report_pick (the test's own KPI before any other stat with a direction,
 * the largest change, regression or improvement from the metric's direction,
 * a failure only when no KPI moved) and rm_report_same_report (which picked
 * tests fold into one report).  Comparisons are built row by row, so each
 * rule is seen alone. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"

/* a performance row: %change and the metric's direction weight */
static void perf(struct rm_comparison *c, const char *name, double change, double weight)
{
	struct rm_row *r;

	c->rows = rm_xrealloc(c->rows, (c->n + 1) * sizeof(*c->rows));
	r = &c->rows[c->n++];
	memset(r, 0, sizeof(*r));
	r->name = rm_xstrdup(name);
	r->change = change;
	r->weight = weight;
}

/* a failure row (they come first: rows[0..nfailure)) */
static void failure(struct rm_comparison *c, const char *name, double reproduction)
{
	struct rm_row *r;

	assert_int_equal(c->n, c->nfailure);
	perf(c, name, 0, 0);
	r = &c->rows[c->n - 1];
	r->failure = true;
	r->reproduction = reproduction;
	c->nfailure++;
}

/* a result root with the job fields the picking reads */
struct root {
	struct rm_kv fields[2];
	struct rm_result_root r;
};

static void root(struct root *x, const char *commit, const char *testcase, const char *branch)
{
	memset(x, 0, sizeof(*x));
	x->fields[0].key = "testcase";
	x->fields[0].value = (char *)testcase;
	x->fields[1].key = "branch";
	x->fields[1].value = (char *)branch;
	x->r.commit = (char *)commit;
	x->r.path = (char *)commit;
	x->r.job.fields = x->fields;
	x->r.job.nfields = branch ? 2 : 1;
}

static void test_own_kpi_before_other_stats(void **state)
{
	struct root b, h;
	struct rm_comparison c = { 0 };
	struct rm_report_test t;

	(void)state;
	root(&b, "base1", "stress-ng", "linus/master");
	root(&h, "head1", "stress-ng", "linus/master");
	perf(&c, "stress-ng.mincore.ops_per_sec", 28.1, 1);
	perf(&c, "vmstat.system.cs", -60.0, 1);      /* larger, but not the test's */
	perf(&c, "stress-ngx.other", 90.0, 1);        /* a prefix is not the testcase */
	assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	assert_string_equal(t.headline->name, "stress-ng.mincore.ops_per_sec");
	assert_int_equal(t.kind, RM_REPORT_IMPROVEMENT);
	assert_true(t.pct == 28.1);
	assert_ptr_equal(t.base, &b.r);
	assert_ptr_equal(t.head, &h.r);
	/* the comparison now belongs to the picked test */
	assert_null(c.rows);
	assert_int_equal(c.n, 0);
	assert_int_equal(t.cmp.n, 3);
	rm_report_test_free(&t);
}

static void test_direction_makes_regression_or_improvement(void **state)
{
	static const struct {
		double change, weight;
		enum rm_report_kind kind;
	} cases[] = {
		{ -2.6, 1, RM_REPORT_REGRESSION },   /* higher is better, went down */
		{ 2.6, 1, RM_REPORT_IMPROVEMENT },
		{ 9.6, -1, RM_REPORT_REGRESSION },   /* lower is better (latency), went up */
		{ -9.6, -1, RM_REPORT_IMPROVEMENT },
		{ -5.0, 0.5, RM_REPORT_REGRESSION }, /* only the sign of the weight counts */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct root b, h;
		struct rm_comparison c = { 0 };
		struct rm_report_test t;

		root(&b, "base1", "will-it-scale", NULL);
		root(&h, "head1", "will-it-scale", NULL);
		perf(&c, "will-it-scale.per_thread_ops", cases[i].change, cases[i].weight);
		assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
		assert_int_equal(t.kind, cases[i].kind);
		assert_true(t.pct == fabs(cases[i].change));
		rm_report_test_free(&t);
	}
}

static void test_largest_change_then_name(void **state)
{
	struct root b, h;
	struct rm_comparison c = { 0 };
	struct rm_report_test t;

	(void)state;
	root(&b, "base1", "stress-ng", NULL);
	root(&h, "head1", "stress-ng", NULL);
	perf(&c, "stress-ng.b.ops", 5.0, 1);
	perf(&c, "stress-ng.c.ops", -12.5, 1);
	perf(&c, "stress-ng.a.ops", 12.5, 1);  /* ties with c: the smaller name wins */
	assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	assert_string_equal(t.headline->name, "stress-ng.a.ops");
	assert_int_equal(t.kind, RM_REPORT_IMPROVEMENT);
	rm_report_test_free(&t);
}

static void test_rows_that_cannot_headline(void **state)
{
	struct root b, h;
	struct rm_comparison c = { 0 };
	struct rm_report_test t;
	struct rm_row *abs_row;

	(void)state;
	root(&b, "base1", "stress-ng", NULL);
	root(&h, "head1", "stress-ng", NULL);
	perf(&c, "stress-ng.no_direction", 80.0, 0);
	perf(&c, "stress-ng.nan", NAN, 1);
	perf(&c, "stress-ng.inf", INFINITY, 1);
	perf(&c, "stress-ng.percent%", 70.0, 1);
	abs_row = &c.rows[c.n - 1];
	abs_row->abs_change = true;  /* an absolute change is not a %change */
	/* none of the test's own rows can: any other stat with a direction */
	perf(&c, "vmstat.system.cs", -3.0, -1);
	assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	assert_string_equal(t.headline->name, "vmstat.system.cs");
	assert_int_equal(t.kind, RM_REPORT_IMPROVEMENT);
	rm_report_test_free(&t);
}

static void test_failure_only_when_no_kpi_moved(void **state)
{
	struct root b, h;
	struct rm_comparison c = { 0 };
	struct rm_report_test t;

	(void)state;
	root(&b, "base1", "stress-ng", NULL);
	root(&h, "head1", "stress-ng", NULL);
	failure(&c, "dmesg.WARNING:at_mm/x.c", 50);
	failure(&c, "dmesg.BUG:kernel_NULL_pointer_dereference,address", 125);
	failure(&c, "dmesg.Oops", 125);   /* ties: the first keeps it */
	failure(&c, "dmesg.gone", -100);  /* less frequent: never a finding */
	perf(&c, "stress-ng.no_direction", 80.0, 0);
	assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	assert_int_equal(t.kind, RM_REPORT_FUNCTIONAL);
	assert_string_equal(t.headline->name, "dmesg.BUG:kernel_NULL_pointer_dereference,address");
	assert_true(t.pct == 125);
	rm_report_test_free(&t);

	/* with a KPI that moved, the performance change is the headline */
	root(&b, "base1", "stress-ng", NULL);
	failure(&c, "dmesg.Oops", 125);
	perf(&c, "stress-ng.ops", -1.5, 1);
	assert_true(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	assert_int_equal(t.kind, RM_REPORT_REGRESSION);
	assert_string_equal(t.headline->name, "stress-ng.ops");
	rm_report_test_free(&t);
}

static void test_nothing_to_report(void **state)
{
	struct root b, h;
	struct rm_comparison c = { 0 };
	struct rm_report_test t;

	(void)state;
	root(&b, "base1", "stress-ng", NULL);
	root(&h, "head1", "stress-ng", NULL);
	failure(&c, "dmesg.gone", -100);
	failure(&c, "dmesg.same", 0);
	perf(&c, "stress-ng.no_direction", 80.0, 0);
	memset(&t, 0x5a, sizeof(t));
	assert_false(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
	/* the comparison is freed and the test zeroed */
	assert_null(c.rows);
	assert_int_equal(c.n, 0);
	assert_null(t.headline);
	assert_null(t.cmp.rows);
	assert_int_equal(t.nalso, 0);
	/* an empty comparison */
	assert_false(rm_report_pick(unit_rules(), &b.r, &h.r, &c, &t));
}

/* a picked test of `kind` for commits base/head on `branch` */
static void picked(struct rm_report_test *t, struct root *b, struct root *h, const char *base,
		   const char *head, const char *branch, bool functional)
{
	struct rm_comparison c = { 0 };

	root(b, base, "stress-ng", branch);
	root(h, head, "stress-ng", branch);
	if (functional)
		failure(&c, "dmesg.Oops", 100);
	else
		perf(&c, "stress-ng.ops", 10, 1);
	assert_true(rm_report_pick(unit_rules(), &b->r, &h->r, &c, t));
}

static void test_same_report(void **state)
{
	struct root b[6], h[6];
	struct rm_report_test t[6];
	size_t i;

	(void)state;
	picked(&t[0], &b[0], &h[0], "base1", "head1", "linus/master", false);
	picked(&t[1], &b[1], &h[1], "base1", "head1", "linus/master", false);  /* another test */
	picked(&t[2], &b[2], &h[2], "base1", "head1", "linus/master", true);   /* functional */
	picked(&t[3], &b[3], &h[3], "base2", "head1", "linus/master", false);  /* other base */
	picked(&t[4], &b[4], &h[4], "base1", "head1", "next/master", false);   /* other branch */
	picked(&t[5], &b[5], &h[5], "base1", "head2", "linus/master", false);  /* other head */
	assert_true(rm_report_same_report(&t[0], &t[1]));
	assert_true(rm_report_same_report(&t[1], &t[0]));
	assert_true(rm_report_same_report(&t[0], &t[0]));
	assert_false(rm_report_same_report(&t[0], &t[2]));
	assert_false(rm_report_same_report(&t[2], &t[0]));
	assert_false(rm_report_same_report(&t[0], &t[3]));
	assert_false(rm_report_same_report(&t[0], &t[4]));
	assert_false(rm_report_same_report(&t[0], &t[5]));
	/* two functional findings of one commit pair fold too */
	{
		struct root bb, hh;
		struct rm_report_test f;

		picked(&f, &bb, &hh, "base1", "head1", "linus/master", true);
		assert_true(rm_report_same_report(&t[2], &f));
		rm_report_test_free(&f);
	}
	/* a job without a branch equals another without one */
	{
		struct root b1, h1, b2, h2;
		struct rm_report_test x, y;

		picked(&x, &b1, &h1, "base1", "head1", NULL, false);
		picked(&y, &b2, &h2, "base1", "head1", NULL, false);
		assert_true(rm_report_same_report(&x, &y));
		assert_false(rm_report_same_report(&x, &t[0]));
		rm_report_test_free(&x);
		rm_report_test_free(&y);
	}
	for (i = 0; i < 6; i++)
		rm_report_test_free(&t[i]);
}

/* rm_report_add_seen_at: one bracket head per tree, the newest by commit
 * time when both times are known; with a time unknown the first one added
 * stays (the caller adds newest first as far as it knows); a commit already
 * there is not added again under another tree. */
static void test_seen_newest_per_tree(void **state)
{
	struct rm_report r;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	rm_report_add_seen_at(&r, "linus/master", "aaaa", 100);
	rm_report_add_seen_at(&r, "linus/master", "bbbb", 300); /* newer: replaces */
	rm_report_add_seen_at(&r, "linus/master", "cccc", 200); /* older: ignored */
	rm_report_add_seen_at(&r, "linux-next/master", "dddd", 0);
	rm_report_add_seen_at(&r, "linux-next/master", "eeee", 500); /* first has no time: stays */
	rm_report_add_seen_at(&r, "tip/sched/core", "ffff", 50);
	rm_report_add_seen_at(&r, "tip/sched/core", "gggg", 0); /* no time: the first stays */
	rm_report_add_seen_at(&r, "mm/mm-everything", "bbbb", 900); /* a commit already named */
	assert_int_equal(r.nseen, 3);
	assert_string_equal(r.seen[0].where, "linus/master");
	assert_string_equal(r.seen[0].commit, "bbbb");
	assert_true(r.seen[0].commit_time == 300);
	assert_string_equal(r.seen[1].commit, "dddd");
	assert_string_equal(r.seen[2].commit, "ffff");
	for (i = 0; i < r.nseen; i++) {
		free(r.seen[i].where);
		free(r.seen[i].commit);
	}
	free(r.seen);
}

const struct CMUnitTest unit_report_tests[] = {
	cmocka_unit_test(test_seen_newest_per_tree),
	cmocka_unit_test(test_own_kpi_before_other_stats),
	cmocka_unit_test(test_direction_makes_regression_or_improvement),
	cmocka_unit_test(test_largest_change_then_name),
	cmocka_unit_test(test_rows_that_cannot_headline),
	cmocka_unit_test(test_failure_only_when_no_kpi_moved),
	cmocka_unit_test(test_nothing_to_report),
	cmocka_unit_test(test_same_report),
};
const size_t unit_report_ntests = sizeof(unit_report_tests) / sizeof(unit_report_tests[0]);
