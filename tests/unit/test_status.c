/* test_status.c - the findings page's plot and fail:runs table (status.c):
 * the SVG's geometry (the y axis spans every value, each circle at its
 * value's height inside its head's column, the band at mean +- stddev, the
 * width and height growing with the heads), its labels and text legend, and
 * the table of a failure's counts. */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "strbuf.h"

/* the geometry status.c draws with */
#define L 90.0
#define R 20.0
#define T 30.0
#define B 64.0
#define PH 300.0
#define LH 18.0

static struct rm_store_point point(const char *commit, const char *role, const char *label,
				   const double *v, size_t n)
{
	struct rm_store_point p;

	memset(&p, 0, sizeof(p));
	p.commit = (char *)commit;
	p.role = (char *)role;
	p.label = (char *)label;
	p.v = (double *)v;
	p.n = n;
	return p;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* the y of value v on an axis from lo to hi (before the padding) */
static double y_of(double v, double lo, double hi)
{
	double pad = (hi - lo) * 0.08;

	lo -= pad;
	hi += pad;
	return T + (PH - T - B) * (hi - v) / (hi - lo);
}

static void test_plot_geometry(void **state)
{
	const double b[3] = { 10, 20, 30 }, h[2] = { 40, 50 }, s[1] = { 45 };
	struct rm_store_point pt[4];
	struct rm_sb sb = RM_SB_INIT;
	const char *q;
	double W = 640, colw = (W - L - R) / 3, mean = 20, sd = sqrt(200.0 / 3);
	double x, y, w, hh;
	size_t k, i;

	(void)state;
	pt[0] = point("b5ac70b750f93ba32446145be56472cf6e5c1e8c", "base", NULL, b, 3);
	pt[1] = point("8807b68269657a8e419152e36c54046ec75247d3", "head", "linus/master", h, 2);
	pt[2] = point("0000000000000000000000000000000000000000", "seen", "x/y", NULL, 0);
	pt[3] = point("d742a4c3fa217dd53796cd1b8d219297e41de3c9", "seen", "linux-next/master", s, 1);
	rm_sb_init(&sb);
	rm_status_plot(&sb, "m.ops", pt, 4, "tip/sched/core");
	/* three heads with values (the one without is no group), six runs */
	assert_non_null(strstr(sb.buf, "width=\"640\" height=\"362\""));
	assert_non_null(strstr(sb.buf, "aria-label=\"m.ops: 6 runs on 3 commits\""));
	assert_int_equal(count(sb.buf, "<g class=\"commit\">"), 3);
	assert_int_equal(count(sb.buf, "<circle class=\"run\""), 6);
	assert_null(strstr(sb.buf, "0000000000"));
	/* each circle at its value's height, inside its head's column, in order */
	{
		const struct { size_t group; double v; } want[6] = {
			{ 0, 10 }, { 0, 20 }, { 0, 30 }, { 1, 40 }, { 1, 50 }, { 2, 45 }
		};

		for (q = strstr(sb.buf, "<circle class=\"run\""), k = 0; q;
		     q = strstr(q + 1, "<circle class=\"run\""), k++) {
			double cx = L + colw * ((double)want[k].group + 0.5);

			assert_int_equal(sscanf(q, "<circle class=\"run\" cx=\"%lf\" cy=\"%lf\"", &x, &y), 2);
			assert_true(fabs(y - y_of(want[k].v, 10, 50)) < 0.06);
			assert_true(x >= cx - colw * 0.25 - 0.06 && x <= cx + colw * 0.25 + 0.06);
			assert_true(y >= T && y <= PH - B);
		}
		assert_int_equal(k, 6);
	}
	/* the base's band: mean +- population stddev; its mean line */
	q = strstr(sb.buf, "<rect class=\"band\"");
	assert_non_null(q);
	assert_int_equal(sscanf(q, "<rect class=\"band\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
				&x, &y, &w, &hh),
			 4);
	assert_true(fabs(y - y_of(mean + sd, 10, 50)) < 0.06);
	assert_true(fabs(y + hh - y_of(mean - sd, 10, 50)) < 0.12);
	assert_true(fabs(x - (L + colw * 0.2)) < 0.06 && fabs(w - colw * 0.6) < 0.06);
	q = strstr(sb.buf, "<line class=\"mean\"");
	assert_non_null(q);
	assert_int_equal(sscanf(q, "<line class=\"mean\" x1=\"%lf\" y1=\"%lf\"", &x, &y), 2);
	assert_true(fabs(y - y_of(mean, 10, 50)) < 0.06);
	/* a single run has no spread: its band is a line at its value */
	q = strstr(sb.buf, "d742a4c3fa217dd53796cd1b8d219297e41de3c9 (seen)");
	assert_non_null(q);
	q = strstr(q, "<rect class=\"band\"");
	assert_int_equal(sscanf(q, "<rect class=\"band\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
				&x, &y, &w, &hh),
			 4);
	assert_true(fabs(y - y_of(45, 10, 50)) < 0.06 && hh < 0.06);
	/* under each column its sha10, tree/branch (the page's for a point kept
	 * without one) and role; a legend line per head, below the plot */
	for (i = 0; i < 3; i++) {
		static const char *const legend[3] = {
			">b5ac70b750 tip/sched/core (base): mean 20 &#177; 8.16497, 3 runs</text>",
			">8807b68269 linus/master (head): mean 45 &#177; 5, 2 runs</text>",
			">d742a4c3fa linux-next/master (seen): mean 45 &#177; 0, 1 run</text>",
		};

		q = strstr(sb.buf, legend[i]);
		assert_non_null(q);
		while (q > sb.buf && strncmp(q, "<text class=\"legend\"", 20))
			q--;
		assert_int_equal(sscanf(q, "<text class=\"legend\" x=\"%lf\" y=\"%lf\"", &x, &y), 2);
		assert_true(fabs(y - (PH + LH * (double)(i + 1))) < 0.06);
	}
	assert_non_null(strstr(sb.buf, "text-anchor=\"middle\">tip/sched/core</text>"));
	assert_non_null(strstr(sb.buf, "text-anchor=\"middle\">linux-next/master</text>"));
	assert_non_null(strstr(sb.buf, "text-anchor=\"middle\">8807b68269</text>"));
	assert_non_null(strstr(sb.buf, "text-anchor=\"middle\">seen</text>"));
	/* the axis' ends name the padded range */
	assert_non_null(strstr(sb.buf, ">53.2</text>"));
	assert_non_null(strstr(sb.buf, ">6.8</text>"));
	assert_int_equal(count(sb.buf, "<script"), 0);
	rm_sb_release(&sb);
}

static void test_plot_many_heads_equal_values_and_escaping(void **state)
{
	const double v[2] = { 5, 5 };
	struct rm_store_point pt[8];
	struct rm_sb sb = RM_SB_INIT;
	const char *q;
	double x, y;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		pt[i] = point("c0ffee", i ? "seen" : "head", i == 7 ? "a<b>&\"c" : "t/b", v, 2);
	rm_sb_init(&sb);
	rm_status_plot(&sb, "x<y", pt, 8, NULL);
	/* 100 per head: wider than 640; a legend line each */
	assert_non_null(strstr(sb.buf, "width=\"910\" height=\"452\""));
	assert_int_equal(count(sb.buf, "<text class=\"legend\""), 8);
	/* every value equal: the axis spans +-5% around it, the runs in the middle */
	q = strstr(sb.buf, "<circle class=\"run\"");
	assert_int_equal(sscanf(q, "<circle class=\"run\" cx=\"%lf\" cy=\"%lf\"", &x, &y), 2);
	assert_true(fabs(y - (T + (PH - T - B) / 2)) < 0.06);
	assert_non_null(strstr(sb.buf, ">5.25</text>"));
	assert_non_null(strstr(sb.buf, ">4.75</text>"));
	/* names are text, never markup */
	assert_null(strstr(sb.buf, "a<b>"));
	assert_non_null(strstr(sb.buf, "a&lt;b&gt;&amp;&quot;c (seen)"));
	assert_non_null(strstr(sb.buf, "aria-label=\"x&lt;y: 16 runs on 8 commits\""));
	rm_sb_release(&sb);
	/* nothing to draw: nothing written */
	for (i = 0; i < 8; i++)
		pt[i].n = 0;
	rm_sb_init(&sb);
	rm_status_plot(&sb, "m", pt, 8, NULL);
	assert_int_equal(sb.len, 0);
	rm_sb_release(&sb);
}

static void test_fail_table(void **state)
{
	const double b[3] = { 0, 0, 0 }, h[3] = { 1, 0, 1 };
	struct rm_store_point pt[3];
	struct rm_sb sb = RM_SB_INIT;

	(void)state;
	pt[0] = point("b5ac70b750f93ba32446145be56472cf6e5c1e8c", "base", NULL, b, 3);
	pt[1] = point("8807b68269657a8e419152e36c54046ec75247d3", "head", NULL, h, 3);
	pt[2] = point("d742a4c3fa217dd53796cd1b8d219297e41de3c9", "seen", "linux-next/master", h, 0);
	rm_sb_init(&sb);
	rm_status_fail_table(&sb, pt, 3, "linus/master");
	assert_int_equal(count(sb.buf, "<tr><td>"), 2);
	assert_non_null(strstr(sb.buf,
			       "<tr><td>linus/master</td><td title=\"b5ac70b750f93ba32446145be56472cf6e5c1e8c\">"
			       "b5ac70b750</td><td>base</td><td>0:3</td><td>0 0 0</td></tr>\n"));
	assert_non_null(strstr(sb.buf, "<td>head</td><td>2:3</td><td>1 0 1</td></tr>\n"));
	assert_null(strstr(sb.buf, "linux-next"));
	rm_sb_release(&sb);
}

const struct CMUnitTest unit_status_tests[] = {
	cmocka_unit_test(test_plot_geometry),
	cmocka_unit_test(test_plot_many_heads_equal_values_and_escaping),
	cmocka_unit_test(test_fail_table),
};
const size_t unit_status_ntests = sizeof(unit_status_tests) / sizeof(unit_status_tests[0]);
