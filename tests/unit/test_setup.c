/* test_setup.c - rm_setup: where the templates are (paths.templates, then
 * $ROBOTMAIL_TEMPLATES, then the installed directory), the --note file
 * read (a missing one is the operator's to fix: RM_ERR_USAGE), and a
 * pipeline wired to what the setup opened. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "setup.h"
#include "strbuf.h"

static void test_templates_dir_order(void **state)
{
	struct rm_config cfg;
	const char *saved = getenv("ROBOTMAIL_TEMPLATES");
	char *keep = saved ? rm_xstrdup(saved) : NULL;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	unsetenv("ROBOTMAIL_TEMPLATES");
	assert_string_equal(rm_setup_templates_dir(&cfg), RM_TEMPLATEDIR);
	setenv("ROBOTMAIL_TEMPLATES", "", 1); /* empty: as if unset */
	assert_string_equal(rm_setup_templates_dir(&cfg), RM_TEMPLATEDIR);
	setenv("ROBOTMAIL_TEMPLATES", "/srv/tpl", 1);
	assert_string_equal(rm_setup_templates_dir(&cfg), "/srv/tpl");
	cfg.templates = (char *)"/etc/robotmail/tpl";
	assert_string_equal(rm_setup_templates_dir(&cfg), "/etc/robotmail/tpl");
	if (keep)
		setenv("ROBOTMAIL_TEMPLATES", keep, 1);
	else
		unsetenv("ROBOTMAIL_TEMPLATES");
	free(keep);
}

static void test_note_and_pipeline(void **state)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *note, *missing;
	struct rm_setup s;
	struct rm_pipeline p;
	struct rm_error err;

	(void)state;
	assert_non_null(mkdtemp(d));
	note = rm_path_join(d, "note");
	missing = rm_path_join(d, "missing");
	assert_int_equal(rm_write_file(note, "Bisected by hand.\n", 18), 0);
	memset(&s, 0, sizeof(s));
	rm_error_clear(&err);
	assert_int_equal(rm_setup_read_note(&s, missing, &err), -1);
	assert_int_equal(err.kind, RM_ERR_USAGE);
	assert_non_null(strstr(err.msg, "missing"));
	assert_int_equal(rm_setup_read_note(&s, note, &err), 0);
	assert_string_equal(s.note, "Bisected by hand.\n");
	rm_setup_pipeline(&s, &p, "me@example.org", 1700000000, 1);
	assert_ptr_equal(p.cfg, &s.cfg);
	assert_ptr_equal(p.rules, &s.rules);
	assert_null(p.ob);
	/* no store: no commit cache to read or write, only the wait rule (miss_cap) */
	assert_ptr_equal(p.cache, &s.cache);
	assert_null(p.cache->get);
	assert_null(p.cache->put);
	assert_null(p.cache->miss_get);
	assert_null(p.cache->miss_put);
	assert_ptr_equal(p.note, s.note);
	assert_string_equal(p.to, "me@example.org");
	assert_int_equal(p.now, 1700000000);
	assert_int_equal(p.verbose, 1);
	rm_setup_close(&s); /* frees the note; nothing else was opened */
	assert_null(s.note);
	assert_int_equal(unlink(note), 0);
	assert_int_equal(rmdir(d), 0);
	free(note);
	free(missing);
	free(d);
}

const struct CMUnitTest unit_setup_tests[] = {
	cmocka_unit_test(test_templates_dir_order),
	cmocka_unit_test(test_note_and_pipeline),
};
const size_t unit_setup_ntests = sizeof(unit_setup_tests) / sizeof(unit_setup_tests[0]);
