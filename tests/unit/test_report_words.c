/* test_report_words.c - report.c: its template variables table, Message-IDs,
 * the failure-id rule of functional reports. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"
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

/* failure rows: name, base and head fail counts, %reproduction */
static void frow(struct rm_comparison *c, const char *name, double f0, double f1, double repro)
{
	struct rm_row *r;

	c->rows = rm_xrealloc(c->rows, (c->n + 1) * sizeof(*c->rows));
	r = &c->rows[c->n++];
	memset(r, 0, sizeof(*r));
	r->name = rm_xstrdup(name);
	r->failure = true;
	r->fails[0] = f0;
	r->fails[1] = f1;
	r->reproduction = repro;
	c->nfailure++;
}

static void failures(struct rm_comparison *c)
{
	memset(c, 0, sizeof(*c));
	frow(c, "dmesg.BUG:kernel_NULL_pointer_dereference,address", 0, 3, 100);
	frow(c, "dmesg.Oops", 0, 3, 100);
	frow(c, "dmesg.WARNING:at_mm/page_alloc.c:#__alloc_pages", 0, 2, 67);
	frow(c, "dmesg.WARNING:at_old", 1, 3, 67); /* the base has it: not new */
	frow(c, "kernel-selftests.cgroup.test_stress.sh.fail", 0, 3, 100);
	frow(c, "last_state.booting", 0, 3, 100);
}

/* report-format.md 4 item 2: among the new kernel-log ids the earliest
 * (dmesg.timestamp), a secondary id (Oops) never first while a first
 * message is known, an id without a time after those with one; without a
 * log id the test's own; never last_state.*. */
static void test_failure_id_rule(void **state)
{
	static double t_bug = 7.412067, t_oops = 1.0, t_warn = 3.2;
	struct rm_series ts[] = {
		{ .name = (char *)"dmesg.timestamp:BUG:kernel_NULL_pointer_dereference,address", .v = &t_bug, .n = 1 },
		{ .name = (char *)"dmesg.timestamp:Oops", .v = &t_oops, .n = 1 },
		{ .name = (char *)"dmesg.timestamp:WARNING:at_mm/page_alloc.c:#__alloc_pages", .v = &t_warn, .n = 1 },
	};
	struct rm_result_root base, head;
	struct rm_comparison c;
	struct rm_report_test t;

	(void)state;
	memset(&base, 0, sizeof(base));
	memset(&head, 0, sizeof(head));
	base.commit = head.commit = (char *)"c";
	head.all.s = ts;
	head.all.n = 3;
	head.all.cols = 1;
	/* the WARNING came first (3.2 s): it wins over the more frequent BUG */
	failures(&c);
	assert_true(rm_report_pick(unit_rules(), &base, &head, &c, &t));
	assert_int_equal(t.kind, RM_REPORT_FUNCTIONAL);
	assert_string_equal(t.headline->name, "dmesg.WARNING:at_mm/page_alloc.c:#__alloc_pages");
	assert_true(rm_report_log_time(&head, t.headline->name) == 3.2);
	rm_report_test_free(&t);
	/* no times recorded: the most reproduced first message, never Oops */
	head.all.n = 0;
	failures(&c);
	assert_true(rm_report_pick(unit_rules(), &base, &head, &c, &t));
	assert_string_equal(t.headline->name, "dmesg.BUG:kernel_NULL_pointer_dereference,address");
	rm_report_test_free(&t);
	/* no kernel-log id: the test's own, never last_state */
	memset(&c, 0, sizeof(c));
	frow(&c, "last_state.booting", 0, 3, 100);
	frow(&c, "kernel-selftests.cgroup.test_stress.sh.fail", 0, 2, 67);
	frow(&c, "dmesg.boot_failures", 0, 3, 100);
	assert_true(rm_report_pick(unit_rules(), &base, &head, &c, &t));
	assert_string_equal(t.headline->name, "kernel-selftests.cgroup.test_stress.sh.fail");
	rm_report_test_free(&t);
	/* last_state and bookkeeping stats alone make no report */
	memset(&c, 0, sizeof(c));
	frow(&c, "last_state.booting", 0, 3, 100);
	frow(&c, "dmesg.boot_failures", 0, 3, 100);
	frow(&c, "dmesg.timestamp:last", 0, 3, 100);
	assert_false(rm_report_pick(unit_rules(), &base, &head, &c, &t));
}

const struct CMUnitTest unit_report_words_tests[] = {
	cmocka_unit_test(test_failure_id_rule),
	cmocka_unit_test(test_sample_vars_cover_the_table),
	cmocka_unit_test(test_sample_vars_find_unknown_names),
	cmocka_unit_test(test_message_id),
};
const size_t unit_report_words_ntests = sizeof(unit_report_words_tests) / sizeof(unit_report_words_tests[0]);
