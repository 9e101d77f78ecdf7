/* store_sqlite.c - the SQLite backend of store.h.
 *
 * One file (WAL mode, a busy timeout of 10 s, versioned schema migrations
 * applied in one transaction each).  Read-only opens (--dry-run) change
 * nothing on disk: a read-only open of a WAL database would create its -wal
 * and -shm files, so the file is opened `immutable=1` (no locks, no side
 * files); when a -wal with content exists (a run crashed, or one is running)
 * immutable would not see it, so the database and its -wal are copied into a
 * private temporary directory and the copy is read instead (a snapshot),
 * removed again at close.  Neither takes a lock: a dry run that overlaps a
 * run's checkpoint may read a torn page (SQLite then reports a malformed
 * database and the dry run fails; it never writes).  Good enough for a
 * preview; `run` itself always opens read-write with locking.
 *
 * Reads: read_one(SQL, params, row, ctx) for one row or none;
 * read_all(SQL, params, row, ctx) calls row(st, ctx) for every row.  For a
 * list, pass rows_add and a `struct rows` made with ROWS(fill, element
 * type): each row appends one zeroed element that fill(st, element) sets,
 * and the caller takes .items and .n (also after an error: free them):
 *
 *     struct rows all = ROWS(point_from_row, struct rm_store_point);
 *     rc = read_all(s, "SELECT ... WHERE key = ?", 1, &key, rows_add, &all, err, what);
 *     *out = all.items; *n = all.n;
 *
 * Parameters are text (NULL: SQL NULL); a number goes as num()'s decimal
 * text with CAST(?N AS INTEGER) in the SQL. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "dynlib_sqlite.h"
#include "fileutil.h"
#include "strbuf.h"

struct sq_store {
	struct rm_store base; /* first: what rm_store_* see */
	sqlite3 *db;
	char *path;           /* as configured, for messages */
	char *snapshot_dir;   /* a read-only snapshot's private copy, removed at close */
	bool before_points;   /* read-only at a schema before 8: no finding_points */
	bool before_labels;   /* read-only at a schema before 9: finding_points has no label */
	bool before_mentions; /* read-only at a schema before 10: no finding_mentions */
	bool before_findings; /* read-only at a schema before 5: no findings, inbound
			       * mail or opt-outs yet (reads find none) */
	bool before_threads;  /* read-only before the `threads` table: a thread's
			       * first message is its thread key's first by id */
	bool before_backoff;  /* read-only at a schema before 7: commit_cache has no
			       * attempts, first_failed_at or failure (dumps give 0/NULL) */
	bool before_key_rev;  /* read-only at a schema before 11: threads has no key_rev */
};

static struct sq_store *sq(struct rm_store *st)
{
	return (struct sq_store *)st;
}

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
	/* 4: several hosts (store_pg.c's step 4, so both backends have one
	 * schema): leases on messages and archive claims.  Unused here: with
	 * SQLite `run` holds the lock file and claims need no lease. */
	"ALTER TABLE messages ADD COLUMN lease_host TEXT;"
	"ALTER TABLE messages ADD COLUMN lease_pid INTEGER;"
	"ALTER TABLE messages ADD COLUMN lease_until INTEGER;"
	"CREATE TABLE archive_claims ("
	"  name TEXT PRIMARY KEY,"
	"  host TEXT NOT NULL,"
	"  pid INTEGER NOT NULL,"
	"  lease_until INTEGER NOT NULL"
	");",
	/* 5: findings and their commands, inbound mail read, opt-outs by mail */
	"CREATE TABLE findings ("
	"  key TEXT PRIMARY KEY,"       /* the thread key */
	"  tree TEXT,"
	"  state TEXT NOT NULL CHECK (state IN ('open','invalid','fixed','dup')),"
	"  arg TEXT,"
	"  updated_at INTEGER NOT NULL"
	");"
	"CREATE TABLE finding_events ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL REFERENCES findings (key),"
	"  command TEXT NOT NULL,"
	"  by_addr TEXT,"
	"  message_id TEXT,"
	"  prev_state TEXT,"            /* NULL: the event changed no state (an undo) */
	"  prev_arg TEXT,"
	"  state TEXT NOT NULL,"
	"  undone INTEGER NOT NULL DEFAULT 0,"
	"  at INTEGER NOT NULL"
	");"
	"CREATE INDEX finding_events_key ON finding_events (key, id);"
	"CREATE TABLE inbound ("
	"  source TEXT NOT NULL,"
	"  id TEXT NOT NULL,"
	"  sender TEXT,"
	"  verdict TEXT,"
	"  at INTEGER NOT NULL,"
	"  PRIMARY KEY (source, id)"
	");"
	"CREATE INDEX inbound_sender ON inbound (sender, at);"
	"CREATE TABLE optouts ("
	"  addr TEXT NOT NULL COLLATE NOCASE,"
	"  scope TEXT NOT NULL,"         /* a tree name, or '*' */
	"  message_id TEXT,"
	"  at INTEGER NOT NULL,"
	"  PRIMARY KEY (addr, scope)"
	");",
	/* 6: threads: the thread key is unique, so two runs that start the
	 * first report of one finding at once cannot both start a thread (the
	 * enqueue that finds the key taken stores nothing, see store.h).  Each
	 * thread key's first message by id is the one a thread already had. */
	"CREATE TABLE threads ("
	"  key TEXT PRIMARY KEY,"       /* the thread key */
	"  message_id TEXT NOT NULL,"   /* its first message */
	"  created_at INTEGER NOT NULL"
	");"
	"INSERT INTO threads (key, message_id, created_at)"
	"  SELECT thread_key, message_id, created_at FROM messages m"
	"  WHERE thread_key IS NOT NULL"
	"  AND id = (SELECT min(id) FROM messages f WHERE f.thread_key = m.thread_key);",
	/* 7: unknown commits asked again with a growing wait: how many asks in a
	 * row found nothing, since when, and what a malformed answer said (a
	 * miss row's fetched_at is the last ask, expires_at the next) */
	"ALTER TABLE commit_cache ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE commit_cache ADD COLUMN first_failed_at INTEGER;"
	"ALTER TABLE commit_cache ADD COLUMN failure TEXT;",
	/* 8: the numbers behind a finding: per commit tested, the headline
	 * metric's per-run values (the findings page plots them) */
	"CREATE TABLE finding_points ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL,"          /* the finding's thread key */
	"  test TEXT NOT NULL,"         /* the same test without the commit */
	"  commit_sha TEXT NOT NULL,"
	"  role TEXT NOT NULL,"         /* base, head */
	"  vals TEXT NOT NULL,"         /* one value per line */
	"  at INTEGER NOT NULL,"
	"  UNIQUE (key, commit_sha)"
	");"
	"CREATE INDEX finding_points_test ON finding_points (test);",
	/* 9: where each commit was tested ("<tree>/<branch>"): a finding's
	 * values on other heads (role "seen") are drawn under their tree */
	"ALTER TABLE finding_points ADD COLUMN label TEXT;",
	/* 10: the later reports that mention a finding (the same finding on
	 * another commit or tree; store.h): its page lists them */
	"CREATE TABLE finding_mentions ("
	"  key TEXT NOT NULL,"          /* the earlier finding's thread key */
	"  message_id TEXT NOT NULL,"   /* the later report */
	"  by_key TEXT NOT NULL,"       /* its thread key */
	"  at INTEGER NOT NULL,"
	"  PRIMARY KEY (key, message_id)"
	");",
	/* 11: bracket lines look thread keys up by their end (the finding,
	 * whatever the tree and commit: rm_store_threads_ending); the key read
	 * backwards turns that end into a start, which an index finds.  key_rev
	 * is rm_reverse(key) (characters in reverse order, as PostgreSQL's
	 * reverse()), set by the enqueue that stores the row. */
	"ALTER TABLE threads ADD COLUMN key_rev TEXT;"
	"UPDATE threads SET key_rev = rm_reverse(key);"
	"CREATE INDEX threads_key_rev ON threads (key_rev);",
};

/* The state names as stored (the CHECK above), indexed by enum rm_store_state. */
static const char *const state_names[] = { "held", "queued", "sending", "sent", "failed" };

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
static const char *db_errtext(struct sq_store *s, const char *msg, char *buf, size_t n)
{
	int sys = sqlite3_system_errno(s->db);

	if (!msg)
		msg = sqlite3_errmsg(s->db);
	if (sys && (sqlite3_extended_errcode(s->db) & 0xff) == SQLITE_IOERR)
		snprintf(buf, n, "%s (%s)", msg, strerror(sys));
	else
		snprintf(buf, n, "%s", msg);
	return buf;
}

static int db_error(struct sq_store *s, struct rm_error *err, const char *what)
{
	char text[512];

	return rm_error_set(err, kind_of(sqlite3_errcode(s->db)), "state database '%s': %s: %s",
			    s->path, what, db_errtext(s, NULL, text, sizeof(text)));
}

static int exec(struct sq_store *s, const char *sql, struct rm_error *err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		char text[512];

		rm_error_set(err, kind_of(rc), "state database '%s': %s", s->path,
			     db_errtext(s, msg, text, sizeof(text)));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The rollback after an error already recorded in the caller's rm_error:
 * its own failure changes nothing for the caller (SQLite rolls an open
 * transaction back when the connection closes). */
static void rollback(struct sq_store *s)
{
	struct rm_error ignore;

	exec(s, "ROLLBACK", &ignore);
}

/* ---- statements: prepare and bind, every result checked (SQLITE_OK is 0) */

static int prep(struct sq_store *s, const char *sql, sqlite3_stmt **st)
{
	*st = NULL;
	return sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
}

static int b_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int b_int(sqlite3_stmt *st, int i, long long v)
{
	return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* Step a statement that returns no row, then finalize it and set *st to
 * NULL (so a caller's sqlite3_finalize(*st) on its error path is a no-op).
 * 0 or an SQLite code. */
static int step_done(sqlite3_stmt **st)
{
	int rc = sqlite3_step(*st);

	sqlite3_finalize(*st);
	*st = NULL;
	return rc == SQLITE_DONE ? SQLITE_OK : rc ? rc : SQLITE_ERROR;
}

/* The same for a statement that returns one integer: a row is required. */
static int step_count(sqlite3_stmt **st, long *count)
{
	int rc = sqlite3_step(*st);

	if (rc == SQLITE_ROW) {
		*count = (long)sqlite3_column_int64(*st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_ERROR; /* a count(*) always has its row */
	}
	sqlite3_finalize(*st);
	*st = NULL;
	return rc;
}

/* ---- reads of one row or none */

/* Copies a result row into what ctx points at. */
typedef void sq_row_fn(sqlite3_stmt *st, void *ctx);

/* Prepare sql, bind params[0..n) as text ?1..?n (NULL: SQL NULL), step
 * once: on a row, row(st, ctx) copies it.  Finalizes the statement.
 * Returns 1 (a row was read), 0 (none), or -1 with err set (what names the
 * operation). */
static int read_one(struct sq_store *s, const char *sql, int n, const char *const *params,
		    sq_row_fn *row, void *ctx, struct rm_error *err, const char *what)
{
	sqlite3_stmt *st;
	int i, rc;

	if (prep(s, sql, &st))
		goto fail;
	for (i = 0; i < n; i++)
		if (b_text(st, i + 1, params[i]))
			goto fail;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row(st, ctx);
	else if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW;
fail:
	sqlite3_finalize(st);
	return db_error(s, err, what);
}

/* ---- reads of many rows (see the top comment) */

/* Prepare sql, bind params[0..n) as text ?1..?n (NULL: SQL NULL; a number
 * is bound as its decimal text, num()), step to the end: every row goes to
 * row(st, ctx), in order.  Finalizes the statement.  0, or -1 with err set
 * (what names the operation); rows before an error have gone to row(). */
static int read_all(struct sq_store *s, const char *sql, int n, const char *const *params,
		    sq_row_fn *row, void *ctx, struct rm_error *err, const char *what)
{
	sqlite3_stmt *st;
	int i, rc;

	if (prep(s, sql, &st))
		goto fail;
	for (i = 0; i < n; i++)
		if (b_text(st, i + 1, params[i]))
			goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(st, ctx);
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return db_error(s, err, what);
}

/* A caller's growing array, read_all's usual ctx (with row = rows_add):
 * each row appends one zeroed element of `size` bytes, which fill() sets
 * from the row.  The caller owns items (NULL when no row) and its n
 * elements, also after an error. */
struct rows {
	void *items;
	size_t n, size, cap; /* cap: elements allocated (doubling) */
	sq_row_fn *fill;
};
#define ROWS(fill, element) { NULL, 0, sizeof(element), 0, fill }

static void rows_add(sqlite3_stmt *st, void *ctx)
{
	struct rows *a = ctx;
	char *el;

	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->items = rm_xrealloc(a->items, a->cap * a->size);
	}
	el = (char *)a->items + a->n++ * a->size;
	memset(el, 0, a->size);
	a->fill(st, el);
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

/* The n bytes of `in` into `out` (n bytes) with their characters in reverse
 * order, as PostgreSQL's reverse(): a UTF-8 lead byte and the continuation
 * bytes after it move as one; a stray byte as itself. */
static void utf8_reverse(const char *in, size_t n, char *out)
{
	size_t i = 0, len;

	while (i < n) {
		for (len = 1; i + len < n && ((unsigned char)in[i + len] & 0xC0) == 0x80; len++)
			;
		memcpy(out + n - i - len, in + i, len);
		i += len;
	}
}

/* SQL rm_reverse(text): utf8_reverse; NULL stays NULL */
static void sql_reverse(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	const char *in = (const char *)sqlite3_value_text(argv[0]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]);
	char *out;

	(void)argc;
	if (!in) {
		sqlite3_result_null(c);
		return;
	}
	out = rm_xmalloc(n + 1);
	utf8_reverse(in, n, out);
	out[n] = '\0';
	sqlite3_result_text(c, out, (int)n, free);
}

static int schema_version(struct sq_store *s, int *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = -1;
	if (prep(s, "PRAGMA user_version", &st))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int sq_schema_version(struct rm_store *st, int *version, struct rm_error *err)
{
	struct sq_store *s = sq(st);

	return schema_version(s, version) ? db_error(s, err, "reading the schema version") : 0;
}

static int migrate(struct sq_store *s, struct rm_error *err)
{
	int v, want = (int)(sizeof(migrations) / sizeof(migrations[0]));

	if (schema_version(s, &v))
		return db_error(s, err, "reading the schema version");
	if (v > want)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "state database '%s' has schema version %d, newer than this robotmail (%d)",
				    s->path, v, want);
	for (; v < want; v++) {
		char pragma[64];

		if (exec(s, "BEGIN IMMEDIATE", err))
			return -1;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if (exec(s, migrations[v], err) || exec(s, pragma, err)) {
			rollback(s);
			return -1;
		}
		if (exec(s, "COMMIT", err))
			return -1;
	}
	return 0;
}

/* ---- opening */

static const struct rm_store_ops sqlite_ops;

static void remove_snapshot(char *dir)
{
	static const char *const names[] = { "state.db", "state.db-wal", "state.db-shm",
					     "state.db-journal" };
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = rm_path_join(dir, names[i]);

		unlink(p);
		free(p);
	}
	rmdir(dir);
	free(dir);
}

static void sq_close(struct rm_store *st)
{
	struct sq_store *s = sq(st);

	sqlite3_close(s->db);
	remove_snapshot(s->snapshot_dir);
	free(s->path);
	free(s);
}

/* Copy the file `from` to `to` (created, 0600).  0, or -1 with errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, saved;
	ssize_t r = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		saved = errno;
		close(in);
		errno = saved;
		return -1;
	}
	while ((r = read(in, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off < r) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));

			if (w < 0) {
				r = -1;
				break;
			}
			off += w;
		}
		if (r < 0)
			break;
	}
	saved = errno;
	close(in);
	if (close(out) || r < 0) {
		errno = r < 0 ? saved : errno;
		return -1;
	}
	return 0;
}

/* A private copy of the database and its -wal; *copy is the copy's path. */
static int make_snapshot(struct sq_store *s, const char *wal, char **copy, struct rm_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = rm_path_join(tmp && *tmp ? tmp : "/tmp", "robotmail-snapshot.XXXXXX");
	char *cwal;

	if (!mkdtemp(tmpl)) {
		rm_error_set(err, RM_ERR_TEMP, "state database '%s': cannot make a snapshot directory: %s",
			     s->path, strerror(errno));
		free(tmpl);
		return -1;
	}
	s->snapshot_dir = tmpl;
	*copy = rm_path_join(tmpl, "state.db");
	cwal = rm_path_join(tmpl, "state.db-wal");
	if (copy_file(s->path, *copy) || copy_file(wal, cwal)) {
		rm_error_set(err, RM_ERR_TEMP, "state database '%s': cannot copy it into '%s': %s",
			     s->path, tmpl, strerror(errno));
		free(cwal);
		return -1;
	}
	free(cwal);
	return 0;
}

/* "file:" URI of path with immutable=1: every byte but unreserved ones and
 * '/' percent-encoded (RFC 3986), as SQLite's URI filenames want. */
static char *immutable_uri(const char *path)
{
	struct rm_sb sb = RM_SB_INIT;
	const unsigned char *p;

	rm_sb_init(&sb);
	rm_sb_adds(&sb, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p)) {
			rm_sb_addc(&sb, (char)*p);
		} else {
			char hex[4];

			snprintf(hex, sizeof(hex), "%%%02X", *p);
			rm_sb_adds(&sb, hex);
		}
	}
	rm_sb_adds(&sb, "?mode=ro&immutable=1");
	return rm_sb_detach(&sb, NULL);
}

/* Does the table `name` exist?  0 or an SQLite code. */
static int has_table(struct sq_store *s, const char *name, bool *yes)
{
	sqlite3_stmt *st;
	long n = 0;
	int rc;

	rc = prep(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", &st);
	if (!rc)
		rc = b_text(st, 1, name);
	if (!rc)
		rc = step_count(&st, &n);
	sqlite3_finalize(st);
	*yes = n > 0;
	return rc;
}

int rm_store_sqlite_open(struct rm_store **stp, const char *path, enum rm_store_mode mode,
			 struct rm_error *err)
{
	struct sq_store *s;
	struct stat sb;
	int rc;

	*stp = NULL;
	if (mode == RM_STORE_READONLY && stat(path, &sb) && errno == ENOENT)
		return 0;
	/* SQLite is opened on first use (dynlib.h) */
	if (rm_dynlib_need(RM_LIB_SQLITE, err))
		return -1;
	s = rm_xcalloc(1, sizeof(*s));
	s->base.ops = &sqlite_ops;
	s->base.readonly = mode == RM_STORE_READONLY;
	s->path = rm_xstrdup(path);
	if (mode == RM_STORE_READWRITE) {
		rc = sqlite3_open_v2(path, &s->db,
				     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
				     NULL);
	} else {
		char *wal = rm_xmalloc(strlen(path) + 5), *name = NULL;
		bool snap;

		memcpy(wal, path, strlen(path));
		memcpy(wal + strlen(path), "-wal", 5);
		snap = !stat(wal, &sb) && sb.st_size > 0;
		if (snap && make_snapshot(s, wal, &name, err)) {
			free(wal);
			free(name);
			sq_close(&s->base);
			return -1;
		}
		free(wal);
		if (snap) {
			/* the private copy: SQLite replays its -wal there */
			rc = sqlite3_open_v2(name, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX,
					     NULL);
		} else {
			name = immutable_uri(path);
			rc = sqlite3_open_v2(name, &s->db,
					     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX,
					     NULL);
		}
		free(name);
	}
	if (rc != SQLITE_OK) {
		if (!s->db)
			rm_error_set(err, RM_ERR_INTERNAL, "state database '%s': cannot open: out of memory",
				     path);
		else
			db_error(s, err, "cannot open");
		sq_close(&s->base);
		return -1;
	}
	if (sqlite3_busy_timeout(s->db, 10000) != SQLITE_OK) {
		db_error(s, err, "setting the busy timeout");
		sq_close(&s->base);
		return -1;
	}
	/* this connection's own function: SQLite has no reverse() (not stored in
	 * the schema: other programs read and write the file without it) */
	if (sqlite3_create_function(s->db, "rm_reverse", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
				    sql_reverse, NULL, NULL) != SQLITE_OK) {
		db_error(s, err, "opening");
		sq_close(&s->base);
		return -1;
	}
	if (mode == RM_STORE_READWRITE) {
		if (exec(s, "PRAGMA journal_mode = WAL", err) ||
		    exec(s, "PRAGMA synchronous = FULL", err) || migrate(s, err)) {
			sq_close(&s->base);
			return -1;
		}
	} else {
		int v;

		if (schema_version(s, &v)) {
			db_error(s, err, "reading the schema version");
			sq_close(&s->base);
			return -1;
		}
		if (v < 1) {
			/* an empty file: behave as an empty store */
			sq_close(&s->base);
			return 0;
		}
		s->before_findings = v < 5;
		s->before_backoff = v < 7;
		if (has_table(s, "threads", &s->before_threads)) {
			db_error(s, err, "reading the schema");
			sq_close(&s->base);
			return -1;
		}
		s->before_threads = !s->before_threads;
		s->before_points = v < 8;
		s->before_labels = v < 9;
		s->before_mentions = v < 10;
		s->before_key_rev = v < 11;
	}
	*stp = &s->base;
	return 0;
}

static int sq_set_durability(struct rm_store *st, enum rm_store_durability d,
			     struct rm_error *err)
{
	return exec(sq(st), d == RM_STORE_FAST ? "PRAGMA synchronous = NORMAL" :
						 "PRAGMA synchronous = FULL",
		    err);
}

/* ---- the commit cache */

static int sq_cache_get(struct rm_store *base, const char *tree, const char *sha, time_t now,
			char **json, bool *found, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	int rc, hit = 0;

	if (prep(s, "SELECT found, facts, expires_at FROM commit_cache WHERE tree = ? AND sha = ?",
		 &st) ||
	    b_text(st, 1, tree) || b_text(st, 2, sha)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading the commit cache");
	}
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
		return db_error(s, err, "reading the commit cache");
	}
	sqlite3_finalize(st);
	return hit;
}

static int sq_cache_put(struct rm_store *base, const char *tree, const char *sha, bool found,
			const char *json, time_t now, long ttl, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s,
		 "INSERT OR REPLACE INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at)"
		 " VALUES (?, ?, ?, ?, ?, ?)",
		 &st) ||
	    b_text(st, 1, tree) || b_text(st, 2, sha) || b_int(st, 3, found) ||
	    b_text(st, 4, json) || b_int(st, 5, now) ||
	    (found ? sqlite3_bind_null(st, 6) : b_int(st, 6, (long long)now + ttl)) ||
	    step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "writing the commit cache");
	}
	return 0;
}

static int sq_cache_miss_get(struct rm_store *base, const char *tree, const char *sha,
			     struct rm_commit_miss *m, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	int rc, hit = 0;

	if (prep(s, "SELECT attempts, first_failed_at, fetched_at, expires_at, failure"
		    " FROM commit_cache WHERE tree = ? AND sha = ? AND NOT found",
		 &st) ||
	    b_text(st, 1, tree) || b_text(st, 2, sha)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading the commit cache");
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *f = sqlite3_column_text(st, 4);

		m->attempts = (unsigned)sqlite3_column_int(st, 0);
		m->first_at = sqlite3_column_int64(st, 1);
		m->last_at = sqlite3_column_int64(st, 2);
		m->next_at = sqlite3_column_int64(st, 3);
		snprintf(m->failure, sizeof(m->failure), "%s", f ? (const char *)f : "");
		hit = 1;
	} else if (rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading the commit cache");
	}
	sqlite3_finalize(st);
	return hit;
}

static int sq_cache_miss_put(struct rm_store *base, const char *tree, const char *sha,
			     const struct rm_commit_miss *m, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s,
		 "INSERT OR REPLACE INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at,"
		 " attempts, first_failed_at, failure) VALUES (?, ?, 0, NULL, ?, ?, ?, ?, ?)",
		 &st) ||
	    b_text(st, 1, tree) || b_text(st, 2, sha) || b_int(st, 3, m->last_at) ||
	    b_int(st, 4, m->next_at) || b_int(st, 5, m->attempts) || b_int(st, 6, m->first_at) ||
	    b_text(st, 7, m->failure[0] ? m->failure : NULL) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "writing the commit cache");
	}
	return 0;
}

/* ================================================================ messages */

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? rm_xstrdup((const char *)t) : NULL;
}

/* a row's first column into a char * element (rows_add) */
static void text_from_row(sqlite3_stmt *st, void *element)
{
	*(char **)element = col_text(st, 0);
}

/* its second column */
static void text2_from_row(sqlite3_stmt *st, void *element)
{
	*(char **)element = col_text(st, 1);
}

#define MSG_COLUMNS                                                                        \
	"id, message_id, dedupe_key, tree, subject, mail_from, rcpts, bytes, state, attempts," \
	" last_error, next_attempt, created_at, sent_at, thread_key, refs"

static void msg_from_row(sqlite3_stmt *st, void *msg)
{
	struct rm_store_msg *m = msg;
	char *v;
	const void *b;

	memset(m, 0, sizeof(*m));
	m->id = sqlite3_column_int64(st, 0);
	m->message_id = col_text(st, 1);
	m->dedupe_key = col_text(st, 2);
	m->tree = col_text(st, 3);
	m->subject = col_text(st, 4);
	m->mail_from = col_text(st, 5);
	v = col_text(st, 6);
	rm_store_split_lines(v, &m->rcpts, &m->nrcpts);
	free(v);
	b = sqlite3_column_blob(st, 7);
	m->len = (size_t)sqlite3_column_bytes(st, 7);
	m->bytes = rm_xmalloc(m->len + 1);
	if (m->len)
		memcpy(m->bytes, b, m->len);
	m->bytes[m->len] = '\0';
	v = col_text(st, 8);
	m->state = rm_store_state_from(v);
	free(v);
	m->attempts = sqlite3_column_int(st, 9);
	m->last_error = col_text(st, 10);
	m->next_attempt = (time_t)sqlite3_column_int64(st, 11);
	m->created_at = (time_t)sqlite3_column_int64(st, 12);
	m->sent_at = (time_t)sqlite3_column_int64(st, 13);
	m->thread_key = col_text(st, 14);
	m->refs = col_text(st, 15);
}

struct report_row {
	char **message_id;
	time_t *at;
};

static void report_from_row(sqlite3_stmt *st, void *ctx)
{
	const struct report_row *r = ctx;

	*r->message_id = col_text(st, 0);
	*r->at = (time_t)sqlite3_column_int64(st, 1);
}

static int sq_report_get(struct rm_store *base, const char *key, char **message_id, time_t *at,
			 struct rm_error *err)
{
	struct report_row r = { message_id, at };

	return read_one(sq(base), "SELECT message_id, created_at FROM reports WHERE dedupe_key = ?", 1,
			&key, report_from_row, &r, err, "reading the reports seen");
}

static int sq_mention_add(struct rm_store *base, const char *key, const char *message_id,
			  const char *by_key, time_t at, struct rm_error *err);

static int sq_enqueue(struct rm_store *base, const struct rm_store_msg *m, time_t now,
		      struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = NULL;
	char *rcpts;
	size_t i;
	int rc;

	if (exec(s, "PRAGMA synchronous = FULL", err) || exec(s, "BEGIN IMMEDIATE", err))
		return -1;
	if (m->dedupe_key) {
		if (prep(s, "INSERT OR IGNORE INTO reports (dedupe_key, message_id, created_at)"
			    " VALUES (?, ?, ?)",
			 &st) ||
		    b_text(st, 1, m->dedupe_key) || b_text(st, 2, m->message_id) ||
		    b_int(st, 3, now) || step_done(&st))
			goto fail;
		if (sqlite3_changes(s->db) == 0) {
			rollback(s);
			return 0; /* seen before: never twice */
		}
	}
	rcpts = rm_store_join_lines(m->rcpts, m->nrcpts);
	rc = prep(s,
		  "INSERT OR IGNORE INTO messages (message_id, dedupe_key, tree, subject, mail_from,"
		  " rcpts, bytes, state, attempts, next_attempt, created_at, updated_at,"
		  " thread_key, refs)"
		  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
		  &st) ||
	     b_text(st, 1, m->message_id) || b_text(st, 2, m->dedupe_key) ||
	     b_text(st, 3, m->tree) || b_text(st, 4, m->subject) || b_text(st, 5, m->mail_from) ||
	     b_text(st, 6, rcpts) ||
	     sqlite3_bind_blob64(st, 7, m->bytes, (sqlite3_uint64)m->len, SQLITE_STATIC) ||
	     b_text(st, 8, state_names[m->state == RM_STORE_HELD ? RM_STORE_HELD : RM_STORE_QUEUED]) ||
	     b_int(st, 9, now) || b_int(st, 10, now) || b_int(st, 11, now) ||
	     b_text(st, 12, m->thread_key) || b_text(st, 13, m->refs) || step_done(&st);
	free(rcpts);
	if (rc)
		goto fail;
	if (sqlite3_changes(s->db) == 0) {
		rollback(s);
		return 0;
	}
	if (m->thread_key) {
		/* the thread's first message, unless it has one */
		if (prep(s, "INSERT OR IGNORE INTO threads (key, message_id, created_at, key_rev)"
			    " VALUES (?1, ?2, ?3, rm_reverse(?1))",
			 &st) ||
		    b_text(st, 1, m->thread_key) || b_text(st, 2, m->message_id) || b_int(st, 3, now) ||
		    step_done(&st))
			goto fail;
		if (sqlite3_changes(s->db) == 0 && m->starts_thread) {
			rollback(s);
			return RM_STORE_THREAD_TAKEN;
		}
	}
	for (i = 0; m->thread_key && i < m->nmentions; i++)
		if (sq_mention_add(base, m->mentions[i], m->message_id, m->thread_key, now, err) < 0) {
			rollback(s);
			return -1;
		}
	if (exec(s, "COMMIT", err)) {
		rollback(s);
		return -1;
	}
	return 1;
fail:
	db_error(s, err, "queueing a message");
	sqlite3_finalize(st); /* when a prepare or bind failed; NULL after a step */
	rollback(s);
	return -1;
}

static int sq_recover(struct rm_store *base, int *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);

	if (exec(s, "UPDATE messages SET state = 'queued' WHERE state = 'sending'", err))
		return -1;
	*n = sqlite3_changes(s->db);
	return 0;
}

static int sq_claim_due(struct rm_store *base, time_t now, size_t limit,
			struct rm_store_msg **out, size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = NULL;
	struct rm_store_msg *v;
	struct rows all = ROWS(msg_from_row, struct rm_store_msg);
	struct num a = { "" }, b = { "" };
	const char *p[2] = { num(&a, now), num(&b, (long long)limit) };
	size_t cnt, i;
	int rc;

	if (exec(s, "BEGIN IMMEDIATE", err))
		return -1;
	rc = read_all(s, "SELECT " MSG_COLUMNS " FROM messages WHERE state = 'queued'"
			 " AND next_attempt <= CAST(?1 AS INTEGER)"
			 " ORDER BY next_attempt, id LIMIT CAST(?2 AS INTEGER)",
		      2, p, rows_add, &all, err, "claiming due messages");
	v = all.items;
	cnt = all.n;
	if (rc) {
		rollback(s);
		rm_store_msgs_free(v, cnt);
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		if (prep(s, "UPDATE messages SET state = 'sending', updated_at = ? WHERE id = ?", &st) ||
		    b_int(st, 1, now) || b_int(st, 2, v[i].id) || step_done(&st)) {
			sqlite3_finalize(st);
			goto fail;
		}
		v[i].state = RM_STORE_SENDING;
	}
	if (exec(s, "COMMIT", err)) {
		rollback(s);
		rm_store_msgs_free(v, cnt);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	db_error(s, err, "claiming due messages");
	rollback(s);
	rm_store_msgs_free(v, cnt);
	return -1;
}

static bool accepted(int code)
{
	return code >= 200 && code < 300;
}

static bool refused(int code)
{
	return code >= 500 && code < 600;
}

/* Add a copy of rcpt to the list unless it is there (any case) or NULL. */
static void keep_add(char ***v, size_t *n, const char *rcpt)
{
	size_t i;

	for (i = 0; rcpt && i < *n; i++)
		if (!strcasecmp((*v)[i], rcpt))
			return;
	if (!rcpt)
		return;
	*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = rm_xstrdup(rcpt);
}

/* read_all's row: its first column added to a keep list (keep_add) */
struct keep_list {
	char ***v;
	size_t *n;
};

static void keep_row(sqlite3_stmt *st, void *ctx)
{
	const struct keep_list *k = ctx;

	keep_add(k->v, k->n, (const char *)sqlite3_column_text(st, 0));
}

static void keep_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

static int sq_record(struct rm_store *base, long long id, const struct rm_rcpt_result *res,
		     size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		     enum rm_store_state *state, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = NULL;
	char **keep = NULL, *rcpts;
	size_t nkeep = 0, i;
	long earlier = 0;
	bool any_accepted = false, pending = false;
	int rc;

	if (exec(s, "BEGIN IMMEDIATE", err))
		return -1;
	for (i = 0; i < n; i++) {
		int c = res[i].code;

		any_accepted |= accepted(c);
		pending |= !accepted(c) && !refused(c);
		if (!c)
			continue;
		if (prep(s, "INSERT OR REPLACE INTO rcpt_results (message, rcpt, code, text, at)"
			    " VALUES (?, ?, ?, ?, ?)",
			 &st) ||
		    b_int(st, 1, id) || b_text(st, 2, res[i].rcpt) || b_int(st, 3, c) ||
		    b_text(st, 4, res[i].text) || b_int(st, 5, now) || step_done(&st))
			goto fail;
	}
	/* was anything accepted in an earlier attempt? */
	if (prep(s, "SELECT count(*) FROM rcpt_results WHERE message = ? AND code BETWEEN 200 AND 299",
		 &st) ||
	    b_int(st, 1, id) || step_count(&st, &earlier))
		goto fail;
	st = NULL;
	any_accepted |= earlier > 0;
	if (!pending || give_up)
		*state = any_accepted ? RM_STORE_SENT : RM_STORE_FAILED; /* given up: the rest never get it */
	else
		*state = RM_STORE_QUEUED;
	/* the recipients kept: queued, those still pending; failed, every one
	 * not accepted (so `queue retry` has them all); sent, none left */
	for (i = 0; i < n; i++) {
		int c = res[i].code;

		if (*state == RM_STORE_QUEUED ? !accepted(c) && !refused(c) :
		    *state == RM_STORE_FAILED ? !accepted(c) :
						false)
			keep_add(&keep, &nkeep, res[i].rcpt);
	}
	if (*state == RM_STORE_FAILED) {
		/* and those refused in an earlier attempt, no longer in the list */
		struct num a = { "" };
		const char *p[1] = { num(&a, id) };
		struct keep_list k = { &keep, &nkeep };

		if (read_all(s, "SELECT rcpt FROM rcpt_results WHERE message = CAST(?1 AS INTEGER)"
				" AND code NOT BETWEEN 200 AND 299 ORDER BY rowid",
			     1, p, keep_row, &k, err, "recording a delivery attempt")) {
			rollback(s);
			keep_free(keep, nkeep);
			return -1;
		}
	}
	rcpts = rm_store_join_lines(keep, nkeep);
	rc = prep(s,
		  "UPDATE messages SET state = ?1, rcpts = ?2, attempts = attempts + 1, last_error = ?3,"
		  " next_attempt = ?4, updated_at = ?5,"
		  " sent_at = CASE WHEN ?1 = 'sent' THEN ?5 ELSE sent_at END WHERE id = ?6",
		  &st) ||
	     b_text(st, 1, state_names[*state]) || b_text(st, 2, rcpts) || b_text(st, 3, error) ||
	     b_int(st, 4, retry_at) || b_int(st, 5, now) || b_int(st, 6, id) || step_done(&st);
	free(rcpts);
	if (rc)
		goto fail;
	keep_free(keep, nkeep);
	keep = NULL;
	nkeep = 0;
	if (exec(s, "COMMIT", err)) {
		rollback(s);
		return -1;
	}
	return 0;
fail:
	db_error(s, err, "recording a delivery attempt");
	sqlite3_finalize(st);
	rollback(s);
	keep_free(keep, nkeep);
	return -1;
}

static int sq_defer(struct rm_store *base, long long id, time_t until, const char *why,
		    struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "UPDATE messages SET state = 'queued', next_attempt = ?, last_error = ? WHERE id = ?",
		 &st) ||
	    b_int(st, 1, until) || b_text(st, 2, why) || b_int(st, 3, id) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "deferring a message");
	}
	return 0;
}

static int sq_sent_since(struct rm_store *base, time_t since, long *count, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "SELECT count(*) FROM messages WHERE state = 'sent' AND sent_at >= ?", &st) ||
	    b_int(st, 1, since) || step_count(&st, count)) {
		sqlite3_finalize(st);
		*count = 0;
		return db_error(s, err, "counting sent messages");
	}
	return 0;
}

static int sq_rcpt_count_since(struct rm_store *base, const char *rcpt, time_t since, long *count,
			       struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "SELECT count(*) FROM rcpt_results WHERE rcpt = ? COLLATE NOCASE"
		    " AND code BETWEEN 200 AND 299 AND at >= ?",
		 &st) ||
	    b_text(st, 1, rcpt) || b_int(st, 2, since) || step_count(&st, count)) {
		sqlite3_finalize(st);
		*count = 0;
		return db_error(s, err, "counting messages per list");
	}
	return 0;
}

static int sq_list(struct rm_store *base, struct rm_store_msg **out, size_t *n,
		   struct rm_error *err)
{
	struct rows all = ROWS(msg_from_row, struct rm_store_msg);

	if (read_all(sq(base), "SELECT " MSG_COLUMNS " FROM messages ORDER BY id", 0, NULL, rows_add,
		     &all, err, "listing the queue")) {
		rm_store_msgs_free(all.items, all.n);
		return -1;
	}
	*out = all.items;
	*n = all.n;
	return 0;
}

/* `which`: a message's id, or its Message-ID with or without <> */
#define WHICH "(CAST(id AS TEXT) = ?1 OR message_id = ?1 OR '<' || message_id || '>' = ?1)"

static int sq_get(struct rm_store *base, const char *which, struct rm_store_msg *m,
		  struct rm_error *err)
{
	return read_one(sq(base), "SELECT " MSG_COLUMNS " FROM messages WHERE " WHICH, 1, &which,
			msg_from_row, m, err, "reading the queue");
}

static int sq_set_state(struct rm_store *base, const char *which, enum rm_store_action action,
			time_t now, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	const char *sql = NULL;
	sqlite3_stmt *st;

	switch (action) {
	case RM_STORE_RETRY:
		sql = "UPDATE messages SET state = 'queued', next_attempt = ?2, updated_at = ?2"
		      " WHERE " WHICH " AND state IN ('queued','failed','held') AND rcpts != ''";
		break;
	case RM_STORE_RELEASE:
		sql = "UPDATE messages SET state = 'queued', next_attempt = ?2, updated_at = ?2"
		      " WHERE " WHICH " AND state = 'held'";
		break;
	case RM_STORE_HOLD:
		sql = "UPDATE messages SET state = 'held', updated_at = ?2"
		      " WHERE " WHICH " AND state = 'queued'";
		break;
	case RM_STORE_DROP:
		sql = "UPDATE messages SET state = 'failed', last_error = 'dropped by the operator',"
		      " updated_at = ?2 WHERE " WHICH " AND state IN ('queued','held','failed')";
		break;
	case RM_STORE_RESEND:
		/* the envelope it was sent to: every recipient with a result */
		sql = "UPDATE messages SET state = 'queued', next_attempt = ?2, updated_at = ?2,"
		      " last_error = 'resent by the operator', rcpts = (SELECT group_concat(rcpt, char(10))"
		      " || char(10) FROM (SELECT rcpt FROM rcpt_results r WHERE r.message = messages.id"
		      " ORDER BY r.rowid)) WHERE " WHICH " AND state = 'sent' AND length(bytes) > 0"
		      " AND EXISTS (SELECT 1 FROM rcpt_results r WHERE r.message = messages.id)";
		break;
	case RM_STORE_PRUNE:
		sql = "UPDATE messages SET bytes = X'', updated_at = ?2"
		      " WHERE " WHICH " AND state = 'sent' AND length(bytes) > 0";
		break;
	}
	if (!sql)
		return rm_error_set(err, RM_ERR_INTERNAL, "queue: unknown action %d", (int)action);
	if (prep(s, sql, &st) || b_text(st, 1, which) || b_int(st, 2, now) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "changing the queue");
	}
	return sqlite3_changes(s->db) > 0;
}

/* columns: message, rcpt, code, text, at */
static void rcpt_row_from(sqlite3_stmt *st, void *row)
{
	struct rm_store_rcpt_row *r = row;

	r->message = sqlite3_column_int64(st, 0);
	r->rcpt = col_text(st, 1);
	r->code = sqlite3_column_int(st, 2);
	r->text = col_text(st, 3);
	r->at = (time_t)sqlite3_column_int64(st, 4);
}

static int sq_results(struct rm_store *base, long long id, struct rm_store_rcpt_row **out,
		      size_t *n, struct rm_error *err)
{
	struct rows all = ROWS(rcpt_row_from, struct rm_store_rcpt_row);
	struct num a = { "" };
	const char *p[1] = { num(&a, id) };

	if (read_all(sq(base), "SELECT message, rcpt, code, text, at FROM rcpt_results"
			       " WHERE message = CAST(?1 AS INTEGER) ORDER BY rowid",
		     1, p, rows_add, &all, err, "reading recipients' results")) {
		rm_store_rcpt_rows_free(all.items, all.n);
		return -1;
	}
	*out = all.items;
	*n = all.n;
	return 0;
}

static int sq_thread_first(struct rm_store *base, const char *thread_key, char **message_id,
			   char **subject, char **refs, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	int rc;

	if (prep(s, s->before_threads ?
			    "SELECT message_id, subject, refs FROM messages WHERE thread_key = ?"
			    " ORDER BY id LIMIT 1" :
			    /* the row of the thread key; its message for the subject and chain */
			    "SELECT t.message_id, m.subject, m.refs FROM threads t"
			    " LEFT JOIN messages m ON m.message_id = t.message_id WHERE t.key = ?",
		 &st) ||
	    b_text(st, 1, thread_key)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading threads");
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*message_id = col_text(st, 0);
		*subject = col_text(st, 1);
		*refs = col_text(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(s, err, "reading threads");
	return rc == SQLITE_ROW;
}

/* The keys ending in ?3 are those whose key_rev starts with ?1 (?3
 * reversed): key_rev in [?1, ?2) with ?2 the first string after every one
 * that starts with ?1 (BINARY order is memcmp's), a range of the index
 * threads_key_rev.  Each key's newest report from messages_thread.  (Grouped
 * by key_rev, one per key as key is: by key, SQLite would rather walk the
 * primary key's index in its order than search this one.) */
const char rm_store_sqlite_threads_ending_sql[] =
	"SELECT t.key FROM threads t CROSS JOIN messages m ON m.thread_key = t.key"
	" WHERE t.key_rev >= ?1 AND t.key_rev < ?2 AND length(t.key) > length(?3)"
	" GROUP BY t.key_rev ORDER BY max(m.id) DESC LIMIT CAST(?4 AS INTEGER)";

/* (SQLite's length() and substr() both count characters of a TEXT value,
 * so the comparison is of the last length(suffix) characters) */
static int sq_threads_ending(struct rm_store *base, const char *suffix, size_t limit, char ***keys,
			     size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows all = ROWS(text_from_row, char *);
	struct num l = { "" };
	size_t len = strlen(suffix), end;
	char *rev = rm_xmalloc(len + 1), *after = rm_xmalloc(len + 1);
	const char *p[4] = { rev, after, suffix, num(&l, (long long)limit) };
	int rc;

	utf8_reverse(suffix, len, rev);
	rev[len] = '\0';
	/* the successor: the last byte below 0xff one up, what follows it cut */
	memcpy(after, rev, len + 1);
	for (end = len; end > 0 && (unsigned char)after[end - 1] == 0xff; end--)
		;
	if (end > 0) {
		after[end - 1] = (char)((unsigned char)after[end - 1] + 1);
		after[end] = '\0';
	}
	if (end > 0 && !s->before_key_rev)
		rc = read_all(s, rm_store_sqlite_threads_ending_sql, 4, p, rows_add, &all, err,
			      "reading threads");
	else /* before step 9, or no successor (an empty suffix): every key read */
		rc = read_all(s, "SELECT thread_key FROM messages WHERE thread_key IS NOT NULL"
				 " AND length(thread_key) > length(?3)"
				 " AND substr(thread_key, length(thread_key) - length(?3) + 1) = ?3"
				 " GROUP BY thread_key ORDER BY max(id) DESC LIMIT CAST(?4 AS INTEGER)",
			      4, p, rows_add, &all, err, "reading threads");
	free(rev);
	free(after);
	*keys = all.items;
	*n = all.n;
	return rc;
}

/* ---- findings, inbound mail, opt-outs */

static const char *const finding_names[] = { "open", "invalid", "fixed", "dup" };

static enum rm_finding_state finding_from(const char *v)
{
	size_t i;

	for (i = 0; v && i < sizeof(finding_names) / sizeof(finding_names[0]); i++)
		if (!strcmp(v, finding_names[i]))
			return (enum rm_finding_state)i;
	return RM_FINDING_OPEN;
}

static void finding_from_row(sqlite3_stmt *st, void *finding)
{
	struct rm_store_finding *f = finding;
	char *v = col_text(st, 2);

	f->key = col_text(st, 0);
	f->tree = col_text(st, 1);
	f->state = finding_from(v);
	free(v);
	f->arg = col_text(st, 3);
	f->updated_at = (time_t)sqlite3_column_int64(st, 4);
}

static int sq_finding_get(struct rm_store *base, const char *key, struct rm_store_finding *f,
			  struct rm_error *err)
{
	struct sq_store *s = sq(base);

	if (s->before_findings)
		return 0;
	return read_one(s, "SELECT key, tree, state, arg, updated_at FROM findings WHERE key = ?", 1,
			&key, finding_from_row, f, err, "reading findings");
}

static int sq_findings(struct rm_store *base, struct rm_store_finding **out, size_t *n,
		       struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows all = ROWS(finding_from_row, struct rm_store_finding);
	int rc;

	if (s->before_findings)
		return 0;
	rc = read_all(s, "SELECT key, tree, state, arg, updated_at FROM findings"
			 " ORDER BY updated_at, key",
		      0, NULL, rows_add, &all, err, "reading findings");
	*out = all.items;
	*n = all.n;
	return rc;
}

/* The event and the new state, inside the caller's transaction. */
static int finding_write(struct sq_store *s, const char *key, const char *tree,
			 const char *state, const char *arg, const char *command, const char *by,
			 const char *message_id, bool changes_state, time_t now)
{
	sqlite3_stmt *st = NULL;

	if (prep(s, "INSERT OR IGNORE INTO findings (key, tree, state, updated_at)"
		    " VALUES (?, ?, 'open', ?)",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, tree) || b_int(st, 3, now) || step_done(&st))
		goto fail;
	if (prep(s, "INSERT INTO finding_events (key, command, by_addr, message_id, prev_state,"
		    " prev_arg, state, at) SELECT key, ?2, ?3, ?4,"
		    " CASE WHEN ?6 THEN state END, CASE WHEN ?6 THEN arg END, ?5, ?7"
		    " FROM findings WHERE key = ?1",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, command) || b_text(st, 3, by) ||
	    b_text(st, 4, message_id) || b_text(st, 5, state) || b_int(st, 6, changes_state) ||
	    b_int(st, 7, now) || step_done(&st))
		goto fail;
	if (prep(s, "UPDATE findings SET state = ?2, arg = ?3, updated_at = ?4,"
		    " tree = coalesce(tree, ?5) WHERE key = ?1",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, state) || b_text(st, 3, arg) || b_int(st, 4, now) ||
	    b_text(st, 5, tree) || step_done(&st))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

/* Has this mail's command been applied to the finding already (a pass
 * that was killed before it remembered the mail)?  1 yes, 0 no, -1 error. */
static int event_done(struct sq_store *s, const char *key, const char *command,
		      const char *message_id)
{
	sqlite3_stmt *st;
	long count = 0;

	if (!message_id)
		return 0;
	if (prep(s, "SELECT count(*) FROM finding_events WHERE key = ? AND command = ?"
		    " AND message_id = ?",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, command) || b_text(st, 3, message_id) ||
	    step_count(&st, &count)) {
		sqlite3_finalize(st);
		return -1;
	}
	return count > 0;
}

static int sq_finding_set(struct rm_store *base, const char *key, const char *tree,
			  enum rm_finding_state state, const char *arg, const char *command,
			  const char *by, const char *message_id, time_t now,
			  struct rm_error *err)
{
	struct sq_store *s = sq(base);
	int done;

	if ((unsigned)state >= sizeof(finding_names) / sizeof(finding_names[0]))
		return rm_error_set(err, RM_ERR_INTERNAL, "state store: finding state %d", (int)state);
	if (exec(s, "BEGIN IMMEDIATE", err))
		return -1;
	done = event_done(s, key, command, message_id);
	if (done) {
		if (done < 0)
			db_error(s, err, "reading a finding's events");
		rollback(s);
		return done < 0 ? -1 : 0;
	}
	if (finding_write(s, key, tree, finding_names[state], arg, command, by, message_id, true,
			  now)) {
		db_error(s, err, "changing a finding");
		rollback(s);
		return -1;
	}
	if (exec(s, "COMMIT", err)) {
		rollback(s);
		return -1;
	}
	return 1;
}

static int sq_finding_undo(struct rm_store *base, const char *key, const char *command,
			   const char *by, const char *message_id, time_t now,
			   struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = NULL;
	long long ev = 0;
	char *prev = NULL, *prev_arg = NULL;
	int rc;

	if (exec(s, "BEGIN IMMEDIATE", err))
		return -1;
	rc = event_done(s, key, command, message_id);
	if (rc) {
		if (rc < 0)
			db_error(s, err, "reading a finding's events");
		rollback(s);
		return rc < 0 ? -1 : 1; /* this mail's undo was done before */
	}
	if (prep(s, "SELECT id, prev_state, prev_arg FROM finding_events WHERE key = ?"
		    " AND prev_state IS NOT NULL AND undone = 0 ORDER BY id DESC LIMIT 1",
		 &st) ||
	    b_text(st, 1, key))
		goto fail;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ev = sqlite3_column_int64(st, 0);
		prev = col_text(st, 1);
		prev_arg = col_text(st, 2);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto fail;
	if (rc == SQLITE_DONE) {
		rollback(s);
		return 0;
	}
	if (prep(s, "UPDATE finding_events SET undone = 1 WHERE id = ?", &st) || b_int(st, 1, ev) ||
	    step_done(&st) ||
	    finding_write(s, key, NULL, prev, prev_arg, command, by, message_id, false, now))
		goto fail;
	free(prev);
	free(prev_arg);
	if (exec(s, "COMMIT", err)) {
		rollback(s);
		return -1;
	}
	return 1;
fail:
	db_error(s, err, "undoing a change of a finding");
	sqlite3_finalize(st);
	free(prev);
	free(prev_arg);
	rollback(s);
	return -1;
}

static void event_from_row(sqlite3_stmt *st, void *event)
{
	struct rm_store_event *e = event;
	char *v = col_text(st, 3);

	e->command = col_text(st, 0);
	e->by = col_text(st, 1);
	e->message_id = col_text(st, 2);
	e->state = finding_from(v);
	free(v);
	e->undone = sqlite3_column_int(st, 4) != 0;
	e->at = (time_t)sqlite3_column_int64(st, 5);
}

static int sq_finding_events(struct rm_store *base, const char *key, struct rm_store_event **out,
			     size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows all = ROWS(event_from_row, struct rm_store_event);
	int rc;

	if (s->before_findings)
		return 0;
	rc = read_all(s, "SELECT command, by_addr, message_id, state, undone, at FROM finding_events"
			 " WHERE key = ? ORDER BY id",
		      1, &key, rows_add, &all, err, "reading a finding's events");
	*out = all.items;
	*n = all.n;
	return rc;
}

static int sq_inbound_seen(struct rm_store *base, const char *source, const char *id,
			   bool *seen, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	long count = 0;

	if (s->before_findings)
		return 0;

	if (prep(s, "SELECT count(*) FROM inbound WHERE source = ? AND id = ?", &st) ||
	    b_text(st, 1, source) || b_text(st, 2, id) || step_count(&st, &count)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading the inbound mail read");
	}
	*seen = count > 0;
	return 0;
}

static int sq_inbound_mark(struct rm_store *base, const char *source, const char *id,
			   const char *sender, const char *verdict, time_t now,
			   struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "INSERT OR IGNORE INTO inbound (source, id, sender, verdict, at)"
		    " VALUES (?, ?, lower(?), ?, ?)",
		 &st) ||
	    b_text(st, 1, source) || b_text(st, 2, id) || b_text(st, 3, sender) ||
	    b_text(st, 4, verdict) || b_int(st, 5, now) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "recording inbound mail");
	}
	return sqlite3_changes(s->db) > 0;
}

static int sq_inbound_count_since(struct rm_store *base, const char *sender, time_t since,
				  long *count, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (s->before_findings)
		return 0;

	if (prep(s, "SELECT count(*) FROM inbound WHERE sender = lower(?) AND at >= ?", &st) ||
	    b_text(st, 1, sender) || b_int(st, 2, since) || step_count(&st, count)) {
		sqlite3_finalize(st);
		*count = 0;
		return db_error(s, err, "counting inbound mail");
	}
	return 0;
}

static int sq_inbound_newest(struct rm_store *base, const char *source, time_t *at,
			     struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	long v = 0;

	if (s->before_findings)
		return 0;
	if (prep(s, "SELECT coalesce(max(at), 0) FROM inbound WHERE source = ?", &st) ||
	    b_text(st, 1, source) || step_count(&st, &v)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading the inbound mail read");
	}
	*at = (time_t)v;
	return 0;
}

static int sq_point_add(struct rm_store *base, const char *key, const char *test,
			const char *commit, const char *role, const char *label, const char *vals,
			time_t at, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "INSERT OR IGNORE INTO finding_points (key, test, commit_sha, role, vals, at,"
		    " label) VALUES (?, ?, ?, ?, ?, ?, ?)",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, test) || b_text(st, 3, commit) ||
	    b_text(st, 4, role) || b_text(st, 5, vals) || b_int(st, 6, at) ||
	    b_text(st, 7, label) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "keeping a finding's values");
	}
	return sqlite3_changes(s->db) > 0;
}

static void point_from_row(sqlite3_stmt *st, void *point)
{
	struct rm_store_point *p = point;

	p->commit = col_text(st, 0);
	p->role = col_text(st, 1);
	p->vals = col_text(st, 2);
	p->at = (time_t)sqlite3_column_int64(st, 3);
	p->label = col_text(st, 4);
}

static int sq_points(struct rm_store *base, const char *key, struct rm_store_point **out,
		     size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows all = ROWS(point_from_row, struct rm_store_point);
	int rc;

	if (s->before_points)
		return 0;
	rc = read_all(s, s->before_labels ?
				 "SELECT commit_sha, role, vals, at, NULL FROM finding_points"
				 " WHERE key = ? ORDER BY id" :
				 "SELECT commit_sha, role, vals, at, label FROM finding_points"
				 " WHERE key = ? ORDER BY id",
		      1, &key, rows_add, &all, err, "reading a finding's values");
	*out = all.items;
	*n = all.n;
	return rc;
}

/* read_all's row for two columns into two growing arrays of char * */
static void two_texts_add(sqlite3_stmt *st, void *ctx)
{
	struct rows **both = ctx;

	rows_add(st, both[0]);
	rows_add(st, both[1]);
}

static int sq_point_findings(struct rm_store *base, const char *prefix, char ***keys,
			     char ***tests, size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows k = ROWS(text_from_row, char *), t = ROWS(text2_from_row, char *);
	struct rows *both[2] = { &k, &t };
	int rc;

	if (s->before_points)
		return 0;
	/* substr, not LIKE: test keys hold '%' and '_' (nr_threads=100%) */
	rc = read_all(s, "SELECT DISTINCT key, test FROM finding_points"
			 " WHERE substr(test, 1, length(?1)) = ?1 ORDER BY key",
		      1, &prefix, two_texts_add, both, err, "reading findings' values");
	*keys = k.items;
	*tests = t.items;
	*n = k.n;
	return rc;
}

static int sq_mention_add(struct rm_store *base, const char *key, const char *message_id,
			  const char *by_key, time_t at, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "INSERT OR IGNORE INTO finding_mentions (key, message_id, by_key, at)"
		    " VALUES (?, ?, ?, ?)",
		 &st) ||
	    b_text(st, 1, key) || b_text(st, 2, message_id) || b_text(st, 3, by_key) ||
	    b_int(st, 4, at) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "keeping a later report's mention");
	}
	return sqlite3_changes(s->db) > 0;
}

static void mention_from_row(sqlite3_stmt *st, void *mention)
{
	struct rm_store_mention *m = mention;

	m->message_id = col_text(st, 0);
	m->by_key = col_text(st, 1);
	m->at = (time_t)sqlite3_column_int64(st, 2);
}

static int sq_mentions(struct rm_store *base, const char *key, struct rm_store_mention **out,
		       size_t *n, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows all = ROWS(mention_from_row, struct rm_store_mention);
	int rc;

	if (s->before_mentions)
		return 0;
	rc = read_all(s, "SELECT message_id, by_key, at FROM finding_mentions WHERE key = ?"
			 " ORDER BY at, message_id",
		      1, &key, rows_add, &all, err, "reading the later reports' mentions");
	*out = all.items;
	*n = all.n;
	return rc;
}

static int sq_optout_add(struct rm_store *base, const char *addr, const char *scope,
			 const char *message_id, time_t now, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (prep(s, "INSERT OR IGNORE INTO optouts (addr, scope, message_id, at) VALUES (?, ?, ?, ?)",
		 &st) ||
	    b_text(st, 1, addr) || b_text(st, 2, scope) || b_text(st, 3, message_id) ||
	    b_int(st, 4, now) || step_done(&st)) {
		sqlite3_finalize(st);
		return db_error(s, err, "recording an opt-out");
	}
	return 0;
}

static int sq_optout_check(struct rm_store *base, const char *addr, const char *tree, bool *out,
			   struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	long count = 0;

	if (s->before_findings)
		return 0;

	if (prep(s, "SELECT count(*) FROM optouts WHERE addr = ? AND (scope = '*' OR scope = ?)",
		 &st) ||
	    b_text(st, 1, addr) || b_text(st, 2, tree ? tree : "*") || step_count(&st, &count)) {
		sqlite3_finalize(st);
		return db_error(s, err, "reading opt-outs");
	}
	*out = count > 0;
	return 0;
}

static int sq_optout_count(struct rm_store *base, long *count, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;

	if (s->before_findings)
		return 0;

	if (prep(s, "SELECT count(DISTINCT addr) FROM optouts", &st) || step_count(&st, count)) {
		sqlite3_finalize(st);
		*count = 0;
		return db_error(s, err, "counting opt-outs");
	}
	return 0;
}

/* ---- counts and dump (`store check`, `store migrate`) */

static int sq_counts(struct rm_store *base, struct rm_store_counts *c, struct rm_error *err)
{
	static const char *const sql[] = {
		"SELECT count(*) FROM reports",
		"SELECT count(*) FROM messages",
		"SELECT count(*) FROM rcpt_results",
		"SELECT count(*) FROM commit_cache",
		"SELECT coalesce(sum(attempts), 0) FROM messages",
		("SELECT count(*) FROM messages m WHERE dedupe_key IS NOT NULL AND NOT EXISTS"
		 " (SELECT 1 FROM reports r WHERE r.dedupe_key = m.dedupe_key)"),
	};
	long *dst[] = { &c->reports, &c->messages, &c->rcpt_results, &c->cache, &c->attempts,
			&c->orphans };
	struct sq_store *s = sq(base);
	sqlite3_stmt *st;
	size_t i;

	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		if (prep(s, sql[i], &st) || step_count(&st, dst[i])) {
			sqlite3_finalize(st);
			return db_error(s, err, "counting rows");
		}
	for (i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (prep(s, "SELECT count(*) FROM messages WHERE state = ?", &st) ||
		    b_text(st, 1, state_names[i]) || step_count(&st, &c->by_state[i])) {
			sqlite3_finalize(st);
			return db_error(s, err, "counting rows");
		}
	if (prep(s, s->before_threads ?
			    /* what the step that adds `threads` will make */
			    "SELECT count(DISTINCT thread_key) FROM messages" :
			    "SELECT count(*) FROM threads",
		 &st) ||
	    step_count(&st, &c->threads) ||
	    (!s->before_threads &&
	     (prep(s, "SELECT (SELECT count(DISTINCT thread_key) FROM messages m WHERE NOT EXISTS"
		      "   (SELECT 1 FROM threads t WHERE t.key = m.thread_key)) +"
		      " (SELECT count(*) FROM threads t WHERE NOT EXISTS"
		      "   (SELECT 1 FROM messages m WHERE m.message_id = t.message_id))",
		   &st) ||
	      step_count(&st, &c->thread_orphans)))) {
		sqlite3_finalize(st);
		return db_error(s, err, "counting rows");
	}
		for (i = 0; i < RM_STORE_LISTEN_TABLES && !s->before_findings &&
		    !(i == 4 && s->before_points) &&
		    !(i == 5 && s->before_mentions); i++) {
		char q[128];

		/* a constant table name of store.c's list, not input */
		snprintf(q, sizeof(q), "SELECT count(*) FROM %s", rm_store_listen_tables[i].name);
		if (prep(s, q, &st) || step_count(&st, &c->listen[i])) {
			sqlite3_finalize(st);
			return db_error(s, err, "counting rows");
		}
	}
	return 0;
}

/* columns: dedupe_key, message_id, created_at */
static void report_row_from(sqlite3_stmt *st, void *row)
{
	struct rm_store_report_row *r = row;

	r->dedupe_key = col_text(st, 0);
	r->message_id = col_text(st, 1);
	r->created_at = (time_t)sqlite3_column_int64(st, 2);
}

/* columns: tree, sha, found, facts, fetched_at, expires_at, attempts,
 * first_failed_at, failure */
static void cache_row_from(sqlite3_stmt *st, void *row)
{
	struct rm_store_cache_row *r = row;

	r->tree = col_text(st, 0);
	r->sha = col_text(st, 1);
	r->found = sqlite3_column_int(st, 2) != 0;
	r->facts = col_text(st, 3);
	r->fetched_at = (time_t)sqlite3_column_int64(st, 4);
	r->expires_at = (time_t)sqlite3_column_int64(st, 5);
	r->attempts = (unsigned)sqlite3_column_int(st, 6);
	r->first_failed_at = (time_t)sqlite3_column_int64(st, 7); /* NULL reads 0 */
	r->failure = col_text(st, 8);
}

/* read_all's row for a struct rm_store_text_rows: its ncols columns as text */
static void text_row_add(sqlite3_stmt *st, void *ctx)
{
	struct rm_store_text_rows *t = ctx;
	char *row[16];
	size_t j;

	for (j = 0; j < t->ncols; j++)
		row[j] = col_text(st, (int)j);
	rm_store_text_rows_add(t, row);
}

static int sq_dump(struct rm_store *base, struct rm_store_dump *d, struct rm_error *err)
{
	struct sq_store *s = sq(base);
	struct rows reports = ROWS(report_row_from, struct rm_store_report_row);
	struct rows rcpts = ROWS(rcpt_row_from, struct rm_store_rcpt_row);
	struct rows cache = ROWS(cache_row_from, struct rm_store_cache_row);
	const char *what = "reading every row";
	size_t i;
	int rc;

	if (sq_list(base, &d->msgs, &d->nmsgs, err))
		return -1;
	rc = read_all(s, "SELECT dedupe_key, message_id, created_at FROM reports"
			 " ORDER BY created_at, dedupe_key",
		      0, NULL, rows_add, &reports, err, what);
	d->reports = reports.items;
	d->nreports = reports.n;
	if (rc)
		return -1;
	rc = read_all(s, "SELECT message, rcpt, code, text, at FROM rcpt_results"
			 " ORDER BY message, rowid",
		      0, NULL, rows_add, &rcpts, err, what);
	d->rcpts = rcpts.items;
	d->nrcpts = rcpts.n;
	if (rc)
		return -1;
	rc = read_all(s, s->before_backoff ?
				 "SELECT tree, sha, found, facts, fetched_at, expires_at, 0, NULL, NULL"
				 " FROM commit_cache ORDER BY tree, sha" :
				 "SELECT tree, sha, found, facts, fetched_at, expires_at, attempts,"
				 " first_failed_at, failure FROM commit_cache ORDER BY tree, sha",
		      0, NULL, rows_add, &cache, err, what);
	d->cache = cache.items;
	d->ncache = cache.n;
	if (rc)
		return -1;
	for (i = 0; i < RM_STORE_LISTEN_TABLES && !s->before_findings &&
		    !(i == 4 && s->before_points) &&
		    !(i == 5 && s->before_mentions); i++) {
		const struct rm_store_listen_table *t = &rm_store_listen_tables[i];
		char sql[256];

		/* constant names of store.c's list, not input */
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s ORDER BY %s",
			 i == 4 && s->before_labels ? rm_store_points_columns_v8 : t->columns,
			 t->name, t->order);
		if (read_all(s, sql, 0, NULL, text_row_add, &d->listen[i], err, what))
			return -1;
	}
	if (!s->before_threads &&
	    read_all(s, "SELECT key, message_id, created_at FROM threads ORDER BY key", 0, NULL,
		     text_row_add, &d->threads, err, what))
		return -1;
	return 0;
}

static const struct rm_store_ops sqlite_ops = {
	.name = "sqlite",
	.close = sq_close,
	.schema_version = sq_schema_version,
	.set_durability = sq_set_durability,
	.cache_get = sq_cache_get,
	.cache_put = sq_cache_put,
	.cache_miss_get = sq_cache_miss_get,
	.cache_miss_put = sq_cache_miss_put,
	.thread_first = sq_thread_first,
	.threads_ending = sq_threads_ending,
	.report_get = sq_report_get,
	.enqueue = sq_enqueue,
	.recover = sq_recover,
	.claim_due = sq_claim_due,
	.record = sq_record,
	.defer = sq_defer,
	.sent_since = sq_sent_since,
	.rcpt_count_since = sq_rcpt_count_since,
	.list = sq_list,
	.get = sq_get,
	.set_state = sq_set_state,
	.results = sq_results,
	.finding_get = sq_finding_get,
	.finding_set = sq_finding_set,
	.finding_undo = sq_finding_undo,
	.findings = sq_findings,
	.finding_events = sq_finding_events,
	.inbound_seen = sq_inbound_seen,
	.inbound_mark = sq_inbound_mark,
	.inbound_count_since = sq_inbound_count_since,
	.inbound_newest = sq_inbound_newest,
	.point_add = sq_point_add,
	.points = sq_points,
	.point_findings = sq_point_findings,
	.mention_add = sq_mention_add,
	.mentions = sq_mentions,
	.optout_add = sq_optout_add,
	.optout_check = sq_optout_check,
	.optout_count = sq_optout_count,
	.counts = sq_counts,
	.dump = sq_dump,
	/* no leases, no archive claims: run's lock keeps SQLite to one run;
	 * no load: `store migrate` copies into PostgreSQL */
};
