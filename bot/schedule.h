/*
 * schedule.h - delivery policy: what goes out when, and what the queue says.
 *
 * Owns: the decisions between a queued message and a transport (OpenSMTPD's
 * scheduler to store.h's queue): the emergency stop, the hourly cap and the
 * per-list daily caps, holds (which new messages wait for an operator),
 * claiming due messages, backoff, giving up after max_age, turning each
 * attempt's per-recipient results into the message's state (sent when a
 * server accepted it for at least one recipient; failed when none did), and
 * the operator's queue actions (list, show, retry, drop, hold, release).
 *
 * Must not: build messages, print (it hands log lines to the caller's
 * callback and counts to the caller; errors go up as rm_error), or touch the
 * store's tables other than through store.h.
 */
#ifndef RM_SCHEDULE_H
#define RM_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "config.h"
#include "error.h"
#include "store.h"
#include "strbuf.h"

/* A log line's weight: the caller decides what reaches stderr (today:
 * errors and warnings always, info only with -v). */
enum rm_schedule_level {
	RM_SCHEDULE_ERROR,   /* a message no server accepted */
	RM_SCHEDULE_WARNING, /* nothing delivered on purpose (the emergency stop), deferrals */
	RM_SCHEDULE_INFO,    /* one line per action (sent, capped, refused recipient) */
};

struct rm_schedule_log {
	/* one line, no trailing newline; may be NULL (silent) */
	void (*line)(void *ctx, enum rm_schedule_level level, const char *text);
	void *ctx;
};

/* What a delivery pass did, message by message. */
struct rm_schedule_counts {
	int sent;    /* accepted for at least one recipient, nothing left pending */
	int retried; /* queued again after a temporary failure (a later run retries) */
	int failed;  /* no server accepted it (all refused, or given up) */
	int capped;  /* put back because a daily cap was reached */
	int claimed; /* due messages taken for delivery (capped ones among them) */
	bool stopped;/* the emergency stop was present: nothing was attempted */
};

/* At the start of a run: messages a crashed run left `sending` go back to
 * the queue (they are sent again with the same Message-ID); a warning says
 * how many.  Returns 0, or -1 with *err set. */
int rm_schedule_recover(struct rm_store *st, const struct rm_schedule_log *log,
			struct rm_error *err);

/* Is a new message for `tree` to these recipients held (the tree or one of
 * the recipients is on delivery.hold)? */
bool rm_schedule_held(const struct rm_config *cfg, const char *tree, char *const *rcpts,
		      size_t n);

/* One delivery pass over the store at `now`: unless the emergency stop is
 * present or the hourly cap is reached, claim up to delivery.batch due
 * messages, put back those to a list whose daily cap is reached, open the
 * configured transport once and send each, and record every result.  Adds
 * to *c.  Returns 0, or -1 with *err set when the store failed or the
 * transport could not be opened (claimed messages are put back).  A caller
 * maps c->failed to exit 1 and c->retried to 75. */
int rm_schedule_deliver(struct rm_store *st, const struct rm_config *cfg, time_t now,
			const struct rm_schedule_log *log, struct rm_schedule_counts *c,
			struct rm_error *err);

/* ---- the operator's queue */

enum rm_schedule_queue_cmd {
	RM_SCHEDULE_QUEUE_LIST,    /* every message: id, state, attempts, <Message-ID>, subject, last error */
	RM_SCHEDULE_QUEUE_SHOW,    /* one message: its state, its recipients and its bytes (LF) */
	RM_SCHEDULE_QUEUE_RETRY,   /* queued, held or failed (with recipients) -> due now */
	RM_SCHEDULE_QUEUE_DROP,    /* -> failed, "dropped by the operator" */
	RM_SCHEDULE_QUEUE_HOLD,    /* queued -> held */
	RM_SCHEDULE_QUEUE_RELEASE, /* held -> queued, due now */
	RM_SCHEDULE_QUEUE_RESEND,  /* sent -> queued, due now: sent again to the same
				    * recipients with the same Message-ID */
	RM_SCHEDULE_QUEUE_PRUNE,   /* sent: drop its stored bytes (the row stays) */
};

/* Parse an action's name ("list", "retry", ...): 0, or -1 for an unknown one. */
int rm_schedule_queue_cmd_parse(const char *name, enum rm_schedule_queue_cmd *cmd);
/* Does the action take a message (ID or Message-ID)? */
bool rm_schedule_queue_cmd_needs_id(enum rm_schedule_queue_cmd cmd);

/* Run a queue action on message `which` (NULL for list); what it prints
 * goes to `out` (the caller writes it).  Returns 0; 1 with *err set
 * (RM_ERR_USAGE) when no such message is in a state the action applies to
 * (the command exits 1); -1 with *err set when the store failed. */
int rm_schedule_queue(struct rm_store *st, enum rm_schedule_queue_cmd cmd, const char *which,
		      time_t now, struct rm_sb *out, struct rm_error *err);

/* Which messages an action without an ID takes (`queue retry --all`,
 * `queue drop --commit SHA`, `queue list --state failed` ...).  Every
 * filter set must match. */
struct rm_schedule_filter {
	bool all;             /* --all: every message (other filters narrow it) */
	const char *state;    /* --state: held, queued, sending, sent or failed */
	const char *tree;     /* --tree: the report's tree name */
	const char *commit;   /* --commit: a prefix (4+ hex digits) of the tested commit */
	const char *to;       /* --to: a recipient (pending, or with a recorded result) */
	long long older_than; /* --older-than AGE: queued at least this many seconds ago; -1 none */
	long long sent_older_than; /* --sent-older-than AGE: sent at least this long ago; -1 none */
	bool dry_run;         /* --dry-run: say what would change, change nothing */
};

void rm_schedule_filter_init(struct rm_schedule_filter *f);
/* Is any filter (or --all) set? */
bool rm_schedule_filter_any(const struct rm_schedule_filter *f);
/* Take the option at argv[i] (and its value argv[i + 1]) into *f (which
 * borrows the strings): returns how many arguments it used (1 or 2), 0 when
 * argv[i] is none of the options above, -1 with *err set (RM_ERR_USAGE)
 * for a bad or missing value. */
int rm_schedule_filter_arg(struct rm_schedule_filter *f, int argc, char *const *argv, int i,
			   struct rm_error *err);
/* An age: seconds, or a number with s, m, h, d or w ("90d").  0 or -1. */
int rm_schedule_parse_age(const char *s, long long *secs);

/* Run action `cmd` on every message that `f` matches.  list: the matching
 * lines as without a filter.  The others: one line per message the action
 * applies to ("retry 3 <Message-ID> subject"; "would retry ..." with
 * --dry-run) and a last line with the counts: how many changed (or would
 * change) of how many matched, and how many matched in a state the action
 * does not apply to.  Returns 0, or -1 with *err set (the store failed;
 * RM_ERR_USAGE: show, or no filter). */
int rm_schedule_queue_many(struct rm_store *st, enum rm_schedule_queue_cmd cmd,
			   const struct rm_schedule_filter *f, time_t now, struct rm_sb *out,
			   struct rm_error *err);

/* `queue ACTION [ID | filters...]` as read from the command line. */
struct rm_schedule_queue_args {
	enum rm_schedule_queue_cmd cmd;
	const char *which; /* the ID or Message-ID, or NULL */
	struct rm_schedule_filter f;
};
/* Read the action at argv[i], then an ID or filters, into *a (which
 * borrows the strings).  Returns 0, or -1 with *err set (RM_ERR_USAGE): no
 * or an unknown action, an unexpected argument, a bad filter, an ID and
 * filters both, show without an ID, an ID with --dry-run. */
int rm_schedule_queue_args(struct rm_schedule_queue_args *a, int argc, char *const *argv, int i,
			   struct rm_error *err);
/* Run *a: on its one message (rm_schedule_queue), the whole list, or the
 * messages its filters match (rm_schedule_queue_many); `header`: list's
 * column names first (for a person).  Returns as those do. */
int rm_schedule_queue_apply(struct rm_store *st, const struct rm_schedule_queue_args *a,
			    bool header, time_t now, struct rm_sb *out, struct rm_error *err);

/* How many messages wait in the store after a run: queued or sending
 * (a backoff, a cap) in *waiting, held in *held.  Returns 0, or -1 with
 * *err set. */
int rm_schedule_waiting(struct rm_store *st, int *waiting, int *held, struct rm_error *err);

/* The outbox by state (by[enum rm_store_state]) and the age at `now` of
 * the oldest message waiting for delivery (queued or sending; 0 when
 * none), for the metrics file.  Returns 0, or -1 with *err set. */
int rm_schedule_outbox(struct rm_store *st, time_t now, long by[5], long long *oldest_waiting,
		       struct rm_error *err);

#endif
