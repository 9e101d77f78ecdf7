/* test_checkconfig.c - rm_checkconfig_run: one line per check, a FAIL for
 * each problem, the verdict last, and the count it returns is the number of
 * FAIL lines; rm_checkconfig_load_failed's one line. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkconfig.h"
#include "config.h"
#include "fileutil.h"
#include "strbuf.h"

static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, prefix, len))
			n++;
	return n;
}

/* Run the checks on the configuration file at path; the output in *text
 * (the caller frees it); returns what rm_checkconfig_run returned. */
static int run_checks(const char *path, char **text)
{
	struct rm_config cfg;
	struct rm_error err;
	size_t len;
	FILE *out = open_memstream(text, &len);
	int bad;

	assert_non_null(out);
	if (rm_config_load(&cfg, path, &err))
		fail_msg("config: %s", err.msg);
	bad = rm_checkconfig_run(&cfg, unit_rules(), RM_TEMPLATEDIR, false, out);
	fclose(out);
	rm_config_free(&cfg);
	return bad;
}

static void test_checks_and_verdict(void **state)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *cfgfile, *pw, *text = NULL, *line;
	struct rm_sb yaml = RM_SB_INIT, cmd = RM_SB_INIT;
	int bad;

	(void)state;
	assert_non_null(mkdtemp(d));
	cfgfile = rm_path_join(d, "robotmail.yaml");
	pw = rm_path_join(d, "pw");
	assert_int_equal(rm_write_file(pw, "secret\n", 7), 0);
	assert_int_equal(chmod(pw, 0644), 0);
	rm_sb_init(&yaml);
	rm_sb_addf(&yaml,
		   "robot:\n  name: Unit robot\n  address: robot@example.org\n"
		   "paths:\n  state_db: %s/state/state.db\n  inbox: %s\n"
		   "delivery:\n  transport: maildir:%s/Maildir\n  password_file: %s\n",
		   d, d, d, pw);
	assert_int_equal(rm_write_file(cfgfile, yaml.buf, yaml.len), 0);

	/* a password file others can read: one problem, named */
	bad = run_checks(cfgfile, &text);
	assert_int_equal(bad, 1);
	assert_int_equal(count_lines(text, "FAIL "), 1);
	assert_non_null(strstr(text, "FAIL password file: readable by others: chmod 600 it\n"));
	assert_true(!strncmp(text, "ok   configuration: ", 20));
	assert_non_null(strstr(text, "ok   robot identity: robot@example.org\n"));
	assert_non_null(strstr(text, "ok   template perf.txt: "));
	assert_non_null(strstr(text, "ok   template functional.txt: "));
	assert_non_null(strstr(text, "ok   state directory: "));
	line = strstr(text, "check-config: problems found\n");
	assert_non_null(line);
	assert_string_equal(line, "check-config: problems found\n"); /* the verdict is last */
	free(text);

	/* private now: all good, and nothing was created */
	assert_int_equal(chmod(pw, 0600), 0);
	text = NULL;
	bad = run_checks(cfgfile, &text);
	assert_int_equal(bad, 0);
	assert_int_equal(count_lines(text, "FAIL "), 0);
	assert_non_null(strstr(text, "ok   password file: "));
	assert_non_null(strstr(text, "\ncheck-config: all good\n"));
	free(text);
	{
		char *sdir = rm_path_join(d, "state");
		struct stat st;

		assert_int_not_equal(stat(sdir, &st), 0);
		free(sdir);
	}

	rm_sb_init(&cmd);
	rm_sb_addf(&cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd.buf), 0);
	rm_sb_release(&cmd);
	rm_sb_release(&yaml);
	free(pw);
	free(cfgfile);
	free(d);
}

static void test_load_failed_line(void **state)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(out);
	rm_checkconfig_load_failed(out, "x.yaml line 3: bad");
	fclose(out);
	assert_string_equal(text, "FAIL configuration and rule files: x.yaml line 3: bad\n");
	free(text);
}

const struct CMUnitTest unit_checkconfig_tests[] = {
	cmocka_unit_test(test_checks_and_verdict),
	cmocka_unit_test(test_load_failed_line),
};
const size_t unit_checkconfig_ntests = sizeof(unit_checkconfig_tests) / sizeof(unit_checkconfig_tests[0]);
