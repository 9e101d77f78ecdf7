/* test_schedule.c - the queue command's arguments as schedule.c reads them
 * (rm_schedule_queue_args): the action, then one ID or filters, and each
 * combination it refuses with the message the operator sees. */
#include "unit.h"

#include <string.h>

#include "schedule.h"

/* Parse argv (NULL-terminated, argv[0] the command) from index 1. */
static int parse(struct rm_schedule_queue_args *a, struct rm_error *err, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	rm_error_clear(err);
	return rm_schedule_queue_args(a, argc, argv, 1, err);
}

static void test_queue_args_accepted(void **state)
{
	struct rm_schedule_queue_args a;
	struct rm_error err;
	char *list[] = { "queue", "list", NULL };
	char *show[] = { "queue", "show", "7", NULL };
	char *many[] = { "queue", "retry", "--state", "failed", "--dry-run", NULL };
	char *msgid[] = { "queue", "drop", "<x@example.org>", NULL };

	(void)state;
	assert_int_equal(parse(&a, &err, list), 0);
	assert_int_equal(a.cmd, RM_SCHEDULE_QUEUE_LIST);
	assert_null(a.which);
	assert_false(rm_schedule_filter_any(&a.f));
	assert_int_equal(parse(&a, &err, show), 0);
	assert_int_equal(a.cmd, RM_SCHEDULE_QUEUE_SHOW);
	assert_string_equal(a.which, "7");
	assert_int_equal(parse(&a, &err, many), 0);
	assert_int_equal(a.cmd, RM_SCHEDULE_QUEUE_RETRY);
	assert_null(a.which);
	assert_string_equal(a.f.state, "failed");
	assert_true(a.f.dry_run);
	assert_int_equal(parse(&a, &err, msgid), 0);
	assert_int_equal(a.cmd, RM_SCHEDULE_QUEUE_DROP);
	assert_string_equal(a.which, "<x@example.org>");
}

static void test_queue_args_refused(void **state)
{
	static const struct {
		char *argv[6];
		const char *msg;
	} bad[] = {
		{ { "queue", NULL },
		  "queue: expected list, show ID, retry ID, drop ID, hold ID, release ID or resend ID" },
		{ { "queue", "frob", NULL }, "queue: unknown action 'frob'" },
		{ { "queue", "list", "7", NULL }, "queue: unexpected argument '7'" },
		{ { "queue", "show", "1", "2", NULL }, "queue: unexpected argument '2'" },
		{ { "queue", "retry", "--bogus", NULL }, "queue: unexpected argument '--bogus'" },
		{ { "queue", "retry", "1", "--state", "failed", NULL }, "queue: an ID or filters, not both" },
		{ { "queue", "show", NULL }, "queue show: expected an ID" },
		{ { "queue", "retry", "1", "--dry-run", NULL },
		  "queue: --dry-run goes with --all or a filter" },
	};
	struct rm_schedule_queue_args a;
	struct rm_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&a, &err, (char **)bad[i].argv), -1);
		assert_int_equal(err.kind, RM_ERR_USAGE);
		assert_string_equal(err.msg, bad[i].msg);
	}
	/* a bad filter value: filter_arg's own message */
	{
		char *argv[] = { "queue", "list", "--state", "nope", NULL };

		assert_int_equal(parse(&a, &err, argv), -1);
		assert_int_equal(err.kind, RM_ERR_USAGE);
		assert_non_null(strstr(err.msg, "'nope'"));
	}
}

const struct CMUnitTest unit_schedule_tests[] = {
	cmocka_unit_test(test_queue_args_accepted),
	cmocka_unit_test(test_queue_args_refused),
};
const size_t unit_schedule_ntests = sizeof(unit_schedule_tests) / sizeof(unit_schedule_tests[0]);
