/* test_report_words.c - report.c: its template variables table, Message-IDs. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "template.h"

/* Every variable the table names is in the sample data, strings and lists
 * alike, in both the filled and the empty form. */
static void test_sample_vars_cover_the_table(void **state)
{
	size_t i, k;

	(void)state;
	assert_true(rm_report_nvars > 20);
	for (k = 0; k < 2; k++) {
		struct rm_tdata *d = rm_report_sample_vars(k == 0);

		for (i = 0; i < rm_report_nvars; i++) {
			const struct rm_report_var *v = &rm_report_vars[i];
			struct rm_sb out = RM_SB_INIT;
			struct rm_error err;
			char tpl[160];
			int rc;

			assert_non_null(v->name);
			if (v->items)
				snprintf(tpl, sizeof(tpl), "{{#%s}}[{{%s}}]{{/%s}}", v->name, v->items[0],
					 v->name);
			else
				snprintf(tpl, sizeof(tpl), "<{{%s}}>", v->name);
			rm_sb_init(&out);
			rc = rm_template_render_text(NULL, "t.txt", tpl, strlen(tpl), d, &out, &err);
			assert_int_equal(rc, 0);
			if (v->items)
				assert_string_equal(out.buf, k == 0 ? "[x]" : "");
			else
				assert_string_equal(out.buf, k == 0 ? "<x>" : "<>");
			rm_sb_release(&out);
		}
		rm_tdata_free(d);
	}
}

/* A name report.c does not provide is an error on either side of a
 * section: check-config renders both samples to find it. */
static void test_sample_vars_find_unknown_names(void **state)
{
	static const char tpl[] = "{{^patch_link}}{{no_such_name}}{{/patch_link}}";
	struct rm_tdata *full = rm_report_sample_vars(true), *empty = rm_report_sample_vars(false);
	struct rm_sb out = RM_SB_INIT;
	struct rm_error err;

	(void)state;
	rm_sb_init(&out);
	/* hidden by the filled sample ... */
	assert_int_equal(rm_template_render_text(NULL, "t.txt", tpl, strlen(tpl), full, &out, &err), 0);
	/* ... found by the empty one */
	assert_int_equal(rm_template_render_text(NULL, "t.txt", tpl, strlen(tpl), empty, &out, &err),
			 -1);
	assert_non_null(strstr(err.msg, "no_such_name"));
	rm_sb_release(&out);
	rm_tdata_free(full);
	rm_tdata_free(empty);
}

/* The Message-ID: local time of the zone, 32-bit FNV-1a of the dedupe key
 * (computed independently: 4b23937f for this key). */
static void test_message_id(void **state)
{
	struct rm_config cfg;
	char *id;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.timezone = (char *)"+0800";
	cfg.msgid_local = (char *)"lkp";
	cfg.msgid_domain = (char *)"example.org";
	id = rm_report_message_id(&cfg, "linus:master|a|b|x=1/|m", 1765347349);
	assert_string_equal(id, "202512101415.4b23937f-lkp@example.org");
	free(id);
}

const struct CMUnitTest unit_report_words_tests[] = {
	cmocka_unit_test(test_sample_vars_cover_the_table),
	cmocka_unit_test(test_sample_vars_find_unknown_names),
	cmocka_unit_test(test_message_id),
};
const size_t unit_report_words_ntests = sizeof(unit_report_words_tests) / sizeof(unit_report_words_tests[0]);
