/* test_store_threads.c - thread keys found by their end (schema step 11:
 * threads.key_rev, the key reversed, and its index threads_key_rev):
 * rm_store_threads_ending's query is an index range in both backends
 * (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN), a store at step 10
 * migrates (existing keys filled), and the answers are those of the scan
 * it replaced, multi-byte characters included.  And the backends' list
 * reads (read_all) when the database fails them: -1, the read named, no
 * rows (unit-asan: nothing leaked). */
#include "unit.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "strbuf.h"

#define T0 ((time_t)1700000000)

/* ü and → in the axes and the suffix: characters of 2 and 3 bytes */
static const char *const keys[] = {
	"linus:master|aaa|x=ü/|dmesg.BUG_x|failure",
	"tip:sched/core|ccc|x=ü/|dmesg.BUGyx|failure",
	"linux-next:master|bbb|x=ü/|dmesg.BUG_x|failure",
	"linus:master|ddd|x=2→/|dmesg.BUG_x|failure",
	"linus:master|aaa|x=ü/|dmesg.BUG_x|failure",
	"|x=ü/|dmesg.BUG_x|failure", /* the suffix itself: not a longer key */
	"mm:everything|eee|x=2→/|dmesg.BUG_x|failure",
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void fill(struct rm_store *st)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		unit_enqueue_keyed(st, "k", i, keys[i], T0 + (long long)i);
}

/* the answers fill()'s keys give, whichever query reads them */
static void assert_answers(struct rm_store *st)
{
	struct rm_error err;
	char **got;
	size_t i, n;

	assert_int_equal(rm_store_threads_ending(st, "|x=ü/|dmesg.BUG_x|failure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0], keys[0]); /* its newest report is keys[4] */
	assert_string_equal(got[1], keys[2]);
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
	assert_int_equal(rm_store_threads_ending(st, "→/|dmesg.BUG_x|failure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0], keys[6]);
	assert_string_equal(got[1], keys[3]);
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
	assert_int_equal(rm_store_threads_ending(st, "|x=ü/|dmesg.BUG_x|failure", 1, &got, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(got[0], keys[0]);
	free(got[0]);
	free(got);
	/* '_' is itself, and a suffix no key ends with finds none */
	assert_int_equal(rm_store_threads_ending(st, "|x=ü/|dmesg.BUGzx|failure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(got);
	assert_int_equal(rm_store_threads_ending(st, "ailure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 6); /* every key, each once */
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
}

static char *plan_sqlite(sqlite3 *db)
{
	static const char *const p[] = { "eruliaf|x_GUB", "eruliaf|x_GUC", "BUG_x|failure" };
	char sql[1024];
	sqlite3_stmt *st;
	struct rm_sb sb = RM_SB_INIT;
	int i;

	snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN %s", rm_store_sqlite_threads_ending_sql);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < 3; i++)
		assert_int_equal(sqlite3_bind_text(st, i + 1, p[i], -1, SQLITE_TRANSIENT), SQLITE_OK);
	assert_int_equal(sqlite3_bind_text(st, 4, "10", -1, SQLITE_TRANSIENT), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		rm_sb_addf(&sb, "%s\n", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return rm_sb_detach(&sb, NULL);
}

static long sqlite_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* SQLite: the query searches threads by the index threads_key_rev (no scan
 * of threads or messages); a store at step 10 is read by the scan it had
 * (read-only) and migrates, its keys reversed by the migration */
static void test_key_rev_sqlite(void **state)
{
	char dir[] = "/tmp/rm-keyrev-XXXXXX", path[64];
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;
	char *plan;
	int v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	fill(st);
	assert_answers(st);
	rm_store_close(st);

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	plan = plan_sqlite(db);
	if (!strstr(plan, "SEARCH t USING INDEX threads_key_rev (key_rev>? AND key_rev<?)") &&
	    !strstr(plan, "SEARCH t USING COVERING INDEX threads_key_rev (key_rev>? AND key_rev<?)"))
		fail_msg("not an index range on threads_key_rev:\n%s", plan);
	if (strstr(plan, "SCAN t") || strstr(plan, "SCAN m"))
		fail_msg("a table scan:\n%s", plan);
	free(plan);
	/* back to step 10 */
	assert_int_equal(sqlite3_exec(db,
				      "DROP INDEX threads_key_rev; ALTER TABLE threads DROP COLUMN key_rev;"
				      " PRAGMA user_version = 10",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(rm_store_open(&st, path, RM_STORE_READONLY, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 10);
	assert_answers(st);
	rm_store_close(st);

	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_answers(st);
	rm_store_close(st);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite_count(db, "SELECT count(*) FROM threads WHERE key_rev IS NULL"), 0);
	/* what the migration and the enqueue stored: each key reversed by characters */
	assert_int_equal(sqlite_count(db, "SELECT count(*) FROM threads WHERE key ="
					  " 'linus:master|ddd|x=2→/|dmesg.BUG_x|failure' AND key_rev ="
					  " 'eruliaf|x_GUB.gsemd|/→2=x|ddd|retsam:sunil'"),
			 1);
	plan = plan_sqlite(db);
	assert_non_null(strstr(plan, "INDEX threads_key_rev (key_rev>? AND key_rev<?)"));
	free(plan);
	sqlite3_close(db);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* every list read of a store whose tables are gone: -1 naming the read,
 * nothing handed back */
static void assert_list_reads_fail(struct rm_store *st)
{
	static const struct {
		int which;
		const char *what;
	} reads[] = {
		{ 0, "listing the queue" },	      { 1, "reading recipients' results" },
		{ 2, "reading threads" },	      { 3, "reading findings" },
		{ 4, "reading a finding's events" }, { 5, "reading a finding's values" },
		{ 6, "reading findings' values" },   { 7, "listing the queue" },
	};
	size_t i;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		struct rm_error err;
		void *out = NULL;
		char **ks = NULL, **tests = NULL;
		size_t n = 0;
		int rc = 0;

		rm_error_clear(&err);
		switch (reads[i].which) {
		case 0: {
			struct rm_store_msg *m;

			rc = rm_store_list(st, &m, &n, &err);
			out = m;
			break;
		}
		case 1: {
			struct rm_store_rcpt_row *r;

			rc = rm_store_results(st, 1, &r, &n, &err);
			out = r;
			break;
		}
		case 2:
			rc = rm_store_threads_ending(st, "|x=ü/|dmesg.BUG_x|failure", 10, &ks, &n, &err);
			out = ks;
			break;
		case 3: {
			struct rm_store_finding *f;

			rc = rm_store_findings(st, &f, &n, &err);
			out = f;
			break;
		}
		case 4: {
			struct rm_store_event *e;

			rc = rm_store_finding_events(st, "k", &e, &n, &err);
			out = e;
			break;
		}
		case 5: {
			struct rm_store_point *p;

			rc = rm_store_points(st, "k", &p, &n, &err);
			out = p;
			break;
		}
		case 6:
			rc = rm_store_point_findings(st, "linus", &ks, &tests, &n, &err);
			out = ks;
			assert_null(tests);
			break;
		case 7: {
			struct rm_store_dump d;

			rc = rm_store_dump(st, &d, &err);
			n = d.nmsgs + d.nreports + d.nrcpts + d.ncache;
			rm_store_dump_free(&d);
			break;
		}
		}
		if (rc != -1 || !strstr(err.msg, reads[i].what))
			fail_msg("read %d: rc %d, \"%s\" (want -1 and \"%s\")", reads[i].which, rc, err.msg,
				 reads[i].what);
		assert_null(out);
		assert_int_equal(n, 0);
	}
}

static void test_list_reads_fail_sqlite(void **state)
{
	char dir[] = "/tmp/rm-reads-XXXXXX", path[64];
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	fill(st);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "DROP TABLE finding_points; DROP TABLE finding_events; DROP TABLE findings;"
				      " DROP TABLE rcpt_results; DROP TABLE threads; DROP TABLE messages",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_list_reads_fail(st);
	rm_store_close(st);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

const struct CMUnitTest unit_store_threads_tests[] = {
	cmocka_unit_test(test_key_rev_sqlite),
	cmocka_unit_test(test_list_reads_fail_sqlite),
};
const size_t unit_store_threads_ntests = sizeof(unit_store_threads_tests) / sizeof(unit_store_threads_tests[0]);

static void pg_exec(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
}

/* PostgreSQL's plan of the query with enable_seqscan off: an index of threads
 * (threads_key_rev) on a range of key_rev; the text of every plan line */
static char *plan_pg(PGconn *c)
{
	const char *p[2] = { "|x=ü/|dmesg.BUG_x|failure", "10" };
	char sql[1024];
	struct rm_sb sb = RM_SB_INIT;
	PGresult *r;
	int i;

	snprintf(sql, sizeof(sql), "EXPLAIN %s", rm_store_pg_threads_ending_sql);
	r = PQexecParams(c, sql, 2, NULL, p, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	for (i = 0; i < PQntuples(r); i++)
		rm_sb_addf(&sb, "%s\n", PQgetvalue(r, i, 0));
	PQclear(r);
	return rm_sb_detach(&sb, NULL);
}

static void assert_pg_plan(PGconn *c)
{
	char *plan = plan_pg(c);

	if (!strstr(plan, "Index Scan on threads_key_rev") &&
	    !strstr(plan, "Index Scan using threads_key_rev") &&
	    !strstr(plan, "Index Only Scan using threads_key_rev"))
		fail_msg("no index of key_rev in the plan:\n%s", plan);
	if (!strstr(plan, "(key_rev >= ") || !strstr(plan, "(key_rev < "))
		fail_msg("not a range of key_rev:\n%s", plan);
	if (strstr(plan, "Seq Scan on threads"))
		fail_msg("a scan of threads:\n%s", plan);
	free(plan);
}

/* PostgreSQL: the same, the plan by EXPLAIN (sequential scans off: a few
 * rows would be read whole otherwise); step 10 -> 11 fills key_rev (a column
 * the server generates); then the list reads with their tables gone */
void unit_pg_test_key_rev(void **state)
{
	struct rm_store *st = unit_fresh_store();
	struct rm_error err;
	PGconn *c;
	PGresult *r;
	int v;

	(void)state;
	fill(st);
	assert_answers(st);
	rm_store_close(st);
	c = PQconnectdb(unit_store_pg_url);
	assert_int_equal(PQstatus(c), CONNECTION_OK);
	pg_exec(c, "SET enable_seqscan = off");
	assert_pg_plan(c);
	pg_exec(c, "DROP INDEX threads_key_rev; ALTER TABLE threads DROP COLUMN key_rev;"
		   " DELETE FROM schema_version WHERE version = 11");

	assert_int_equal(rm_store_open(&st, unit_store_pg_url, RM_STORE_READONLY, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 10);
	assert_answers(st);
	rm_store_close(st);
	assert_int_equal(rm_store_open(&st, unit_store_pg_url, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_answers(st);
	rm_store_close(st);
	r = PQexec(c, "SELECT count(*) FROM threads WHERE key_rev IS NULL OR key_rev <> reverse(key)");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	assert_string_equal(PQgetvalue(r, 0, 0), "0");
	PQclear(r);
	r = PQexec(c, "SELECT key_rev FROM threads WHERE key = 'linus:master|ddd|x=2→/|dmesg.BUG_x|failure'");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	assert_int_equal(PQntuples(r), 1);
	assert_string_equal(PQgetvalue(r, 0, 0), "eruliaf|x_GUB.gsemd|/→2=x|ddd|retsam:sunil");
	PQclear(r);
	assert_pg_plan(c);
	/* and the list reads when their tables are gone */
	assert_int_equal(rm_store_open(&st, unit_store_pg_url, RM_STORE_READWRITE, &err), 0);
	pg_exec(c, "DROP TABLE finding_points, finding_events, findings, rcpt_results, threads, messages CASCADE");
	assert_list_reads_fail(st);
	rm_store_close(st);
	PQfinish(c);
}
