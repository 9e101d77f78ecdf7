/* unit.h - shared declarations for the cmocka unit tests. */
#ifndef RM_UNIT_H
#define RM_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules.h"

/* Rules loaded once from config/ for every test that needs them. */
const struct rm_rules *unit_rules(void);

extern const struct CMUnitTest unit_heap_tests[];
extern const size_t unit_heap_ntests;
extern const struct CMUnitTest unit_dynlib_tests[];
extern const size_t unit_dynlib_ntests;
extern const struct CMUnitTest unit_yamlcache_tests[];
extern const size_t unit_yamlcache_ntests;
int unit_yamlcache_setup(void **state);
/* A fresh directory for the rule caches (test_yamlcache.c): made as
 * $TMPDIR/robotmail-unit-TAG.XXXXXX into dir (size bytes), XDG_CACHE_HOME
 * pointed at it and ROBOTMAIL_CACHE unset; 0 or -1.  The close removes it
 * and turns the caches off again, as test_main.c left them. */
int unit_cache_home_open(char *dir, size_t size, const char *tag);
int unit_cache_home_close(const char *dir);
int unit_yamlcache_teardown(void **state);
extern const struct CMUnitTest unit_recache_tests[];
extern const size_t unit_recache_ntests;
int unit_recache_setup(void **state);
int unit_recache_teardown(void **state);
extern const struct CMUnitTest unit_yamldoc_tests[];
extern const size_t unit_yamldoc_ntests;
extern const struct CMUnitTest unit_fileutil_tests[];
extern const size_t unit_fileutil_ntests;
extern const struct CMUnitTest unit_patchmail_tests[];
extern const size_t unit_patchmail_ntests;
extern const struct CMUnitTest unit_rules_tests[];
extern const size_t unit_rules_ntests;
extern const struct CMUnitTest unit_eras_tests[];
extern const size_t unit_eras_ntests;
extern const struct CMUnitTest unit_lookup_tests[];
extern const size_t unit_lookup_ntests;
extern const struct CMUnitTest unit_table_tests[];
extern const size_t unit_table_ntests;
extern const struct CMUnitTest unit_stats_tests[];
extern const size_t unit_stats_ntests;
extern const struct CMUnitTest unit_message_tests[];
extern const size_t unit_message_ntests;
extern const struct CMUnitTest unit_pipeline_tests[];
extern const size_t unit_pipeline_ntests;
extern const struct CMUnitTest unit_parse_tests[];
extern const size_t unit_parse_ntests;
extern const struct CMUnitTest unit_store_tests[];
extern const size_t unit_store_ntests;
extern const struct CMUnitTest unit_store_threads_tests[];
extern const size_t unit_store_threads_ntests;
extern const struct CMUnitTest unit_recipients_tests[];
extern const size_t unit_recipients_ntests;
extern const struct CMUnitTest unit_report_tests[];
extern const size_t unit_report_ntests;
extern const struct CMUnitTest unit_strbuf_tests[];
extern const size_t unit_strbuf_ntests;
extern const struct CMUnitTest unit_commit_tests[];
extern const size_t unit_commit_ntests;
extern const struct CMUnitTest unit_gitweb_tests[];
extern const size_t unit_gitweb_ntests;
extern const struct CMUnitTest unit_address_tests[];
extern const size_t unit_address_ntests;
extern const struct CMUnitTest unit_matrix_tests[];
extern const size_t unit_matrix_ntests;
extern const struct CMUnitTest unit_report_words_tests[];
extern const size_t unit_report_words_ntests;
extern const struct CMUnitTest unit_evidence_tests[];
extern const size_t unit_evidence_ntests;
extern const struct CMUnitTest unit_evidence_bomb_tests[];
extern const size_t unit_evidence_bomb_ntests;
extern const struct CMUnitTest unit_archive_stream_tests[];
extern const size_t unit_archive_stream_ntests;
extern const struct CMUnitTest unit_smtp_tests[];
extern const size_t unit_smtp_ntests;
extern const struct CMUnitTest unit_config_tests[];
extern const size_t unit_config_ntests;
extern const struct CMUnitTest unit_schedule_tests[];
extern const size_t unit_schedule_ntests;
extern const struct CMUnitTest unit_listen_tests[];
extern const size_t unit_listen_ntests;
extern const struct CMUnitTest unit_caps_tests[];
extern const size_t unit_caps_ntests;
extern const struct CMUnitTest unit_lookup_format_tests[];
extern const size_t unit_lookup_format_ntests;
extern const struct CMUnitTest unit_checkconfig_tests[];
extern const size_t unit_checkconfig_ntests;
extern const struct CMUnitTest unit_setup_tests[];
extern const size_t unit_setup_ntests;
extern const struct CMUnitTest unit_status_tests[];
extern const size_t unit_status_ntests;

/* The store tests again over PostgreSQL, when $ROBOTMAIL_TEST_PG names an
 * empty database (tests/suites/postgres.sh starts a server for it): the
 * backend-independent ones of test_store.c and those of test_store_pg.c. */
extern const struct CMUnitTest unit_store_pg_tests[];
extern const size_t unit_store_pg_ntests;
/* Set by the group's setup: the URL, or NULL (SQLite in memory). */
extern const char *unit_store_pg_url;
struct rm_store;
/* An empty store of the current backend (PostgreSQL: every table dropped). */
struct rm_store *unit_fresh_store(void);
/* Queue one small report (test_store.c): Message-ID "<prefix><i>@example.org",
 * dedupe key "d<i>", thread_key as given, queued at `when`; asserts that the
 * store took it (returns only then). */
void unit_enqueue_keyed(struct rm_store *st, const char *prefix, size_t i, const char *thread_key,
			long long when);
int unit_store_pg_setup(void **state);
void unit_pg_test_two_hosts_claim(void **state);
void unit_pg_test_dedupe_across_hosts(void **state);
void unit_pg_test_archive_claims(void **state);
void unit_pg_test_migrate_round_trip(void **state);
void unit_pg_test_migrate_before_threads(void **state);
void unit_pg_test_parameters_not_sql(void **state);
void unit_pg_test_points_before_labels(void **state);
void unit_pg_test_delivery_rounds(void **state);
/* test_store_threads.c: thread keys by their end, an index range */
void unit_pg_test_key_rev(void **state);
/* test_listen.c: findings, inbound mail, opt-outs */
void unit_listen_test_store_findings(void **state);
void unit_listen_test_recipients_optouts(void **state);
int unit_store_pg_teardown(void **state);

#endif
