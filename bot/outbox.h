/*
 * outbox.h - the state database: what robotmail remembers between runs.
 *
 * Owns: the SQLite database (WAL mode, a busy timeout, versioned schema
 * migrations applied in one transaction each) and, in it, the commit-facts
 * cache (found commits are immutable and kept for good; misses expire).
 * Later versions add the reports seen (dedupe keys) and the messages queued,
 * sent and failed.  Callers see only this interface, so a PostgreSQL
 * backend can sit behind it.
 *
 * Must not: send anything, fetch anything, know what a report looks like.
 */
#ifndef RM_OUTBOX_H
#define RM_OUTBOX_H

#include <stdbool.h>
#include <time.h>

#include "error.h"

struct rm_outbox;

enum rm_outbox_mode {
	RM_OUTBOX_READWRITE, /* create the file and migrate the schema as needed */
	RM_OUTBOX_READONLY,  /* --dry-run: never write; a missing file is an empty cache */
};

/* Open (and for READWRITE create and migrate) the database at `path`.
 * In READONLY mode a missing file gives *ob == NULL and success.  The caller
 * closes with rm_outbox_close(). */
int rm_outbox_open(struct rm_outbox **ob, const char *path, enum rm_outbox_mode mode,
		   struct rm_error *err);
void rm_outbox_close(struct rm_outbox *ob);

/* The schema version the file is at. */
int rm_outbox_schema_version(struct rm_outbox *ob);

/* Commit cache.  get returns 1 on a hit (with *json malloc'd, caller frees,
 * and *found), 0 on a miss or an expired miss, -1 on error. */
int rm_outbox_cache_get(struct rm_outbox *ob, const char *tree, const char *sha, time_t now,
			char **json, bool *found, struct rm_error *err);
/* Store facts (found) for good, or a miss until now + ttl.  A no-op
 * returning 0 for a read-only outbox. */
int rm_outbox_cache_put(struct rm_outbox *ob, const char *tree, const char *sha, bool found,
			const char *json, time_t now, long ttl, struct rm_error *err);

/* ---- reports and messages
 *
 * Calling sequence of a run (the outbox never loses a message: it is stored
 * with its final bytes before the first attempt, and marked sent only after
 * the server accepted it; a crash leaves it queued or sending, and `sending`
 * goes back to queued at the next run, so it is sent again with the same
 * Message-ID):
 *   1. rm_outbox_recover()          sending -> queued (a crashed run)
 *   2. rm_outbox_enqueue()          per new report (dedupe key checked)
 *   3. rm_outbox_claim_due()        queued and due -> sending
 *   4. rm_outbox_record()           per attempt: sent, queued again, or failed
 */

enum rm_msg_state { RM_MSG_HELD, RM_MSG_QUEUED, RM_MSG_SENDING, RM_MSG_SENT, RM_MSG_FAILED };

struct rm_outbox_msg {
	long long id;
	char *thread_key;  /* same finding (commit, test, metric): follow-ups thread */
	char *refs;        /* References chain of this message, one id per line */
	char *message_id;
	char *dedupe_key;
	char *tree;
	char *subject;
	char *mail_from;
	char **rcpts;      /* still to deliver */
	size_t nrcpts;
	char *bytes;       /* CRLF */
	size_t len;
	enum rm_msg_state state;
	int attempts;
	char *last_error;
	time_t next_attempt, created_at, sent_at;
};

void rm_outbox_msg_free(struct rm_outbox_msg *m);
const char *rm_msg_state_name(enum rm_msg_state s);

/* The first message of a thread (its Message-ID, subject and References
 * chain), if any: 1 found (strings malloc'd, caller frees), 0 none. */
int rm_outbox_thread_first(struct rm_outbox *ob, const char *thread_key, char **message_id,
			   char **subject, char **refs, struct rm_error *err);

/* Has a report with this dedupe key been queued before? */
int rm_outbox_report_seen(struct rm_outbox *ob, const char *dedupe_key, bool *seen,
			  struct rm_error *err);
/* The report queued under this dedupe key: 1 with its Message-ID (malloc'd,
 * caller frees) and when it was queued, 0 none (also for a NULL outbox),
 * -1 on error. */
int rm_outbox_report_get(struct rm_outbox *ob, const char *dedupe_key, char **message_id,
			 time_t *at, struct rm_error *err);
/* Store a report's message (state queued, or held) and its dedupe key in one
 * transaction.  Returns 1 when stored, 0 when the dedupe key or the
 * Message-ID is already there (nothing changed), -1 on error. */
int rm_outbox_enqueue(struct rm_outbox *ob, const struct rm_outbox_msg *m, time_t now,
		      struct rm_error *err);
/* Messages left `sending` by a crashed run go back to `queued`; returns how many. */
int rm_outbox_recover(struct rm_outbox *ob, struct rm_error *err);
/* Claim up to `limit` due messages (queued, next_attempt <= now): they become
 * `sending`.  *out is an array the caller frees with rm_outbox_msgs_free(). */
int rm_outbox_claim_due(struct rm_outbox *ob, time_t now, size_t limit,
			struct rm_outbox_msg **out, size_t *n, struct rm_error *err);
void rm_outbox_msgs_free(struct rm_outbox_msg *v, size_t n);

/* The outcome of one delivery attempt. */
struct rm_rcpt_result {
	const char *rcpt;
	int code;           /* SMTP reply code (250, 451, 550 ...); 0: not tried */
	const char *text;
};

/* Delivery records may trade durability for speed: after a power loss a
 * message whose "sent" mark was lost is sent again (same Message-ID), which
 * is harmless, while queued messages are always written with a full sync.
 * Call before recording attempts (rm_outbox_enqueue restores full syncs). */
void rm_outbox_fast_records(struct rm_outbox *ob);

/* Record an attempt: recipients with 2xx are done, with 5xx permanently
 * failed (recorded), the others stay pending.  No pending recipient left, or
 * `give_up` set: `sent` when at least one recipient accepted it (in this or
 * an earlier attempt), else `failed`.  Otherwise `queued` again at `retry_at`. */
int rm_outbox_record(struct rm_outbox *ob, long long id, const struct rm_rcpt_result *res,
		     size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		     struct rm_error *err);

/* ---- operating the queue */
int rm_outbox_list(struct rm_outbox *ob, struct rm_outbox_msg **out, size_t *n,
		   struct rm_error *err);
/* By id or Message-ID.  Returns 1 found, 0 not found. */
int rm_outbox_get(struct rm_outbox *ob, const char *which, struct rm_outbox_msg *m,
		  struct rm_error *err);
/* Set a message's state: retry (queued, due now), release (held -> queued),
 * hold (queued -> held), drop (failed, error "dropped by the operator").
 * Returns 1 changed, 0 not found or not in a state the action applies to. */
int rm_outbox_set_state(struct rm_outbox *ob, const char *which, const char *action,
			time_t now, struct rm_error *err);
/* Messages accepted for `rcpt` since `since` (for per-list daily caps). */
int rm_outbox_rcpt_count_since(struct rm_outbox *ob, const char *rcpt, time_t since, long *count,
			       struct rm_error *err);
/* Put a claimed message back in the queue until `until` without counting an
 * attempt (a cap was reached); `why` becomes its last error. */
int rm_outbox_defer(struct rm_outbox *ob, long long id, time_t until, const char *why,
		    struct rm_error *err);
/* Messages sent since `since` (for the hourly cap). */
int rm_outbox_sent_since(struct rm_outbox *ob, time_t since, long *count, struct rm_error *err);

#endif
