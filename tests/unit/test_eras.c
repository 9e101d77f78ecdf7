/* test_eras.c - config/eras.yaml: a program of an earlier lkp-tests era is
 * looked up under its current name, and its stats are decided by the rules
 * of the current name (printed names stay as they are). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "rules.h"

static void load(struct rm_rules *r, bool eras)
{
	struct rm_error err;
	const char *dir = getenv("ROBOTMAIL_DATADIR");
	char *m, *p, *e;

	if (!dir)
		dir = RM_DATADIR;
	m = rm_path_join(dir, "metrics.yaml");
	p = rm_path_join(dir, "lkp-programs.yaml");
	e = rm_path_join(dir, "eras.yaml");
	assert_int_equal(rm_rules_load(r, m, p, &err), 0);
	if (eras)
		assert_int_equal(rm_rules_load_eras(r, e, &err), 0);
	free(m);
	free(p);
	free(e);
}

static void test_old_program_names(void **state)
{
	struct rm_rules without, with;
	const struct rm_program *p;
	size_t i;
	bool group = false;

	(void)state;
	load(&without, false);
	load(&with, true);
	/* kernel-selftests is kselftests since lkp-tests 436ab2ce3 */
	assert_null(rm_rules_program(&without, "kernel-selftests"));
	p = rm_rules_program(&with, "kernel-selftests");
	assert_non_null(p);
	assert_string_equal(p->name, "kselftests");
	for (i = 0; i < p->noptions; i++)
		group |= !strcmp(p->options[i].name, "group");
	assert_true(group);
	/* fileio is sysbench-fileio since 36b78fbb0: its stats are perf
	 * metrics with a direction again (a published fileio regression) */
	assert_false(rm_rules_is_perf_metric(&without, "fileio.latency_95th_ms"));
	assert_true(rm_rules_is_perf_metric(&with, "fileio.latency_95th_ms"));
	assert_true(rm_rules_direction(&with, "fileio.latency_95th_ms") ==
		    rm_rules_direction(&with, "sysbench-fileio.latency_95th_ms"));
	/* a name that only starts like an old one is not renamed */
	assert_null(rm_rules_program(&with, "fileio2"));
	rm_rules_free(&without);
	rm_rules_free(&with);
}

static void test_malformed_table(void **state)
{
	struct rm_rules r;
	struct rm_error err;
	char path[] = "/tmp/robotmail-eras-XXXXXX";
	int fd = mkstemp(path);
	static const char bad[] = "programs:\n  fileio: sysbench.fileio\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)(sizeof(bad) - 1));
	close(fd);
	load(&r, false);
	assert_int_equal(rm_rules_load_eras(&r, path, &err), -1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	rm_rules_free(&r);
	unlink(path);
}

/* The table's row order by era: a test program's row count is reset (its
 * rows print first) except between its move to programs/ and lkp-tests
 * 2409d6a4b (2026-02-12), when compare.rb's all_tests_set did not know it. */
static void test_row_count_reset_by_era(void **state)
{
	struct rm_rules without, with;

	(void)state;
	load(&without, false);
	load(&with, true);
	/* no era table, or a job of unknown time: the current rule */
	assert_true(rm_rules_resets_count(&without, "will-it-scale", 1722907262));
	assert_true(rm_rules_resets_count(&with, "will-it-scale", 0));
	/* 2024-08-06 (tests/data 2423) and 2025-10-15: moved in 2023, not reset */
	assert_false(rm_rules_resets_count(&with, "will-it-scale", 1722907262));
	assert_false(rm_rules_resets_count(&with, "stress-ng", 1760491300));
	/* before its move (2023-05-26) and from 2026-02-12 on: reset */
	assert_true(rm_rules_resets_count(&with, "will-it-scale", 1685000000));
	assert_true(rm_rules_resets_count(&with, "will-it-scale", 1770827458));
	/* a monitor is never reset */
	assert_false(rm_rules_resets_count(&with, "numa-meminfo", 0));
	assert_false(rm_rules_resets_count(&with, "numa-meminfo", 1722907262));
	rm_rules_free(&without);
	rm_rules_free(&with);
}

static void test_malformed_moved(void **state)
{
	static const char *const bad[] = {
		"programs:\n  fileio: sysbench-fileio\nmoved_to_programs:\n  will-it-scale: 1685076941\n",
		"programs:\n  fileio: sysbench-fileio\ntests_set_until: 1770827458\nmoved_to_programs:\n  will-it-scale: soon\n",
	};
	static const char *const line[] = { "line 4", "line 5" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rm_rules r;
		struct rm_error err;
		char path[] = "/tmp/robotmail-eras-XXXXXX";
		int fd = mkstemp(path);
		size_t n = strlen(bad[i]);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, bad[i], n), (ssize_t)n);
		close(fd);
		load(&r, false);
		assert_int_equal(rm_rules_load_eras(&r, path, &err), -1);
		assert_non_null(strstr(err.msg, line[i]));
		assert_int_equal(err.kind, RM_ERR_CONFIG);
		rm_rules_free(&r);
		unlink(path);
	}
}

const struct CMUnitTest unit_eras_tests[] = {
	cmocka_unit_test(test_old_program_names),
	cmocka_unit_test(test_malformed_table),
	cmocka_unit_test(test_row_count_reset_by_era),
	cmocka_unit_test(test_malformed_moved),
};
const size_t unit_eras_ntests = sizeof(unit_eras_tests) / sizeof(unit_eras_tests[0]);
