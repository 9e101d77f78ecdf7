/* test_main.c - runs every cmocka group. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>

#include "fileutil.h"

static struct rm_rules rules;
static int rules_loaded;

const struct rm_rules *unit_rules(void)
{
	if (!rules_loaded) {
		struct rm_error err;
		const char *dir = getenv("ROBOTMAIL_DATADIR");
		char *m, *p;

		if (!dir)
			dir = RM_DATADIR;
		m = rm_path_join(dir, "metrics.yaml");
		p = rm_path_join(dir, "lkp-programs.yaml");
		if (rm_rules_load(&rules, m, p, &err)) {
			fprintf(stderr, "cannot load rules: %s\n", err.msg);
			abort();
		}
		free(m);
		free(p);
		rules_loaded = 1;
	}
	return &rules;
}

int main(void)
{
	int failed = 0;

	/* the rule cache never touches the real home; test_yamlcache.c turns
	 * it on in a temporary directory of its own */
	setenv("ROBOTMAIL_CACHE", "off", 1);

	/* tests/suites/postgres.sh: the PostgreSQL group alone (the unit and
	 * unit-asan jobs run every other group) */
	if (getenv("ROBOTMAIL_TEST_PG_ONLY") && getenv("ROBOTMAIL_TEST_PG") && *getenv("ROBOTMAIL_TEST_PG"))
		return _cmocka_run_group_tests("store-postgresql", unit_store_pg_tests, unit_store_pg_ntests,
					       unit_store_pg_setup, unit_store_pg_teardown) ?
			       1 :
			       0;

	failed += _cmocka_run_group_tests("table", unit_table_tests, unit_table_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("lookup-format", unit_lookup_format_tests, unit_lookup_format_ntests,
					  NULL, NULL);
	failed += _cmocka_run_group_tests("checkconfig", unit_checkconfig_tests, unit_checkconfig_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("setup", unit_setup_tests, unit_setup_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("schedule", unit_schedule_tests, unit_schedule_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("stats", unit_stats_tests, unit_stats_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("parse", unit_parse_tests, unit_parse_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("message", unit_message_tests, unit_message_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("store", unit_store_tests, unit_store_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("store-threads", unit_store_threads_tests,
					  unit_store_threads_ntests, NULL, NULL);
	if (getenv("ROBOTMAIL_TEST_PG") && *getenv("ROBOTMAIL_TEST_PG"))
		failed += _cmocka_run_group_tests("store-postgresql", unit_store_pg_tests,
						  unit_store_pg_ntests, unit_store_pg_setup,
						  unit_store_pg_teardown);
	else
		fprintf(stderr, "store-postgresql: not run (no $ROBOTMAIL_TEST_PG; tests/suites/postgres.sh runs it)\n");
	failed += _cmocka_run_group_tests("recipients", unit_recipients_tests, unit_recipients_ntests,
					  NULL, NULL);
	failed += _cmocka_run_group_tests("report", unit_report_tests, unit_report_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("strbuf", unit_strbuf_tests, unit_strbuf_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("status", unit_status_tests, unit_status_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("pipeline", unit_pipeline_tests, unit_pipeline_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("commit", unit_commit_tests, unit_commit_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("gitweb", unit_gitweb_tests, unit_gitweb_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("address", unit_address_tests, unit_address_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("matrix", unit_matrix_tests, unit_matrix_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("report-words", unit_report_words_tests, unit_report_words_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("evidence", unit_evidence_tests, unit_evidence_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("evidence-bomb", unit_evidence_bomb_tests, unit_evidence_bomb_ntests,
					  NULL, NULL);
	failed += _cmocka_run_group_tests("archive-stream", unit_archive_stream_tests,
					  unit_archive_stream_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("smtp", unit_smtp_tests, unit_smtp_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("config", unit_config_tests, unit_config_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("listen", unit_listen_tests, unit_listen_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("caps", unit_caps_tests, unit_caps_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("fileutil", unit_fileutil_tests, unit_fileutil_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("patchmail", unit_patchmail_tests, unit_patchmail_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("eras", unit_eras_tests, unit_eras_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("rules", unit_rules_tests, unit_rules_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("lookup", unit_lookup_tests, unit_lookup_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("dynlib", unit_dynlib_tests, unit_dynlib_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("yamldoc", unit_yamldoc_tests, unit_yamldoc_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("yamlcache", unit_yamlcache_tests, unit_yamlcache_ntests,
					  unit_yamlcache_setup, unit_yamlcache_teardown);
	failed += _cmocka_run_group_tests("recache", unit_recache_tests, unit_recache_ntests,
					  unit_recache_setup, unit_recache_teardown);
	/* last: it changes malloc's policy for the rest of the process */
	failed += _cmocka_run_group_tests("heap", unit_heap_tests, unit_heap_ntests, NULL, NULL);
	if (rules_loaded)
		rm_rules_free(&rules);
	return failed ? 1 : 0;
}
