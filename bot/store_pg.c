/* store_pg.c - the PostgreSQL backend of store.h (libpq).
 *
 * One connection per process.  Every statement goes through PQexecParams
 * with its values as parameters (never string-built SQL).  The schema is the
 * SQLite one in PostgreSQL's types, step for step (1-11; step 4: leases and
 * archive claims; step 5: findings, inbound mail, opt-outs; step 6: threads,
 * one first message per thread key; step 7: unknown commits' attempts; step 8: finding_points;
 * step 9: finding_points' label; step 10: finding_mentions;
 * step 11: threads' key_rev, the key reversed), its version in a
 * `schema_version` table.  Migrations
 * run in one transaction each under an advisory lock, so several hosts that
 * start at once migrate once.
 *
 * Several hosts: a claimed message is `sending` with a lease (lease_host,
 * lease_pid, lease_until on the database's clock).  Claims use
 * SELECT ... FOR UPDATE SKIP LOCKED, so two runs never claim one message;
 * a `sending` message whose lease expired is claimable again (its run died
 * between claim and record: it is sent again with the same Message-ID).
 * Reports' dedupe keys and Message-IDs are unique constraints: a second
 * host's enqueue of the same finding changes nothing and says so.
 *
 * Errors: connection loss, shutdown, too many connections, serialization
 * failures and deadlocks are RM_ERR_TEMP (a later run continues); a refused
 * login is RM_ERR_CONFIG.  Messages show the URL without its password.
 *
 * Reads: read_one(SQL, params, row, ctx) for one row or none;
 * read_all(SQL, params, row, ctx) calls row(r, i, ctx) for every row.  For
 * a list, pass rows_add and a `struct rows` made with ROWS(fill, element
 * type): each row appends one zeroed element that fill(r, i, element) sets,
 * and the caller takes .items and .n:
 *
 *     struct rows all = ROWS(point_from_row, struct rm_store_point);
 *     if (read_all(s, "SELECT ... WHERE key = $1", 1, &key, rows_add, &all, err, what))
 *             return -1;
 *     *out = all.items; *n = all.n;
 *
 * Parameters are text (NULL: SQL NULL); a number goes as num()'s decimal
 * text with a cast ($1::bigint) in the SQL.
 */
#include "dynlib_pq.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "commit.h"
#include "strbuf.h"

struct pg_store {
	struct rm_store base; /* first: what rm_store_* see */
	PGconn *conn;
	char *shown;          /* the URL without its password, for messages */
	time_t renewed;       /* when rm_store_renew() last extended the leases */
	bool before_points;   /* read-only at a schema before 8: no finding_points */
	bool before_labels;   /* read-only at a schema before 9: finding_points has no label */
	bool before_mentions; /* read-only at a schema before 10: no finding_mentions */
	bool before_findings; /* read-only at a schema before 5: no findings, inbound
			       * mail or opt-outs yet (reads find none) */
	bool before_backoff;  /* read-only at a schema before 7: commit_cache has no
			       * attempts, first_failed_at or failure (dumps give 0/NULL) */
	bool before_threads;  /* read-only before the `threads` table: a thread's
			       * first message is its thread key's first by id */
	bool before_key_rev;  /* read-only at a schema before 11: threads has no key_rev */
};

static struct pg_store *pg(struct rm_store *st)
{
	return (struct pg_store *)st;
}

/* index i brings the schema from version i to i + 1 (as store_sqlite.c's) */
static const char *const migrations[] = {
	/* 1: the commit-facts cache */
	"CREATE TABLE commit_cache ("
	"  tree TEXT NOT NULL,"
	"  sha TEXT NOT NULL,"
	"  found BOOLEAN NOT NULL,"
	"  facts TEXT,"
	"  fetched_at BIGINT NOT NULL,"
	"  expires_at BIGINT,"
	"  PRIMARY KEY (tree, sha)"
	")",
	/* 2: reports seen and the messages queue */
	"CREATE TABLE reports ("
	"  dedupe_key TEXT PRIMARY KEY,"
	"  message_id TEXT NOT NULL,"
	"  created_at BIGINT NOT NULL"
	");"
	"CREATE TABLE messages ("
	"  id BIGSERIAL PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  dedupe_key TEXT,"
	"  tree TEXT,"
	"  subject TEXT,"
	"  mail_from TEXT NOT NULL,"
	"  rcpts TEXT NOT NULL,"
	"  bytes BYTEA NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('held','queued','sending','sent','failed')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  next_attempt BIGINT NOT NULL,"
	"  created_at BIGINT NOT NULL,"
	"  updated_at BIGINT NOT NULL,"
	"  sent_at BIGINT"
	");"
	"CREATE INDEX messages_due ON messages (state, next_attempt);"
	"CREATE TABLE rcpt_results ("
	"  message BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,"
	"  rcpt TEXT NOT NULL,"
	"  code INTEGER NOT NULL,"
	"  text TEXT,"
	"  at BIGINT NOT NULL,"
	"  PRIMARY KEY (message, rcpt)"
	")",
	/* 3: threads */
	"ALTER TABLE messages ADD COLUMN thread_key TEXT;"
	"ALTER TABLE messages ADD COLUMN refs TEXT;"
	"CREATE INDEX messages_thread ON messages (thread_key, id)",
	/* 4: several hosts: leases on messages, claims on archives */
	"ALTER TABLE messages ADD COLUMN lease_host TEXT;"
	"ALTER TABLE messages ADD COLUMN lease_pid INTEGER;"
	"ALTER TABLE messages ADD COLUMN lease_until BIGINT;"
	"CREATE TABLE archive_claims ("
	"  name TEXT PRIMARY KEY,"
	"  host TEXT NOT NULL,"
	"  pid INTEGER NOT NULL,"
	"  lease_until BIGINT NOT NULL"
	")",
	/* 5: findings and their commands, inbound mail read, opt-outs by mail
	 * (store_sqlite.c's step 5; optouts.addr is kept lower-case where
	 * SQLite compares it with COLLATE NOCASE) */
	"CREATE TABLE findings ("
	"  key TEXT PRIMARY KEY,"
	"  tree TEXT,"
	"  state TEXT NOT NULL CHECK (state IN ('open','invalid','fixed','dup')),"
	"  arg TEXT,"
	"  updated_at BIGINT NOT NULL"
	");"
	"CREATE TABLE finding_events ("
	"  id BIGSERIAL PRIMARY KEY,"
	"  key TEXT NOT NULL REFERENCES findings (key),"
	"  command TEXT NOT NULL,"
	"  by_addr TEXT,"
	"  message_id TEXT,"
	"  prev_state TEXT,"
	"  prev_arg TEXT,"
	"  state TEXT NOT NULL,"
	"  undone BOOLEAN NOT NULL DEFAULT false,"
	"  at BIGINT NOT NULL"
	");"
	"CREATE INDEX finding_events_key ON finding_events (key, id);"
	"CREATE TABLE inbound ("
	"  source TEXT NOT NULL,"
	"  id TEXT NOT NULL,"
	"  sender TEXT,"
	"  verdict TEXT,"
	"  at BIGINT NOT NULL,"
	"  PRIMARY KEY (source, id)"
	");"
	"CREATE INDEX inbound_sender ON inbound (sender, at);"
	"CREATE TABLE optouts ("
	"  addr TEXT NOT NULL,"
	"  scope TEXT NOT NULL,"
	"  message_id TEXT,"
	"  at BIGINT NOT NULL,"
	"  PRIMARY KEY (addr, scope)"
	")",
	/* 6: threads (store_sqlite.c's step 6): one first message per thread
	 * key, a unique key, so two hosts cannot both start one thread */
	"CREATE TABLE threads ("
	"  key TEXT PRIMARY KEY,"
	"  message_id TEXT NOT NULL,"
	"  created_at BIGINT NOT NULL"
	");"
	"INSERT INTO threads (key, message_id, created_at)"
	"  SELECT thread_key, message_id, created_at FROM messages m"
	"  WHERE thread_key IS NOT NULL"
	"  AND id = (SELECT min(id) FROM messages f WHERE f.thread_key = m.thread_key)",
	/* 7: unknown commits asked again with a growing wait (store_sqlite.c's 7) */
	"ALTER TABLE commit_cache ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE commit_cache ADD COLUMN first_failed_at BIGINT;"
	"ALTER TABLE commit_cache ADD COLUMN failure TEXT",
	/* 8: the numbers behind a finding (store_sqlite.c's step 8) */
	"CREATE TABLE finding_points ("
	"  id BIGSERIAL PRIMARY KEY,"
	"  key TEXT NOT NULL,"
	"  test TEXT NOT NULL,"
	"  commit_sha TEXT NOT NULL,"
	"  role TEXT NOT NULL,"
	"  vals TEXT NOT NULL,"
	"  at BIGINT NOT NULL,"
	"  UNIQUE (key, commit_sha)"
	");"
	"CREATE INDEX finding_points_test ON finding_points (test)",
	/* 9: where each commit was tested (store_sqlite.c's step 9) */
	"ALTER TABLE finding_points ADD COLUMN label TEXT",
	/* 10: the later reports that mention a finding (store_sqlite.c's step 10) */
	"CREATE TABLE finding_mentions ("
	"  key TEXT NOT NULL,"
	"  message_id TEXT NOT NULL,"
	"  by_key TEXT NOT NULL,"
	"  at BIGINT NOT NULL,"
	"  PRIMARY KEY (key, message_id)"
	")",
	/* 11: thread keys looked up by their end (store_sqlite.c's step 11):
	 * the key reversed, kept by the server; byte order ("C") so that a
	 * reversed suffix is an index range (^@, starts_with) */
	"ALTER TABLE threads ADD COLUMN key_rev TEXT COLLATE \"C\""
	"  GENERATED ALWAYS AS (reverse(key)) STORED;"
	"CREATE INDEX threads_key_rev ON threads (key_rev)",
};

static const char *const state_names[] = { "held", "queued", "sending", "sent", "failed" };

/* the database's clock, in seconds: leases never depend on hosts' clocks */
#define DBNOW "extract(epoch from clock_timestamp())::bigint"

/* ---- errors */

static enum rm_error_kind kind_of(struct pg_store *s, const PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	if (PQstatus(s->conn) != CONNECTION_OK)
		return RM_ERR_TEMP;
	if (!state)
		return RM_ERR_TEMP; /* no answer: the connection broke */
	/* 08 connection, 53 resources, 57P0x shutdown, 40 serialization/deadlock */
	if (!strncmp(state, "08", 2) || !strncmp(state, "53", 2) || !strncmp(state, "57P", 3) ||
	    !strncmp(state, "40", 2))
		return RM_ERR_TEMP;
	if (!strncmp(state, "28", 2))
		return RM_ERR_CONFIG; /* invalid authorization */
	return RM_ERR_INTERNAL;
}

static int pg_fail(struct pg_store *s, PGresult *r, struct rm_error *err, const char *what)
{
	char text[600];
	size_t l;

	snprintf(text, sizeof(text), "%s",
		 r && PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r) : PQerrorMessage(s->conn));
	l = strlen(text);
	while (l && (text[l - 1] == '\n' || text[l - 1] == ' '))
		text[--l] = '\0';
	rm_error_set(err, kind_of(s, r), "state database '%s': %s: %s", s->shown, what,
		     l ? text : "no answer");
	PQclear(r);
	return -1;
}

/* Run `sql` with nparams text parameters (NULL: SQL NULL).  Returns the
 * result (caller PQclears) or NULL with *err set. */
static PGresult *q(struct pg_store *s, const char *sql, int n, const char *const *params,
		   struct rm_error *err, const char *what)
{
	PGresult *r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType t = PQresultStatus(r);

	if (t != PGRES_COMMAND_OK && t != PGRES_TUPLES_OK) {
		pg_fail(s, r, err, what);
		return NULL;
	}
	return r;
}

/* The same for a statement whose result is not needed: 0 or -1. */
static int x(struct pg_store *s, const char *sql, int n, const char *const *params,
	     struct rm_error *err, const char *what)
{
	PGresult *r = q(s, sql, n, params, err, what);

	PQclear(r);
	return r ? 0 : -1;
}

/* A rollback after an error already in the caller's rm_error. */
static void rollback(struct pg_store *s)
{
	PQclear(PQexec(s->conn, "ROLLBACK"));
}

static int begin(struct pg_store *s, struct rm_error *err, const char *what)
{
	return x(s, "BEGIN", 0, NULL, err, what);
}

static int commit(struct pg_store *s, struct rm_error *err, const char *what)
{
	if (x(s, "COMMIT", 0, NULL, err, what)) {
		rollback(s);
		return -1;
	}
	return 0;
}

/* numbers as parameters */
struct num {
	char b[32];
};

static const char *num(struct num *n, long long v)
{
	snprintf(n->b, sizeof(n->b), "%lld", v);
	return n->b;
}

static char *get_text(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : rm_xstrdup(PQgetvalue(r, row, col));
}

static long long get_ll(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* the count of rows a command changed (libpq's decimal PQcmdTuples) */
static long long changed_rows(PGresult *r)
{
	return strtoll(PQcmdTuples(r), NULL, 10);
}

static long count_of(const PGresult *r)
{
	return PQntuples(r) > 0 ? (long)get_ll(r, 0, 0) : 0;
}

/* ---- reads of one row or none */

/* Copies row `row` of a result into what ctx points at. */
typedef void pg_row_fn(const PGresult *r, int row, void *ctx);

/* Run sql with its n text parameters (as q() does); on a row, row(r, 0,
 * ctx) copies the first.  Returns 1 (a row was read), 0 (none), or -1 with
 * err set (what names the operation). */
static int read_one(struct pg_store *s, const char *sql, int n, const char *const *params,
		    pg_row_fn *row, void *ctx, struct rm_error *err, const char *what)
{
	PGresult *r = q(s, sql, n, params, err, what);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		row(r, 0, ctx);
	PQclear(r);
	return found;
}

/* ---- reads of many rows (see the top comment) */

/* Run sql with its n text parameters (as q() does); every row i of the
 * result goes to row(r, i, ctx), in order.  0, or -1 with err set (what
 * names the operation; no row has gone to row() then). */
static int read_all(struct pg_store *s, const char *sql, int n, const char *const *params,
		    pg_row_fn *row, void *ctx, struct rm_error *err, const char *what)
{
	PGresult *r = q(s, sql, n, params, err, what);
	int i;

	if (!r)
		return -1;
	for (i = 0; i < PQntuples(r); i++)
		row(r, i, ctx);
	PQclear(r);
	return 0;
}

/* A caller's growing array, read_all's usual ctx (with row = rows_add):
 * each row appends one zeroed element of `size` bytes, which fill() sets
 * from the row.  The caller owns items (NULL when no row) and its n
 * elements. */
struct rows {
	void *items;
	size_t n, size, cap; /* cap: elements allocated (doubling) */
	pg_row_fn *fill;
};
#define ROWS(fill, element) { NULL, 0, sizeof(element), 0, fill }

static void rows_add(const PGresult *r, int row, void *ctx)
{
	struct rows *a = ctx;
	char *el;

	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->items = rm_xrealloc(a->items, a->cap * a->size);
	}
	el = (char *)a->items + a->n++ * a->size;
	memset(el, 0, a->size);
	a->fill(r, row, el);
}

/* a row's first column into a char * element (rows_add) */
static void text_from_row(const PGresult *r, int row, void *element)
{
	*(char **)element = get_text(r, row, 0);
}

/* its second column */
static void text2_from_row(const PGresult *r, int row, void *element)
{
	*(char **)element = get_text(r, row, 1);
}

/* read_all's row for a struct rm_store_text_rows: its ncols columns as text */
static void text_row_add(const PGresult *r, int row, void *ctx)
{
	struct rm_store_text_rows *t = ctx;
	char *cells[16];
	size_t j;

	for (j = 0; j < t->ncols; j++)
		cells[j] = get_text(r, row, (int)j);
	rm_store_text_rows_add(t, cells);
}

/* ---- schema */

static int read_version(struct pg_store *s, int *v, struct rm_error *err)
{
	PGresult *r = q(s, "SELECT coalesce(max(version), 0) FROM schema_version", 0, NULL, err,
			"reading the schema version");

	if (!r)
		return -1;
	*v = (int)count_of(r);
	PQclear(r);
	return 0;
}

static int migrate(struct pg_store *s, struct rm_error *err)
{
	int v, want = (int)(sizeof(migrations) / sizeof(migrations[0]));

	if (begin(s, err, "migrating the schema") ||
	    x(s, "SELECT pg_advisory_xact_lock(7243001)", 0, NULL, err, "migrating the schema") ||
	    x(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)", 0, NULL, err,
	      "migrating the schema") ||
	    read_version(s, &v, err)) {
		rollback(s);
		return -1;
	}
	if (v > want) {
		rollback(s);
		return rm_error_set(err, RM_ERR_CONFIG,
				    "state database '%s' has schema version %d, newer than this robotmail (%d)",
				    s->shown, v, want);
	}
	for (; v < want; v++) {
		struct num n = { "" };
		const char *p[1] = { num(&n, v + 1) };
		PGresult *r = PQexec(s->conn, migrations[v]); /* constant DDL, several statements */

		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			pg_fail(s, r, err, "migrating the schema");
			rollback(s);
			return -1;
		}
		PQclear(r);
		if (x(s, "INSERT INTO schema_version (version) VALUES ($1::int)", 1, p, err,
		      "migrating the schema")) {
			rollback(s);
			return -1;
		}
	}
	return commit(s, err, "migrating the schema");
}

static int pgs_schema_version(struct rm_store *st, int *version, struct rm_error *err)
{
	return read_version(pg(st), version, err);
}

static int pgs_set_durability(struct rm_store *st, enum rm_store_durability d,
			      struct rm_error *err)
{
	return x(pg(st), d == RM_STORE_FAST ? "SET synchronous_commit = off" :
					      "SET synchronous_commit = on",
		 0, NULL, err, "setting durability");
}

static void pgs_close(struct rm_store *st)
{
	struct pg_store *s = pg(st);

	if (s->conn)
		PQfinish(s->conn);
	free(s->shown);
	free(s);
}

static const struct rm_store_ops pg_ops;

int rm_store_pg_open(struct rm_store **stp, const char *url, enum rm_store_mode mode,
		     struct rm_error *err)
{
	struct pg_store *s;

	*stp = NULL;
	if (rm_dynlib_need(RM_LIB_PQ, err))
		return -1;
	s = rm_xcalloc(1, sizeof(*s));
	s->base.ops = &pg_ops;
	s->base.readonly = mode == RM_STORE_READONLY;
	s->base.lease = 60;
	s->shown = rm_store_redact(url);
	/* connect_timeout unless the URL sets one: a dead server must not hang cron */
	{
		/* defaults first: what the URL says wins */
		const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
		const char *vals[] = { "10", "robotmail", url, NULL };

		s->conn = PQconnectdbParams(keys, vals, 1);
	}
	if (!s->conn) {
		rm_error_set(err, RM_ERR_INTERNAL, "state database '%s': out of memory", s->shown);
		pgs_close(&s->base);
		return -1;
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		char text[600];
		size_t l;
		bool auth = PQconnectionNeedsPassword(s->conn) || PQconnectionUsedPassword(s->conn);

		snprintf(text, sizeof(text), "%s", PQerrorMessage(s->conn));
		l = strlen(text);
		while (l && (text[l - 1] == '\n' || text[l - 1] == ' '))
			text[--l] = '\0';
		/* a refused login needs the operator; an unreachable server, a later run */
		rm_error_set(err, auth ? RM_ERR_CONFIG : RM_ERR_TEMP,
			     "state database '%s': cannot connect: %s", s->shown, text);
		pgs_close(&s->base);
		return -1;
	}
	/* our strings are UTF-8 bytes; no notices on stderr */
	if (PQsetClientEncoding(s->conn, "UTF8")) {
		pg_fail(s, NULL, err, "setting the client encoding");
		pgs_close(&s->base);
		return -1;
	}
	if (x(s, "SET client_min_messages = warning", 0, NULL, err, "opening")) {
		pgs_close(&s->base);
		return -1;
	}
	if (mode == RM_STORE_READWRITE) {
		if (migrate(s, err)) {
			pgs_close(&s->base);
			return -1;
		}
	} else {
		PGresult *r = q(s, "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL, err,
				"reading the schema version");
		bool exists;

		if (!r) {
			pgs_close(&s->base);
			return -1;
		}
		exists = !strcmp(PQgetvalue(r, 0, 0), "t");
		PQclear(r);
		if (!exists) {
			/* an empty database: an empty store, as a missing SQLite file */
			pgs_close(&s->base);
			return 0;
		}
		if (x(s, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", 0, NULL, err,
		      "opening read-only")) {
			pgs_close(&s->base);
			return -1;
		}
		{
			int v;

			if (read_version(s, &v, err)) {
				pgs_close(&s->base);
				return -1;
			}
			s->before_findings = v < 5;
			s->before_points = v < 8;
			s->before_labels = v < 9;
			s->before_mentions = v < 10;
			s->before_backoff = v < 7;
			s->before_key_rev = v < 11;
		}
		r = q(s, "SELECT to_regclass('threads') IS NULL", 0, NULL, err, "reading the schema");
		if (!r) {
			pgs_close(&s->base);
			return -1;
		}
		s->before_threads = !strcmp(PQgetvalue(r, 0, 0), "t");
		PQclear(r);
	}
	*stp = &s->base;
	return 0;
}

/* ---- the commit cache */

static int pgs_cache_get(struct rm_store *base, const char *tree, const char *sha, time_t now,
			 char **json, bool *found, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num n = { "" };
	const char *p[3] = { tree, sha, num(&n, now) };
	PGresult *r = q(s,
			"SELECT found, facts FROM commit_cache WHERE tree = $1 AND sha = $2"
			" AND (expires_at IS NULL OR expires_at > $3::bigint)",
			3, p, err, "reading the commit cache");
	int hit;

	if (!r)
		return -1;
	hit = PQntuples(r) > 0;
	if (hit) {
		*found = !strcmp(PQgetvalue(r, 0, 0), "t");
		*json = get_text(r, 0, 1);
	}
	PQclear(r);
	return hit;
}

static int pgs_cache_put(struct rm_store *base, const char *tree, const char *sha, bool found,
			 const char *json, time_t now, long ttl, struct rm_error *err)
{
	struct num a = { "" }, b = { "" };
	const char *p[6] = { tree, sha, found ? "t" : "f", json, num(&a, now),
			     found ? NULL : num(&b, (long long)now + ttl) };

	return x(pg(base),
		 "INSERT INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at)"
		 " VALUES ($1, $2, $3::boolean, $4, $5::bigint, $6::bigint)"
		 " ON CONFLICT (tree, sha) DO UPDATE SET found = EXCLUDED.found, facts = EXCLUDED.facts,"
		 " fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at,"
		 /* a new record counts anew, as SQLite's INSERT OR REPLACE does */
		 " attempts = EXCLUDED.attempts, first_failed_at = EXCLUDED.first_failed_at,"
		 " failure = EXCLUDED.failure",
		 6, p, err, "writing the commit cache");
}

static int pgs_cache_miss_get(struct rm_store *base, const char *tree, const char *sha,
			      struct rm_commit_miss *m, struct rm_error *err)
{
	const char *p[2] = { tree, sha };
	PGresult *r = q(pg(base),
			"SELECT attempts, coalesce(first_failed_at, 0), fetched_at,"
			" coalesce(expires_at, 0), coalesce(failure, '')"
			" FROM commit_cache WHERE tree = $1 AND sha = $2 AND NOT found",
			2, p, err, "reading the commit cache");
	int hit;

	if (!r)
		return -1;
	hit = PQntuples(r) > 0;
	if (hit) {
		m->attempts = (unsigned)strtoul(PQgetvalue(r, 0, 0), NULL, 10);
		m->first_at = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
		m->last_at = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
		m->next_at = strtoll(PQgetvalue(r, 0, 3), NULL, 10);
		snprintf(m->failure, sizeof(m->failure), "%s", PQgetvalue(r, 0, 4));
	}
	PQclear(r);
	return hit;
}

static int pgs_cache_miss_put(struct rm_store *base, const char *tree, const char *sha,
			      const struct rm_commit_miss *m, struct rm_error *err)
{
	struct num a = { "" }, b = { "" }, c = { "" }, d = { "" };
	const char *p[7] = { tree, sha, num(&a, m->last_at), num(&b, m->next_at),
			     num(&c, m->attempts), num(&d, m->first_at),
			     m->failure[0] ? m->failure : NULL };

	return x(pg(base),
		 "INSERT INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at, attempts,"
		 " first_failed_at, failure) VALUES ($1, $2, false, NULL, $3::bigint, $4::bigint,"
		 " $5::integer, $6::bigint, $7)"
		 " ON CONFLICT (tree, sha) DO UPDATE SET found = false, facts = NULL,"
		 " fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at,"
		 " attempts = EXCLUDED.attempts, first_failed_at = EXCLUDED.first_failed_at,"
		 " failure = EXCLUDED.failure",
		 7, p, err, "writing the commit cache");
}

/* ---- messages */

/* the message bytes travel as hex ('\x...'): BYTEA's text form */
static char *hex_of(const char *b, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *h = rm_xmalloc(2 * len + 3), *o = h;
	size_t i;

	*o++ = '\\';
	*o++ = 'x';
	for (i = 0; i < len; i++) {
		*o++ = digits[(unsigned char)b[i] >> 4];
		*o++ = digits[(unsigned char)b[i] & 15];
	}
	*o = '\0';
	return h;
}

#define MSG_COLUMNS                                                                        \
	"id, message_id, dedupe_key, tree, subject, mail_from, rcpts, bytes, state, attempts," \
	" last_error, next_attempt, created_at, sent_at, thread_key, refs, updated_at"

static void msg_from_row(const PGresult *r, int row, void *msg)
{
	struct rm_store_msg *m = msg;
	char *v;
	unsigned char *b;
	size_t len = 0;

	memset(m, 0, sizeof(*m));
	m->id = get_ll(r, row, 0);
	m->message_id = get_text(r, row, 1);
	m->dedupe_key = get_text(r, row, 2);
	m->tree = get_text(r, row, 3);
	m->subject = get_text(r, row, 4);
	m->mail_from = get_text(r, row, 5);
	rm_store_split_lines(PQgetvalue(r, row, 6), &m->rcpts, &m->nrcpts);
	b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, row, 7), &len);
	m->bytes = rm_xmalloc(len + 1);
	if (b && len)
		memcpy(m->bytes, b, len);
	m->len = b ? len : 0;
	m->bytes[m->len] = '\0';
	PQfreemem(b);
	v = PQgetvalue(r, row, 8);
	m->state = rm_store_state_from(v);
	m->attempts = (int)get_ll(r, row, 9);
	m->last_error = get_text(r, row, 10);
	m->next_attempt = (time_t)get_ll(r, row, 11);
	m->created_at = (time_t)get_ll(r, row, 12);
	m->sent_at = (time_t)get_ll(r, row, 13);
	m->thread_key = get_text(r, row, 14);
	m->refs = get_text(r, row, 15);
}

struct report_row {
	char **message_id;
	time_t *at;
};

static void report_from_row(const PGresult *r, int row, void *ctx)
{
	const struct report_row *c = ctx;

	*c->message_id = get_text(r, row, 0);
	*c->at = (time_t)get_ll(r, row, 1);
}

static int pgs_report_get(struct rm_store *base, const char *key, char **message_id, time_t *at,
			  struct rm_error *err)
{
	struct report_row c = { message_id, at };

	return read_one(pg(base), "SELECT message_id, created_at FROM reports WHERE dedupe_key = $1",
			1, &key, report_from_row, &c, err, "reading the reports seen");
}

/* Insert one message row (id kept when m->id > 0 and `keep_id`); *added is
 * false when its Message-ID is there already. */
static int insert_msg(struct pg_store *s, const struct rm_store_msg *m, bool keep_id,
		      time_t now, time_t updated, bool *added, struct rm_error *err)
{
	struct num a = { "" }, b = { "" }, c = { "" }, d = { "" }, e = { "" }, f = { "" };
	char *rcpts = rm_store_join_lines(m->rcpts, m->nrcpts), *hex = hex_of(m->bytes, m->len);
	const char *p[17] = {
		m->message_id, m->dedupe_key, m->tree, m->subject, m->mail_from, rcpts, hex,
		state_names[m->state], num(&a, m->attempts), m->last_error,
		num(&b, keep_id ? m->next_attempt : now), num(&c, keep_id ? m->created_at : now),
		num(&d, updated), m->sent_at ? num(&e, m->sent_at) : NULL, m->thread_key, m->refs,
		keep_id ? num(&f, m->id) : NULL,
	};
	PGresult *r;

	r = q(s,
	      "INSERT INTO messages (message_id, dedupe_key, tree, subject, mail_from, rcpts, bytes,"
	      " state, attempts, last_error, next_attempt, created_at, updated_at, sent_at,"
	      " thread_key, refs, id)"
	      " VALUES ($1, $2, $3, $4, $5, $6, $7::bytea, $8, $9::int, $10, $11::bigint, $12::bigint,"
	      " $13::bigint, $14::bigint, $15, $16, coalesce($17::bigint, nextval('messages_id_seq')))"
	      " ON CONFLICT (message_id) DO NOTHING",
	      17, p, err, "queueing a message");
	free(rcpts);
	free(hex);
	if (!r)
		return -1;
	*added = changed_rows(r) > 0; /* "1" or "0": libpq's own count */
	PQclear(r);
	return 0;
}

static int pgs_mention_add(struct rm_store *base, const char *key, const char *message_id,
			   const char *by_key, time_t at, struct rm_error *err);

static int pgs_enqueue(struct rm_store *base, const struct rm_store_msg *m, time_t now,
		       struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rm_store_msg copy = *m;
	bool added = true;
	size_t i;

	if (x(s, "SET synchronous_commit = on", 0, NULL, err, "queueing a message") ||
	    begin(s, err, "queueing a message"))
		return -1;
	if (m->dedupe_key) {
		struct num n = { "" };
		const char *p[3] = { m->dedupe_key, m->message_id, num(&n, now) };
		PGresult *r = q(s,
				"INSERT INTO reports (dedupe_key, message_id, created_at)"
				" VALUES ($1, $2, $3::bigint) ON CONFLICT (dedupe_key) DO NOTHING",
				3, p, err, "queueing a message");

		if (!r) {
			rollback(s);
			return -1;
		}
		added = changed_rows(r) > 0;
		PQclear(r);
		if (!added) {
			rollback(s);
			return 0; /* another run or host reported it: never twice */
		}
	}
	copy.state = m->state == RM_STORE_HELD ? RM_STORE_HELD : RM_STORE_QUEUED;
	copy.attempts = 0;
	copy.last_error = NULL;
	copy.sent_at = 0;
	if (insert_msg(s, &copy, false, now, now, &added, err)) {
		rollback(s);
		return -1;
	}
	if (!added) {
		rollback(s);
		return 0;
	}
	if (m->thread_key) {
		/* the thread's first message, unless it has one; a transaction
		 * storing the same key (another host) is waited for */
		struct num n = { "" };
		const char *p[3] = { m->thread_key, m->message_id, num(&n, now) };
		PGresult *r = q(s,
				"INSERT INTO threads (key, message_id, created_at)"
				" VALUES ($1, $2, $3::bigint) ON CONFLICT (key) DO NOTHING",
				3, p, err, "queueing a message");

		if (!r) {
			rollback(s);
			return -1;
		}
		added = changed_rows(r) > 0;
		PQclear(r);
		if (!added && m->starts_thread) {
			rollback(s);
			return RM_STORE_THREAD_TAKEN;
		}
	}
	for (i = 0; m->thread_key && i < m->nmentions; i++)
		if (pgs_mention_add(base, m->mentions[i], m->message_id, m->thread_key, now, err) < 0) {
			rollback(s);
			return -1;
		}
	return commit(s, err, "queueing a message") ? -1 : 1;
}

static int pgs_recover(struct rm_store *base, int *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num pid = { "" };
	const char *p[2] = { base->host, num(&pid, getpid()) };
	PGresult *r = q(s,
			"UPDATE messages SET state = 'queued', lease_host = NULL, lease_pid = NULL,"
			" lease_until = NULL WHERE state = 'sending' AND (lease_until IS NULL"
			" OR lease_until < " DBNOW " OR (lease_host = $1 AND lease_pid = $2::int))",
			2, p, err, "recovering messages");

	if (!r)
		return -1;
	*n = (int)changed_rows(r);
	PQclear(r);
	return 0;
}

static int cmp_due(const void *a, const void *b)
{
	const struct rm_store_msg *x_ = a, *y = b;

	if (x_->next_attempt != y->next_attempt)
		return x_->next_attempt < y->next_attempt ? -1 : 1;
	return x_->id < y->id ? -1 : x_->id > y->id;
}

static int pgs_claim_due(struct rm_store *base, time_t now, size_t limit,
			 struct rm_store_msg **out, size_t *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num a = { "" }, b = { "" }, c = { "" }, d = { "" };
	const char *p[5] = { num(&a, now), num(&b, (long long)limit), base->host,
			     num(&c, getpid()), num(&d, base->lease) };
	struct rows all = ROWS(msg_from_row, struct rm_store_msg);

	/* queued and due, or sending under a lease that expired (a dead run's);
	 * rows another run is claiming at this moment are skipped, not waited for */
	if (read_all(s,
	      "WITH c AS (SELECT id FROM messages WHERE (state = 'queued' AND next_attempt <= $1::bigint)"
	      " OR (state = 'sending' AND coalesce(lease_until, 0) < " DBNOW ")"
	      " ORDER BY next_attempt, id LIMIT $2::bigint FOR UPDATE SKIP LOCKED)"
	      " UPDATE messages m SET state = 'sending', updated_at = $1::bigint, lease_host = $3,"
	      " lease_pid = $4::int, lease_until = " DBNOW " + $5::bigint FROM c WHERE m.id = c.id"
	      " RETURNING m.id, m.message_id, m.dedupe_key, m.tree, m.subject, m.mail_from, m.rcpts,"
	      " m.bytes, m.state, m.attempts, m.last_error, m.next_attempt, m.created_at, m.sent_at,"
	      " m.thread_key, m.refs",
	      5, p, rows_add, &all, err, "claiming due messages"))
		return -1;
	*out = all.items;
	*n = all.n;
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_due);
	s->renewed = time(NULL);
	return 0;
}

static bool accepted(int code)
{
	return code >= 200 && code < 300;
}

static bool refused(int code)
{
	return code >= 500 && code < 600;
}

static void keep_add(char ***v, size_t *n, const char *rcpt)
{
	size_t i;

	if (!rcpt)
		return;
	for (i = 0; i < *n; i++)
		if (!strcasecmp((*v)[i], rcpt))
			return;
	*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = rm_xstrdup(rcpt);
}

/* read_all's row: its first column added to a keep list (keep_add) */
struct keep_list {
	char ***v;
	size_t *n;
};

static void keep_row(const PGresult *r, int row, void *ctx)
{
	const struct keep_list *k = ctx;

	keep_add(k->v, k->n, PQgetvalue(r, row, 0));
}

static void keep_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

static int pgs_record(struct rm_store *base, long long id, const struct rm_rcpt_result *res,
		      size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		      enum rm_store_state *state, struct rm_error *err)
{
	static const char what[] = "recording a delivery attempt";
	struct pg_store *s = pg(base);
	struct num nid = { "" }, nnow = { "" }, ncode = { "" }, nretry = { "" };
	char **keep = NULL, *rcpts;
	size_t nkeep = 0, i;
	bool any_accepted = false, pending = false;
	PGresult *r;
	int rc;

	num(&nid, id);
	num(&nnow, now);
	/* an accepted mail's record is durable even during a FAST delivery
	 * (synchronous_commit off): a server that crashes after this commit
	 * must not forget it, or the next run sends that mail again (at most
	 * the one whose DATA was in flight may arrive twice) */
	if (begin(s, err, what) || x(s, "SET LOCAL synchronous_commit = on", 0, NULL, err, what)) {
		rollback(s);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int c = res[i].code;
		const char *p[5] = { nid.b, res[i].rcpt, num(&ncode, c), res[i].text, nnow.b };

		any_accepted |= accepted(c);
		pending |= !accepted(c) && !refused(c);
		if (!c)
			continue;
		if (x(s,
		      "INSERT INTO rcpt_results (message, rcpt, code, text, at)"
		      " VALUES ($1::bigint, $2, $3::int, $4, $5::bigint) ON CONFLICT (message, rcpt)"
		      " DO UPDATE SET code = EXCLUDED.code, text = EXCLUDED.text, at = EXCLUDED.at",
		      5, p, err, what))
			goto fail;
	}
	{
		const char *p[1] = { nid.b };

		r = q(s, "SELECT count(*) FROM rcpt_results WHERE message = $1::bigint"
			 " AND code BETWEEN 200 AND 299",
		      1, p, err, what);
		if (!r)
			goto fail;
		any_accepted |= count_of(r) > 0;
		PQclear(r);
	}
	if (!pending || give_up)
		*state = any_accepted ? RM_STORE_SENT : RM_STORE_FAILED;
	else
		*state = RM_STORE_QUEUED;
	for (i = 0; i < n; i++) {
		int c = res[i].code;

		if (*state == RM_STORE_QUEUED ? !accepted(c) && !refused(c) :
		    *state == RM_STORE_FAILED ? !accepted(c) :
						false)
			keep_add(&keep, &nkeep, res[i].rcpt);
	}
	if (*state == RM_STORE_FAILED) {
		const char *p[1] = { nid.b };
		struct keep_list k = { &keep, &nkeep };

		if (read_all(s, "SELECT rcpt FROM rcpt_results WHERE message = $1::bigint"
				" AND code NOT BETWEEN 200 AND 299 ORDER BY at, rcpt",
			     1, p, keep_row, &k, err, what))
			goto fail;
	}
	rcpts = rm_store_join_lines(keep, nkeep);
	{
		const char *p[6] = { state_names[*state], rcpts, error, num(&nretry, retry_at), nnow.b,
				     nid.b };

		rc = x(s,
		       "UPDATE messages SET state = $1, rcpts = $2, attempts = attempts + 1,"
		       " last_error = $3, next_attempt = $4::bigint, updated_at = $5::bigint,"
		       " sent_at = CASE WHEN $1 = 'sent' THEN $5::bigint ELSE sent_at END,"
		       " lease_host = NULL, lease_pid = NULL, lease_until = NULL WHERE id = $6::bigint",
		       6, p, err, what);
	}
	free(rcpts);
	keep_free(keep, nkeep);
	if (rc) {
		rollback(s);
		return -1;
	}
	return commit(s, err, what);
fail:
	rollback(s);
	keep_free(keep, nkeep);
	return -1;
}

static int pgs_defer(struct rm_store *base, long long id, time_t until, const char *why,
		     struct rm_error *err)
{
	struct num a = { "" }, b = { "" };
	const char *p[3] = { num(&a, until), why, num(&b, id) };

	return x(pg(base),
		 "UPDATE messages SET state = 'queued', next_attempt = $1::bigint, last_error = $2,"
		 " lease_host = NULL, lease_pid = NULL, lease_until = NULL WHERE id = $3::bigint",
		 3, p, err, "deferring a message");
}

static int count_q(struct pg_store *s, const char *sql, int n, const char *const *p, long *count,
		   struct rm_error *err, const char *what)
{
	PGresult *r = q(s, sql, n, p, err, what);

	*count = 0;
	if (!r)
		return -1;
	*count = count_of(r);
	PQclear(r);
	return 0;
}

static int pgs_sent_since(struct rm_store *base, time_t since, long *count, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[1] = { num(&a, since) };

	return count_q(pg(base), "SELECT count(*) FROM messages WHERE state = 'sent' AND sent_at >= $1::bigint",
		       1, p, count, err, "counting sent messages");
}

static int pgs_rcpt_count_since(struct rm_store *base, const char *rcpt, time_t since,
				long *count, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[2] = { rcpt, num(&a, since) };

	return count_q(pg(base),
		       "SELECT count(*) FROM rcpt_results WHERE lower(rcpt) = lower($1)"
		       " AND code BETWEEN 200 AND 299 AND at >= $2::bigint",
		       2, p, count, err, "counting messages per list");
}

static int pgs_list(struct rm_store *base, struct rm_store_msg **out, size_t *n,
		    struct rm_error *err)
{
	struct rows all = ROWS(msg_from_row, struct rm_store_msg);

	if (read_all(pg(base), "SELECT " MSG_COLUMNS " FROM messages ORDER BY id", 0, NULL,
		     rows_add, &all, err, "listing the queue"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

/* `which`: a message's id, or its Message-ID with or without <> */
#define WHICH "(id::text = $1 OR message_id = $1 OR '<' || message_id || '>' = $1)"

static int pgs_get(struct rm_store *base, const char *which, struct rm_store_msg *m,
		   struct rm_error *err)
{
	return read_one(pg(base), "SELECT " MSG_COLUMNS " FROM messages WHERE " WHICH, 1, &which,
			msg_from_row, m, err, "reading the queue");
}

static int pgs_set_state(struct rm_store *base, const char *which, enum rm_store_action action,
			 time_t now, struct rm_error *err)
{
	const char *sql = NULL;
	struct num a = { "" };
	const char *p[2] = { which, num(&a, now) };
	PGresult *r;
	int changed;

	switch (action) {
	case RM_STORE_RETRY:
		sql = "UPDATE messages SET state = 'queued', next_attempt = $2::bigint, updated_at = $2::bigint"
		      " WHERE " WHICH " AND state IN ('queued','failed','held') AND rcpts != ''";
		break;
	case RM_STORE_RELEASE:
		sql = "UPDATE messages SET state = 'queued', next_attempt = $2::bigint, updated_at = $2::bigint"
		      " WHERE " WHICH " AND state = 'held'";
		break;
	case RM_STORE_HOLD:
		sql = "UPDATE messages SET state = 'held', updated_at = $2::bigint"
		      " WHERE " WHICH " AND state = 'queued'";
		break;
	case RM_STORE_DROP:
		sql = "UPDATE messages SET state = 'failed', last_error = 'dropped by the operator',"
		      " updated_at = $2::bigint WHERE " WHICH " AND state IN ('queued','held','failed')";
		break;
	case RM_STORE_RESEND:
		/* the envelope it was sent to: every recipient with a result */
		sql = "UPDATE messages SET state = 'queued', next_attempt = $2::bigint, updated_at = $2::bigint,"
		      " last_error = 'resent by the operator', rcpts = (SELECT string_agg(r.rcpt || E'\\n', ''"
		      " ORDER BY r.at, r.rcpt) FROM rcpt_results r WHERE r.message = messages.id)"
		      " WHERE " WHICH " AND state = 'sent' AND length(bytes) > 0"
		      " AND EXISTS (SELECT 1 FROM rcpt_results r WHERE r.message = messages.id)";
		break;
	case RM_STORE_PRUNE:
		sql = "UPDATE messages SET bytes = ''::bytea, updated_at = $2::bigint"
		      " WHERE " WHICH " AND state = 'sent' AND length(bytes) > 0";
		break;
	}
	if (!sql)
		return rm_error_set(err, RM_ERR_INTERNAL, "queue: unknown action %d", (int)action);
	r = q(pg(base), sql, 2, p, err, "changing the queue");
	if (!r)
		return -1;
	changed = changed_rows(r) > 0;
	PQclear(r);
	return changed;
}

/* columns: message, rcpt, code, text, at */
static void rcpt_row_from(const PGresult *r, int row, void *element)
{
	struct rm_store_rcpt_row *c = element;

	c->message = get_ll(r, row, 0);
	c->rcpt = get_text(r, row, 1);
	c->code = (int)get_ll(r, row, 2);
	c->text = get_text(r, row, 3);
	c->at = (time_t)get_ll(r, row, 4);
}

static int pgs_results(struct rm_store *base, long long id, struct rm_store_rcpt_row **out,
		       size_t *n, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[1] = { num(&a, id) };
	struct rows all = ROWS(rcpt_row_from, struct rm_store_rcpt_row);

	if (read_all(pg(base), "SELECT message, rcpt, code, text, at FROM rcpt_results"
			       " WHERE message = $1::bigint ORDER BY at, rcpt",
		     1, p, rows_add, &all, err, "reading recipients' results"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

static int pgs_thread_first(struct rm_store *base, const char *thread_key, char **message_id,
			    char **subject, char **refs, struct rm_error *err)
{
	const char *p[1] = { thread_key };
	PGresult *r = q(pg(base),
			pg(base)->before_threads ?
				"SELECT message_id, subject, refs FROM messages WHERE thread_key = $1"
				" ORDER BY id LIMIT 1" :
				/* the row of the thread key; its message for the subject and chain */
				"SELECT t.message_id, m.subject, m.refs FROM threads t"
				" LEFT JOIN messages m ON m.message_id = t.message_id WHERE t.key = $1",
			1, p, err, "reading threads");
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*message_id = get_text(r, 0, 0);
		*subject = get_text(r, 0, 1);
		*refs = get_text(r, 0, 2);
	}
	PQclear(r);
	return found;
}

/* The keys ending in $1 are those whose key_rev starts with $1 reversed:
 * a range of the index threads_key_rev (the planner makes ^@ with a known
 * value a range on a "C" column); each key's newest report from
 * messages_thread. */
const char rm_store_pg_threads_ending_sql[] =
	"SELECT t.key FROM threads t JOIN messages m ON m.thread_key = t.key"
	" WHERE t.key_rev ^@ reverse($1) AND length(t.key) > length($1)"
	" GROUP BY t.key ORDER BY max(m.id) DESC LIMIT $2::bigint";

static int pgs_threads_ending(struct rm_store *base, const char *suffix, size_t limit, char ***keys,
			      size_t *n, struct rm_error *err)
{
	struct num l = { "" };
	const char *p[2] = { suffix, num(&l, (long long)limit) };
	struct rows all = ROWS(text_from_row, char *);

	if (read_all(pg(base),
		     pg(base)->before_key_rev ?
			     "SELECT thread_key FROM messages WHERE length(thread_key) > length($1)"
			     " AND right(thread_key, length($1)) = $1"
			     " GROUP BY thread_key ORDER BY max(id) DESC LIMIT $2::bigint" :
			     rm_store_pg_threads_ending_sql,
		     2, p, rows_add, &all, err, "reading threads"))
		return -1;
	*keys = all.items;
	*n = all.n;
	return 0;
}

/* ---- leases and archive claims */

static int pgs_renew(struct rm_store *base, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num pid = { "" }, lease = { "" };
	const char *p[3] = { base->host, num(&pid, getpid()), num(&lease, base->lease) };
	time_t now = time(NULL);

	if (now - s->renewed < base->lease / 3)
		return 0;
	if (x(s,
	      "UPDATE messages SET lease_until = " DBNOW " + $3::bigint WHERE state = 'sending'"
	      " AND lease_host = $1 AND lease_pid = $2::int",
	      3, p, err, "renewing leases") ||
	    x(s,
	      "UPDATE archive_claims SET lease_until = " DBNOW " + $3::bigint"
	      " WHERE host = $1 AND pid = $2::int",
	      3, p, err, "renewing leases"))
		return -1;
	s->renewed = now;
	return 0;
}

static int pgs_claim_archive(struct rm_store *base, const char *name, bool *got,
			     struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num pid = { "" }, lease = { "" };
	const char *p[4] = { name, base->host, num(&pid, getpid()), num(&lease, base->lease) };
	PGresult *r;

	/* free, expired or ours already: ours (the row lock serialises two claimers) */
	r = q(s,
	      "INSERT INTO archive_claims (name, host, pid, lease_until)"
	      " VALUES ($1, $2, $3::int, " DBNOW " + $4::bigint)"
	      " ON CONFLICT (name) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid,"
	      " lease_until = EXCLUDED.lease_until WHERE archive_claims.lease_until < " DBNOW
	      " OR (archive_claims.host = EXCLUDED.host AND archive_claims.pid = EXCLUDED.pid)",
	      4, p, err, "claiming an archive");
	if (!r)
		return -1;
	*got = changed_rows(r) > 0;
	PQclear(r);
	if (*got && !s->renewed)
		s->renewed = time(NULL);
	return 0;
}

static int pgs_release_archive(struct rm_store *base, const char *name, struct rm_error *err)
{
	struct num pid = { "" };
	const char *p[3] = { name, base->host, num(&pid, getpid()) };

	return x(pg(base), "DELETE FROM archive_claims WHERE name = $1 AND host = $2 AND pid = $3::int",
		 3, p, err, "releasing an archive");
}

/* ---- counts, dump, load */

static int pgs_counts(struct rm_store *base, struct rm_store_counts *c, struct rm_error *err)
{
	PGresult *r = q(pg(base),
			"SELECT (SELECT count(*) FROM reports), (SELECT count(*) FROM messages),"
			" (SELECT count(*) FROM rcpt_results), (SELECT count(*) FROM commit_cache),"
			" (SELECT count(*) FROM messages WHERE state = 'held'),"
			" (SELECT count(*) FROM messages WHERE state = 'queued'),"
			" (SELECT count(*) FROM messages WHERE state = 'sending'),"
			" (SELECT count(*) FROM messages WHERE state = 'sent'),"
			" (SELECT count(*) FROM messages WHERE state = 'failed'),"
			" (SELECT coalesce(sum(attempts), 0) FROM messages),"
			" (SELECT count(*) FROM messages m WHERE dedupe_key IS NOT NULL AND NOT EXISTS"
			"   (SELECT 1 FROM reports r WHERE r.dedupe_key = m.dedupe_key)),"
			" (SELECT count(*) FROM messages WHERE state = 'sending'"
			"   AND coalesce(lease_until, 0) < " DBNOW "),"
			" (SELECT count(*) FROM archive_claims)",
			0, NULL, err, "counting rows");
	int i;

	if (!r)
		return -1;
	c->reports = (long)get_ll(r, 0, 0);
	c->messages = (long)get_ll(r, 0, 1);
	c->rcpt_results = (long)get_ll(r, 0, 2);
	c->cache = (long)get_ll(r, 0, 3);
	for (i = 0; i < 5; i++)
		c->by_state[i] = (long)get_ll(r, 0, 4 + i);
	c->attempts = (long)get_ll(r, 0, 9);
	c->orphans = (long)get_ll(r, 0, 10);
	c->stale_leases = (long)get_ll(r, 0, 11);
	c->archive_claims = (long)get_ll(r, 0, 12);
	PQclear(r);
	if (pg(base)->before_threads) {
		/* what the step that adds `threads` will make */
		if (count_q(pg(base), "SELECT count(DISTINCT thread_key) FROM messages", 0, NULL,
			    &c->threads, err, "counting rows"))
			return -1;
	} else if (count_q(pg(base), "SELECT count(*) FROM threads", 0, NULL, &c->threads, err,
			   "counting rows") ||
		   count_q(pg(base),
			   "SELECT (SELECT count(DISTINCT thread_key) FROM messages m WHERE NOT EXISTS"
			   "   (SELECT 1 FROM threads t WHERE t.key = m.thread_key)) +"
			   " (SELECT count(*) FROM threads t WHERE NOT EXISTS"
			   "   (SELECT 1 FROM messages m WHERE m.message_id = t.message_id))",
			   0, NULL, &c->thread_orphans, err, "counting rows")) {
		return -1;
	}
	for (i = 0; i < RM_STORE_LISTEN_TABLES && !pg(base)->before_findings &&
		    !(i == 4 && pg(base)->before_points) &&
		    !(i == 5 && pg(base)->before_mentions); i++) {
		char sql[128];

		/* a constant table name of store.c's list, not input */
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", rm_store_listen_tables[i].name);
		if (count_q(pg(base), sql, 0, NULL, &c->listen[i], err, "counting rows"))
			return -1;
	}
	return 0;
}

/* columns: dedupe_key, message_id, created_at */
static void report_row_from(const PGresult *r, int row, void *element)
{
	struct rm_store_report_row *c = element;

	c->dedupe_key = get_text(r, row, 0);
	c->message_id = get_text(r, row, 1);
	c->created_at = (time_t)get_ll(r, row, 2);
}

/* columns: tree, sha, found, facts, fetched_at, expires_at, attempts,
 * first_failed_at, failure */
static void cache_row_from(const PGresult *r, int row, void *element)
{
	struct rm_store_cache_row *c = element;

	c->tree = get_text(r, row, 0);
	c->sha = get_text(r, row, 1);
	c->found = !strcmp(PQgetvalue(r, row, 2), "t");
	c->facts = get_text(r, row, 3);
	c->fetched_at = (time_t)get_ll(r, row, 4);
	c->expires_at = (time_t)get_ll(r, row, 5);
	c->attempts = (unsigned)get_ll(r, row, 6);
	c->first_failed_at = (time_t)get_ll(r, row, 7);
	c->failure = get_text(r, row, 8);
}

static int pgs_dump(struct rm_store *base, struct rm_store_dump *d, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows reports = ROWS(report_row_from, struct rm_store_report_row);
	struct rows rcpts = ROWS(rcpt_row_from, struct rm_store_rcpt_row);
	struct rows cache = ROWS(cache_row_from, struct rm_store_cache_row);
	int i;

	if (pgs_list(base, &d->msgs, &d->nmsgs, err))
		return -1;
	if (read_all(s, "SELECT dedupe_key, message_id, created_at FROM reports"
			" ORDER BY created_at, dedupe_key",
		     0, NULL, rows_add, &reports, err, "reading reports"))
		return -1;
	d->reports = reports.items;
	d->nreports = reports.n;
	if (read_all(s, "SELECT message, rcpt, code, text, at FROM rcpt_results"
			" ORDER BY message, at, rcpt",
		     0, NULL, rows_add, &rcpts, err, "reading recipients' results"))
		return -1;
	d->rcpts = rcpts.items;
	d->nrcpts = rcpts.n;
	if (read_all(s, s->before_backoff ?
				"SELECT tree, sha, found, facts, fetched_at, expires_at, 0, NULL, NULL"
				" FROM commit_cache ORDER BY tree, sha" :
				"SELECT tree, sha, found, facts, fetched_at, expires_at, attempts,"
				" first_failed_at, failure FROM commit_cache ORDER BY tree, sha",
		     0, NULL, rows_add, &cache, err, "reading the commit cache"))
		return -1;
	d->cache = cache.items;
	d->ncache = cache.n;
	for (i = 0; i < RM_STORE_LISTEN_TABLES && !s->before_findings &&
		    !(i == 4 && s->before_points) &&
		    !(i == 5 && s->before_mentions); i++) {
		const struct rm_store_listen_table *t = &rm_store_listen_tables[i];
		char sql[256];

		/* constant names of store.c's list, not input */
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s ORDER BY %s",
			 i == 4 && s->before_labels ? rm_store_points_columns_v8 : t->columns,
			 t->name, t->order);
		if (read_all(s, sql, 0, NULL, text_row_add, &d->listen[i], err, "reading every row"))
			return -1;
	}
	if (!s->before_threads &&
	    read_all(s, "SELECT key, message_id, created_at FROM threads ORDER BY key", 0, NULL,
		     text_row_add, &d->threads, err, "reading threads"))
		return -1;
	return 0;
}

static int pgs_load(struct rm_store *base, const struct rm_store_dump *d, struct rm_error *err)
{
	static const char what[] = "loading rows";
	struct pg_store *s = pg(base);
	struct rm_store_counts c;
	size_t i;

	if (pgs_counts(base, &c, err))
		return -1;
	if (c.messages || c.reports)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "state database '%s' is not empty (%ld messages, %ld reports): "
				    "a migration only fills an empty store",
				    s->shown, c.messages, c.reports);
	if (x(s, "SET synchronous_commit = on", 0, NULL, err, what) || begin(s, err, what))
		return -1;
	for (i = 0; i < d->nreports; i++) {
		struct num a = { "" };
		const char *p[3] = { d->reports[i].dedupe_key, d->reports[i].message_id,
				     num(&a, d->reports[i].created_at) };

		if (x(s, "INSERT INTO reports (dedupe_key, message_id, created_at)"
			 " VALUES ($1, $2, $3::bigint)",
		      3, p, err, what))
			goto fail;
	}
	for (i = 0; i < d->nmsgs; i++) {
		bool added;

		if (insert_msg(s, &d->msgs[i], true, d->msgs[i].created_at, d->msgs[i].created_at,
			       &added, err))
			goto fail;
		if (!added) {
			rm_error_set(err, RM_ERR_INPUT, "state database '%s': %s: Message-ID <%s> twice",
				     s->shown, what, d->msgs[i].message_id);
			goto fail;
		}
	}
	for (i = 0; i < d->nrcpts; i++) {
		struct num a = { "" }, b = { "" }, e = { "" };
		const char *p[5] = { num(&a, d->rcpts[i].message), d->rcpts[i].rcpt,
				     num(&b, d->rcpts[i].code), d->rcpts[i].text,
				     num(&e, d->rcpts[i].at) };

		if (x(s, "INSERT INTO rcpt_results (message, rcpt, code, text, at)"
			 " VALUES ($1::bigint, $2, $3::int, $4, $5::bigint)",
		      5, p, err, what))
			goto fail;
	}
	for (i = 0; i < d->ncache; i++) {
		struct num a = { "" }, b = { "" }, n = { "" }, f = { "" };
		const struct rm_store_cache_row *k = &d->cache[i];
		const char *p[9] = { k->tree, k->sha, k->found ? "t" : "f", k->facts,
				     num(&a, k->fetched_at), k->expires_at ? num(&b, k->expires_at) : NULL,
				     num(&n, k->attempts),
				     k->first_failed_at ? num(&f, k->first_failed_at) : NULL, k->failure };

		if (x(s, "INSERT INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at,"
			 " attempts, first_failed_at, failure)"
			 " VALUES ($1, $2, $3::boolean, $4, $5::bigint, $6::bigint, $7::integer,"
			 " $8::bigint, $9)",
		      9, p, err, what))
			goto fail;
	}
	for (i = 0; i < RM_STORE_LISTEN_TABLES; i++) {
		const struct rm_store_listen_table *t = &rm_store_listen_tables[i];
		const struct rm_store_text_rows *rows = &d->listen[i];
		char sql[384];
		size_t row;

		/* constant names and placeholders of store.c's list; the cells are parameters */
		snprintf(sql, sizeof(sql), "INSERT INTO %s (%s) VALUES (%s)", t->name, t->columns,
			 t->pg_values);
		for (row = 0; row < rows->nrows; row++)
			if (x(s, sql, (int)t->ncols, (const char *const *)rows->cells + row * rows->ncols,
			      err, what))
				goto fail;
	}
	{
		const struct rm_store_listen_table *t = &rm_store_thread_table;
		char sql[256];
		size_t row;

		/* constant names of store.c's list; the cells are parameters */
		snprintf(sql, sizeof(sql), "INSERT INTO %s (%s) VALUES (%s)", t->name, t->columns,
			 t->pg_values);
		for (row = 0; row < d->threads.nrows; row++)
			if (x(s, sql, (int)t->ncols,
			      (const char *const *)d->threads.cells + row * d->threads.ncols, err, what))
				goto fail;
	}
	/* thread keys the source had no row for (it predates the table): their
	 * first message by id, as the schema step does */
	if (x(s, "INSERT INTO threads (key, message_id, created_at)"
		 " SELECT thread_key, message_id, created_at FROM messages m"
		 " WHERE thread_key IS NOT NULL"
		 " AND id = (SELECT min(id) FROM messages f WHERE f.thread_key = m.thread_key)"
		 " ON CONFLICT (key) DO NOTHING",
	      0, NULL, err, what))
		goto fail;
	/* new messages continue after the copied ids */
	if (x(s, "SELECT setval('messages_id_seq', greatest((SELECT max(id) FROM messages), 1))", 0,
	      NULL, err, what))
		goto fail;
	return commit(s, err, what);
fail:
	rollback(s);
	return -1;
}

/* ---- findings, inbound mail, opt-outs (as store_sqlite.c's) */

static const char *const finding_names[] = { "open", "invalid", "fixed", "dup" };

static enum rm_finding_state finding_from(const char *v)
{
	size_t i;

	for (i = 0; v && i < sizeof(finding_names) / sizeof(finding_names[0]); i++)
		if (!strcmp(v, finding_names[i]))
			return (enum rm_finding_state)i;
	return RM_FINDING_OPEN;
}

/* columns: key, tree, state, arg, updated_at */
#define FINDING_COLUMNS "key, tree, state, arg, updated_at"

static void finding_from_row(const PGresult *r, int row, void *finding)
{
	struct rm_store_finding *f = finding;

	f->key = get_text(r, row, 0);
	f->tree = get_text(r, row, 1);
	f->state = finding_from(PQgetisnull(r, row, 2) ? NULL : PQgetvalue(r, row, 2));
	f->arg = get_text(r, row, 3);
	f->updated_at = (time_t)get_ll(r, row, 4);
}

static int pgs_finding_get(struct rm_store *base, const char *key, struct rm_store_finding *f,
			   struct rm_error *err)
{
	struct pg_store *s = pg(base);

	if (s->before_findings)
		return 0;
	return read_one(s, "SELECT " FINDING_COLUMNS " FROM findings WHERE key = $1", 1, &key,
			finding_from_row, f, err, "reading findings");
}

static int pgs_findings(struct rm_store *base, struct rm_store_finding **out, size_t *n,
			struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows all = ROWS(finding_from_row, struct rm_store_finding);

	if (s->before_findings)
		return 0;
	/* COLLATE "C": the byte order SQLite uses, whatever the database's locale */
	if (read_all(s, "SELECT " FINDING_COLUMNS " FROM findings ORDER BY updated_at, key COLLATE \"C\"",
		     0, NULL, rows_add, &all, err, "reading findings"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

/* Inside the caller's transaction: create the finding open when new and
 * lock its row, so two processes change one finding one after the other. */
static int finding_lock(struct pg_store *s, const char *key, const char *tree, time_t now,
			struct rm_error *err, const char *what)
{
	struct num a = { "" };
	const char *p[3] = { key, tree, num(&a, now) };

	return x(s, "INSERT INTO findings (key, tree, state, updated_at)"
		    " VALUES ($1, $2, 'open', $3::bigint) ON CONFLICT (key) DO NOTHING",
		 3, p, err, what) ||
	       x(s, "SELECT 1 FROM findings WHERE key = $1 FOR UPDATE", 1, p, err, what);
}

/* Has this mail's command been applied to the finding already (a pass
 * that was killed before it remembered the mail)?  1 yes, 0 no, -1 error. */
static int event_done(struct pg_store *s, const char *key, const char *command,
		      const char *message_id, struct rm_error *err)
{
	const char *p[3] = { key, command, message_id };
	long count = 0;

	if (!message_id)
		return 0;
	if (count_q(s, "SELECT count(*) FROM finding_events WHERE key = $1 AND command = $2"
		       " AND message_id = $3",
		    3, p, &count, err, "reading a finding's events"))
		return -1;
	return count > 0;
}

/* The event and the new state, inside the caller's transaction (the row
 * locked by finding_lock). */
static int finding_write(struct pg_store *s, const char *key, const char *tree,
			 const char *state, const char *arg, const char *command, const char *by,
			 const char *message_id, bool changes_state, time_t now,
			 struct rm_error *err, const char *what)
{
	struct num a = { "" };
	const char *ev[7] = { key, command, by, message_id, state, changes_state ? "t" : "f",
			      num(&a, now) };
	const char *up[5] = { key, state, arg, a.b, tree };

	return x(s, "INSERT INTO finding_events (key, command, by_addr, message_id, prev_state,"
		    " prev_arg, state, at) SELECT key, $2, $3, $4,"
		    " CASE WHEN $6::boolean THEN state END, CASE WHEN $6::boolean THEN arg END,"
		    " $5, $7::bigint FROM findings WHERE key = $1",
		 7, ev, err, what) ||
	       x(s, "UPDATE findings SET state = $2, arg = $3, updated_at = $4::bigint,"
		    " tree = coalesce(tree, $5) WHERE key = $1",
		 5, up, err, what);
}

static int pgs_finding_set(struct rm_store *base, const char *key, const char *tree,
			   enum rm_finding_state state, const char *arg, const char *command,
			   const char *by, const char *message_id, time_t now,
			   struct rm_error *err)
{
	static const char what[] = "changing a finding";
	struct pg_store *s = pg(base);
	int done;

	if ((unsigned)state >= sizeof(finding_names) / sizeof(finding_names[0]))
		return rm_error_set(err, RM_ERR_INTERNAL, "state store: finding state %d", (int)state);
	if (begin(s, err, what))
		return -1;
	if (finding_lock(s, key, tree, now, err, what)) {
		rollback(s);
		return -1;
	}
	done = event_done(s, key, command, message_id, err);
	if (done) {
		rollback(s); /* also drops the row finding_lock may have created */
		return done < 0 ? -1 : 0;
	}
	if (finding_write(s, key, tree, finding_names[state], arg, command, by, message_id, true,
			  now, err, what)) {
		rollback(s);
		return -1;
	}
	return commit(s, err, what) ? -1 : 1;
}

static int pgs_finding_undo(struct rm_store *base, const char *key, const char *command,
			    const char *by, const char *message_id, time_t now,
			    struct rm_error *err)
{
	static const char what[] = "undoing a change of a finding";
	struct pg_store *s = pg(base);
	const char *p[1] = { key };
	char *prev = NULL, *prev_arg = NULL;
	const char *up[1];
	PGresult *r;
	int rc;

	if (begin(s, err, what))
		return -1;
	/* lock the finding's row when it exists (nothing to undo otherwise) */
	if (x(s, "SELECT 1 FROM findings WHERE key = $1 FOR UPDATE", 1, p, err, what)) {
		rollback(s);
		return -1;
	}
	rc = event_done(s, key, command, message_id, err);
	if (rc) {
		rollback(s);
		return rc < 0 ? -1 : 1; /* this mail's undo was done before */
	}
	r = q(s, "SELECT id, prev_state, prev_arg FROM finding_events WHERE key = $1"
		 " AND prev_state IS NOT NULL AND NOT undone ORDER BY id DESC LIMIT 1",
	      1, p, err, what);
	if (!r) {
		rollback(s);
		return -1;
	}
	if (PQntuples(r) == 0) {
		PQclear(r);
		rollback(s);
		return 0;
	}
	up[0] = PQgetvalue(r, 0, 0);
	prev = get_text(r, 0, 1);
	prev_arg = get_text(r, 0, 2);
	rc = x(s, "UPDATE finding_events SET undone = true WHERE id = $1::bigint", 1, up, err,
	       what) ||
	     finding_write(s, key, NULL, prev, prev_arg, command, by, message_id, false, now, err,
			   what);
	PQclear(r);
	free(prev);
	free(prev_arg);
	if (rc) {
		rollback(s);
		return -1;
	}
	return commit(s, err, what) ? -1 : 1;
}

static void event_from_row(const PGresult *r, int row, void *event)
{
	struct rm_store_event *e = event;

	e->command = get_text(r, row, 0);
	e->by = get_text(r, row, 1);
	e->message_id = get_text(r, row, 2);
	e->state = finding_from(PQgetisnull(r, row, 3) ? NULL : PQgetvalue(r, row, 3));
	e->undone = !strcmp(PQgetvalue(r, row, 4), "t");
	e->at = (time_t)get_ll(r, row, 5);
}

static int pgs_finding_events(struct rm_store *base, const char *key,
			      struct rm_store_event **out, size_t *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows all = ROWS(event_from_row, struct rm_store_event);

	if (s->before_findings)
		return 0;
	if (read_all(s, "SELECT command, by_addr, message_id, state, undone, at FROM finding_events"
			" WHERE key = $1 ORDER BY id",
		     1, &key, rows_add, &all, err, "reading a finding's events"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

static int pgs_inbound_seen(struct rm_store *base, const char *source, const char *id,
			    bool *seen, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	const char *p[2] = { source, id };
	long count = 0;

	if (s->before_findings)
		return 0;
	if (count_q(s, "SELECT count(*) FROM inbound WHERE source = $1 AND id = $2", 2, p, &count,
		    err, "reading the inbound mail read"))
		return -1;
	*seen = count > 0;
	return 0;
}

static int pgs_inbound_mark(struct rm_store *base, const char *source, const char *id,
			    const char *sender, const char *verdict, time_t now,
			    struct rm_error *err)
{
	struct num a = { "" };
	const char *p[5] = { source, id, sender, verdict, num(&a, now) };
	PGresult *r = q(pg(base),
			"INSERT INTO inbound (source, id, sender, verdict, at)"
			" VALUES ($1, $2, lower($3), $4, $5::bigint) ON CONFLICT (source, id) DO NOTHING",
			5, p, err, "recording inbound mail");
	int stored;

	if (!r)
		return -1;
	stored = changed_rows(r) > 0;
	PQclear(r);
	return stored;
}

static int pgs_inbound_count_since(struct rm_store *base, const char *sender, time_t since,
				   long *count, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct num a = { "" };
	const char *p[2] = { sender, num(&a, since) };

	if (s->before_findings)
		return 0;
	return count_q(s, "SELECT count(*) FROM inbound WHERE sender = lower($1) AND at >= $2::bigint",
		       2, p, count, err, "counting inbound mail");
}

static int pgs_inbound_newest(struct rm_store *base, const char *source, time_t *at,
			      struct rm_error *err)
{
	struct pg_store *s = pg(base);
	const char *p[1] = { source };
	long v = 0;

	if (s->before_findings)
		return 0;
	if (count_q(s, "SELECT coalesce(max(at), 0) FROM inbound WHERE source = $1", 1, p, &v, err,
		    "reading the inbound mail read"))
		return -1;
	*at = (time_t)v;
	return 0;
}

static int pgs_point_add(struct rm_store *base, const char *key, const char *test,
			 const char *commit, const char *role, const char *label, const char *vals,
			 time_t at, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[7] = { key, test, commit, role, vals, num(&a, at), label };
	PGresult *r = q(pg(base),
			"INSERT INTO finding_points (key, test, commit_sha, role, vals, at, label)"
			" VALUES ($1, $2, $3, $4, $5, $6::bigint, $7)"
			" ON CONFLICT (key, commit_sha) DO NOTHING",
			7, p, err, "keeping a finding's values");
	int stored;

	if (!r)
		return -1;
	stored = changed_rows(r) > 0;
	PQclear(r);
	return stored;
}

static void point_from_row(const PGresult *r, int row, void *point)
{
	struct rm_store_point *p = point;

	p->commit = get_text(r, row, 0);
	p->role = get_text(r, row, 1);
	p->vals = get_text(r, row, 2);
	p->at = (time_t)get_ll(r, row, 3);
	p->label = get_text(r, row, 4);
}

static int pgs_points(struct rm_store *base, const char *key, struct rm_store_point **out,
		      size_t *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows all = ROWS(point_from_row, struct rm_store_point);

	if (s->before_points)
		return 0;
	if (read_all(s, s->before_labels ?
				"SELECT commit_sha, role, vals, at, NULL FROM finding_points"
				" WHERE key = $1 ORDER BY id" :
				"SELECT commit_sha, role, vals, at, label FROM finding_points"
				" WHERE key = $1 ORDER BY id",
		     1, &key, rows_add, &all, err, "reading a finding's values"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

/* read_all's row for two columns into two growing arrays of char * */
static void two_texts_add(const PGresult *r, int row, void *ctx)
{
	struct rows **both = ctx;

	rows_add(r, row, both[0]);
	rows_add(r, row, both[1]);
}

static int pgs_point_findings(struct rm_store *base, const char *prefix, char ***keys,
			      char ***tests, size_t *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows k = ROWS(text_from_row, char *), t = ROWS(text2_from_row, char *);
	struct rows *both[2] = { &k, &t };

	if (s->before_points)
		return 0;
	if (read_all(s, "SELECT DISTINCT key, test FROM finding_points"
			" WHERE substr(test, 1, length($1)) = $1 ORDER BY key",
		     1, &prefix, two_texts_add, both, err, "reading findings' values"))
		return -1;
	*keys = k.items;
	*tests = t.items;
	*n = k.n;
	return 0;
}

static int pgs_mention_add(struct rm_store *base, const char *key, const char *message_id,
			   const char *by_key, time_t at, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[4] = { key, message_id, by_key, num(&a, at) };
	PGresult *r = q(pg(base),
			"INSERT INTO finding_mentions (key, message_id, by_key, at)"
			" VALUES ($1, $2, $3, $4::bigint) ON CONFLICT (key, message_id) DO NOTHING",
			4, p, err, "keeping a later report's mention");
	int stored;

	if (!r)
		return -1;
	stored = changed_rows(r) > 0;
	PQclear(r);
	return stored;
}

static void mention_from_row(const PGresult *r, int row, void *mention)
{
	struct rm_store_mention *m = mention;

	m->message_id = get_text(r, row, 0);
	m->by_key = get_text(r, row, 1);
	m->at = (time_t)get_ll(r, row, 2);
}

static int pgs_mentions(struct rm_store *base, const char *key, struct rm_store_mention **out,
			size_t *n, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	struct rows all = ROWS(mention_from_row, struct rm_store_mention);

	if (s->before_mentions)
		return 0;
	if (read_all(s, "SELECT message_id, by_key, at FROM finding_mentions WHERE key = $1"
			" ORDER BY at, message_id",
		     1, &key, rows_add, &all, err, "reading the later reports' mentions"))
		return -1;
	*out = all.items;
	*n = all.n;
	return 0;
}

static int pgs_optout_add(struct rm_store *base, const char *addr, const char *scope,
			  const char *message_id, time_t now, struct rm_error *err)
{
	struct num a = { "" };
	const char *p[4] = { addr, scope, message_id, num(&a, now) };

	return x(pg(base),
		 "INSERT INTO optouts (addr, scope, message_id, at)"
		 " VALUES (lower($1), $2, $3, $4::bigint) ON CONFLICT (addr, scope) DO NOTHING",
		 4, p, err, "recording an opt-out");
}

static int pgs_optout_check(struct rm_store *base, const char *addr, const char *tree,
			    bool *out, struct rm_error *err)
{
	struct pg_store *s = pg(base);
	const char *p[2] = { addr, tree ? tree : "*" };
	long count = 0;

	if (s->before_findings)
		return 0;
	if (count_q(s, "SELECT count(*) FROM optouts WHERE addr = lower($1)"
		       " AND (scope = '*' OR scope = $2)",
		    2, p, &count, err, "reading opt-outs"))
		return -1;
	*out = count > 0;
	return 0;
}

static int pgs_optout_count(struct rm_store *base, long *count, struct rm_error *err)
{
	struct pg_store *s = pg(base);

	if (s->before_findings)
		return 0;
	return count_q(s, "SELECT count(DISTINCT addr) FROM optouts", 0, NULL, count, err,
		       "counting opt-outs");
}

static const struct rm_store_ops pg_ops = {
	.name = "postgresql",
	.close = pgs_close,
	.schema_version = pgs_schema_version,
	.set_durability = pgs_set_durability,
	.cache_get = pgs_cache_get,
	.cache_put = pgs_cache_put,
	.cache_miss_get = pgs_cache_miss_get,
	.cache_miss_put = pgs_cache_miss_put,
	.thread_first = pgs_thread_first,
	.threads_ending = pgs_threads_ending,
	.report_get = pgs_report_get,
	.enqueue = pgs_enqueue,
	.recover = pgs_recover,
	.claim_due = pgs_claim_due,
	.record = pgs_record,
	.defer = pgs_defer,
	.sent_since = pgs_sent_since,
	.rcpt_count_since = pgs_rcpt_count_since,
	.list = pgs_list,
	.get = pgs_get,
	.set_state = pgs_set_state,
	.results = pgs_results,
	.renew = pgs_renew,
	.claim_archive = pgs_claim_archive,
	.release_archive = pgs_release_archive,
	.counts = pgs_counts,
	.dump = pgs_dump,
	.load = pgs_load,
	.finding_get = pgs_finding_get,
	.finding_set = pgs_finding_set,
	.finding_undo = pgs_finding_undo,
	.findings = pgs_findings,
	.finding_events = pgs_finding_events,
	.inbound_seen = pgs_inbound_seen,
	.inbound_mark = pgs_inbound_mark,
	.inbound_count_since = pgs_inbound_count_since,
	.inbound_newest = pgs_inbound_newest,
	.point_add = pgs_point_add,
	.points = pgs_points,
	.point_findings = pgs_point_findings,
	.mention_add = pgs_mention_add,
	.mentions = pgs_mentions,
	.optout_add = pgs_optout_add,
	.optout_check = pgs_optout_check,
	.optout_count = pgs_optout_count,
};
