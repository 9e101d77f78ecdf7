/* test_store_pg.c - the PostgreSQL backend where it differs from SQLite:
 * two hosts on one database (claims with SKIP LOCKED, leases that expire and
 * are taken over, unique dedupe keys and Message-IDs), archive claims, the
 * SQLite -> PostgreSQL migration, and hostile strings as parameters.  Runs
 * in the store-postgresql group only, against $ROBOTMAIL_TEST_PG (an empty
 * database of a throwaway server: tests/suites/postgres.sh). */
#include "unit.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit.h"
#include "config.h"
#include "schedule.h"
#include "store.h"
#include "strbuf.h"

#define T0 ((time_t)1700000000)

const char *unit_store_pg_url;

int unit_store_pg_setup(void **state)
{
	(void)state;
	unit_store_pg_url = getenv("ROBOTMAIL_TEST_PG");
	return unit_store_pg_url ? 0 : -1;
}

int unit_store_pg_teardown(void **state)
{
	(void)state;
	unit_store_pg_url = NULL;
	return 0;
}

/* SQL straight to the test database (to empty it, or to age a lease) */
static void pg_sql(const char *sql)
{
	PGconn *c = PQconnectdb(unit_store_pg_url);
	PGresult *r;

	assert_int_equal(PQstatus(c), CONNECTION_OK);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

static struct rm_store *open_url(const char *url)
{
	struct rm_store *st;
	struct rm_error err;

	rm_error_clear(&err);
	if (rm_store_open(&st, url, RM_STORE_READWRITE, &err))
		fail_msg("open: %s", err.msg);
	assert_non_null(st);
	return st;
}

struct rm_store *unit_fresh_store(void)
{
	if (!unit_store_pg_url)
		return open_url(":memory:");
	pg_sql("SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public");
	return open_url(unit_store_pg_url);
}

/* a second host on the same database */
static struct rm_store *host(const char *name)
{
	struct rm_store *st = open_url(unit_store_pg_url);

	rm_store_set_owner(st, name, 30);
	return st;
}

static int put(struct rm_store *st, const char *mid, const char *key)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	struct rm_store_msg m;
	struct rm_error err;

	memset(&m, 0, sizeof(m));
	m.message_id = (char *)mid;
	m.dedupe_key = (char *)key;
	m.thread_key = (char *)"thread";
	m.tree = (char *)"linus";
	m.subject = (char *)"a report";
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = (char **)rcpts;
	m.nrcpts = 1;
	m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
	m.len = strlen(m.bytes);
	m.state = RM_STORE_QUEUED;
	return rm_store_enqueue(st, &m, T0, &err);
}

static size_t take(struct rm_store *st, size_t limit, long long *ids)
{
	struct rm_store_msg *v;
	struct rm_error err;
	size_t n, i;

	assert_int_equal(rm_store_claim_due(st, T0, limit, &v, &n, &err), 0);
	for (i = 0; i < n; i++)
		if (ids)
			ids[i] = v[i].id;
	rm_store_msgs_free(v, n);
	return n;
}

void unit_pg_test_two_hosts_claim(void **state)
{
	struct rm_store *a = unit_fresh_store(), *b;
	struct rm_error err;
	long long ids[8];
	int back;

	(void)state;
	rm_store_set_owner(a, "host-a", 30);
	b = host("host-b");
	assert_int_equal(put(a, "1@example.org", "k1"), 1);
	assert_int_equal(put(a, "2@example.org", "k2"), 1);
	assert_int_equal(put(b, "3@example.org", "k3"), 1);
	assert_int_equal(take(a, 2, ids), 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 2);
	/* b gets only what a has not claimed */
	assert_int_equal(take(b, 10, ids), 1);
	assert_int_equal(ids[0], 3);
	assert_int_equal(take(b, 10, NULL), 0);
	/* b's recovery (its failure path) puts back its own claim and leaves
	 * a's live claims alone */
	assert_int_equal(rm_store_recover(b, &back, &err), 0);
	assert_int_equal(back, 1);
	assert_int_equal(take(b, 10, ids), 1);
	assert_int_equal(ids[0], 3);
	/* a renews (nothing is due for renewal yet: a third of the lease) */
	assert_int_equal(rm_store_renew(a, &err), 0);
	/* host a dies: its leases run out; b takes its messages over */
	pg_sql("UPDATE messages SET lease_until = 0 WHERE lease_host = 'host-a'");
	assert_int_equal(take(b, 10, ids), 2);
	pg_sql("UPDATE messages SET lease_until = 0 WHERE id = 1");
	/* and an expired lease goes back to the queue at the next run's recovery */
	assert_int_equal(rm_store_recover(a, &back, &err), 0);
	assert_int_equal(back, 1);
	rm_store_close(b);
	rm_store_close(a);
}

void unit_pg_test_dedupe_across_hosts(void **state)
{
	struct rm_store *a = unit_fresh_store(), *b = host("host-b");
	bool seen;
	struct rm_error err;

	(void)state;
	rm_store_set_owner(a, "host-a", 30);
	assert_int_equal(put(a, "1@example.org", "same finding"), 1);
	/* the other host builds the same report (same key, its own Message-ID) */
	assert_int_equal(put(b, "9@example.org", "same finding"), 0);
	/* or another report with a Message-ID already used */
	assert_int_equal(put(b, "1@example.org", "other"), 0);
	assert_int_equal(rm_store_report_seen(b, "same finding", &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(rm_store_report_seen(b, "other", &seen, &err), 0);
	assert_false(seen); /* the refused enqueue left nothing behind */
	assert_int_equal(take(b, 10, NULL), 1);
	rm_store_close(b);
	rm_store_close(a);
}

void unit_pg_test_archive_claims(void **state)
{
	struct rm_store *a = unit_fresh_store(), *b = host("host-b");
	struct rm_error err;
	bool got;

	(void)state;
	rm_store_set_owner(a, "host-a", 30);
	assert_int_equal(rm_store_claim_archive(a, "x.tar", &got, &err), 0);
	assert_true(got);
	assert_int_equal(rm_store_claim_archive(b, "x.tar", &got, &err), 0);
	assert_false(got);
	assert_int_equal(rm_store_claim_archive(a, "x.tar", &got, &err), 0);
	assert_true(got); /* ours already */
	assert_int_equal(rm_store_release_archive(b, "x.tar", &err), 0); /* not b's: no effect */
	assert_int_equal(rm_store_claim_archive(b, "x.tar", &got, &err), 0);
	assert_false(got);
	assert_int_equal(rm_store_release_archive(a, "x.tar", &err), 0);
	assert_int_equal(rm_store_claim_archive(b, "x.tar", &got, &err), 0);
	assert_true(got);
	/* b dies holding it: once its lease expired, a takes it */
	pg_sql("UPDATE archive_claims SET lease_until = 0");
	assert_int_equal(rm_store_claim_archive(a, "x.tar", &got, &err), 0);
	assert_true(got);
	{
		struct rm_store_counts c;

		assert_int_equal(rm_store_counts(a, &c, &err), 0);
		assert_int_equal(c.archive_claims, 1);
	}
	rm_store_close(b);
	rm_store_close(a);
}

void unit_pg_test_migrate_round_trip(void **state)
{
	static const char *const two[] = { "ok@example.org", "no@example.org", NULL };
	struct rm_store *src, *dst = unit_fresh_store(), *again;
	struct rm_rcpt_result res[2] = { { "ok@example.org", 250, "queued" },
					 { "no@example.org", 550, "no such user" } };
	struct rm_store_msg *v = NULL, *w = NULL, m;
	struct rm_sb out = RM_SB_INIT;
	struct rm_error err;
	enum rm_store_state s;
	size_t nv, nw, i;

	(void)state;
	assert_int_equal(rm_store_open(&src, ":memory:", RM_STORE_READWRITE, &err), 0);
	memset(&m, 0, sizeof(m));
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = (char **)two;
	m.nrcpts = 2;
	m.bytes = (char *)"Subject: \xe2\x82\xac\r\n\r\n\x00\x01 binary\r\n";
	m.len = 26;
	m.state = RM_STORE_QUEUED;
	for (i = 0; i < 4; i++) {
		char mid[32], key[32];

		snprintf(mid, sizeof(mid), "m%zu@example.org", i);
		snprintf(key, sizeof(key), "key %zu", i);
		m.message_id = mid;
		m.dedupe_key = key;
		m.thread_key = (char *)"t";
		m.state = i == 3 ? RM_STORE_HELD : RM_STORE_QUEUED;
		assert_int_equal(rm_store_enqueue(src, &m, T0, &err), 1);
	}
	assert_int_equal(take(src, 2, NULL), 2);
	assert_int_equal(rm_store_record(src, 1, res, 2, NULL, T0 + 10, T0 + 20, false, &s, &err), 0);
	assert_int_equal(s, RM_STORE_SENT);
	res[0].code = 550;
	assert_int_equal(rm_store_record(src, 2, res, 2, "refused", T0 + 10, T0 + 20, false, &s, &err),
			 0);
	assert_int_equal(s, RM_STORE_FAILED);
	assert_int_equal(rm_store_cache_put(src, "linus", "abc", true, "{\"s\":1}", T0, 60, &err), 0);
	assert_int_equal(rm_store_cache_put(src, "linus", "def", false, NULL, T0, 60, &err), 0);
	{
		/* unknown commits' backoff (schema step 7): the count of asks, the
		 * first failure and a malformed answer's reason travel too */
		struct rm_commit_miss mm;

		memset(&mm, 0, sizeof(mm));
		mm.attempts = 4;
		mm.first_at = T0 - 600;
		mm.last_at = T0;
		mm.next_at = T0 + 900;
		assert_int_equal(rm_store_cache_miss_put(src, "next", "0123", &mm, &err), 0);
		mm.attempts = 2;
		snprintf(mm.failure, sizeof(mm.failure), "http://forge.example.org/x: expected a JSON object");
		assert_int_equal(rm_store_cache_miss_put(src, "next", "4567", &mm, &err), 0);
	}
	/* listen's tables: a finding changed twice and once undone, a mail read, an opt-out */
	assert_int_equal(rm_store_finding_set(src, "t", "linus", RM_FINDING_INVALID, NULL,
					      "#robotmail invalid", "a@example.org", "r1", T0, &err),
			 1);
	assert_int_equal(rm_store_finding_set(src, "t", NULL, RM_FINDING_FIXED, "abc",
					      "#robotmail fixed: abc", "a@example.org", "r2", T0 + 1,
					      &err),
			 1);
	assert_int_equal(rm_store_finding_undo(src, "t", "#robotmail undo", "a@example.org", "r3",
					       T0 + 2, &err),
			 1);
	assert_int_equal(rm_store_inbound_mark(src, "maildir:x", "r3", "a@example.org", "applied",
					       T0 + 2, &err),
			 1);
	assert_int_equal(rm_store_optout_add(src, "B@example.org", "*", "r4", T0, &err), 0);
	{
		/* a finding's values: one kept without its tree/branch, one seen on another head */
		const double v3[3] = { 1.5, 2, 1e-300 };

		assert_int_equal(rm_store_point_add(src, "t", "linus:master||m|regression", "abc",
						    "base", v3, 3, T0, &err),
				 1);
		assert_int_equal(rm_store_point_keep(src, "t", "linus:master||m|regression", "def",
						     "seen", "linux-next/master", v3, 2, T0 + 1, &err),
				 1);
	}
	assert_int_equal(rm_store_mention_add(src, "t", "m3@example.org", "u", T0 + 4, &err), 1);

	rm_sb_init(&out);
	if (rm_store_migrate(src, dst, &out, &err))
		fail_msg("migrate: %s\n%s", err.msg, out.buf);
	{
		struct rm_store_point *pt;
		size_t n;

		assert_int_equal(rm_store_points(dst, "t", &pt, &n, &err), 0);
		assert_int_equal(n, 2);
		assert_string_equal(pt[0].commit, "abc");
		assert_null(pt[0].label);
		assert_int_equal(pt[0].n, 3);
		assert_true(pt[0].v[2] == 1e-300);
		assert_string_equal(pt[1].role, "seen");
		assert_string_equal(pt[1].label, "linux-next/master");
		assert_int_equal(pt[1].n, 2);
		assert_int_equal(pt[1].at, T0 + 1);
		rm_store_points_free(pt, n);
	}
	assert_non_null(strstr(out.buf, "every count matches"));
	assert_non_null(strstr(out.buf, "target: 4 reports, 4 messages (1 held, 1 queued, 0 sending,"
					" 1 sent, 1 failed; 2 attempts), 4 recipient results, 4 commit-cache rows"));
	{
		struct rm_commit_miss got;

		assert_int_equal(rm_store_cache_miss_get(dst, "next", "0123", &got, &err), 1);
		assert_int_equal(got.attempts, 4);
		assert_int_equal(got.first_at, T0 - 600);
		assert_int_equal(got.last_at, T0);
		assert_int_equal(got.next_at, T0 + 900);
		assert_string_equal(got.failure, "");
		assert_int_equal(rm_store_cache_miss_get(dst, "next", "4567", &got, &err), 1);
		assert_int_equal(got.attempts, 2);
		assert_string_equal(got.failure, "http://forge.example.org/x: expected a JSON object");
		/* the plain miss of before step 7's columns: no count, no reason */
		assert_int_equal(rm_store_cache_miss_get(dst, "linus", "def", &got, &err), 1);
		assert_int_equal(got.attempts, 0);
		assert_string_equal(got.failure, "");
	}
	assert_non_null(strstr(out.buf, "target: 1 findings (3 commands), 1 inbound mails read, 1 opt-outs"));
	assert_non_null(strstr(out.buf, ", 1 later reports' mentions\n"));
	/* the thread row: its first message, as in the source */
	assert_non_null(strstr(out.buf, "source: 1 threads (one first message per thread key)\n"));
	assert_non_null(strstr(out.buf, "target: 1 threads (one first message per thread key)\n"));
	{
		char *mid, *subj, *refs;

		assert_int_equal(rm_store_thread_first(dst, "t", &mid, &subj, &refs, &err), 1);
		assert_string_equal(mid, "m0@example.org");
		free(mid);
		free(subj);
		free(refs);
	}
	rm_sb_release(&out);
	{
		struct rm_store_finding f;
		struct rm_store_event *ev;
		size_t n;
		bool b;

		assert_int_equal(rm_store_finding_get(dst, "t", &f, &err), 1);
		assert_int_equal(f.state, RM_FINDING_INVALID);
		assert_string_equal(f.tree, "linus");
		rm_store_finding_free(&f);
		assert_int_equal(rm_store_finding_events(dst, "t", &ev, &n, &err), 0);
		assert_int_equal(n, 3);
		assert_false(ev[0].undone);
		assert_true(ev[1].undone);
		assert_string_equal(ev[2].command, "#robotmail undo");
		rm_store_events_free(ev, n);
		/* the copied history goes on: the next undo takes back the first change */
		assert_int_equal(rm_store_finding_undo(dst, "t", "#robotmail undo", "a@example.org", "r5",
						       T0 + 3, &err),
				 1);
		assert_int_equal(rm_store_finding_get(dst, "t", &f, &err), 1);
		assert_int_equal(f.state, RM_FINDING_OPEN);
		rm_store_finding_free(&f);
		assert_int_equal(rm_store_inbound_seen(dst, "maildir:x", "r3", &b, &err), 0);
		assert_true(b);
		assert_int_equal(rm_store_optout_check(dst, "b@example.org", "linus", &b, &err), 0);
		assert_true(b);
		{
			struct rm_store_mention *mv;
			size_t nm;

			assert_int_equal(rm_store_mentions(dst, "t", &mv, &nm, &err), 0);
			assert_int_equal(nm, 1);
			assert_string_equal(mv[0].message_id, "m3@example.org");
			assert_string_equal(mv[0].by_key, "u");
			assert_int_equal(mv[0].at, T0 + 4);
			rm_store_mentions_free(mv, nm);
		}
	}
	/* every message the same, byte for byte */
	assert_int_equal(rm_store_list(src, &v, &nv, &err), 0);
	assert_int_equal(rm_store_list(dst, &w, &nw, &err), 0);
	assert_int_equal(nv, nw);
	for (i = 0; i < nv; i++) {
		assert_int_equal(v[i].id, w[i].id);
		assert_string_equal(v[i].message_id, w[i].message_id);
		assert_int_equal(v[i].state, w[i].state);
		assert_int_equal(v[i].attempts, w[i].attempts);
		assert_int_equal(v[i].len, w[i].len);
		assert_memory_equal(v[i].bytes, w[i].bytes, v[i].len);
		assert_int_equal(v[i].nrcpts, w[i].nrcpts);
		assert_int_equal(v[i].created_at, w[i].created_at);
		assert_int_equal(v[i].sent_at, w[i].sent_at);
	}
	rm_store_msgs_free(v, nv);
	rm_store_msgs_free(w, nw);
	{
		char *json = NULL;
		bool found;

		assert_int_equal(rm_store_cache_get(dst, "linus", "abc", T0 + 100000, &json, &found, &err), 1);
		assert_true(found);
		assert_string_equal(json, "{\"s\":1}");
		free(json);
		assert_int_equal(rm_store_cache_get(dst, "linus", "def", T0 + 59, &json, &found, &err), 1);
		assert_int_equal(rm_store_cache_get(dst, "linus", "def", T0 + 60, &json, &found, &err), 0);
	}
	/* the dedupe keys came along: the same report is not queued again */
	m.message_id = (char *)"new@example.org";
	m.dedupe_key = (char *)"key 0";
	assert_int_equal(rm_store_enqueue(dst, &m, T0, &err), 0);
	/* new messages get new ids after the copied ones */
	m.dedupe_key = (char *)"key 9";
	assert_int_equal(rm_store_enqueue(dst, &m, T0, &err), 1);
	assert_int_equal(rm_store_get(dst, "new@example.org", &m, &err), 1);
	assert_int_equal(m.id, 5);
	rm_store_msg_free(&m);
	/* a second migration into the filled store is refused */
	again = open_url(unit_store_pg_url);
	rm_sb_init(&out);
	assert_int_equal(rm_store_migrate(src, again, &out, &err), -1);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "not empty"));
	rm_sb_release(&out);
	rm_store_close(again);
	rm_store_close(src);
	rm_store_close(dst);
}

/* A store before finding_points' label (schema 8): read only, its values
 * read without a label and `store migrate`'s dump gives NULL; opened to
 * write, step 9 adds the column and the old values stay. */
void unit_pg_test_points_before_labels(void **state)
{
	const double v3[3] = { 1, 2, 3 };
	struct rm_store *st = unit_fresh_store();
	struct rm_store_point *pt;
	struct rm_store_dump dump;
	struct rm_error err;
	size_t n;
	int v;

	(void)state;
	assert_int_equal(rm_store_point_keep(st, "k", "t", "c0", "base", "linus/master", v3, 3, T0,
					     &err),
			 1);
	rm_store_close(st);
	pg_sql("DROP INDEX threads_key_rev; ALTER TABLE threads DROP COLUMN key_rev; DROP TABLE finding_mentions;"
	       " ALTER TABLE finding_points DROP COLUMN label; DELETE FROM schema_version WHERE version > 8");
	assert_int_equal(rm_store_open(&st, unit_store_pg_url, RM_STORE_READONLY, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 8);
	assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pt[0].n, 3);
	assert_null(pt[0].label);
	rm_store_points_free(pt, n);
	assert_int_equal(rm_store_dump(st, &dump, &err), 0);
	assert_int_equal(dump.listen[4].nrows, 1);
	assert_null(dump.listen[4].cells[6]);
	rm_store_dump_free(&dump);
	rm_store_close(st);
	st = open_url(unit_store_pg_url);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rm_store_point_keep(st, "k", "t", "c1", "seen", "linux-next/master", v3, 1,
					     T0, &err),
			 1);
	assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_null(pt[0].label);
	assert_string_equal(pt[1].label, "linux-next/master");
	rm_store_points_free(pt, n);
	rm_store_close(st);
}

void unit_pg_test_parameters_not_sql(void **state)
{
	struct rm_store *st = unit_fresh_store();
	struct rm_store_msg m;
	struct rm_error err;
	bool seen;
	static const char hostile[] = "x'); DROP TABLE messages; --\\ $1 \"";

	(void)state;
	assert_int_equal(put(st, hostile, hostile), 1);
	assert_int_equal(rm_store_report_seen(st, hostile, &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(rm_store_get(st, hostile, &m, &err), 1);
	assert_string_equal(m.message_id, hostile);
	rm_store_msg_free(&m);
	assert_int_equal(rm_store_set_state(st, hostile, RM_STORE_HOLD, T0, &err), 1);
	rm_store_close(st);
}

/* on a shared store the schedule claims 32 at a time and goes on round
 * after round: one pass still delivers every due message (up to the batch) */
void unit_pg_test_delivery_rounds(void **state)
{
	struct rm_store *st = unit_fresh_store();
	struct rm_config cfg;
	struct rm_schedule_counts c;
	struct rm_store_counts k;
	struct rm_error err;
	int i;

	(void)state;
	rm_store_set_owner(st, "host-a", 30);
	for (i = 0; i < 70; i++) {
		char mid[32], key[32];

		snprintf(mid, sizeof(mid), "r%d@example.org", i);
		snprintf(key, sizeof(key), "round %d", i);
		assert_int_equal(put(st, mid, key), 1);
	}
	assert_int_equal(rm_store_claim_round(st, 500), 32);
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	free(cfg.transport);
	cfg.transport = rm_xstrdup("sendmail:sh -c cat>/dev/null");
	cfg.batch = 65; /* the batch still holds across rounds */
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, T0, NULL, &c, &err), 0);
	assert_int_equal(c.sent, 65);
	assert_int_equal(rm_store_counts(st, &k, &err), 0);
	assert_int_equal(k.by_state[RM_STORE_SENT], 65);
	assert_int_equal(k.by_state[RM_STORE_QUEUED], 5);
	assert_int_equal(k.by_state[RM_STORE_SENDING], 0);
	rm_config_free(&cfg);
	rm_store_close(st);
}

/* A SQLite store from before the threads table (schema 5), migrated: the
 * target makes each thread key's row from its first message by id, so a
 * later report of the finding replies to it; the counts match. */
void unit_pg_test_migrate_before_threads(void **state)
{
	static const char *const one[] = { "dora@example.org", NULL };
	char dir[] = "/tmp/robotmail-unit.XXXXXX", path[64];
	struct rm_store *src, *dst = unit_fresh_store();
	struct rm_sb out = RM_SB_INIT;
	struct rm_store_msg m;
	struct rm_error err;
	char *mid, *subj, *refs;
	sqlite3 *db;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	assert_int_equal(rm_store_open(&src, path, RM_STORE_READWRITE, &err), 0);
	memset(&m, 0, sizeof(m));
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = (char **)one;
	m.nrcpts = 1;
	m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
	m.len = strlen(m.bytes);
	m.state = RM_STORE_QUEUED;
	for (i = 0; i < 3; i++) {
		char id[32], key[32];

		snprintf(id, sizeof(id), "m%zu@example.org", i);
		snprintf(key, sizeof(key), "key %zu", i);
		m.message_id = id;
		m.dedupe_key = key;
		m.thread_key = (char *)(i < 2 ? "T" : "U");
		assert_int_equal(rm_store_enqueue(src, &m, T0, &err), 1);
	}
	rm_store_close(src);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE threads; ALTER TABLE commit_cache DROP COLUMN attempts;"
				      " ALTER TABLE commit_cache DROP COLUMN first_failed_at;"
				      " ALTER TABLE commit_cache DROP COLUMN failure; DROP TABLE finding_points;"
				      " DROP TABLE finding_mentions; PRAGMA user_version = 5", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(rm_store_open(&src, path, RM_STORE_READONLY, &err), 0);
	rm_sb_init(&out);
	if (rm_store_migrate(src, dst, &out, &err))
		fail_msg("migrate: %s\n%s", err.msg, out.buf);
	assert_non_null(strstr(out.buf, "source: 2 threads (one first message per thread key)\n"));
	assert_non_null(strstr(out.buf, "target: 2 threads (one first message per thread key)\n"));
	assert_non_null(strstr(out.buf, "every count matches"));
	rm_sb_release(&out);
	assert_int_equal(rm_store_thread_first(dst, "T", &mid, &subj, &refs, &err), 1);
	assert_string_equal(mid, "m0@example.org");
	free(mid);
	free(subj);
	free(refs);
	/* a second start of finding T on the target: the key is taken */
	m.message_id = (char *)"m9@example.org";
	m.dedupe_key = (char *)"key 9";
	m.thread_key = (char *)"T";
	m.starts_thread = true;
	assert_int_equal(rm_store_enqueue(dst, &m, T0, &err), RM_STORE_THREAD_TAKEN);
	rm_store_close(src);
	rm_store_close(dst);
	unlink(path);
	rmdir(dir);
}
