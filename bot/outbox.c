/* outbox.c - see outbox.h. */
#include "outbox.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strbuf.h"

struct rm_outbox {
	sqlite3 *db;
	char *path;
	bool readonly;
};

/* Schema migrations: index i brings the schema from version i to i + 1.
 * Never edit a released step; append a new one. */
static const char *const migrations[] = {
	/* 1: the commit-facts cache */
	"CREATE TABLE commit_cache ("
	"  tree TEXT NOT NULL,"
	"  sha TEXT NOT NULL,"
	"  found INTEGER NOT NULL,"
	"  facts TEXT,"             /* JSON, see gitweb.c */
	"  fetched_at INTEGER NOT NULL,"
	"  expires_at INTEGER,"     /* NULL: never (found commits are immutable) */
	"  PRIMARY KEY (tree, sha)"
	");",
	/* 2: reports seen and the messages queue */
	"CREATE TABLE reports ("
	"  dedupe_key TEXT PRIMARY KEY,"
	"  message_id TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL"
	");"
	"CREATE TABLE messages ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  dedupe_key TEXT,"
	"  tree TEXT,"
	"  subject TEXT,"
	"  mail_from TEXT NOT NULL,"
	"  rcpts TEXT NOT NULL,"        /* recipients still to deliver, one per line */
	"  bytes BLOB NOT NULL,"        /* the final message, CRLF */
	"  state TEXT NOT NULL CHECK (state IN ('held','queued','sending','sent','failed')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  next_attempt INTEGER NOT NULL,"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL,"
	"  sent_at INTEGER"
	");"
	"CREATE INDEX messages_due ON messages (state, next_attempt);"
	"CREATE TABLE rcpt_results ("
	"  message INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,"
	"  rcpt TEXT NOT NULL,"
	"  code INTEGER NOT NULL,"
	"  text TEXT,"
	"  at INTEGER NOT NULL,"
	"  PRIMARY KEY (message, rcpt)"
	");",
	/* 3: threads: follow-ups reply to the first report on the same finding */
	"ALTER TABLE messages ADD COLUMN thread_key TEXT;"
	"ALTER TABLE messages ADD COLUMN refs TEXT;" /* the References chain, one id per line */
	"CREATE INDEX messages_thread ON messages (thread_key, id);",
};

/* busy, locked, full or I/O: another process or the disk; try later */
static enum rm_error_kind kind_of(int rc)
{
	int base = rc & 0xff;

	return (base == SQLITE_BUSY || base == SQLITE_LOCKED || base == SQLITE_FULL ||
		base == SQLITE_IOERR) ?
		       RM_ERR_TEMP :
		       RM_ERR_INTERNAL;
}

/* SQLite's message (msg, or the connection's last one), with the system
 * error behind an I/O failure ("disk I/O error (No space left on device)"),
 * into buf. */
static const char *db_errtext(struct rm_outbox *ob, const char *msg, char *buf, size_t n)
{
	int sys = sqlite3_system_errno(ob->db);

	if (!msg)
		msg = sqlite3_errmsg(ob->db);
	if (sys && (sqlite3_extended_errcode(ob->db) & 0xff) == SQLITE_IOERR)
		snprintf(buf, n, "%s (%s)", msg, strerror(sys));
	else
		snprintf(buf, n, "%s", msg);
	return buf;
}

static int db_error(struct rm_outbox *ob, struct rm_error *err, const char *what)
{
	char text[512];

	return rm_error_set(err, kind_of(sqlite3_errcode(ob->db)), "state database '%s': %s: %s",
			    ob->path, what, db_errtext(ob, NULL, text, sizeof(text)));
}

static int exec(struct rm_outbox *ob, const char *sql, struct rm_error *err)
{
	char *msg = NULL;

	int rc = sqlite3_exec(ob->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		char text[512];

		rm_error_set(err, kind_of(rc), "state database '%s': %s", ob->path,
			     db_errtext(ob, msg, text, sizeof(text)));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Runs `sql` where a failure changes nothing for the caller: the rollback
 * after an error already recorded, or a pragma that is only a speed-up. */
static void exec_quiet(struct rm_outbox *ob, const char *sql)
{
	struct rm_error ignore;

	exec(ob, sql, &ignore);
}

int rm_outbox_schema_version(struct rm_outbox *ob)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(ob->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int migrate(struct rm_outbox *ob, struct rm_error *err)
{
	int v = rm_outbox_schema_version(ob);
	int want = (int)(sizeof(migrations) / sizeof(migrations[0]));

	if (v < 0)
		return db_error(ob, err, "reading the schema version");
	if (v > want)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "state database '%s' has schema version %d, newer than this robotmail (%d)",
				    ob->path, v, want);
	for (; v < want; v++) {
		char pragma[64];

		if (exec(ob, "BEGIN IMMEDIATE", err))
			return -1;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if (exec(ob, migrations[v], err) || exec(ob, pragma, err)) {
			exec(ob, "ROLLBACK", err);
			return -1;
		}
		if (exec(ob, "COMMIT", err))
			return -1;
	}
	return 0;
}

int rm_outbox_open(struct rm_outbox **obp, const char *path, enum rm_outbox_mode mode,
		   struct rm_error *err)
{
	struct rm_outbox *ob;
	struct stat st;
	int flags;

	*obp = NULL;
	if (mode == RM_OUTBOX_READONLY && stat(path, &st) && errno == ENOENT)
		return 0;
	ob = rm_xcalloc(1, sizeof(*ob));
	ob->path = rm_xstrdup(path);
	ob->readonly = mode == RM_OUTBOX_READONLY;
	flags = ob->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &ob->db, flags | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		db_error(ob, err, "cannot open");
		rm_outbox_close(ob);
		return -1;
	}
	sqlite3_busy_timeout(ob->db, 10000);
	if (!ob->readonly) {
		if (exec(ob, "PRAGMA journal_mode = WAL", err) ||
		    exec(ob, "PRAGMA synchronous = FULL", err) || migrate(ob, err)) {
			rm_outbox_close(ob);
			return -1;
		}
	} else if (rm_outbox_schema_version(ob) < 1) {
		/* an empty or foreign file: behave as an empty cache */
		rm_outbox_close(ob);
		return 0;
	}
	*obp = ob;
	return 0;
}

void rm_outbox_close(struct rm_outbox *ob)
{
	if (!ob)
		return;
	sqlite3_close(ob->db);
	free(ob->path);
	free(ob);
}

int rm_outbox_cache_get(struct rm_outbox *ob, const char *tree, const char *sha, time_t now,
			char **json, bool *found, struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc, hit = 0;

	*json = NULL;
	*found = false;
	if (!ob)
		return 0;
	if (sqlite3_prepare_v2(ob->db,
			       "SELECT found, facts, expires_at FROM commit_cache WHERE tree = ? AND sha = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "reading the commit cache");
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		bool expired = sqlite3_column_type(st, 2) != SQLITE_NULL &&
			       sqlite3_column_int64(st, 2) <= (sqlite3_int64)now;

		if (!expired) {
			const unsigned char *t = sqlite3_column_text(st, 1);

			*found = sqlite3_column_int(st, 0) != 0;
			*json = t ? rm_xstrdup((const char *)t) : NULL;
			hit = 1;
		}
	} else if (rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_error(ob, err, "reading the commit cache");
	}
	sqlite3_finalize(st);
	return hit;
}

int rm_outbox_cache_put(struct rm_outbox *ob, const char *tree, const char *sha, bool found,
			const char *json, time_t now, long ttl, struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!ob || ob->readonly)
		return 0;
	if (sqlite3_prepare_v2(ob->db,
			       "INSERT OR REPLACE INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at)"
			       " VALUES (?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "writing the commit cache");
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, found);
	if (json)
		sqlite3_bind_text(st, 4, json, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)now);
	if (found)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_int64(st, 6, (sqlite3_int64)now + ttl);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(ob, err, "writing the commit cache");
	return 0;
}

/* ================================================================ messages */

static const char *const state_names[] = { "held", "queued", "sending", "sent", "failed" };

const char *rm_msg_state_name(enum rm_msg_state s)
{
	return (size_t)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

static enum rm_msg_state state_from(const char *s)
{
	size_t i;

	for (i = 0; s && i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (!strcmp(s, state_names[i]))
			return (enum rm_msg_state)i;
	return RM_MSG_FAILED;
}

void rm_outbox_msg_free(struct rm_outbox_msg *m)
{
	size_t i;

	free(m->thread_key);
	free(m->refs);
	free(m->message_id);
	free(m->dedupe_key);
	free(m->tree);
	free(m->subject);
	free(m->mail_from);
	for (i = 0; i < m->nrcpts; i++)
		free(m->rcpts[i]);
	free(m->rcpts);
	free(m->bytes);
	free(m->last_error);
	memset(m, 0, sizeof(*m));
}

void rm_outbox_msgs_free(struct rm_outbox_msg *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rm_outbox_msg_free(&v[i]);
	free(v);
}

static char *join_lines(char **v, size_t n)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		rm_sb_adds(&sb, v[i]);
		rm_sb_addc(&sb, '\n');
	}
	return rm_sb_detach(&sb, NULL);
}

static void split_lines(const char *s, char ***v, size_t *n)
{
	*v = NULL;
	*n = 0;
	while (s && *s) {
		size_t l = strcspn(s, "\n");

		if (l) {
			*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
			(*v)[(*n)++] = rm_xstrndup(s, l);
		}
		s += l;
		if (*s)
			s++;
	}
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? rm_xstrdup((const char *)t) : NULL;
}

#define MSG_COLUMNS                                                                        \
	"id, message_id, dedupe_key, tree, subject, mail_from, rcpts, bytes, state, attempts," \
	" last_error, next_attempt, created_at, sent_at"

static void msg_from_row(sqlite3_stmt *st, struct rm_outbox_msg *m)
{
	char *rcpts;
	const void *b;

	memset(m, 0, sizeof(*m));
	m->id = sqlite3_column_int64(st, 0);
	m->message_id = col_text(st, 1);
	m->dedupe_key = col_text(st, 2);
	m->tree = col_text(st, 3);
	m->subject = col_text(st, 4);
	m->mail_from = col_text(st, 5);
	rcpts = col_text(st, 6);
	split_lines(rcpts, &m->rcpts, &m->nrcpts);
	free(rcpts);
	b = sqlite3_column_blob(st, 7);
	m->len = (size_t)sqlite3_column_bytes(st, 7);
	m->bytes = rm_xmalloc(m->len + 1);
	if (m->len)
		memcpy(m->bytes, b, m->len);
	m->bytes[m->len] = '\0';
	{
		char *s = col_text(st, 8);

		m->state = state_from(s);
		free(s);
	}
	m->attempts = sqlite3_column_int(st, 9);
	m->last_error = col_text(st, 10);
	m->next_attempt = (time_t)sqlite3_column_int64(st, 11);
	m->created_at = (time_t)sqlite3_column_int64(st, 12);
	m->sent_at = (time_t)sqlite3_column_int64(st, 13);
}

int rm_outbox_report_seen(struct rm_outbox *ob, const char *key, bool *seen, struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*seen = false;
	if (sqlite3_prepare_v2(ob->db, "SELECT 1 FROM reports WHERE dedupe_key = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(ob, err, "reading the reports seen");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(ob, err, "reading the reports seen");
	*seen = rc == SQLITE_ROW;
	return 0;
}

int rm_outbox_report_get(struct rm_outbox *ob, const char *key, char **message_id, time_t *at,
			 struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*message_id = NULL;
	*at = 0;
	if (!ob || !key)
		return 0;
	if (sqlite3_prepare_v2(ob->db, "SELECT message_id, created_at FROM reports WHERE dedupe_key = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "reading the reports seen");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*message_id = col_text(st, 0);
		*at = (time_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(ob, err, "reading the reports seen");
	return rc == SQLITE_ROW;
}

void rm_outbox_fast_records(struct rm_outbox *ob)
{
	exec_quiet(ob, "PRAGMA synchronous = NORMAL");
}

int rm_outbox_enqueue(struct rm_outbox *ob, const struct rm_outbox_msg *m, time_t now,
		      struct rm_error *err)
{
	sqlite3_stmt *st = NULL;
	char *rcpts;
	int rc;

	if (exec(ob, "PRAGMA synchronous = FULL", err))
		return -1;
	if (exec(ob, "BEGIN IMMEDIATE", err))
		return -1;
	if (m->dedupe_key) {
		if (sqlite3_prepare_v2(ob->db,
				       "INSERT OR IGNORE INTO reports (dedupe_key, message_id, created_at) VALUES (?, ?, ?)",
				       -1, &st, NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_text(st, 1, m->dedupe_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, m->message_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_changes(ob->db) == 0) {
			exec(ob, "ROLLBACK", err);
			return 0; /* seen before: never twice */
		}
	}
	if (sqlite3_prepare_v2(ob->db,
			       "INSERT OR IGNORE INTO messages (message_id, dedupe_key, tree, subject, mail_from,"
			       " rcpts, bytes, state, attempts, next_attempt, created_at, updated_at,"
			       " thread_key, refs)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 12, m->thread_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, m->refs, -1, SQLITE_STATIC);
	rcpts = join_lines(m->rcpts, m->nrcpts);
	sqlite3_bind_text(st, 1, m->message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->dedupe_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, m->subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, m->mail_from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, rcpts, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 7, m->bytes, (int)m->len, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, m->state == RM_MSG_HELD ? "held" : "queued", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)now);
	free(rcpts);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	if (sqlite3_changes(ob->db) == 0) {
		exec(ob, "ROLLBACK", err);
		return 0;
	}
	if (exec(ob, "COMMIT", err))
		return -1;
	return 1;
fail:
	db_error(ob, err, "queueing a message");
	if (st)
		sqlite3_finalize(st);
	exec_quiet(ob, "ROLLBACK");
	return -1;
}

int rm_outbox_recover(struct rm_outbox *ob, struct rm_error *err)
{
	if (exec(ob, "UPDATE messages SET state = 'queued' WHERE state = 'sending'", err))
		return -1;
	return sqlite3_changes(ob->db);
}

int rm_outbox_claim_due(struct rm_outbox *ob, time_t now, size_t limit,
			struct rm_outbox_msg **out, size_t *n, struct rm_error *err)
{
	sqlite3_stmt *st;
	struct rm_outbox_msg *v = NULL;
	size_t cnt = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	if (exec(ob, "BEGIN IMMEDIATE", err))
		return -1;
	if (sqlite3_prepare_v2(ob->db,
			       "SELECT " MSG_COLUMNS " FROM messages WHERE state = 'queued' AND next_attempt <= ?"
			       " ORDER BY next_attempt, id LIMIT ?",
			       -1, &st, NULL) != SQLITE_OK) {
		db_error(ob, err, "reading the queue");
		exec(ob, "ROLLBACK", err);
		return -1;
	}
	sqlite3_bind_int64(st, 1, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = rm_xrealloc(v, (cnt + 1) * sizeof(*v));
		msg_from_row(st, &v[cnt++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;
	for (i = 0; i < cnt; i++) {
		if (sqlite3_prepare_v2(ob->db,
				       "UPDATE messages SET state = 'sending', updated_at = ? WHERE id = ?", -1,
				       &st, NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)now);
		sqlite3_bind_int64(st, 2, v[i].id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			goto fail;
		v[i].state = RM_MSG_SENDING;
	}
	if (exec(ob, "COMMIT", err)) {
		rm_outbox_msgs_free(v, cnt);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	db_error(ob, err, "claiming due messages");
	exec_quiet(ob, "ROLLBACK");
	rm_outbox_msgs_free(v, cnt);
	return -1;
}

int rm_outbox_record(struct rm_outbox *ob, long long id, const struct rm_rcpt_result *res,
		     size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		     struct rm_error *err)
{
	sqlite3_stmt *st = NULL;
	char **pending = NULL;
	size_t npending = 0, i;
	bool any_accepted = false;
	const char *state;
	char *rcpts;
	int rc;

	if (exec(ob, "BEGIN IMMEDIATE", err))
		return -1;
	for (i = 0; i < n; i++) {
		int c = res[i].code;

		if (c >= 200 && c < 300)
			any_accepted = true;
		if (c >= 200 && c < 300 ? false : c >= 500 && c < 600 ? false : true) {
			pending = rm_xrealloc(pending, (npending + 1) * sizeof(char *));
			pending[npending++] = (char *)res[i].rcpt;
		}
		if (!c)
			continue;
		if (sqlite3_prepare_v2(ob->db,
				       "INSERT OR REPLACE INTO rcpt_results (message, rcpt, code, text, at) VALUES (?, ?, ?, ?, ?)",
				       -1, &st, NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, res[i].rcpt, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, c);
		sqlite3_bind_text(st, 4, res[i].text, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)now);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		st = NULL;
		if (rc != SQLITE_DONE)
			goto fail;
	}
	{
		/* was anything accepted in an earlier attempt? */
		if (sqlite3_prepare_v2(ob->db,
				       "SELECT count(*) FROM rcpt_results WHERE message = ? AND code BETWEEN 200 AND 299",
				       -1, &st, NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
			any_accepted = true;
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!npending || give_up)
		state = any_accepted ? "sent" : "failed"; /* given up: the rest never get it */
	else
		state = "queued";
	rcpts = join_lines(pending, npending);
	free(pending);
	if (sqlite3_prepare_v2(ob->db,
			       "UPDATE messages SET state = ?, rcpts = ?, attempts = attempts + 1, last_error = ?,"
			       " next_attempt = ?, updated_at = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END"
			       " WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		free(rcpts);
		goto fail;
	}
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, rcpts, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, error, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)retry_at);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)now);
	sqlite3_bind_text(st, 6, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 8, id);
	free(rcpts);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	return exec(ob, "COMMIT", err);
fail:
	db_error(ob, err, "recording a delivery attempt");
	if (st)
		sqlite3_finalize(st);
	exec_quiet(ob, "ROLLBACK");
	return -1;
}

int rm_outbox_list(struct rm_outbox *ob, struct rm_outbox_msg **out, size_t *n,
		   struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(ob->db, "SELECT " MSG_COLUMNS " FROM messages ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(ob, err, "listing the queue");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = rm_xrealloc(*out, (*n + 1) * sizeof(**out));
		msg_from_row(st, &(*out)[(*n)++]);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(ob, err, "listing the queue");
}

int rm_outbox_get(struct rm_outbox *ob, const char *which, struct rm_outbox_msg *m,
		  struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(ob->db,
			       "SELECT " MSG_COLUMNS " FROM messages WHERE CAST(id AS TEXT) = ?1 OR message_id = ?1"
			       " OR '<' || message_id || '>' = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "reading the queue");
	sqlite3_bind_text(st, 1, which, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		msg_from_row(st, m);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(ob, err, "reading the queue");
	return rc == SQLITE_ROW;
}

int rm_outbox_set_state(struct rm_outbox *ob, const char *which, const char *action, time_t now,
			struct rm_error *err)
{
	static const struct {
		const char *action, *sql;
	} acts[] = {
		{ "retry", "UPDATE messages SET state = 'queued', next_attempt = ?2, updated_at = ?2"
			   " WHERE (CAST(id AS TEXT) = ?1 OR message_id = ?1) AND state IN ('queued','failed','held')"
			   " AND rcpts != ''" },
		{ "release", "UPDATE messages SET state = 'queued', next_attempt = ?2, updated_at = ?2"
			     " WHERE (CAST(id AS TEXT) = ?1 OR message_id = ?1) AND state = 'held'" },
		{ "hold", "UPDATE messages SET state = 'held', updated_at = ?2"
			  " WHERE (CAST(id AS TEXT) = ?1 OR message_id = ?1) AND state = 'queued'" },
		{ "drop", "UPDATE messages SET state = 'failed', last_error = 'dropped by the operator',"
			  " updated_at = ?2 WHERE (CAST(id AS TEXT) = ?1 OR message_id = ?1)"
			  " AND state IN ('queued','held','failed')" },
	};
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(acts[i].action, action))
			break;
	if (i == sizeof(acts) / sizeof(acts[0]))
		return rm_error_set(err, RM_ERR_USAGE, "queue: unknown action '%s'", action);
	if (sqlite3_prepare_v2(ob->db, acts[i].sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "changing the queue");
	sqlite3_bind_text(st, 1, which, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(ob, err, "changing the queue");
	return sqlite3_changes(ob->db) > 0;
}

int rm_outbox_sent_since(struct rm_outbox *ob, time_t since, long *count, struct rm_error *err)
{
	sqlite3_stmt *st;

	*count = 0;
	if (sqlite3_prepare_v2(ob->db, "SELECT count(*) FROM messages WHERE state = 'sent' AND sent_at >= ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "counting sent messages");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)since);
	if (sqlite3_step(st) == SQLITE_ROW)
		*count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int rm_outbox_rcpt_count_since(struct rm_outbox *ob, const char *rcpt, time_t since, long *count,
			       struct rm_error *err)
{
	sqlite3_stmt *st;

	*count = 0;
	if (sqlite3_prepare_v2(ob->db,
			       "SELECT count(*) FROM rcpt_results WHERE rcpt = ? COLLATE NOCASE"
			       " AND code BETWEEN 200 AND 299 AND at >= ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "counting messages per list");
	sqlite3_bind_text(st, 1, rcpt, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)since);
	if (sqlite3_step(st) == SQLITE_ROW)
		*count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int rm_outbox_defer(struct rm_outbox *ob, long long id, time_t until, const char *why,
		    struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(ob->db,
			       "UPDATE messages SET state = 'queued', next_attempt = ?, last_error = ? WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "deferring a message");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)until);
	sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(ob, err, "deferring a message");
}

int rm_outbox_thread_first(struct rm_outbox *ob, const char *thread_key, char **message_id,
			   char **subject, char **refs, struct rm_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*message_id = *subject = *refs = NULL;
	if (!ob || !thread_key)
		return 0;
	if (sqlite3_prepare_v2(ob->db,
			       "SELECT message_id, subject, refs FROM messages WHERE thread_key = ? ORDER BY id LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(ob, err, "reading threads");
	sqlite3_bind_text(st, 1, thread_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*message_id = col_text(st, 0);
		*subject = col_text(st, 1);
		*refs = col_text(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(ob, err, "reading threads");
	return rc == SQLITE_ROW;
}
