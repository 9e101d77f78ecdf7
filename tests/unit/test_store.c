/* test_store.c - the store's outbox state machine (SQLite, in memory and in
 * a private temporary directory) and the schedule's decisions over it. */
#include "unit.h"

#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fileutil.h"
#include "commit.h"
#include "schedule.h"
#include "store.h"
#include "strbuf.h"

#define T0 ((time_t)1700000000)

static struct rm_error enqueue_err; /* what the last enqueue() said */

/* SQLite in memory, or an emptied PostgreSQL database in the
 * store-postgresql group (test_store_pg.c) */
static struct rm_store *mem_store(void)
{
	return unit_fresh_store();
}

/* A message for `rcpts` (NULL-terminated), queued unless `held`. */
static int enqueue(struct rm_store *st, const char *mid, const char *key, const char *const *rcpts,
		   bool held, time_t now)
{
	struct rm_store_msg m;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	rm_error_clear(&enqueue_err);
	while (rcpts[n])
		n++;
	m.message_id = (char *)mid;
	m.dedupe_key = (char *)key;
	m.thread_key = (char *)"thread";
	m.tree = (char *)"linus";
	m.subject = (char *)"[linus:master] a 10.0% regression";
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = (char **)rcpts;
	m.nrcpts = n;
	m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
	m.len = strlen(m.bytes);
	m.state = held ? RM_STORE_HELD : RM_STORE_QUEUED;
	return rm_store_enqueue(st, &m, now, &enqueue_err);
}

static enum rm_store_state state_of(struct rm_store *st, const char *which, struct rm_store_msg *out)
{
	struct rm_store_msg m;
	struct rm_error err;
	enum rm_store_state s;

	assert_int_equal(rm_store_get(st, which, &m, &err), 1);
	s = m.state;
	if (out)
		*out = m;
	else
		rm_store_msg_free(&m);
	return s;
}

static size_t claim(struct rm_store *st, time_t now, size_t limit, long long *first_id)
{
	struct rm_store_msg *v;
	struct rm_error err;
	size_t n;

	assert_int_equal(rm_store_claim_due(st, now, limit, &v, &n, &err), 0);
	if (n && first_id)
		*first_id = v[0].id;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i].state, RM_STORE_SENDING);
	rm_store_msgs_free(v, n);
	return n;
}

static void test_enqueue_dedupe(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", "list@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_error err;
	struct rm_store_msg m;
	bool seen;
	int v;

	(void)state;
	/* one schema for both backends: step 4 added leases and archive claims */
	assert_string_equal(rm_store_backend(st), unit_store_pg_url ? "postgresql" : "sqlite");
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11); /* 4: leases, archive claims; 5: findings, inbound mail, opt-outs;
				 * 6: threads; 7: the commit cache's miss records; 8: finding_points;
				 * 9: finding_points' label; 10: finding_mentions;
				 * 11: threads' key_rev */
	assert_int_equal(rm_store_report_seen(st, "k1", &seen, &err), 0);
	assert_false(seen);
	assert_int_equal(enqueue(st, "m1@example.org", "k1", rcpts, false, T0), 1);
	assert_int_equal(rm_store_report_seen(st, "k1", &seen, &err), 0);
	assert_true(seen);
	/* the same dedupe key again: nothing changes */
	assert_int_equal(enqueue(st, "m2@example.org", "k1", rcpts, false, T0), 0);
	assert_int_equal(rm_store_get(st, "m2@example.org", &m, &err), 0);
	/* the same Message-ID under another key: nothing changes, not even the key */
	assert_int_equal(enqueue(st, "m1@example.org", "k2", rcpts, false, T0), 0);
	assert_int_equal(rm_store_report_seen(st, "k2", &seen, &err), 0);
	assert_false(seen);
	/* found by id, by Message-ID, with or without <> */
	assert_int_equal(state_of(st, "1", &m), RM_STORE_QUEUED);
	assert_string_equal(m.message_id, "m1@example.org");
	assert_int_equal(m.nrcpts, 2);
	assert_string_equal(m.rcpts[1], "list@example.org");
	assert_int_equal(m.len, strlen("Subject: x\r\n\r\nbody\r\n"));
	assert_string_equal(m.thread_key, "thread");
	rm_store_msg_free(&m);
	assert_int_equal(state_of(st, "<m1@example.org>", NULL), RM_STORE_QUEUED);
	/* threads: the first message of a thread */
	{
		char *mid, *subj, *refs;

		assert_int_equal(rm_store_thread_first(st, "thread", &mid, &subj, &refs, &err), 1);
		assert_string_equal(mid, "m1@example.org");
		free(mid);
		free(subj);
		free(refs);
		assert_int_equal(rm_store_thread_first(st, "other", &mid, &subj, &refs, &err), 0);
		assert_null(mid);
	}
	rm_store_close(st);
}

/* a schedule log callback that keeps "LEVEL TEXT" lines in an rm_sb */
static void collect_line(void *ctx, enum rm_schedule_level level, const char *text)
{
	rm_sb_addf(ctx, "%d %s\n", (int)level, text);
}

static void test_claim_and_recover(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_error err;
	long long id = 0;
	int back;

	(void)state;
	assert_int_equal(enqueue(st, "a@example.org", "ka", rcpts, false, T0), 1);
	assert_int_equal(enqueue(st, "b@example.org", "kb", rcpts, false, T0), 1);
	assert_int_equal(claim(st, T0 - 1, 10, NULL), 0); /* not due yet */
	assert_int_equal(claim(st, T0, 1, &id), 1);       /* the limit holds */
	assert_int_equal(id, 1);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_SENDING);
	assert_int_equal(claim(st, T0, 10, &id), 1); /* a claimed one is not claimed twice */
	assert_int_equal(id, 2);
	/* a crashed run: both go back to the queue */
	assert_int_equal(rm_store_recover(st, &back, &err), 0);
	assert_int_equal(back, 2);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_QUEUED);
	assert_int_equal(claim(st, T0, 10, NULL), 2);
	/* the same through the schedule, which says so */
	{
		struct rm_sb lines = RM_SB_INIT;
		struct rm_schedule_log log = { collect_line, &lines };

		rm_sb_init(&lines);
		assert_int_equal(rm_schedule_recover(st, &log, &err), 0);
		assert_string_equal(lines.buf, "1 2 message(s) of an interrupted run queued again\n");
		rm_sb_release(&lines);
	}
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_QUEUED);
	rm_store_close(st);
}

static void test_record_outcomes(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", "list@example.org",
					     "cc@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_error err;
	struct rm_store_msg m;
	enum rm_store_state s;
	long n;

	(void)state;
	/* 1: one accepted, one refused, one deferred: queued for the deferred one */
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, T0), 1);
	assert_int_equal(claim(st, T0, 10, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 250, "250 ok" },
					      { "list@example.org", 550, "550 no such user" },
					      { "cc@example.org", 451, "451 later" } };

		assert_int_equal(rm_store_record(st, 1, r, 3, NULL, T0, T0 + 60, false, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_QUEUED);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_QUEUED);
	assert_int_equal(m.nrcpts, 1);
	assert_string_equal(m.rcpts[0], "cc@example.org");
	assert_int_equal(m.attempts, 1);
	assert_int_equal(m.next_attempt, T0 + 60);
	rm_store_msg_free(&m);
	assert_int_equal(claim(st, T0 + 59, 10, NULL), 0); /* backoff */
	assert_int_equal(claim(st, T0 + 60, 10, NULL), 1);
	/* given up with the deferred one still pending: sent (dora got it earlier) */
	{
		struct rm_rcpt_result r[] = { { "cc@example.org", 451, "451 later" } };

		assert_int_equal(rm_store_record(st, 1, r, 1, NULL, T0 + 60, T0 + 180, true, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_SENT);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_SENT);
	assert_int_equal(m.sent_at, T0 + 60);
	assert_int_equal(m.nrcpts, 0);
	rm_store_msg_free(&m);

	/* 2: every recipient refused: failed, never sent, recipients kept */
	assert_int_equal(enqueue(st, "2@example.org", "k2", rcpts, false, T0), 1);
	assert_int_equal(claim(st, T0, 10, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 554, "554 spam" },
					      { "list@example.org", 550, "550 no" },
					      { "cc@example.org", 554, "554 spam" } };

		assert_int_equal(rm_store_record(st, 2, r, 3, "sendmail: 'x' exited 1", T0, T0 + 60,
						 false, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_FAILED);
	assert_int_equal(state_of(st, "2", &m), RM_STORE_FAILED);
	assert_int_equal(m.nrcpts, 3);
	assert_string_equal(m.last_error, "sendmail: 'x' exited 1");
	assert_int_equal(m.sent_at, 0);
	rm_store_msg_free(&m);
	/* queue retry works on it, and the retry delivers to all three */
	assert_int_equal(rm_store_set_state(st, "2", RM_STORE_RETRY, T0 + 5, &err), 1);
	assert_int_equal(claim(st, T0 + 5, 10, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 250, "250 ok" },
					      { "list@example.org", 250, "250 ok" },
					      { "cc@example.org", 250, "250 ok" } };

		assert_int_equal(rm_store_record(st, 2, r, 3, NULL, T0 + 5, T0 + 65, false, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_SENT);

	/* 3: deferred until given up, nobody ever accepted it: failed; the
	 * recipient refused in the first attempt is kept for a retry too */
	assert_int_equal(enqueue(st, "3@example.org", "k3", rcpts, false, T0), 1);
	assert_int_equal(claim(st, T0, 10, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 451, "451 a" },
					      { "list@example.org", 550, "550 b" },
					      { "cc@example.org", 0, NULL } };

		assert_int_equal(rm_store_record(st, 3, r, 3, NULL, T0, T0, false, &s, &err), 0);
		assert_int_equal(s, RM_STORE_QUEUED);
	}
	assert_int_equal(claim(st, T0, 10, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 451, "451 a" },
					      { "cc@example.org", 421, "421 c" } };

		assert_int_equal(rm_store_record(st, 3, r, 2, NULL, T0, T0, true, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_FAILED);
	assert_int_equal(state_of(st, "3", &m), RM_STORE_FAILED);
	assert_int_equal(m.nrcpts, 3);
	rm_store_msg_free(&m);

	/* cap counts: messages sent in the last hour, per recipient */
	assert_int_equal(rm_store_sent_since(st, T0, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rm_store_sent_since(st, T0 + 61, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(rm_store_rcpt_count_since(st, "DORA@example.org", T0, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rm_store_rcpt_count_since(st, "list@example.org", T0, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rm_store_rcpt_count_since(st, "dora@example.org", T0 + 6, &n, &err), 0);
	assert_int_equal(n, 0);
	rm_store_close(st);
}

static void test_holds_and_operator_actions(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_error err;
	struct rm_store_msg m;
	long long id = 0;

	(void)state;
	assert_int_equal(enqueue(st, "h@example.org", "kh", rcpts, true, T0), 1);
	assert_int_equal(enqueue(st, "q@example.org", "kq", rcpts, false, T0), 1);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_HELD);
	assert_int_equal(claim(st, T0 + 100, 10, &id), 1); /* the held one waits */
	assert_int_equal(id, 2);
	/* actions that do not apply change nothing */
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_HOLD, T0, &err), 0);
	assert_int_equal(rm_store_set_state(st, "2", RM_STORE_RELEASE, T0, &err), 0);
	assert_int_equal(rm_store_set_state(st, "99", RM_STORE_RETRY, T0, &err), 0);
	assert_int_equal(rm_store_set_state(st, "2", RM_STORE_DROP, T0, &err), 0); /* sending */
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_RELEASE, T0 + 200, &err), 1);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_QUEUED);
	assert_int_equal(rm_store_set_state(st, "h@example.org", RM_STORE_HOLD, T0, &err), 1);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_HELD);
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_DROP, T0, &err), 1);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_FAILED);
	assert_string_equal(m.last_error, "dropped by the operator");
	rm_store_msg_free(&m);
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_RETRY, T0 + 300, &err), 1);
	assert_int_equal(claim(st, T0 + 300, 10, &id), 1);
	assert_int_equal(id, 1);
	/* a cap deferral puts it back without counting an attempt */
	assert_int_equal(rm_store_defer(st, 1, T0 + 3900, "daily cap of x reached; waiting", &err), 0);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_QUEUED);
	assert_int_equal(m.attempts, 0);
	assert_int_equal(m.next_attempt, T0 + 3900);
	rm_store_msg_free(&m);
	rm_store_close(st);
}

static void test_commit_cache(void **state)
{
	struct rm_store *st = mem_store();
	struct rm_commit_cache cache;
	struct rm_error err;
	char *json;
	bool found;

	(void)state;
	assert_int_equal(rm_store_cache_get(st, "linus", "abc", T0, &json, &found, &err), 0);
	assert_null(json);
	assert_int_equal(rm_store_cache_put(st, "linus", "abc", true, "{\"s\":1}", T0, 60, &err), 0);
	assert_int_equal(rm_store_cache_put(st, "linus", "def", false, NULL, T0, 60, &err), 0);
	/* found commits are kept for good */
	assert_int_equal(rm_store_cache_get(st, "linus", "abc", T0 + 99999999, &json, &found, &err), 1);
	assert_true(found);
	assert_string_equal(json, "{\"s\":1}");
	free(json);
	/* a miss until its ttl runs out */
	assert_int_equal(rm_store_cache_get(st, "linus", "def", T0 + 59, &json, &found, &err), 1);
	assert_false(found);
	assert_int_equal(rm_store_cache_get(st, "linus", "def", T0 + 60, &json, &found, &err), 0);
	/* per tree */
	assert_int_equal(rm_store_cache_get(st, "next", "abc", T0, &json, &found, &err), 0);
	/* gitweb's callbacks over the store */
	rm_store_commit_cache(st, 3600, &cache);
	assert_non_null(cache.put);
	assert_int_equal(cache.put(cache.ctx, "next", "123", true, "{}"), 0);
	assert_int_equal(cache.get(cache.ctx, "next", "123", &json, &found), 1);
	assert_true(found);
	free(json);
	rm_store_close(st);
	/* no store (a dry run before any run): a cache that always misses */
	rm_store_commit_cache(NULL, 3600, &cache);
	assert_null(cache.get);
}

/* The miss records of schema step 6: kept whether or not their wait is
 * over, replaced by a found commit, written only by a writable store. */
static void test_commit_cache_misses(void **state)
{
	struct rm_store *st = mem_store();
	struct rm_commit_cache cache;
	struct rm_commit_miss m, got;
	struct rm_error err;
	char *json;
	bool found;

	(void)state;
	assert_int_equal(rm_store_cache_miss_get(st, "linus", "abc", &got, &err), 0);
	memset(&m, 0, sizeof(m));
	m.attempts = 3;
	m.first_at = T0;
	m.last_at = T0 + 180;
	m.next_at = T0 + 420;
	assert_int_equal(rm_store_cache_miss_put(st, "linus", "abc", &m, &err), 0);
	assert_int_equal(rm_store_cache_miss_get(st, "linus", "abc", &got, &err), 1);
	assert_int_equal(got.attempts, 3);
	assert_int_equal(got.first_at, T0);
	assert_int_equal(got.last_at, T0 + 180);
	assert_int_equal(got.next_at, T0 + 420);
	assert_string_equal(got.failure, "");
	/* a miss to the plain reader until its next ask, and its record after */
	assert_int_equal(rm_store_cache_get(st, "linus", "abc", T0 + 419, &json, &found, &err), 1);
	assert_false(found);
	assert_int_equal(rm_store_cache_get(st, "linus", "abc", T0 + 420, &json, &found, &err), 0);
	assert_int_equal(rm_store_cache_miss_get(st, "linus", "abc", &got, &err), 1);
	assert_int_equal(got.attempts, 3);
	/* a malformed answer's record keeps its reason; replacing counts anew */
	m.attempts = 1;
	snprintf(m.failure, sizeof(m.failure), "http://example.org/x: expected a JSON object");
	assert_int_equal(rm_store_cache_miss_put(st, "linus", "abc", &m, &err), 0);
	assert_int_equal(rm_store_cache_miss_get(st, "linus", "abc", &got, &err), 1);
	assert_int_equal(got.attempts, 1);
	assert_string_equal(got.failure, "http://example.org/x: expected a JSON object");
	/* per tree */
	assert_int_equal(rm_store_cache_miss_get(st, "next", "abc", &got, &err), 0);
	/* the commit appears: found replaces the record */
	assert_int_equal(rm_store_cache_put(st, "linus", "abc", true, "{}", T0 + 500, 60, &err), 0);
	assert_int_equal(rm_store_cache_miss_get(st, "linus", "abc", &got, &err), 0);
	/* the callbacks: both on a writable store, with the wait's cap */
	rm_store_commit_cache(st, 1800, &cache);
	assert_non_null(cache.miss_get);
	assert_non_null(cache.miss_put);
	assert_int_equal(cache.miss_cap, 1800);
	m.attempts = 2;
	assert_int_equal(cache.miss_put(cache.ctx, "next", "def", &m), 0);
	assert_int_equal(cache.miss_get(cache.ctx, "next", "def", &got), 1);
	assert_int_equal(got.attempts, 2);
	st->readonly = true; /* as a dry run opens it: reads, never counts */
	rm_store_commit_cache(st, 1800, &cache);
	assert_non_null(cache.miss_get);
	assert_null(cache.miss_put);
	assert_int_equal(rm_store_cache_miss_put(st, "next", "def", &m, &err), -1);
	st->readonly = false;
	{
		/* `store migrate` reads the record whole: count, first failure, reason */
		struct rm_store_dump d;

		assert_int_equal(rm_store_dump(st, &d, &err), 0);
		assert_int_equal(d.ncache, 2);
		assert_string_equal(d.cache[0].sha, "abc");
		assert_true(d.cache[0].found);
		assert_int_equal(d.cache[0].attempts, 0);
		assert_null(d.cache[0].failure);
		assert_string_equal(d.cache[1].sha, "def");
		assert_false(d.cache[1].found);
		assert_int_equal(d.cache[1].attempts, 2);
		assert_int_equal(d.cache[1].first_failed_at, m.first_at);
		assert_int_equal(d.cache[1].expires_at, m.next_at);
		assert_string_equal(d.cache[1].failure, "http://example.org/x: expected a JSON object");
		rm_store_dump_free(&d);
	}
	rm_store_close(st);
}

static char *mk_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *d = rm_path_join(tmp && *tmp ? tmp : "/tmp", "rm-unit-store.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rm_dir(char *d)
{
	DIR *dir = opendir(d);
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] != '.') {
			char *p = rm_path_join(d, de->d_name);

			unlink(p);
			free(p);
		}
	}
	if (dir)
		closedir(dir);
	rmdir(d);
	free(d);
}

/* The names in a directory, sorted, one per line. */
static char *listing(const char *d)
{
	struct dirent **v;
	struct rm_sb sb = RM_SB_INIT;
	int n = scandir(d, &v, NULL, alphasort), i;

	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		rm_sb_addf(&sb, "%s\n", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return rm_sb_detach(&sb, NULL);
}

/* A store at schema 4 (leases, archive claims; before listen's tables): read
 * only it has no findings, inbound mail or opt-outs and says so without an
 * error; opened to write, step 5 adds them. */
static void test_schema_4_store(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	char *d = mk_dir(), *path = rm_path_join(d, "state.db");
	struct rm_store_finding f, *all = NULL;
	struct rm_store_counts c;
	struct rm_store_dump dump;
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;
	size_t n = 9;
	long count = 9;
	bool b = true;
	int v;

	(void)state;
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, T0), 1);
	rm_store_close(st);
	/* back to the schema of the postgres branch's step 4 */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "DROP TABLE finding_events; DROP TABLE findings; DROP TABLE inbound;"
				      " DROP TABLE optouts; DROP TABLE threads; DROP TABLE finding_points; DROP TABLE finding_mentions; ALTER TABLE commit_cache DROP COLUMN attempts;"
				      " ALTER TABLE commit_cache DROP COLUMN first_failed_at;"
				      " ALTER TABLE commit_cache DROP COLUMN failure; PRAGMA user_version = 4",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(rm_store_open(&st, path, RM_STORE_READONLY, &err), 0);
	assert_non_null(st);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 4);
	assert_int_equal(rm_store_finding_get(st, "k1", &f, &err), 0);
	assert_int_equal(rm_store_findings(st, &all, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(rm_store_optout_check(st, "dora@example.org", "linus", &b, &err), 0);
	assert_false(b);
	assert_int_equal(rm_store_optout_count(st, &count, &err), 0);
	assert_int_equal(count, 0);
	b = true;
	assert_int_equal(rm_store_inbound_seen(st, "maildir:x", "m1", &b, &err), 0);
	assert_false(b);
	assert_int_equal(rm_store_counts(st, &c, &err), 0);
	assert_int_equal(c.messages, 1);
	assert_int_equal(c.listen[0], 0);
	assert_int_equal(rm_store_dump(st, &dump, &err), 0);
	assert_int_equal(dump.nmsgs, 1);
	assert_int_equal(dump.listen[0].nrows, 0);
	rm_store_dump_free(&dump);
	rm_store_close(st);

	/* to write: step 5 runs (and the steps after it), the findings are there */
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rm_store_finding_set(st, "k1", "linus", RM_FINDING_INVALID, NULL,
					      "#robotmail invalid", "dora@example.org", "r1", T0, &err),
			 1);
	assert_int_equal(rm_store_counts(st, &c, &err), 0);
	assert_int_equal(c.listen[0], 1);
	assert_int_equal(c.listen[1], 1);
	rm_store_close(st);
	free(path);
	rm_dir(d);
}

static void test_failures_are_errors(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	char *d = mk_dir(), *path = rm_path_join(d, "state.db");
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;
	long n = 42;
	bool seen;

	(void)state;
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, T0), 1);
	/* another process breaks the database under it */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE rcpt_results; DROP TABLE reports", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	/* a count that cannot be made is an error, never a zero */
	rm_error_clear(&err);
	assert_int_equal(rm_store_rcpt_count_since(st, "dora@example.org", T0, &n, &err), -1);
	assert_non_null(strstr(err.msg, "counting messages per list"));
	assert_int_equal(rm_store_report_seen(st, "k1", &seen, &err), -1);
	assert_int_equal(enqueue(st, "2@example.org", "k2", rcpts, false, T0), -1);
	assert_non_null(strstr(enqueue_err.msg, "queueing a message"));
	/* ... so a daily cap that cannot be checked stops the delivery pass
	 * (the message goes back to the queue unsent) instead of not binding */
	{
		struct rm_config cfg;
		struct rm_schedule_counts c;

		assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
		free(cfg.transport);
		cfg.transport = rm_xstrdup("sendmail:sh -c cat>/dev/null");
		cfg.cap_lists.v = rm_xcalloc(1, sizeof(char *));
		cfg.cap_lists.v[0] = rm_xstrdup("dora@example.org");
		cfg.cap_lists.n = 1;
		cfg.cap_values = rm_xcalloc(1, sizeof(long));
		cfg.cap_values[0] = 100;
		memset(&c, 0, sizeof(c));
		rm_error_clear(&err);
		assert_int_equal(rm_schedule_deliver(st, &cfg, T0, NULL, &c, &err), -1);
		assert_non_null(strstr(err.msg, "counting messages per list"));
		assert_int_equal(c.sent, 0);
		assert_int_equal(state_of(st, "1", NULL), RM_STORE_QUEUED);
		rm_config_free(&cfg);
	}
	rm_store_close(st);
	/* a PostgreSQL server that cannot be reached: a later run can fix it
	 * (75), and the message never shows the URL's password */
	assert_int_equal(rm_store_open(&st, "postgresql://robot:s3cret@127.0.0.1:1/robotmail?connect_timeout=2",
				       RM_STORE_READWRITE, &err), -1);
	assert_int_equal(err.kind, RM_ERR_TEMP);
	assert_null(strstr(err.msg, "s3cret"));
	assert_non_null(strstr(err.msg, "postgresql://robot:***@127.0.0.1:1/robotmail"));
	{
		char *r = rm_store_redact("postgres://h/db?sslmode=require&password=pw&user=u");

		assert_string_equal(r, "postgres://h/db?sslmode=require&password=***&user=u");
		free(r);
	}
	free(path);
	rm_dir(d);
}

static void test_read_only_changes_nothing(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	char *d = mk_dir(), *path = rm_path_join(d, "state.db"), *before, *after;
	struct rm_store *st, *ro;
	struct rm_error err;
	bool seen;

	(void)state;
	/* no store yet: an empty one */
	assert_int_equal(rm_store_open(&ro, path, RM_STORE_READONLY, &err), 0);
	assert_null(ro);
	assert_int_equal(rm_store_report_seen(ro, "k1", &seen, &err), 0);
	assert_false(seen);
	/* after a run closed it: read through immutable=1, no -wal or -shm appears */
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, T0), 1);
	rm_store_close(st);
	before = listing(d);
	assert_int_equal(rm_store_open(&ro, path, RM_STORE_READONLY, &err), 0);
	assert_non_null(ro);
	assert_int_equal(rm_store_report_seen(ro, "k1", &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(enqueue(ro, "2@example.org", "k2", rcpts, false, T0), -1);
	assert_int_equal(enqueue_err.kind, RM_ERR_INTERNAL);
	rm_store_close(ro);
	after = listing(d);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* while a run holds it open with data only in its -wal: a snapshot sees it */
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(enqueue(st, "3@example.org", "k3", rcpts, false, T0), 1);
	before = listing(d);
	assert_non_null(strstr(before, "state.db-wal"));
	assert_int_equal(rm_store_open(&ro, path, RM_STORE_READONLY, &err), 0);
	assert_int_equal(rm_store_report_seen(ro, "k3", &seen, &err), 0);
	assert_true(seen);
	rm_store_close(ro);
	after = listing(d);
	assert_string_equal(before, after);
	free(before);
	free(after);
	rm_store_close(st);
	free(path);
	rm_dir(d);
}

/* A message of thread `tkey`: the thread's start (no reply), or a reply
 * whose References name `reply_to`. */
static int enqueue_in_thread(struct rm_store *st, const char *mid, const char *key,
			     const char *tkey, bool starts, const char *reply_to)
{
	static const char *const rcpts[] = { "dora@example.org", NULL };
	struct rm_store_msg m;

	memset(&m, 0, sizeof(m));
	rm_error_clear(&enqueue_err);
	m.message_id = (char *)mid;
	m.dedupe_key = (char *)key;
	m.thread_key = (char *)tkey;
	m.starts_thread = starts;
	m.refs = (char *)reply_to;
	m.tree = (char *)"linus";
	m.subject = (char *)(starts ? "[linus:master] a 10.0% regression" :
				      "Re: [linus:master] a 10.0% regression");
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = (char **)rcpts;
	m.nrcpts = 1;
	m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
	m.len = strlen(m.bytes);
	m.state = RM_STORE_QUEUED;
	return rm_store_enqueue(st, &m, T0, &enqueue_err);
}

static void assert_thread_first(struct rm_store *st, const char *tkey, const char *want)
{
	struct rm_error err;
	char *mid, *subj, *refs;
	int got = rm_store_thread_first(st, tkey, &mid, &subj, &refs, &err);

	assert_int_equal(got, want ? 1 : 0);
	if (want) {
		assert_string_equal(mid, want);
		assert_string_equal(subj, "[linus:master] a 10.0% regression");
	}
	free(mid);
	free(subj);
	free(refs);
}

/* The thread key is unique: a thread has one first message.  A second
 * thread start of one finding (another run built it before the first was
 * stored) stores nothing and says so, with nothing of it left behind (not
 * even its dedupe key); its rebuilt reply is stored. */
static void test_thread_key_unique(void **state)
{
	struct rm_store *st = mem_store();
	struct rm_store_counts c;
	struct rm_sb out = RM_SB_INIT;
	struct rm_store_msg m;
	struct rm_error err;
	bool seen;
	int v;

	(void)state;
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11); /* 6: threads; 7: miss records; 8: finding_points; 9: its label;
				  * 10: mentions; 11: key_rev */
	assert_thread_first(st, "T", NULL);
	assert_int_equal(enqueue_in_thread(st, "a@example.org", "ka", "T", true, NULL), 1);
	assert_thread_first(st, "T", "a@example.org");
	/* another run's first report of the same finding, built as a start */
	assert_int_equal(enqueue_in_thread(st, "b@example.org", "kb", "T", true, NULL),
			 RM_STORE_THREAD_TAKEN);
	assert_int_equal(rm_store_get(st, "b@example.org", &m, &err), 0);
	assert_int_equal(rm_store_report_seen(st, "kb", &seen, &err), 0);
	assert_false(seen); /* rolled back: the rebuilt reply takes the key */
	/* the same report rebuilt as a reply: stored */
	assert_int_equal(enqueue_in_thread(st, "b@example.org", "kb", "T", false, "a@example.org"), 1);
	assert_thread_first(st, "T", "a@example.org");
	/* a duplicate stays a duplicate, even built as a start */
	assert_int_equal(enqueue_in_thread(st, "a@example.org", "ka", "T", true, NULL), 0);
	/* another finding starts its own thread */
	assert_int_equal(enqueue_in_thread(st, "c@example.org", "kc", "U", true, NULL), 1);
	assert_thread_first(st, "U", "c@example.org");
	/* a message with no thread key needs none */
	assert_int_equal(enqueue_in_thread(st, "d@example.org", "kd", NULL, true, NULL), 1);
	assert_int_equal(rm_store_counts(st, &c, &err), 0);
	assert_int_equal(c.messages, 4);
	assert_int_equal(c.threads, 2);
	assert_int_equal(c.thread_orphans, 0);
	rm_sb_init(&out);
	assert_int_equal(rm_store_check(st, &out, &err), 0);
	assert_non_null(strstr(out.buf, "\nschema version: 11\n"));
	assert_non_null(strstr(out.buf, "\nrows: 2 threads (one first message per thread key)\n"));
	assert_non_null(strstr(out.buf, "\nstore check: consistent\n"));
	rm_sb_release(&out);
	rm_store_close(st);
}

/* A store from before the threads table (schema 5): read only, a thread's
 * first message is its key's first by id and `store check` counts the
 * threads the step will make; opened to write, the step makes them. */
/* A store from before finding_points' label (schema 8): read only, its
 * values read with no label and `store migrate`'s dump copies them with a
 * NULL label; opened to write, step 9 adds the column and the old rows keep
 * their values. */
static void test_schema_8_store_points(void **state)
{
	char *d = mk_dir(), *path = rm_path_join(d, "state.db");
	const double v3[3] = { 1, 2, 3 };
	struct rm_store_point *pt;
	struct rm_store_dump dump;
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;
	size_t n;
	int v;

	(void)state;
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_point_keep(st, "k", "t", "c0", "base", "linus/master", v3, 3, 10,
					     &err),
			 1);
	rm_store_close(st);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP INDEX threads_key_rev;"
				      " ALTER TABLE threads DROP COLUMN key_rev;"
				      " DROP TABLE finding_mentions;"
				      " ALTER TABLE finding_points DROP COLUMN label;"
				      " PRAGMA user_version = 8", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READONLY, &err), 0);
	assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pt[0].n, 3);
	assert_null(pt[0].label);
	rm_store_points_free(pt, n);
	assert_int_equal(rm_store_dump(st, &dump, &err), 0);
	assert_int_equal(dump.listen[4].nrows, 1);
	assert_int_equal(dump.listen[4].ncols, 7);
	assert_string_equal(dump.listen[4].cells[2], "c0");
	assert_null(dump.listen[4].cells[6]);
	rm_store_dump_free(&dump);
	rm_store_close(st);
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rm_store_point_keep(st, "k", "t", "c1", "seen", "linux-next/master", v3,
					     1, 11, &err),
			 1);
	assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_null(pt[0].label);
	assert_int_equal(pt[0].n, 3);
	assert_string_equal(pt[1].label, "linux-next/master");
	rm_store_points_free(pt, n);
	rm_store_close(st);
	rm_dir(d);
	free(path);
}

static void test_schema_5_store_threads(void **state)
{
	char *d = mk_dir(), *path = rm_path_join(d, "state.db");
	struct rm_store_counts c;
	struct rm_store_dump dump;
	struct rm_store *st;
	struct rm_error err;
	sqlite3 *db;
	int v;

	(void)state;
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(enqueue_in_thread(st, "a@example.org", "ka", "T", true, NULL), 1);
	assert_int_equal(enqueue_in_thread(st, "b@example.org", "kb", "T", false, "a@example.org"), 1);
	assert_int_equal(enqueue_in_thread(st, "c@example.org", "kc", "U", true, NULL), 1);
	rm_store_close(st);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE threads; ALTER TABLE commit_cache DROP COLUMN attempts;"
				      " ALTER TABLE commit_cache DROP COLUMN first_failed_at;"
				      " ALTER TABLE commit_cache DROP COLUMN failure; DROP TABLE finding_points;"
				      " DROP TABLE finding_mentions; PRAGMA user_version = 5", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(rm_store_open(&st, path, RM_STORE_READONLY, &err), 0);
	assert_thread_first(st, "T", "a@example.org");
	{
		/* before step 10: no mentions table, none read */
		struct rm_store_mention *mv;
		size_t nm;

		assert_int_equal(rm_store_mentions(st, "T", &mv, &nm, &err), 0);
		assert_int_equal(nm, 0);
	}
	assert_int_equal(rm_store_counts(st, &c, &err), 0);
	assert_int_equal(c.threads, 2);
	assert_int_equal(c.thread_orphans, 0);
	assert_int_equal(rm_store_dump(st, &dump, &err), 0);
	assert_int_equal(dump.nmsgs, 3);
	assert_int_equal(dump.threads.nrows, 0);
	rm_store_dump_free(&dump);
	rm_store_close(st);

	assert_int_equal(rm_store_open(&st, path, RM_STORE_READWRITE, &err), 0);
	assert_int_equal(rm_store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, 11);
	assert_thread_first(st, "T", "a@example.org");
	assert_thread_first(st, "U", "c@example.org");
	assert_int_equal(enqueue_in_thread(st, "e@example.org", "ke", "T", true, NULL),
			 RM_STORE_THREAD_TAKEN);
	assert_int_equal(rm_store_dump(st, &dump, &err), 0);
	assert_int_equal(dump.threads.nrows, 2);
	assert_string_equal(dump.threads.cells[0], "T");
	assert_string_equal(dump.threads.cells[1], "a@example.org");
	rm_store_dump_free(&dump);
	rm_store_close(st);
	/* a thread key whose row is gone: `store check` names the problem */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DELETE FROM threads WHERE key = 'U'", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(rm_store_open(&st, path, RM_STORE_READONLY, &err), 0);
	{
		struct rm_sb out = RM_SB_INIT;

		rm_sb_init(&out);
		assert_int_equal(rm_store_check(st, &out, &err), 1);
		assert_non_null(strstr(out.buf, "\nrows: 1 threads (one first message per thread key)\n"));
		assert_non_null(
			strstr(out.buf, "\nproblem: 1 thread key(s) without a stored first message\n"));
		assert_non_null(strstr(out.buf, "\nstore check: problems found\n"));
		rm_sb_release(&out);
	}
	rm_store_close(st);
	free(path);
	rm_dir(d);
}

/* ---- the schedule */

struct log_lines {
	struct rm_sb sb;
};

static void collect(void *ctx, enum rm_schedule_level level, const char *text)
{
	struct log_lines *l = ctx;

	rm_sb_addf(&l->sb, "%d %s\n", (int)level, text);
}

static void set_transport(struct rm_config *cfg, const char *spec)
{
	free(cfg->transport);
	cfg->transport = rm_xstrdup(spec);
}

static void test_schedule_failed_is_not_sent(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", "list@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_config cfg;
	struct rm_error err;
	struct rm_schedule_counts c;
	struct log_lines l;
	struct rm_schedule_log log = { collect, &l };
	struct rm_store_msg m;
	struct rm_sb out = RM_SB_INIT;
	time_t now = time(NULL);

	(void)state;
	signal(SIGPIPE, SIG_IGN); /* as main.c: a program that does not read is an error */
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	rm_sb_init(&l.sb);
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, now), 1);
	/* the local program refuses it (exit 1): failed, logged as an error */
	set_transport(&cfg, "sendmail:sh -c cat>/dev/null;false");
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, now, &log, &c, &err), 0);
	assert_int_equal(c.sent, 0);
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.retried, 0);
	assert_non_null(strstr(l.sb.buf, "0 1@example.org: failed: no recipient was accepted"));
	assert_int_equal(state_of(st, "1", &m), RM_STORE_FAILED);
	assert_int_equal(m.nrcpts, 2);
	rm_store_msg_free(&m);
	/* queue show names the recipients not accepted; queue retry takes it */
	rm_sb_init(&out);
	assert_int_equal(rm_schedule_queue(st, RM_SCHEDULE_QUEUE_SHOW, "1", now, &out, &err), 0);
	assert_non_null(strstr(out.buf, "state: failed\n"));
	assert_non_null(strstr(out.buf, "not-accepted: list@example.org\n"));
	rm_sb_release(&out);
	assert_int_equal(rm_schedule_queue(st, RM_SCHEDULE_QUEUE_RETRY, "1", now, &out, &err), 0);
	/* the program accepts it now: sent */
	set_transport(&cfg, "sendmail:sh -c cat>/dev/null");
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, now, &log, &c, &err), 0);
	assert_int_equal(c.sent, 1);
	assert_int_equal(c.failed, 0);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_SENT);
	/* exit 75 from the program: deferred, one summary line */
	assert_int_equal(enqueue(st, "2@example.org", "k2", rcpts, false, now), 1);
	set_transport(&cfg, "sendmail:sh -c cat>/dev/null;exit${IFS}75");
	memset(&c, 0, sizeof(c));
	rm_sb_release(&l.sb);
	rm_sb_init(&l.sb);
	assert_int_equal(rm_schedule_deliver(st, &cfg, now, &log, &c, &err), 0);
	assert_int_equal(c.retried, 1);
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_QUEUED);
	assert_non_null(strstr(l.sb.buf, "1 delivery via sendmail:"));
	rm_sb_release(&l.sb);
	rm_config_free(&cfg);
	rm_store_close(st);
}

static void test_schedule_policy(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", "capped@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_config cfg;
	struct rm_error err;
	struct rm_schedule_counts c;
	struct rm_sb out = RM_SB_INIT;
	enum rm_schedule_queue_cmd cmd;
	time_t now = time(NULL);
	char *dir = mk_dir(), *stop = rm_path_join(dir, "stop");
	char *hold[] = { (char *)"capped@example.org" };

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	set_transport(&cfg, "sendmail:sh -c cat>/dev/null");
	/* holds: by recipient (any case) or tree */
	assert_false(rm_schedule_held(&cfg, "linus", hold, 1));
	cfg.hold.v = rm_xcalloc(1, sizeof(char *));
	cfg.hold.v[0] = rm_xstrdup("CAPPED@example.org");
	cfg.hold.n = 1;
	assert_true(rm_schedule_held(&cfg, "linus", hold, 1));
	assert_false(rm_schedule_held(&cfg, "linus", hold, 0));
	/* the emergency stop: nothing claimed */
	assert_int_equal(enqueue(st, "1@example.org", "k1", rcpts, false, now), 1);
	assert_int_equal(enqueue(st, "2@example.org", "k2", rcpts, false, now), 1);
	free(cfg.emergency_stop);
	cfg.emergency_stop = rm_xstrdup(stop);
	assert_int_equal(rm_write_file(stop, "", 0), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, now, NULL, &c, &err), 0);
	assert_true(c.stopped);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_QUEUED);
	unlink(stop);
	/* a daily cap of 1 for capped@: the first goes, the second waits */
	cfg.cap_lists.v = rm_xcalloc(1, sizeof(char *));
	cfg.cap_lists.v[0] = rm_xstrdup("capped@example.org");
	cfg.cap_lists.n = 1;
	cfg.cap_values = rm_xcalloc(1, sizeof(long));
	cfg.cap_values[0] = 1;
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, now, NULL, &c, &err), 0);
	assert_int_equal(c.sent, 1);
	assert_int_equal(c.capped, 1);
	rm_sb_init(&out);
	assert_int_equal(rm_schedule_queue(st, RM_SCHEDULE_QUEUE_LIST, NULL, now, &out, &err), 0);
	assert_non_null(strstr(out.buf, "1\tsent\t1\t<1@example.org>\t"));
	assert_non_null(strstr(out.buf, "2\tqueued\t0\t<2@example.org>\t[linus:master] a 10.0% regression\t"
					"daily cap of capped@example.org reached; waiting\n"));
	rm_sb_release(&out);
	/* the hourly cap: reached, nothing claimed */
	cfg.hourly_cap = 1;
	memset(&c, 0, sizeof(c));
	assert_int_equal(rm_schedule_deliver(st, &cfg, now + 3600, NULL, &c, &err), 0);
	assert_int_equal(c.sent + c.capped + c.failed + c.retried, 0); /* 1 sent since now */
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_QUEUED);
	/* operator actions by name */
	assert_int_equal(rm_schedule_queue_cmd_parse("release", &cmd), 0);
	assert_int_equal(cmd, RM_SCHEDULE_QUEUE_RELEASE);
	assert_int_equal(rm_schedule_queue_cmd_parse("nope", &cmd), -1);
	assert_false(rm_schedule_queue_cmd_needs_id(RM_SCHEDULE_QUEUE_LIST));
	assert_int_equal(rm_schedule_queue(st, RM_SCHEDULE_QUEUE_RELEASE, "1", now, &out, &err), 1);
	assert_string_equal(err.msg, "queue release: no message '1' in a state that allows it");
	rm_config_free(&cfg);
	rm_store_close(st);
	free(stop);
	rm_dir(dir);
}

/* the several-hosts settings: store:, host_id:, lease: (60s, 2m, 1h);
 * a lease out of range or with an unknown unit names the file and line */
static void test_config_store_lease(void **state)
{
	char *d = mk_dir(), *f = rm_path_join(d, "c.yaml");
	struct rm_config cfg;
	struct rm_error err;
	static const struct {
		const char *lease;
		long want; /* 0: refused */
	} cases[] = { { "60s", 60 }, { "2m", 120 }, { "1h", 3600 }, { "90", 90 },
		      { "4s", 0 },   { "2h", 0 },    { "60x", 0 },  { "2mm", 0 }, { "s", 0 } };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *fp = fopen(f, "w");

		assert_non_null(fp);
		fprintf(fp, "store: postgresql://robot@db.example.org/robotmail?sslmode=require\n"
			    "host_id: reporter-1\nlease: %s\n", cases[i].lease);
		fclose(fp);
		rm_error_clear(&err);
		if (cases[i].want) {
			assert_int_equal(rm_config_load(&cfg, f, &err), 0);
			assert_int_equal(cfg.lease, cases[i].want);
			assert_string_equal(cfg.state_db,
					    "postgresql://robot@db.example.org/robotmail?sslmode=require");
			assert_string_equal(cfg.host_id, "reporter-1");
			assert_true(rm_store_location_shared(cfg.state_db));
			rm_config_free(&cfg);
		} else {
			assert_int_equal(rm_config_load(&cfg, f, &err), -1);
			assert_int_equal(err.kind, RM_ERR_CONFIG);
			assert_non_null(strstr(err.msg, "line 3: 'lease': expected a duration"));
		}
	}
	/* the defaults: SQLite, the hostname, 60 s */
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	assert_int_equal(cfg.lease, 60);
	assert_null(cfg.host_id);
	assert_false(rm_store_location_shared(cfg.state_db));
	rm_config_free(&cfg);
	unlink(f);
	free(f);
	rm_dir(d);
}

void unit_enqueue_keyed(struct rm_store *st, const char *prefix, size_t i, const char *thread_key,
			long long when)
{
	struct rm_store_msg m;
	struct rm_error err;
	char mid[64], dk[24];

	memset(&m, 0, sizeof(m));
	snprintf(mid, sizeof(mid), "%s%zu@example.org", prefix, i);
	snprintf(dk, sizeof(dk), "d%zu", i);
	m.message_id = mid;
	m.dedupe_key = dk;
	m.thread_key = (char *)thread_key;
	m.mail_from = (char *)"robot@example.org";
	m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
	m.len = strlen(m.bytes);
	m.state = RM_STORE_QUEUED;
	assert_int_equal(rm_store_enqueue(st, &m, (time_t)when, &err), 1);
}

/* rm_store_threads_ending: the thread keys ending in a suffix, newest report
 * first, each once, at most `limit`; a '_' or '%' in the suffix is itself
 * (no LIKE pattern); none for a NULL store */
static void test_threads_ending(void **state)
{
	static const char *const keys[] = {
		"linus:master|aaa|x=1/|dmesg.BUG_x|failure",
		"tip:sched/core|ccc|x=1/|dmesg.BUGyx|failure",
		"linux-next:master|bbb|x=1/|dmesg.BUG_x|failure",
		"linus:master|ddd|x=2/|dmesg.BUG_x|failure",
		"linus:master|aaa|x=1/|dmesg.BUG_x|failure",
	};
	struct rm_store *st = mem_store();
	struct rm_error err;
	char **got;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		unit_enqueue_keyed(st, "t", i, keys[i], T0 + (long long)i);
	assert_int_equal(rm_store_threads_ending(st, "|x=1/|dmesg.BUG_x|failure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0], keys[0]); /* its newest report is the last one */
	assert_string_equal(got[1], keys[2]);
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
	assert_int_equal(rm_store_threads_ending(st, "|x=1/|dmesg.BUG_x|failure", 1, &got, &n, &err), 0);
	assert_int_equal(n, 1);
	free(got[0]);
	free(got);
	assert_int_equal(rm_store_threads_ending(st, "|x=3/|dmesg.BUG_x|failure", 10, &got, &n, &err), 0);
	assert_int_equal(n, 0);
	free(got);
	rm_store_close(st);
	assert_int_equal(rm_store_threads_ending(NULL, "|x", 10, &got, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(got);
}

/* Later reports that mention a finding (schema step 10): kept once per
 * (finding, report), read oldest first, none for another finding or a
 * NULL store; counted and copied by `store migrate`. */
static void test_mentions(void **state)
{
	struct rm_store *st = mem_store();
	struct rm_store_mention *v;
	struct rm_store_counts c;
	struct rm_store_dump d;
	struct rm_error err;
	size_t n;

	(void)state;
	assert_int_equal(rm_store_mention_add(st, "F", "late2@example.org", "K2", T0 + 20, &err), 1);
	assert_int_equal(rm_store_mention_add(st, "F", "late1@example.org", "K1", T0 + 10, &err), 1);
	/* the same report again (a rebuilt mail, a second run): kept once */
	assert_int_equal(rm_store_mention_add(st, "F", "late1@example.org", "K1", T0 + 30, &err), 0);
	assert_int_equal(rm_store_mention_add(st, "G", "late1@example.org", "K1", T0 + 10, &err), 1);
	assert_int_equal(rm_store_mentions(st, "F", &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].message_id, "late1@example.org");
	assert_string_equal(v[0].by_key, "K1");
	assert_int_equal(v[0].at, T0 + 10);
	assert_string_equal(v[1].message_id, "late2@example.org");
	rm_store_mentions_free(v, n);
	assert_int_equal(rm_store_mentions(st, "H", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(rm_store_counts(st, &c, &err), 0);
	assert_int_equal(c.listen[5], 3);
	assert_int_equal(rm_store_dump(st, &d, &err), 0);
	assert_int_equal(d.listen[5].nrows, 3);
	assert_int_equal(d.listen[5].ncols, 4);
	rm_store_dump_free(&d);
	{
		/* a queued report's mentions are kept with it, by its thread
		 * key at the queueing time; its dedupe key seen before: neither */
		char *keys[2] = { (char *)"F", (char *)"H" };
		struct rm_store_msg m;

		memset(&m, 0, sizeof(m));
		m.message_id = (char *)"late3@example.org";
		m.dedupe_key = (char *)"dk3";
		m.thread_key = (char *)"K3";
		m.mail_from = (char *)"robot@example.org";
		m.bytes = (char *)"Subject: x\r\n\r\nbody\r\n";
		m.len = strlen(m.bytes);
		m.state = RM_STORE_QUEUED;
		m.mentions = keys;
		m.nmentions = 2;
		assert_int_equal(rm_store_enqueue(st, &m, T0 + 40, &err), 1);
		m.message_id = (char *)"late4@example.org";
		keys[1] = (char *)"G";
		assert_int_equal(rm_store_enqueue(st, &m, T0 + 50, &err), 0);
		assert_int_equal(rm_store_mentions(st, "F", &v, &n, &err), 0);
		assert_int_equal(n, 3);
		assert_string_equal(v[2].message_id, "late3@example.org");
		assert_string_equal(v[2].by_key, "K3");
		assert_int_equal(v[2].at, T0 + 40);
		rm_store_mentions_free(v, n);
		assert_int_equal(rm_store_mentions(st, "H", &v, &n, &err), 0);
		assert_int_equal(n, 1);
		rm_store_mentions_free(v, n);
		assert_int_equal(rm_store_mentions(st, "G", &v, &n, &err), 0);
		assert_int_equal(n, 1); /* late1's only */
		rm_store_mentions_free(v, n);
	}
	rm_store_close(st);
	assert_int_equal(rm_store_mentions(NULL, "F", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(rm_store_mention_add(NULL, "F", "x@example.org", "K", T0, &err), -1);
}

/* queue resend (sent -> queued to everyone it went to, same Message-ID),
 * each recipient's result, and an action over a filter (issue 13) */
static void test_resend_results_and_filters(void **state)
{
	static const char *const rcpts[] = { "dora@example.org", "list@example.org", NULL };
	static const char *const other[] = { "ann@example.org", NULL };
	struct rm_store *st = mem_store();
	struct rm_error err;
	struct rm_store_msg m;
	struct rm_store_rcpt_row *res;
	struct rm_schedule_filter f;
	struct rm_sb out = RM_SB_INIT;
	enum rm_store_state s;
	size_t n;
	char *argv[] = { (char *)"--older-than", (char *)"2h", (char *)"--commit", (char *)"zz" };

	(void)state;
	assert_int_equal(enqueue(st, "1@example.org", "linus:master|b0|aaaa1111|x=1/|m", rcpts, false, T0), 1);
	assert_int_equal(enqueue(st, "2@example.org", "linus:master|b0|bbbb2222|x=1/|m", other, false, T0 + 7200), 1);
	/* never sent: nothing to resend, no results */
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_RESEND, T0, &err), 0);
	assert_int_equal(rm_store_results(st, 1, &res, &n, &err), 0);
	assert_int_equal(n, 0);
	rm_store_rcpt_rows_free(res, n);
	assert_int_equal(claim(st, T0, 1, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 250, "250 2.0.0 ok" },
					      { "list@example.org", 550, "550 5.1.1 no such list" } };

		assert_int_equal(rm_store_record(st, 1, r, 2, NULL, T0, T0 + 60, false, &s, &err), 0);
	}
	assert_int_equal(s, RM_STORE_SENT);
	assert_int_equal(rm_store_results(st, 1, &res, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(res[0].rcpt, "dora@example.org");
	assert_int_equal(res[0].code, 250);
	assert_string_equal(res[1].rcpt, "list@example.org");
	assert_int_equal(res[1].code, 550);
	assert_string_equal(res[1].text, "550 5.1.1 no such list");
	rm_store_rcpt_rows_free(res, n);
	/* resend: queued, due now, to both recipients, the same Message-ID */
	assert_int_equal(rm_store_set_state(st, "1@example.org", RM_STORE_RESEND, T0 + 100, &err), 1);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_QUEUED);
	assert_int_equal(m.nrcpts, 2);
	assert_string_equal(m.message_id, "1@example.org");
	assert_int_equal(m.next_attempt, T0 + 100);
	assert_string_equal(m.last_error, "resent by the operator");
	rm_store_msg_free(&m);
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_RESEND, T0 + 100, &err), 0); /* queued */
	/* sent again, then pruned: the bytes go, the row stays, no resend */
	assert_int_equal(claim(st, T0 + 100, 1, NULL), 1);
	{
		struct rm_rcpt_result r[] = { { "dora@example.org", 250, "250 2.0.0 ok" },
					      { "list@example.org", 250, "250 2.0.0 ok" } };

		assert_int_equal(rm_store_record(st, 1, r, 2, NULL, T0 + 100, T0 + 160, false, &s, &err), 0);
	}
	assert_int_equal(rm_store_set_state(st, "2", RM_STORE_PRUNE, T0 + 100, &err), 0); /* queued */
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_PRUNE, T0 + 100, &err), 1);
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_PRUNE, T0 + 100, &err), 0);
	assert_int_equal(state_of(st, "1", &m), RM_STORE_SENT);
	assert_int_equal(m.len, 0);
	assert_int_equal(m.attempts, 2);
	rm_store_msg_free(&m);
	assert_int_equal(rm_store_set_state(st, "1", RM_STORE_RESEND, T0 + 100, &err), 0);
	/* queue show names each result with its code */
	assert_int_equal(rm_schedule_queue(st, RM_SCHEDULE_QUEUE_SHOW, "1", T0 + 100, &out, &err), 0);
	assert_non_null(strstr(out.buf, "\naccepted: dora@example.org 250 2.0.0 ok\n"));
	assert_non_null(strstr(out.buf, "\naccepted: list@example.org 250 2.0.0 ok\n"));
	assert_non_null(strstr(out.buf, "\nbytes: pruned (queue prune)\n"));
	rm_sb_release(&out);

	/* filters: parsed with their errors; an action on what they match */
	rm_schedule_filter_init(&f);
	assert_false(rm_schedule_filter_any(&f));
	assert_int_equal(rm_schedule_filter_arg(&f, 4, argv, 0, &err), 2);
	assert_int_equal(f.older_than, 7200);
	assert_int_equal(rm_schedule_filter_arg(&f, 4, argv, 2, &err), -1);
	assert_int_equal(err.kind, RM_ERR_USAGE);
	assert_int_equal(rm_schedule_filter_arg(&f, 1, argv, 0, &err), -1); /* no value */
	f.dry_run = true;
	rm_sb_init(&out);
	assert_int_equal(rm_schedule_queue_many(st, RM_SCHEDULE_QUEUE_HOLD, &f, T0 + 7200, &out, &err), 0);
	/* (1 is sent: hold does not apply to it) */
	assert_string_equal(out.buf, "queue hold --dry-run: 0 of 1 matching message(s) would change;"
				     " 1 in a state hold does not apply to\n");
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_SENT);
	rm_sb_release(&out);
	rm_sb_init(&out);
	f.older_than = 0;
	assert_int_equal(rm_schedule_queue_many(st, RM_SCHEDULE_QUEUE_HOLD, &f, T0 + 7200, &out, &err), 0);
	assert_string_equal(out.buf, "would hold 2 <2@example.org> [linus:master] a 10.0% regression\n"
				     "queue hold --dry-run: 1 of 2 matching message(s) would change;"
				     " 1 in a state hold does not apply to\n");
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_QUEUED);
	rm_sb_release(&out);
	rm_schedule_filter_init(&f);
	f.commit = "BBBB22";
	rm_sb_init(&out);
	assert_int_equal(rm_schedule_queue_many(st, RM_SCHEDULE_QUEUE_HOLD, &f, T0 + 7200, &out, &err), 0);
	assert_string_equal(out.buf, "hold 2 <2@example.org> [linus:master] a 10.0% regression\n"
				     "queue hold: 1 of 1 matching message(s) changed\n");
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_HELD);
	assert_int_equal(state_of(st, "1", NULL), RM_STORE_SENT);
	rm_sb_release(&out);
	/* no filter: refused, nothing changed */
	rm_schedule_filter_init(&f);
	rm_sb_init(&out);
	assert_int_equal(rm_schedule_queue_many(st, RM_SCHEDULE_QUEUE_RELEASE, &f, T0, &out, &err), -1);
	assert_int_equal(err.kind, RM_ERR_USAGE);
	assert_int_equal(state_of(st, "2", NULL), RM_STORE_HELD);
	rm_sb_release(&out);
	rm_store_close(st);
}

const struct CMUnitTest unit_store_tests[] = {
	cmocka_unit_test(test_config_store_lease),
	cmocka_unit_test(test_enqueue_dedupe),
	cmocka_unit_test(test_claim_and_recover),
	cmocka_unit_test(test_record_outcomes),
	cmocka_unit_test(test_holds_and_operator_actions),
	cmocka_unit_test(test_resend_results_and_filters),
	cmocka_unit_test(test_commit_cache),
	cmocka_unit_test(test_commit_cache_misses),
	cmocka_unit_test(test_failures_are_errors),
	cmocka_unit_test(test_read_only_changes_nothing),
	cmocka_unit_test(test_schema_4_store),
	cmocka_unit_test(test_thread_key_unique),
	cmocka_unit_test(test_schema_5_store_threads),
	cmocka_unit_test(test_schema_8_store_points),
	cmocka_unit_test(test_schedule_failed_is_not_sent),
	cmocka_unit_test(test_schedule_policy),
	cmocka_unit_test(test_threads_ending),
	cmocka_unit_test(test_mentions),
};
const size_t unit_store_ntests = sizeof(unit_store_tests) / sizeof(unit_store_tests[0]);

/* the same over PostgreSQL: every test that does not open SQLite files */
const struct CMUnitTest unit_store_pg_tests[] = {
	cmocka_unit_test(test_enqueue_dedupe),
	cmocka_unit_test(test_claim_and_recover),
	cmocka_unit_test(test_record_outcomes),
	cmocka_unit_test(test_holds_and_operator_actions),
	cmocka_unit_test(test_resend_results_and_filters),
	cmocka_unit_test(test_commit_cache),
	cmocka_unit_test(test_thread_key_unique),
	cmocka_unit_test(test_commit_cache_misses),
	cmocka_unit_test(test_schedule_failed_is_not_sent),
	cmocka_unit_test(test_schedule_policy),
	cmocka_unit_test(test_threads_ending),
	cmocka_unit_test(test_mentions),
	/* test_store_pg.c: several hosts, claims, leases, migration */
	cmocka_unit_test(unit_pg_test_two_hosts_claim),
	cmocka_unit_test(unit_pg_test_dedupe_across_hosts),
	cmocka_unit_test(unit_pg_test_archive_claims),
	cmocka_unit_test(unit_pg_test_migrate_round_trip),
	cmocka_unit_test(unit_pg_test_migrate_before_threads),
	cmocka_unit_test(unit_pg_test_parameters_not_sql),
	cmocka_unit_test(unit_pg_test_points_before_labels),
	cmocka_unit_test(unit_pg_test_delivery_rounds),
	/* test_store_threads.c: thread keys by their end, an index range */
	cmocka_unit_test(unit_pg_test_key_rev),
	/* test_listen.c: findings, inbound mail, opt-outs (listen, status) */
	cmocka_unit_test(unit_listen_test_store_findings),
	cmocka_unit_test(unit_listen_test_recipients_optouts),
};
const size_t unit_store_pg_ntests = sizeof(unit_store_pg_tests) / sizeof(unit_store_pg_tests[0]);
