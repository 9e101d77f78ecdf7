/*
 * store.h - the state robotmail keeps between runs, behind one interface.
 *
 * Owns: the typed operations on that state (the reports seen, the threads,
 * the outbox of messages with each recipient's result, the commit-facts
 * cache) and the choice of backend from the configured location:
 *   a file path             SQLite (store_sqlite.c): WAL, a busy timeout,
 *                           versioned schema migrations
 *   postgresql://...        PostgreSQL (store_pg.c, libpq): several hosts share
 *   postgres://...          one database; messages and archives are claimed
 *                           with SELECT ... FOR UPDATE SKIP LOCKED and a lease
 *                           (host, pid, expiry) that rm_store_renew() extends
 *                           and another host takes over once it expired
 * A backend is a `struct rm_store_ops` table; every rm_store_* function
 * dispatches through it, so a stage never knows which backend it talks to
 * (OpenSMTPD's queue_backend.c is the model).
 *
 * Every operation's database result is checked: a failed query is -1 with
 * an rm_error (RM_ERR_TEMP when the database is busy, locked, full or has an
 * I/O error; a later run can fix those), never a zero count or "not found".
 *
 * Must not: send anything, fetch anything, decide policy (schedule.c does:
 * what is due, caps, holds, backoff), know what a report looks like.
 *
 * Calling sequence of a run (the outbox never loses a message: it is stored
 * with its final bytes before the first attempt and marked sent only after a
 * server accepted it; a crash leaves it queued or sending, and `sending` goes
 * back to queued at the next run, so it is sent again with the same
 * Message-ID):
 *   1. rm_store_open(READWRITE)     create and migrate as needed
 *   2. rm_store_recover()           sending -> queued (a crashed run)
 *   3. rm_store_enqueue()           per new report (dedupe key checked)
 *   4. rm_store_claim_due()         queued and due -> sending
 *   5. rm_store_record()            per attempt: sent, queued again, or failed
 *   6. rm_store_close()
 */
#ifndef RM_STORE_H
#define RM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "error.h"

struct rm_store;
struct rm_commit_cache; /* commit.h */
struct rm_commit_miss;  /* commit.h */
struct rm_sb;           /* strbuf.h */

enum rm_store_mode {
	RM_STORE_READWRITE, /* create the store and migrate the schema as needed */
	RM_STORE_READONLY,  /* --dry-run: nothing on disk changes (not even a -wal or
			     * -shm file appears); a missing store is an empty one */
};

/* Open the store at `location` (the configuration's paths.state_db).  In
 * READONLY mode a missing store gives *st == NULL and success; the read
 * operations below accept a NULL store as an empty one.  The caller closes
 * with rm_store_close(). */
int rm_store_open(struct rm_store **st, const char *location, enum rm_store_mode mode,
		  struct rm_error *err);
/* Close and free; NULL is a no-op. */
void rm_store_close(struct rm_store *st);
/* The backend's name ("sqlite"). */
const char *rm_store_backend(const struct rm_store *st);
/* The schema version the store is at, into *version. */
int rm_store_schema_version(struct rm_store *st, int *version, struct rm_error *err);

/* ---- durability
 *
 * Delivery records may trade durability for speed: after a power loss a
 * message whose "sent" mark was lost is sent again (same Message-ID), which
 * is harmless.  rm_store_enqueue() always writes durably, whatever was set,
 * and returns to DURABLE. */
enum rm_store_durability {
	RM_STORE_DURABLE, /* every commit reaches the disk before it returns */
	RM_STORE_FAST,    /* commits may be lost by a power loss (never by a crash) */
};
int rm_store_set_durability(struct rm_store *st, enum rm_store_durability d,
			    struct rm_error *err);

/* ---- the commit-facts cache (found commits are kept for good; misses expire) */

/* Returns 1 on a hit (with *json malloc'd, caller frees, and *found), 0 on a
 * miss or an expired miss (or a NULL store), -1 on error. */
int rm_store_cache_get(struct rm_store *st, const char *tree, const char *sha, time_t now,
		       char **json, bool *found, struct rm_error *err);
/* Store facts (found) for good, or a miss until now + ttl. */
int rm_store_cache_put(struct rm_store *st, const char *tree, const char *sha, bool found,
		       const char *json, time_t now, long ttl, struct rm_error *err);
/* The miss record of (tree, sha) (commit.h), expired or not: 1 with *m, 0
 * none (or a NULL store), -1 on error. */
int rm_store_cache_miss_get(struct rm_store *st, const char *tree, const char *sha,
			    struct rm_commit_miss *m, struct rm_error *err);
/* Replace the record of (tree, sha) by the miss record m (asked again after
 * m->next_at). */
int rm_store_cache_miss_put(struct rm_store *st, const char *tree, const char *sha,
			    const struct rm_commit_miss *m, struct rm_error *err);
/* Fill `cache` (gitweb.h's interface) with callbacks over this store: a miss
 * is asked again after a wait growing up to `miss_ttl` seconds (lookup.c);
 * a read-only store gets no put.  The store must
 * outlive the cache.  A failed read is a miss for the lookup (it fetches). */
void rm_store_commit_cache(struct rm_store *st, long miss_ttl, struct rm_commit_cache *cache);

/* ---- reports and messages */

enum rm_store_state {
	RM_STORE_HELD,    /* waits for `queue release` */
	RM_STORE_QUEUED,  /* waits for next_attempt */
	RM_STORE_SENDING, /* claimed by a run */
	RM_STORE_SENT,    /* a server accepted it for at least one recipient */
	RM_STORE_FAILED,  /* no server accepted it, or the operator dropped it */
};

struct rm_store_msg {
	long long id;
	char *thread_key;  /* same finding (commit, test, metric): follow-ups thread */
	char *refs;        /* References chain of this message, one id per line */
	char *message_id;
	char *dedupe_key;
	char *tree;
	char *subject;
	char *mail_from;
	char **rcpts;      /* queued: still to deliver; failed: every recipient
			    * not accepted (what `queue retry` sends to) */
	size_t nrcpts;
	char *bytes;       /* CRLF */
	size_t len;
	enum rm_store_state state;
	int attempts;
	char *last_error;
	time_t next_attempt, created_at, sent_at;
	bool starts_thread; /* rm_store_enqueue() only (never read back): the
			     * caller built this mail as the first of its thread
			     * (no reply to an earlier report of the finding) */
	char **mentions;    /* rm_store_enqueue() only: the thread keys of the
			     * earlier findings this report mentions, kept as
			     * by thread_key (rm_store_mention_add) in the
			     * message's own transaction: a run killed after
			     * queueing it never leaves them out */
	size_t nmentions;
};

/* Free a message's strings (not the struct), or an array from the store. */
void rm_store_msg_free(struct rm_store_msg *m);
void rm_store_msgs_free(struct rm_store_msg *v, size_t n);
const char *rm_store_state_name(enum rm_store_state s);

/* ---- for the backends: the stored forms of a state and of a list */

/* The state stored as `v` ("queued" ...; rm_store_state_name's words);
 * anything else reads as failed. */
enum rm_store_state rm_store_state_from(const char *v);
/* The list as it is stored: one item per line, each ended by '\n'.
 * Caller frees. */
char *rm_store_join_lines(char *const *v, size_t n);
/* The stored list `v` back into *out[0..*n) (empty lines skipped); the
 * caller frees each item and the array. */
void rm_store_split_lines(const char *v, char ***out, size_t *n);

/* The first message of a thread (its Message-ID, subject and References
 * chain), if any: 1 found (strings malloc'd, caller frees), 0 none.  The
 * store keeps one first message per thread key (a unique key: the
 * `threads` table), set by the enqueue that stored it. */
int rm_store_thread_first(struct rm_store *st, const char *thread_key, char **message_id,
			  char **subject, char **refs, struct rm_error *err);
/* The thread keys of earlier reports that end with `suffix` (the finding
 * whatever the tree and tested commit: report.c's rm_report_finding_suffix),
 * newest report first, at most `limit`: *keys[0..*n) malloc'd, the caller
 * frees them with rm_store_keys_free.  A NULL store has none.  (Bracket
 * lines: where else the same failure was seen.) */
int rm_store_threads_ending(struct rm_store *st, const char *suffix, size_t limit, char ***keys,
			    size_t *n, struct rm_error *err);
/* Frees n strings of a list the store returned, and the list (NULL is fine). */
void rm_store_keys_free(char **keys, size_t n);
/* Its SQL at the current schema, per backend (tests EXPLAIN it: an index
 * range, not a scan).  SQLite: ?1 the suffix reversed, ?2 the first string
 * after every one starting with ?1, ?3 the suffix, ?4 the limit;
 * PostgreSQL: $1 the suffix, $2 the limit. */
extern const char rm_store_sqlite_threads_ending_sql[];
extern const char rm_store_pg_threads_ending_sql[];
/* Has a report with this dedupe key been queued before? */
int rm_store_report_seen(struct rm_store *st, const char *dedupe_key, bool *seen,
			 struct rm_error *err);
/* The report queued under this dedupe key: 1 with its Message-ID (malloc'd,
 * caller frees) and when it was queued, 0 none (also for a NULL store),
 * -1 on error. */
int rm_store_report_get(struct rm_store *st, const char *dedupe_key, char **message_id,
			time_t *at, struct rm_error *err);
/* Store a report's message (state queued, or held when m->state is HELD)
 * and its dedupe key in one durable transaction.  Returns 1 when stored, 0
 * when the dedupe key or the Message-ID is already there (nothing changed),
 * -1 on error.  Borrows m.
 * Threads: a message with a thread key whose thread has no first message
 * yet becomes that first message (in the same transaction).  When the
 * thread has one already and m->starts_thread is set (another run, on this
 * host or another, stored its first report of the finding after this one
 * read rm_store_thread_first()), nothing is stored and it returns
 * RM_STORE_THREAD_TAKEN: the caller builds the mail again as a reply to
 * rm_store_thread_first() and enqueues that.  On PostgreSQL an enqueue
 * whose thread key another transaction is storing waits for it to end. */
#define RM_STORE_THREAD_TAKEN 2
int rm_store_enqueue(struct rm_store *st, const struct rm_store_msg *m, time_t now,
		     struct rm_error *err);
/* Messages left `sending` by a crashed run go back to `queued`; *n says how many. */
int rm_store_recover(struct rm_store *st, int *n, struct rm_error *err);
/* Claim up to `limit` due messages (queued, next_attempt <= now): they become
 * `sending`.  *out is an array the caller frees with rm_store_msgs_free(). */
int rm_store_claim_due(struct rm_store *st, time_t now, size_t limit, struct rm_store_msg **out,
		       size_t *n, struct rm_error *err);

/* The outcome of one delivery attempt for one recipient. */
struct rm_rcpt_result {
	const char *rcpt;
	int code;           /* SMTP reply code (250, 451, 550 ...); 0: not tried */
	const char *text;
};

/* Record an attempt on a claimed message: each tried recipient's result is
 * kept; recipients with 2xx are done, with 5xx refused for good, the others
 * stay pending.  No pending recipient left, or `give_up` set: `sent` when at
 * least one recipient accepted it (in this or an earlier attempt), else
 * `failed` (its recipient list then keeps every recipient not accepted, for
 * `queue retry`).  Otherwise `queued` again at `retry_at`.  The state it
 * ends in goes to *state. */
int rm_store_record(struct rm_store *st, long long id, const struct rm_rcpt_result *res,
		    size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		    enum rm_store_state *state, struct rm_error *err);
/* Put a claimed message back in the queue until `until` without counting an
 * attempt (a cap was reached); `why` becomes its last error. */
int rm_store_defer(struct rm_store *st, long long id, time_t until, const char *why,
		   struct rm_error *err);
/* Messages sent since `since` (for the hourly cap). */
int rm_store_sent_since(struct rm_store *st, time_t since, long *count, struct rm_error *err);
/* Messages `rcpt` accepted since `since` (for per-list daily caps). */
int rm_store_rcpt_count_since(struct rm_store *st, const char *rcpt, time_t since, long *count,
			      struct rm_error *err);

/* ---- operating the queue */

/* Every message, oldest first; *out as for rm_store_claim_due(). */
int rm_store_list(struct rm_store *st, struct rm_store_msg **out, size_t *n,
		  struct rm_error *err);
/* By id or Message-ID (with or without <>).  Returns 1 found (*m filled; free
 * with rm_store_msg_free), 0 not found. */
int rm_store_get(struct rm_store *st, const char *which, struct rm_store_msg *m,
		 struct rm_error *err);

enum rm_store_action {
	RM_STORE_RETRY,   /* queued, held or failed (with recipients) -> queued, due now */
	RM_STORE_RELEASE, /* held -> queued, due now */
	RM_STORE_HOLD,    /* queued -> held */
	RM_STORE_DROP,    /* queued, held or failed -> failed, "dropped by the operator" */
	RM_STORE_RESEND,  /* sent (not pruned) -> queued, due now, to every recipient with a recorded
			   * result (the same bytes and Message-ID); its results so far
			   * stay until the new attempt replaces them */
	RM_STORE_PRUNE,   /* sent -> its bytes dropped (`queue prune`): the row stays, so
			   * dedupe, threading and the recipients' results stay; a pruned
			   * message cannot be resent */
};
/* Apply an action to one message (by id or Message-ID).  Returns 1 changed,
 * 0 not found or not in a state the action applies to. */
int rm_store_set_state(struct rm_store *st, const char *which, enum rm_store_action action,
		       time_t now, struct rm_error *err);

/* ---- findings and what people said about them (issue 18: `listen`)
 *
 * A finding is what a thread is about: the report's thread key (tree,
 * commit, test, metric, direction).  It is open until a command in a reply
 * changes it; every change is kept as an event, so `undo` can go back and
 * the findings page can show who said what. */
enum rm_finding_state {
	RM_FINDING_OPEN,
	RM_FINDING_INVALID, /* a false positive: never reported again */
	RM_FINDING_FIXED,   /* arg: the fix's commit or subject */
	RM_FINDING_DUP,     /* arg: the Message-ID of the report it duplicates */
};
struct rm_store_finding {
	char *key;                   /* the thread key */
	char *tree;
	enum rm_finding_state state;
	char *arg;                   /* FIXED, DUP: as above; else NULL */
	time_t updated_at;
};
struct rm_store_event {
	char *command;    /* as written, e.g. "#robotmail fixed: 1234abcd" */
	char *by;         /* the sender's address */
	char *message_id; /* the reply's */
	enum rm_finding_state state; /* the state after it */
	bool undone;      /* taken back by a later undo */
	time_t at;
};
const char *rm_finding_state_name(enum rm_finding_state s);
void rm_store_finding_free(struct rm_store_finding *f);
void rm_store_events_free(struct rm_store_event *v, size_t n);

/* The finding under `key`: 1 found (*f filled, free with
 * rm_store_finding_free), 0 never changed (open; also for a NULL store). */
int rm_store_finding_get(struct rm_store *st, const char *key, struct rm_store_finding *f,
			 struct rm_error *err);
/* Set a finding's state (created open first when new) and keep the event
 * (command, by, message_id borrowed) in one transaction.  Returns 1 set, 0
 * when this mail (message_id) gave this command before (nothing changes:
 * a pass killed before it remembered the mail is not applied twice). */
int rm_store_finding_set(struct rm_store *st, const char *key, const char *tree,
			 enum rm_finding_state state, const char *arg, const char *command,
			 const char *by, const char *message_id, time_t now, struct rm_error *err);
/* Take back the finding's last change not taken back yet: its state
 * returns to what it was before, and the undo is kept as an event.
 * Returns 1 undone (also when this mail's undo was done before), 0
 * nothing to undo. */
int rm_store_finding_undo(struct rm_store *st, const char *key, const char *command,
			  const char *by, const char *message_id, time_t now,
			  struct rm_error *err);
/* Every finding with a state, oldest change first (*out: caller frees each
 * with rm_store_finding_free, then the array). */
int rm_store_findings(struct rm_store *st, struct rm_store_finding **out, size_t *n,
		      struct rm_error *err);
/* A finding's events, oldest first (rm_store_events_free). */
int rm_store_finding_events(struct rm_store *st, const char *key, struct rm_store_event **out,
			    size_t *n, struct rm_error *err);

/* Inbound mail: each message `listen` read (by source and its id there:
 * a Message-ID, or an IMAP UID), so nothing is read twice. */
int rm_store_inbound_seen(struct rm_store *st, const char *source, const char *id, bool *seen,
			  struct rm_error *err);
/* Remember it, with its sender and what was done with it ("applied",
 * "ignored: ...").  Returns 1 stored, 0 already there. */
int rm_store_inbound_mark(struct rm_store *st, const char *source, const char *id,
			  const char *sender, const char *verdict, time_t now,
			  struct rm_error *err);
/* Messages from `sender` read since `since` (for the per-sender limit). */
int rm_store_inbound_count_since(struct rm_store *st, const char *sender, time_t since,
				 long *count, struct rm_error *err);

/* The newest time a mail of `source` was read (*at; 0 when none): where
 * a source without UIDs (public-inbox) asks from at its next pass. */
int rm_store_inbound_newest(struct rm_store *st, const char *source, time_t *at,
			    struct rm_error *err);

/* Opt-outs asked for by mail: `addr` gets no report of tree `scope`, or of
 * any tree when scope is "*". */
int rm_store_optout_add(struct rm_store *st, const char *addr, const char *scope,
			const char *message_id, time_t now, struct rm_error *err);
/* Has `addr` opted out of reports of `tree` (or of all)? */
int rm_store_optout_check(struct rm_store *st, const char *addr, const char *tree, bool *out,
			  struct rm_error *err);
/* How many addresses opted out (for check-config). */
int rm_store_optout_count(struct rm_store *st, long *count, struct rm_error *err);

/* ---- the numbers behind a finding (its page's plot)
 *
 * Per commit tested: the finding's headline metric, one value per run, as
 * the report's archive had them ("base" and "head": the report's parent and
 * commit; "seen": another tested head of a known tree where the same test
 * showed the finding: a bracket line's head, or a later report's head of
 * the same test and metric; for a failure id the count in each run, 0 when
 * a run lacks it).  `test` names the test without the commit
 * (rm_report_test_key): where the same test on the same tree finds the
 * finding again. */
struct rm_store_point {
	char *commit;
	char *role;   /* "base", "head", "seen" */
	char *label;  /* "<tree>/<branch>" the commit was tested on (schema step
		       * 9); NULL for values kept before */
	char *vals;   /* the values as stored: one per line (%.17g) */
	double *v;    /* the same, parsed */
	size_t n;
	time_t at;
};
void rm_store_points_free(struct rm_store_point *v, size_t n);
/* Keep the values of `commit` for the finding `key` (v[0..n) borrowed).
 * Returns 1 stored, 0 when the finding has this commit already (nothing
 * changes: the first archive's values stay). */
int rm_store_point_add(struct rm_store *st, const char *key, const char *test,
		       const char *commit, const char *role, const double *v, size_t n,
		       time_t at, struct rm_error *err);
/* The same with the tree/branch the commit was tested on (`label`, may be
 * NULL; borrowed). */
int rm_store_point_keep(struct rm_store *st, const char *key, const char *test,
			const char *commit, const char *role, const char *label, const double *v,
			size_t n, time_t at, struct rm_error *err);
/* A finding's points, in the order kept (rm_store_points_free). */
int rm_store_points(struct rm_store *st, const char *key, struct rm_store_point **out,
		    size_t *n, struct rm_error *err);
/* The findings with values kept under a test key beginning with `prefix`
 * (the same test on the same tree, any metric): their keys and test keys
 * into *keys and *tests (the caller frees both with rm_store_keys_free). */
int rm_store_point_findings(struct rm_store *st, const char *prefix, char ***keys,
			    char ***tests, size_t *n, struct rm_error *err);

/* ---- later reports that mention a finding (schema step 10)
 *
 * A new report mentions an earlier finding when that finding's thread key
 * is another thread key ending in the new report's finding suffix
 * (rm_report_finding_suffix: the same test axes but the commit, the same
 * headline id or metric, the same direction) -- the same finding seen on
 * another commit or tree: another archive's head, a bisection of the same
 * id, a later head where it is seen again; the findings the bracket lines
 * name from the store are among them) and an earlier run reported it (the
 * run's own reports do not mention each other: the result never depends on
 * the order of a run's archives).  The pipeline keeps one row per
 * (finding, later report) once the later report is queued; the finding's
 * status page lists them. */
struct rm_store_mention {
	char *message_id; /* the later report's */
	char *by_key;     /* its thread key (its own finding) */
	time_t at;
};
void rm_store_mentions_free(struct rm_store_mention *v, size_t n);
/* Keep that report `message_id` (thread key `by_key`) mentions the finding
 * `key`.  Returns 1 stored, 0 when kept before (nothing changes). */
int rm_store_mention_add(struct rm_store *st, const char *key, const char *message_id,
			 const char *by_key, time_t at, struct rm_error *err);
/* The later reports that mention the finding `key`, oldest first
 * (rm_store_mentions_free).  A NULL store, or one before step 10, has none. */
int rm_store_mentions(struct rm_store *st, const char *key, struct rm_store_mention **out,
		      size_t *n, struct rm_error *err);

/* ---- several hosts: the owner of claims, leases, archive claims
 *
 * With PostgreSQL any number of runs on several hosts share the store: a
 * claimed message or archive carries this process's lease (host, pid, expiry
 * on the database's clock).  A lease that expired (its run was killed, its
 * host cut off) is taken over by the next claim or rm_store_recover(); until
 * then no other run touches the message or archive.  SQLite serves one host:
 * `run` holds the lock beside the database, so these calls cost nothing there
 * (a claim always succeeds, nothing expires). */

/* Is `location` a store several hosts share (PostgreSQL)?  Then `run`
 * takes no lock of its own: runs overlap and claim work in the store. */
bool rm_store_location_shared(const char *location);
/* Name this process's claims: `host` (the configuration's host_id or the
 * hostname; copied, at most 200 bytes kept) and `lease` seconds (>= 5).
 * Before any claim. */
void rm_store_set_owner(struct rm_store *st, const char *host, long lease);
/* How many of `limit` due messages one rm_store_claim_due() should take:
 * all on a single-host store; a round of 32 on a shared one, so the runs of
 * other hosts get their share (the caller claims again after a round). */
size_t rm_store_claim_round(const struct rm_store *st, size_t limit);
/* Extend the leases of everything this process holds.  Cheap to call often:
 * the backend renews only when a third of the lease has passed. */
int rm_store_renew(struct rm_store *st, struct rm_error *err);
/* Claim the archive `name` (its file name in the inbox) for this process:
 * *got is true when it is ours now (free, expired, or ours already), false
 * when another live run holds it. */
int rm_store_claim_archive(struct rm_store *st, const char *name, bool *got,
			   struct rm_error *err);
/* Release an archive claimed by this process (after it was moved aside, or
 * to leave it for a later run). */
int rm_store_release_archive(struct rm_store *st, const char *name, struct rm_error *err);

/* ---- moving and checking a store (`robotmail store migrate|check`) */

#define RM_STORE_LISTEN_TABLES 6

struct rm_store_counts {
	long reports, messages, rcpt_results, cache;
	long by_state[5];     /* indexed by enum rm_store_state */
	long attempts;        /* the sum over messages */
	long orphans;         /* messages with a dedupe key that no report row has */
	long stale_leases;    /* `sending` messages whose lease expired (PostgreSQL) */
	long archive_claims;  /* archives claimed now (PostgreSQL) */
	long listen[RM_STORE_LISTEN_TABLES];       /* rows of rm_store_listen_tables[i] (findings, ...) */
	long threads;         /* thread keys with their first message (`threads`) */
	long thread_orphans;  /* thread keys of messages that no `threads` row has,
			       * or whose row names no stored message */
};
int rm_store_counts(struct rm_store *st, struct rm_store_counts *c, struct rm_error *err);

/* The tables of `listen` (findings, finding_events, inbound, optouts) and
 * of status (finding_points, finding_mentions), which
 * `store migrate` copies as text cells: their columns (finding_events
 * without its id: the rows are copied in id order, so undo still takes back
 * the last change), the order they are read in, and PostgreSQL's VALUES
 * with the casts the text needs. */
struct rm_store_listen_table {
	const char *name, *columns, *order, *pg_values;
	size_t ncols;
};
extern const struct rm_store_listen_table rm_store_listen_tables[RM_STORE_LISTEN_TABLES];
/* finding_points' columns as a store before schema step 9 (no label) is read */
extern const char rm_store_points_columns_v8[];
/* The `threads` table (thread key -> first Message-ID), copied the same way. */
extern const struct rm_store_listen_table rm_store_thread_table;
/* rows of text cells, row-major (a NULL cell: SQL NULL) */
struct rm_store_text_rows {
	char **cells;
	size_t nrows, ncols;
};
void rm_store_text_rows_add(struct rm_store_text_rows *t, char **row); /* takes the row's cells */

/* The raw rows of a store, as `store migrate` copies them. */
struct rm_store_report_row { char *dedupe_key, *message_id; time_t created_at; };
struct rm_store_rcpt_row { long long message; char *rcpt, *text; int code; time_t at; };
struct rm_store_cache_row {
	char *tree, *sha, *facts; bool found; time_t fetched_at, expires_at; /* 0: never */
	/* a miss's backoff (schema step 7; 0/0/NULL before it): asks in a row
	 * that found nothing, the first of them (0: none), a malformed answer's text */
	unsigned attempts; time_t first_failed_at; char *failure;
};
struct rm_store_dump {
	struct rm_store_report_row *reports; size_t nreports;
	struct rm_store_msg *msgs; size_t nmsgs;          /* with their ids */
	struct rm_store_rcpt_row *rcpts; size_t nrcpts;
	struct rm_store_cache_row *cache; size_t ncache;
	struct rm_store_text_rows listen[RM_STORE_LISTEN_TABLES]; /* rm_store_listen_tables[i]'s rows */
	struct rm_store_text_rows threads;   /* rm_store_thread_table's rows */
};
/* Read every row (malloc'd; free with rm_store_dump_free). */
int rm_store_dump(struct rm_store *st, struct rm_store_dump *d, struct rm_error *err);
/* Write every row of d into an empty store in one transaction, keeping the
 * messages' ids.  A store that already holds messages or reports is refused
 * (RM_ERR_CONFIG).  Thread keys of messages without a `threads` row (a
 * source from before that table) get their first message by id, as the
 * schema step that added it does. */
int rm_store_load(struct rm_store *st, const struct rm_store_dump *d, struct rm_error *err);
void rm_store_dump_free(struct rm_store_dump *d);
/* Each recipient's last result for message `id` (accepted, refused or
 * deferred, with the server's code and text), in the order they were
 * recorded; free *out with rm_store_rcpt_rows_free.  A NULL store has none. */
int rm_store_results(struct rm_store *st, long long id, struct rm_store_rcpt_row **out, size_t *n,
		     struct rm_error *err);
void rm_store_rcpt_rows_free(struct rm_store_rcpt_row *v, size_t n);
/* `store migrate`: copy every row of `src` into the empty `dst` and compare
 * the counts of both (reports, messages by state, attempts, recipients'
 * results, cache rows); what it did goes to `out`.  0 when every count
 * matches, -1 with *err set otherwise (a mismatch is RM_ERR_INTERNAL). */
int rm_store_migrate(struct rm_store *src, struct rm_store *dst, struct rm_sb *out,
		     struct rm_error *err);
/* `store check`: backend, schema version, counts and consistency into `out`.
 * Returns 0 consistent, 1 with problems (listed in out), -1 on error. */
int rm_store_check(struct rm_store *st, struct rm_sb *out, struct rm_error *err);
/* `store check` (migrate false) or `store migrate`: opens the store at
 * `from` read-only and, when `to` is set, the one at `to` read-write, runs
 * rm_store_check on the first or rm_store_migrate from it to the second,
 * and closes both.  Returns as those do, or -1 with *err set when a store
 * does not open. */
int rm_store_check_or_migrate(bool migrate, const char *from, const char *to, struct rm_sb *out,
			      struct rm_error *err);

/* ---- for backends only
 *
 * A backend allocates a struct whose first member is a `struct rm_store`
 * pointing at its ops; rm_store_* above check arguments and dispatch.  Each
 * op has the contract of the function of the same name. */
struct rm_store_ops {
	const char *name;
	void (*close)(struct rm_store *st);
	int (*schema_version)(struct rm_store *st, int *version, struct rm_error *err);
	int (*set_durability)(struct rm_store *st, enum rm_store_durability d,
			      struct rm_error *err);
	int (*cache_get)(struct rm_store *st, const char *tree, const char *sha, time_t now,
			 char **json, bool *found, struct rm_error *err);
	int (*cache_put)(struct rm_store *st, const char *tree, const char *sha, bool found,
			 const char *json, time_t now, long ttl, struct rm_error *err);
	int (*cache_miss_get)(struct rm_store *st, const char *tree, const char *sha,
			      struct rm_commit_miss *m, struct rm_error *err);
	int (*cache_miss_put)(struct rm_store *st, const char *tree, const char *sha,
			      const struct rm_commit_miss *m, struct rm_error *err);
	int (*thread_first)(struct rm_store *st, const char *thread_key, char **message_id,
			    char **subject, char **refs, struct rm_error *err);
	int (*threads_ending)(struct rm_store *st, const char *suffix, size_t limit, char ***keys,
			      size_t *n, struct rm_error *err);
	/* 1 with *message_id (malloc'd) and *at, 0 none, -1 error */
	int (*report_get)(struct rm_store *st, const char *dedupe_key, char **message_id,
			  time_t *at, struct rm_error *err);
	int (*enqueue)(struct rm_store *st, const struct rm_store_msg *m, time_t now,
		       struct rm_error *err);
	int (*recover)(struct rm_store *st, int *n, struct rm_error *err);
	int (*claim_due)(struct rm_store *st, time_t now, size_t limit, struct rm_store_msg **out,
			 size_t *n, struct rm_error *err);
	int (*record)(struct rm_store *st, long long id, const struct rm_rcpt_result *res, size_t n,
		      const char *error, time_t now, time_t retry_at, bool give_up,
		      enum rm_store_state *state, struct rm_error *err);
	int (*defer)(struct rm_store *st, long long id, time_t until, const char *why,
		     struct rm_error *err);
	int (*sent_since)(struct rm_store *st, time_t since, long *count, struct rm_error *err);
	int (*rcpt_count_since)(struct rm_store *st, const char *rcpt, time_t since, long *count,
				struct rm_error *err);
	int (*list)(struct rm_store *st, struct rm_store_msg **out, size_t *n, struct rm_error *err);
	int (*get)(struct rm_store *st, const char *which, struct rm_store_msg *m,
		   struct rm_error *err);
	int (*set_state)(struct rm_store *st, const char *which, enum rm_store_action action,
			 time_t now, struct rm_error *err);
	int (*results)(struct rm_store *st, long long id, struct rm_store_rcpt_row **out,
		       size_t *n, struct rm_error *err);
	/* issue 18: findings, inbound mail, opt-outs (a backend without one:
	 * its rm_store_* wrapper says "... is not supported by the X store yet") */
	int (*finding_get)(struct rm_store *st, const char *key, struct rm_store_finding *f,
			   struct rm_error *err);
	int (*finding_set)(struct rm_store *st, const char *key, const char *tree,
			   enum rm_finding_state state, const char *arg, const char *command,
			   const char *by, const char *message_id, time_t now,
			   struct rm_error *err);
	int (*finding_undo)(struct rm_store *st, const char *key, const char *command,
			    const char *by, const char *message_id, time_t now,
			    struct rm_error *err);
	int (*findings)(struct rm_store *st, struct rm_store_finding **out, size_t *n,
			struct rm_error *err);
	int (*finding_events)(struct rm_store *st, const char *key, struct rm_store_event **out,
			      size_t *n, struct rm_error *err);
	int (*inbound_seen)(struct rm_store *st, const char *source, const char *id, bool *seen,
			    struct rm_error *err);
	int (*inbound_mark)(struct rm_store *st, const char *source, const char *id,
			    const char *sender, const char *verdict, time_t now,
			    struct rm_error *err);
	int (*inbound_count_since)(struct rm_store *st, const char *sender, time_t since,
				   long *count, struct rm_error *err);
	int (*inbound_newest)(struct rm_store *st, const char *source, time_t *at,
			      struct rm_error *err);
	int (*optout_add)(struct rm_store *st, const char *addr, const char *scope,
			  const char *message_id, time_t now, struct rm_error *err);
	int (*optout_check)(struct rm_store *st, const char *addr, const char *tree, bool *out,
			    struct rm_error *err);
	int (*optout_count)(struct rm_store *st, long *count, struct rm_error *err);
	/* the points: vals as stored; *out's commit, role, label, vals and at filled */
	int (*point_add)(struct rm_store *st, const char *key, const char *test,
			 const char *commit, const char *role, const char *label,
			 const char *vals, time_t at, struct rm_error *err);
	int (*points)(struct rm_store *st, const char *key, struct rm_store_point **out,
		      size_t *n, struct rm_error *err);
	int (*point_findings)(struct rm_store *st, const char *prefix, char ***keys,
			      char ***tests, size_t *n, struct rm_error *err);
	int (*mention_add)(struct rm_store *st, const char *key, const char *message_id,
			   const char *by_key, time_t at, struct rm_error *err);
	int (*mentions)(struct rm_store *st, const char *key, struct rm_store_mention **out,
			size_t *n, struct rm_error *err);
	/* optional (NULL: one host, nothing to lease; a claim always succeeds) */
	int (*renew)(struct rm_store *st, struct rm_error *err);
	int (*claim_archive)(struct rm_store *st, const char *name, bool *got,
			     struct rm_error *err);
	int (*release_archive)(struct rm_store *st, const char *name, struct rm_error *err);
	int (*counts)(struct rm_store *st, struct rm_store_counts *c, struct rm_error *err);
	int (*dump)(struct rm_store *st, struct rm_store_dump *d, struct rm_error *err);
	int (*load)(struct rm_store *st, const struct rm_store_dump *d, struct rm_error *err);
};

struct rm_store {
	const struct rm_store_ops *ops;
	bool readonly;
	long cache_miss_ttl; /* for rm_store_commit_cache() */
	char host[201];      /* rm_store_set_owner(); "" until set */
	long lease;          /* seconds */
};

/* store_sqlite.c: open an SQLite store at `path` (":memory:" for a private
 * in-memory one, as the unit tests use). */
int rm_store_sqlite_open(struct rm_store **st, const char *path, enum rm_store_mode mode,
			 struct rm_error *err);

/* store_pg.c: open a PostgreSQL store at a postgresql:// URL (libpq: its
 * sslmode, passfile and PGPASSFILE are honoured).  A READONLY open changes
 * nothing in the database. */
int rm_store_pg_open(struct rm_store **st, const char *url, enum rm_store_mode mode,
		     struct rm_error *err);
/* The URL with any password replaced by "***" (malloc'd): what messages may show. */
char *rm_store_redact(const char *location);

#endif
