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
};

static int db_error(struct rm_outbox *ob, struct rm_error *err, const char *what)
{
	int code = sqlite3_errcode(ob->db);
	enum rm_error_kind kind = (code == SQLITE_BUSY || code == SQLITE_LOCKED ||
				   code == SQLITE_FULL || code == SQLITE_IOERR) ?
					  RM_ERR_TEMP :
					  RM_ERR_INTERNAL;

	return rm_error_set(err, kind, "state database '%s': %s: %s", ob->path, what,
			    sqlite3_errmsg(ob->db));
}

static int exec(struct rm_outbox *ob, const char *sql, struct rm_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(ob->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		rm_error_set(err, RM_ERR_INTERNAL, "state database '%s': %s", ob->path,
			     msg ? msg : sqlite3_errmsg(ob->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
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
