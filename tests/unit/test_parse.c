/* test_parse.c - job.yaml, JSON, YAML typing and the metric rules. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jsonload.h"
#include "matrix.h"
#include "rules.h"
#include "text.h"
#include "yamldoc.h"

static void expect_float(double d, const char *want)
{
	char buf[64];

	rm_ruby_float_to_s(d, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_ruby_float_to_s(void **state)
{
	(void)state;
	expect_float(60.52, "60.52");
	expect_float(1.0, "1.0");
	expect_float(100.0, "100.0");
	expect_float(1e16, "1.0e+16");
	expect_float(1.5e-5, "1.5e-05");
	expect_float(0.0001, "0.0001");
	expect_float(-2.5, "-2.5");
	expect_float(123456789012345.0, "123456789012345.0");
}

static const char *ruby_string_of(const char *yaml, char **out)
{
	struct rm_yaml y;
	struct rm_error err;
	yaml_node_t *v;

	assert_int_equal(rm_yaml_load(&y, "t.yaml", yaml, strlen(yaml), &err), 0);
	v = rm_yaml_get(&y, rm_yaml_root(&y), "k");
	*out = rm_yaml_ruby_string(v);
	rm_yaml_free(&y);
	return *out;
}

static void test_yaml_scalars_typed_like_ruby(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "k: 100%", "100%" },	  { "k: 60s", "60s" },	   { "k: 16", "16" },
		{ "k: 0x10", "16" },	  { "k: yes", "true" },	   { "k: Off", "false" },
		{ "k: 2.50", "2.5" },	  { "k: '2.50'", "2.50" }, { "k: 1_000", "1000" },
		{ "k: \"yes\"", "yes" }, { "k: +5", "5" },	   { "k: 1.0e+3", "1000.0" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s;

		assert_string_equal(ruby_string_of(cases[i].in, &s), cases[i].out);
		free(s);
	}
}

static void test_yaml_error_names_file_and_line(void **state)
{
	struct rm_yaml y;
	struct rm_error err;
	const char *bad = "a: 1\nb: [1, 2\nc: 3\n";

	(void)state;
	assert_int_equal(rm_yaml_load(&y, "x/job.yaml", bad, strlen(bad), &err), -1);
	assert_non_null(strstr(err.msg, "'x/job.yaml' line "));
	assert_int_equal(err.kind, RM_ERR_INPUT);
}

static void test_json_accepts_nan_tokens(void **state)
{
	const char *text = "{\"a\": [1, NaN, 2.5], \"b\": [Infinity, -Infinity],"
			   " \"s\": \"NaN in a string\"}";
	struct rm_error err;
	size_t nans = 0;
	json_t *j = rm_json_load("m.json", text, strlen(text), &nans, &err);

	(void)state;
	assert_non_null(j);
	assert_int_equal(nans, 3);
	assert_true(json_is_null(json_array_get(json_object_get(j, "a"), 1)));
	assert_string_equal(json_string_value(json_object_get(j, "s")), "NaN in a string");
	json_decref(j);
}

static void test_json_truncated_is_an_error(void **state)
{
	const char *text = "{\"a\": [1, 2";
	struct rm_error err;

	(void)state;
	assert_null(rm_json_load("r/matrix.json", text, strlen(text), NULL, &err));
	assert_non_null(strstr(err.msg, "'r/matrix.json' line 1"));
}

/* A NUL byte after a number (found by fuzz_json): jansson dropped it and
 * took the file; matrix.c's scanner refused it.  Both refuse it now. */
static void test_json_nul_byte_is_an_error(void **state)
{
	static const char text[] = "{\"\\n\": 2\0}";
	static const char text2[] = "{\"a\":\n [1, true\0]}";
	static const char text3[] = "{\"a\\\0\": 1}";
	struct rm_error err;

	(void)state;
	assert_null(rm_json_load("r/stats.json", text, sizeof(text) - 1, NULL, &err));
	assert_string_equal(err.msg, "'r/stats.json' line 1 column 9: invalid JSON: a NUL byte");
	assert_false(rm_matrix_json_valid(text, sizeof(text) - 1));
	assert_null(rm_json_load("r/stats.json", text2, sizeof(text2) - 1, NULL, &err));
	assert_string_equal(err.msg, "'r/stats.json' line 2 column 10: invalid JSON: a NUL byte");
	assert_false(rm_matrix_json_valid(text2, sizeof(text2) - 1));
	/* after a backslash in a string too (the limits' walk skips the
	 * escaped byte, never a NUL) */
	assert_null(rm_json_load("r/stats.json", text3, sizeof(text3) - 1, NULL, &err));
	assert_string_equal(err.msg, "'r/stats.json' line 1 column 5: invalid JSON: a NUL byte");
}

static const char job_text[] = "---\n\n"
			       "#! jobs/stress-ng-part2.yaml\n"
			       "suite: stress-ng\n"
			       "testcase: stress-ng\n"
			       "nr_threads: 100%\n"
			       "testtime: 60s\n"
			       "stress-ng:\n"
			       "  test: mlockmany\n"
			       "#! hosts/lkp-emr-2sp1\n"
			       "model: Emerald Rapids\n"
			       "nr_node: 4\n"
			       "#! include/category/benchmark\n"
			       "kmsg:\n"
			       "perf-profile:\n"
			       "  lite_mode: 1\n"
			       "  test: not-a-param\n"
			       "#! include/category/ALL\n"
			       "cpufreq_governor: performance\n"
			       "commit: 819bfbd47e49df890123456789abcdef01234567\n"
			       "rootfs: /osimage/debian/debian-13-x86_64-20250902.cgz\n"
			       "kconfig: x86_64-rhel-9.4\n"
			       "tbox_group: lkp-emr-2sp1\n"
			       "#! user overrides\n"
			       "nr_node: 2\n";

static void test_job_params_and_axes(void **state)
{
	struct rm_job job;
	struct rm_error err;
	static const char *const keys[] = { "tbox_group", "testcase", "rootfs", "kconfig",
					    "compiler", "commit", "nr_threads", "testtime",
					    "test", "cpufreq_governor" };
	size_t i;

	(void)state;
	assert_int_equal(rm_job_parse(&job, unit_rules(), "job.yaml", job_text,
				      strlen(job_text), &err),
			 0);
	assert_int_equal(job.nparams, 4);
	assert_string_equal(job.params[0].key, "nr_threads");
	assert_string_equal(job.params[2].key, "test");
	assert_string_equal(job.params[2].value, "mlockmany");
	assert_string_equal(job.params[3].key, "cpufreq_governor");
	assert_int_equal(job.naxes, 10);
	for (i = 0; i < 10; i++)
		assert_string_equal(job.axes[i].key, keys[i]);
	assert_string_equal(rm_job_axis(&job, "rootfs"), "debian-13-x86_64-20250902.cgz");
	assert_string_equal(rm_job_axis(&job, "compiler"), "gcc-7"); /* the default */
	/* a duplicated key keeps its first position and its last value */
	assert_string_equal(rm_job_field(&job, "nr_node"), "2");
	rm_job_free(&job);
}

static void test_job_must_be_a_mapping(void **state)
{
	struct rm_job job;
	struct rm_error err;
	const char *text = "- a\n- b\n";

	(void)state;
	assert_int_equal(rm_job_parse(&job, unit_rules(), "r/0/job.yaml", text, strlen(text), &err),
			 -1);
	assert_non_null(strstr(err.msg, "'r/0/job.yaml' line 1: expected a mapping"));
}

static void test_text_control_and_space(void **state)
{
	unsigned cp = 0;
	char *e;

	(void)state;
	/* UTF-8 text passes; in a name only without white space */
	assert_null(rm_text_bad_char("mlöck—many µ 100%", RM_TEXT_LINE, &cp));
	assert_null(rm_text_bad_char("stress-ng.rawsock.MB_recv'd_per_sec", RM_TEXT_NAME, &cp));
	assert_null(rm_text_bad_char("sched_debug.cfs_rq:/.load_avg.avg", RM_TEXT_NAME, &cp));
	assert_non_null(rm_text_bad_char("a b", RM_TEXT_NAME, &cp));
	assert_int_equal(cp, 0x20);
	assert_non_null(rm_text_bad_char("a\xc2\xa0" "b", RM_TEXT_NAME, &cp)); /* U+00A0 */
	assert_int_equal(cp, 0xa0);
	assert_null(rm_text_bad_char("a\xc2\xa0" "b", RM_TEXT_LINE, &cp));
	/* controls: C0, DEL, C1, line separator; not a stray invalid byte */
	assert_string_equal(rm_text_bad_char("ab\tc", RM_TEXT_LINE, &cp), "\tc");
	assert_int_equal(cp, 9);
	assert_non_null(rm_text_bad_char("x\x7f", RM_TEXT_LINE, &cp));
	assert_non_null(rm_text_bad_char("x\xc2\x85", RM_TEXT_LINE, &cp));
	assert_int_equal(cp, 0x85);
	assert_non_null(rm_text_bad_char("x\xe2\x80\xa8", RM_TEXT_LINE, &cp));
	assert_int_equal(cp, 0x2028);
	assert_null(rm_text_bad_char("x\x85", RM_TEXT_LINE, &cp));
	assert_null(rm_text_bad_char(NULL, RM_TEXT_LINE, &cp));
	/* shown escaped, cut to the given bytes of input */
	e = rm_text_escaped("a\nb\tc\x1b[31m\xc2\x85\xffµ d", 100);
	assert_string_equal(e, "a\\nb\\tc\\x1b[31m\\u0085\\xffµ d");
	free(e);
	e = rm_text_escaped("abcdef", 3);
	assert_string_equal(e, "abc");
	free(e);
}

static void test_job_refuses_control_characters(void **state)
{
	static const char *const bad[] = {
		"testcase: \"stress\\nng\"\n",
		"stress-ng:\n  test: \"mlock\\tmany\"\n",
		"\"cpu\\efreq\": performance\n",
	};
	struct rm_job job;
	struct rm_error err;
	const char *good = "testcase: stress-ng\nbrand: \"Intel(R) Xeon(R) — µ\"\n";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rm_job_parse(&job, unit_rules(), "r/0/job.yaml", bad[i],
					      strlen(bad[i]), &err),
				 -1);
		assert_non_null(strstr(err.msg, "'r/0/job.yaml' line "));
		assert_non_null(strstr(err.msg, "control character U+00"));
	}
	assert_int_equal(rm_job_parse(&job, unit_rules(), "r/0/job.yaml", good, strlen(good), &err),
			 0);
	assert_string_equal(rm_job_field(&job, "brand"), "Intel(R) Xeon(R) — µ");
	rm_job_free(&job);
}

static void test_rules_classes(void **state)
{
	const struct rm_rules *r = unit_rules();

	(void)state;
	assert_true(rm_rules_is_function_stat(r, "dmesg.BUG:kernel_NULL_pointer_dereference"));
	assert_true(rm_rules_is_function_stat(r, "stress-ng.mlockmany.pass"));
	assert_false(rm_rules_is_function_stat(r, "stress-ng.time.user_time"));
	assert_true(rm_rules_is_perf_metric(r, "stress-ng.mlockmany.ops"));
	assert_true(rm_rules_is_perf_metric(r, "perf-stat.i.ipc"));
	assert_true(rm_rules_is_perf_metric(r, "aim7.time.user_time"));
	assert_false(rm_rules_is_perf_metric(r, "mpstat.cpu.all.sys%"));
	assert_true(rm_rules_is_perf_metric(r, "vmstat.system.cs"));
	assert_false(rm_rules_is_reportable(r, "interrupts.CPU0.LOC"));
	assert_false(rm_rules_is_reportable(r, "slabinfo.kmalloc-8.active_objs"));
	assert_true(rm_rules_is_reportable(r, "perf-profile.self.cycles-pp.x"));
	assert_true(rm_rules_is_reportable(r, "proc-vmstat.pgfault"));
	assert_true(rm_rules_is_reportable(r, "perf-c2c.HITM.total"));
	assert_true(rm_rules_direction(r, "stress-ng.mlockmany.ops_per_sec") > 0);
	assert_true(rm_rules_direction(r, "will-it-scale.per_thread_ops") > 0);
	assert_true(rm_rules_direction(r, "kernbench.elapsed_time") < 0);
	assert_true(rm_rules_direction(r, "stress-ng.mlockmany.ops") == 0);
	assert_true(rm_rules_is_test_program(r, "stress-ng"));
	assert_false(rm_rules_is_test_program(r, "vmstat"));
}

static void test_rules_thresholds(void **state)
{
	const struct rm_rules *r = unit_rules();

	(void)state;
	/* .*.time.involuntary_context_switches: 1000 (Integer: delta >= 500) */
	assert_true(rm_rules_reasonable_change(r, "stress-ng.time.involuntary_context_switches",
					       219041, 2953233));
	assert_false(rm_rules_reasonable_change(r, "stress-ng.time.involuntary_context_switches",
						400, 2953233));
	assert_false(rm_rules_reasonable_change(r, "stress-ng.time.involuntary_context_switches",
						600, 900));
	/* fallbacks */
	assert_false(rm_rules_reasonable_change(r, "proc-vmstat.nr_foo_bar_baz_xyz", 5, 999));
	assert_true(rm_rules_reasonable_change(r, "some.other.stat", 0.001, 0.002));
}

static void test_rules_file_errors_name_the_field(void **state)
{
	struct rm_rules r;
	struct rm_error err;

	(void)state;
	assert_int_equal(rm_rules_load(&r, "/nonexistent/metrics.yaml", "/nonexistent/p.yaml", &err),
			 -1);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "/nonexistent/metrics.yaml"));
}

const struct CMUnitTest unit_parse_tests[] = {
	cmocka_unit_test(test_ruby_float_to_s),
	cmocka_unit_test(test_yaml_scalars_typed_like_ruby),
	cmocka_unit_test(test_yaml_error_names_file_and_line),
	cmocka_unit_test(test_json_accepts_nan_tokens),
	cmocka_unit_test(test_json_truncated_is_an_error),
	cmocka_unit_test(test_json_nul_byte_is_an_error),
	cmocka_unit_test(test_job_params_and_axes),
	cmocka_unit_test(test_job_must_be_a_mapping),
	cmocka_unit_test(test_text_control_and_space),
	cmocka_unit_test(test_job_refuses_control_characters),
	cmocka_unit_test(test_rules_classes),
	cmocka_unit_test(test_rules_thresholds),
	cmocka_unit_test(test_rules_file_errors_name_the_field),
};
const size_t unit_parse_ntests = sizeof(unit_parse_tests) / sizeof(unit_parse_tests[0]);
