/* test_config.c - identity, include:, addresses, unknown_branch, where a key was set. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int load(const char *name, struct rm_config *c, struct rm_error *err)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rm_error_clear(err);
	return rm_config_load(c, path, err);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rm-unit-config.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_no_builtin_identity(void **state)
{
	struct rm_config c;
	struct rm_error err;

	(void)state;
	assert_int_equal(rm_config_load(&c, NULL, &err), 0);
	assert_null(c.robot_name);
	assert_null(c.robot_address);
	assert_int_equal(c.cc.n, 0);
	assert_null(c.lore_base);
	assert_null(c.archive_base);
	assert_null(c.disclaimer);
	assert_null(c.signature);
	assert_string_equal(c.timezone, "+0000");
	rm_error_clear(&err);
	assert_int_equal(rm_config_check_identity(&c, &err), -1);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "'robot.name' is required"));
	rm_config_free(&c);
}

static void test_include_and_override(void **state)
{
	struct rm_config c;
	struct rm_error err;

	(void)state;
	write_file("profile.yaml", "robot:\n  name: Profile robot\n  address: p@example.org\n"
				   "  signature: |\n    -- \n    Example CI\n  cc: [list@example.org]\n");
	write_file("main.yaml", "robot:\n  name: Main robot\ninclude: profile.yaml\n");
	assert_int_equal(load("main.yaml", &c, &err), 0);
	assert_string_equal(c.robot_name, "Main robot");          /* the includer wins */
	assert_string_equal(c.robot_address, "p@example.org");    /* from the profile */
	assert_string_equal(c.msgid_domain, "example.org");       /* from the address */
	assert_string_equal(c.signature, "-- \nExample CI");      /* no final newline */
	assert_int_equal(c.cc.n, 1);
	assert_int_equal(rm_config_check_identity(&c, &err), 0);
	assert_non_null(strstr(rm_config_where(&c, "robot.name"), "main.yaml' line 2"));
	assert_non_null(strstr(rm_config_where(&c, "robot.address"), "profile.yaml' line 3"));
	assert_string_equal(rm_config_where(&c, "paths.inbox"), "the built-in default");
	rm_config_free(&c);
	/* an include loop stops */
	write_file("loop.yaml", "include: loop.yaml\n");
	assert_int_equal(load("loop.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "nested too deep"));
}

static void test_bad_addresses(void **state)
{
	struct rm_config c;
	struct rm_error err;

	(void)state;
	write_file("a.yaml", "robot:\n  name: x\n  address: kernel test robot\n");
	assert_int_equal(load("a.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "a.yaml' line 3: 'robot.address': no '@'"));
	write_file("b.yaml", "robot:\n  cc: [ok@example.org, 'bad address']\n");
	assert_int_equal(load("b.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "b.yaml' line 2: 'robot.cc': malformed"));
}

static void test_unknown_branch(void **state)
{
	struct rm_config c;
	struct rm_error err;

	(void)state;
	write_file("u.yaml", "unknown_branch: fail\n");
	assert_int_equal(load("u.yaml", &c, &err), 0);
	assert_int_equal(c.unknown_branch, RM_UNKNOWN_BRANCH_FAIL);
	rm_config_free(&c);
	write_file("v.yaml", "unknown_branch: ignore\n");
	assert_int_equal(load("v.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "expected skip, hold or fail"));
	assert_int_equal(rm_config_load(&c, NULL, &err), 0);
	assert_int_equal(c.unknown_branch, RM_UNKNOWN_BRANCH_SKIP);
	rm_config_free(&c);
}

const struct CMUnitTest unit_config_tests[] = {
	cmocka_unit_test(test_no_builtin_identity),
	cmocka_unit_test_setup_teardown(test_include_and_override, setup, teardown),
	cmocka_unit_test_setup_teardown(test_bad_addresses, setup, teardown),
	cmocka_unit_test_setup_teardown(test_unknown_branch, setup, teardown),
};
const size_t unit_config_ntests = sizeof(unit_config_tests) / sizeof(unit_config_tests[0]);
