/* test_table.c - every formatting rule of the comparison table. */
#include "unit.h"

#include <math.h>
#include <string.h>

#include "table.h"

static void want_value(double v, const char *want)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_table_value(&sb, v);
	assert_string_equal(sb.buf, want);
	rm_sb_release(&sb);
}

static void want_stddev(double avg, double sd, const char *want)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_table_stddev(&sb, avg, sd);
	assert_string_equal(sb.buf, want);
	rm_sb_release(&sb);
}

static void want_change(double p, int abs, const char *want)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_table_change(&sb, p, abs);
	assert_string_equal(sb.buf, want);
	rm_sb_release(&sb);
}

static void test_value_two_decimals_below_1000(void **state)
{
	(void)state;
	want_value(76.26, "     76.26");
	want_value(0, "      0.00");
	want_value(-16.92, "    -16.92");
	want_value(999.994, "    999.99");
	want_value(-999.5, "   -999.50");
}

static void test_ruby_rounding_near_ties(void **state)
{
	(void)state;
	/* Ruby rounds near-ties half to even where printf rounds the exact value */
	want_value(14.005, "     14.00");
	want_value(695.1949999999999, "    695.20");
	want_change(0.15, 1, "      +0.2  ");
	want_change(-182.85000000000002, 0, "    -182.8% ");
}

static void test_value_truncated_integer(void **state)
{
	(void)state;
	/* Ruby's %d of a Float truncates toward zero, it does not round */
	want_value(1048.73, "      1048");
	want_value(1050118.0, "   1050118");
	want_value(-1048.99, "     -1048");
	want_value(1000, "      1000");
	want_value(100000000, " 100000000");
	want_value(99999999.99, "  99999999");
}

static void test_value_4g_above_1e8(void **state)
{
	(void)state;
	want_value(1.053e9, " 1.053e+09");
	want_value(1.0e11, "     1e+11");
	want_value(5.4e8, "   5.4e+08");
	want_value(5.293e12, " 5.293e+12");
	want_value(-3.452e9, "-3.452e+09");
	want_value(100000000.5, "     1e+08");
}

static void test_stddev_only_above_two_percent(void **state)
{
	(void)state;
	want_stddev(100, 2.0, "      ");
	want_stddev(100, 2.99, " \xc2\xb1" "  2%");
	want_stddev(100, 70.9, " \xc2\xb1" " 70%");
	want_stddev(100, 141.4, " \xc2\xb1" "141%");
	/* >= 1000% widens the row rather than being cut */
	want_stddev(1, 50.15, " \xc2\xb1" "5015%");
	/* a single run has stddev -1: nothing printed */
	want_stddev(100, -1, "      ");
	/* negative mean: the percentage is negative, nothing printed */
	want_stddev(-50, 10, "      ");
	/* quirk: a single run with a negative mean gives a positive percentage */
	want_stddev(-50, -1, "      ");
	want_stddev(-0.1, -1, " \xc2\xb1" "1000%");
	/* zero mean: the raw stddev is compared */
	want_stddev(0, 3.5, " \xc2\xb1" "  3%");
}

static void test_change_formats(void **state)
{
	(void)state;
	want_change(10.5533, 0, "     +10.6% ");
	want_change(-7.5, 0, "      -7.5% ");
	want_change(-0.01, 1, "      -0.0  ");
	want_change(0.0, 1, "      +0.0  ");
	want_change(-100, 0, "    -100.0% ");
	want_change(99999.9, 0, "  +99999.9% ");
	want_change(3.3e5, 0, "  +3.3e+05% ");
	/* a zero base becomes 1e-100: huge changes use %.2g */
	want_change(100.0 * (2.6 - 1e-100) / 1e-100, 0, " +2.6e+102% ");
	want_change(-250000, 0, "  -2.5e+05% ");
}

static struct rm_row make_row(const char *name, double a0, double s0, double a1, double s1,
			      double change, bool abs)
{
	struct rm_row r;

	memset(&r, 0, sizeof(r));
	r.name = (char *)name;
	r.avg[0] = a0;
	r.stddev[0] = s0;
	r.avg[1] = a1;
	r.stddev[1] = s1;
	r.change = change;
	r.abs_change = abs;
	return r;
}

static struct rm_job make_job(struct rm_kv *axes, size_t n)
{
	struct rm_job j;

	memset(&j, 0, sizeof(j));
	j.axes = axes;
	j.naxes = n;
	return j;
}

static void test_render_group(void **state)
{
	struct rm_kv axes[] = {
		{ "tbox_group", "lkp-emr-2sp1", 0 }, { "testcase", "stress-ng", 0 },
		{ "fs2", "x", 0 },		      { "fs", "ext4", 0 },
		{ "commit", "8d596d8b81ef56bf61538d6b4760123456789abc", 0 },
	};
	struct rm_job job = make_job(axes, 5);
	struct rm_row rows[2];
	struct rm_comparison cmp = { rows, 2, 0, 0 };
	struct rm_table_commit base = { "819bfbd47e49df890123456789abcdef01234567", NULL };
	struct rm_table_commit head = { "8d596d8b81ef56bf61538d6b4760123456789abc", "mm: avoid" };
	struct rm_sb sb = RM_SB_INIT;
	const char *want =
		"=========================================================================================\n"
		/* "fs2=" sorts before "fs=" because '2' < '=' */
		"fs2/fs/tbox_group/testcase:\n"
		"  x/ext4/lkp-emr-2sp1/stress-ng\n"
		"\n"
		"commit: \n"
		"  819bfbd47e49df890123456789abcdef01234567\n"
		"  8d596d8b81 (\"mm: avoid\")\n"
		"\n"
		"819bfbd47e49df89 8d596d8b81ef56bf61538d6b476 \n"
		"---------------- --------------------------- \n"
		"         %stddev     %change         %stddev\n"
		"             \\          |                \\  \n"
		"   1050118           +10.6%    1161061 \xc2\xb1" "  2%  stress-ng.mlockmany.ops\n"
		"      0.00            +0.8        0.78        perf-profile.children.cycles-pp.x\n"
		"\n";

	(void)state;
	rows[0] = make_row("stress-ng.mlockmany.ops", 1050118, 5089.8, 1161061, 28577.38, 10.56,
			   false);
	rows[1] = make_row("perf-profile.children.cycles-pp.x", 0, -1, 0.78, 0.01, 0.78, true);
	rm_sb_init(&sb);
	rm_table_render(&sb, &job, &base, &head, &cmp);
	assert_string_equal(sb.buf, want);
	rm_sb_release(&sb);
}

static void test_render_failure_block(void **state)
{
	struct rm_kv axes[] = { { "testcase", "boot", 0 } };
	struct rm_job job = make_job(axes, 1);
	struct rm_row rows[2];
	struct rm_comparison cmp = { rows, 2, 2, 0 };
	struct rm_table_commit base = { "v6.3-rc2", NULL };
	struct rm_table_commit head = { "1234567890abcdef1234567890abcdef12345678", NULL };
	struct rm_sb sb = RM_SB_INIT;

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0].name = "dmesg.EIP:__kernel_text_address";
	rows[0].failure = true;
	rows[0].fails[0] = 0;
	rows[0].runs[0] = 50;
	rows[0].fails[1] = 1;
	rows[0].runs[1] = 50;
	rows[0].reproduction = 2;
	rows[1].name = "dmesg.BUG:x";
	rows[1].failure = true;
	rows[1].fails[0] = 16;
	rows[1].runs[0] = 60;
	rows[1].fails[1] = 0;
	rows[1].runs[1] = 111;
	rows[1].reproduction = 100.0 * (0.0 / 60 - 16.0 / 60);
	rm_sb_init(&sb);
	rm_table_render(&sb, &job, &base, &head, &cmp);
	assert_non_null(strstr(sb.buf, "        v6.3-rc2 1234567890abcdef1234567890a \n"));
	assert_non_null(strstr(sb.buf, "       fail:runs  %reproduction    fail:runs\n"
					"           |             |             |    \n"));
	assert_non_null(strstr(sb.buf,
			       "           :50           2%           1:50    dmesg.EIP:__kernel_text_address\n"));
	assert_non_null(strstr(sb.buf, "         16:60         -27%            :111   dmesg.BUG:x\n"));
	assert_null(strstr(sb.buf, "%stddev"));
	rm_sb_release(&sb);
}

static void test_render_functional_style_no_trailing_blanks(void **state)
{
	struct rm_kv axes[] = { { "testcase", "boot", 0 } };
	struct rm_job job = make_job(axes, 1);
	struct rm_row rows[1];
	struct rm_comparison cmp = { rows, 1, 1, 0 };
	struct rm_table_commit base = { "c8a85394cfdb46960123456789abcdef01234567", NULL };
	struct rm_table_commit head = { "5f6bd380c7bdbe10f7b4e8ddcceed60ce0714c6d", NULL };
	struct rm_sb sb = RM_SB_INIT;

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0].name = "kernel-selftests.kvm.rseq_test.fail";
	rows[0].failure = true;
	rows[0].fails[1] = 57;
	rows[0].runs[0] = 200;
	rows[0].runs[1] = 200;
	rows[0].reproduction = 28.5;
	rm_sb_init(&sb);
	rm_table_render_style(&sb, &job, &base, &head, &cmp, RM_TABLE_FUNCTIONAL);
	/* report-format.md 6.4: the header lines of hand-assembled functional
	 * reports end without blanks; the rows and the group header do not change */
	assert_non_null(strstr(sb.buf, "\ncommit: \n"));
	assert_non_null(strstr(sb.buf, "\nc8a85394cfdb4696 5f6bd380c7bdbe10f7b4e8ddcce\n"
					"---------------- ---------------------------\n"
					"       fail:runs  %reproduction    fail:runs\n"
					"           |             |             |\n"
					"           :200         28%          57:200   kernel-selftests.kvm.rseq_test.fail\n"));
	rm_sb_release(&sb);
}

static void test_render_nothing_without_rows(void **state)
{
	struct rm_job job = make_job(NULL, 0);
	struct rm_comparison cmp = { NULL, 0, 0, 0 };
	struct rm_table_commit c = { "a", NULL };
	struct rm_sb sb = RM_SB_INIT;

	(void)state;
	rm_sb_init(&sb);
	rm_table_render(&sb, &job, &c, &c, &cmp);
	assert_int_equal(sb.len, 0);
	rm_sb_release(&sb);
}

const struct CMUnitTest unit_table_tests[] = {
	cmocka_unit_test(test_value_two_decimals_below_1000),
	cmocka_unit_test(test_value_truncated_integer),
	cmocka_unit_test(test_ruby_rounding_near_ties),
	cmocka_unit_test(test_value_4g_above_1e8),
	cmocka_unit_test(test_stddev_only_above_two_percent),
	cmocka_unit_test(test_change_formats),
	cmocka_unit_test(test_render_group),
	cmocka_unit_test(test_render_failure_block),
	cmocka_unit_test(test_render_functional_style_no_trailing_blanks),
	cmocka_unit_test(test_render_nothing_without_rows),
};
const size_t unit_table_ntests = sizeof(unit_table_tests) / sizeof(unit_table_tests[0]);
