/*
 * listen.h - the bot listens: replies to reports and the commands in them.
 *
 * Owns: reading inbound mail from the configured sources (listen.source:
 * a Maildir through libetpan's maildir driver, an imaps:// mailbox through
 * libcurl's IMAP, a public-inbox list through its HTTP search download),
 * parsing each message
 * (libetpan's mailimf/mailmime), the loop and abuse rules (never answer an
 * automatic or bulk mail, an unknown list, the robot itself; a per-sender
 * limit), matching a reply to its finding by In-Reply-To/References
 * against the outbox's Message-IDs, reading the `#robotmail` commands,
 * who may give them (a recipient of the report, or listen.maintainers),
 * their effect on the store (findings' states, opt-outs), and the short
 * in-thread answer to a command not understood, queued in the outbox like
 * any report (schedule.c delivers it).
 *
 * Commands, one per line at the start of a line (a quoted line is not one):
 *   #robotmail invalid                 a false positive: never reported again
 *   #robotmail fixed: <sha or subject> fixed by that commit
 *   #robotmail dup: <Message-ID>       the same as that report
 *   #robotmail unsubscribe             the sender gets no more reports of this tree
 *   #robotmail unsubscribe: all        ... of any tree
 *   #robotmail undo                    takes back the finding's last change
 * A mail whose subject is "unsubscribe" (the reports' List-Unsubscribe:
 * <mailto:ROBOT?subject=unsubscribe>) opts its sender out of every tree.
 *
 * Must not: send anything except through the outbox, decide what gets
 * reported (the pipeline reads the states), print an error that ends the
 * command (main.c does).
 */
#ifndef RM_LISTEN_H
#define RM_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "config.h"
#include "error.h"
#include "store.h"
#include "strbuf.h"

/* At most this many commands are read from one mail. */
#define RM_LISTEN_MAX_COMMANDS 20

/* The cap on one inbound mail, whatever brings it: a Maildir file, an IMAP
 * FETCH, one mail of a public-inbox download.  A mail over it is never
 * parsed (only its header, see RM_LISTEN_MAX_HEAD): it is skipped, counted
 * (rm_listen_stats.oversize), logged with a warning naming the source, the
 * mail (its Message-ID, and where it is in the source) and its size, and
 * remembered in the store as read ("skipped: ..."), so no later pass reads
 * it again; the rest of the source is read.
 * Why 4 MiB: a reply a person writes is a few KiB, and the lists robotmail
 * listens to take far less (public-inbox-mda refuses a mail over 500 KiB:
 * MAX_SIZE in its MDA.pm, "same as spamc default"); 4 MiB, 8x that, still
 * takes a reply quoting a large patch or carrying a log, and bounds the
 * time and memory libetpan spends on one mail (its parse, the decoded text
 * part and that part's UTF-8 copy all grow with the mail). */
#define RM_LISTEN_MAX_MAIL (4u << 20)
/* Of a mail over RM_LISTEN_MAX_MAIL only the header, in its first this
 * many bytes, is parsed, to name the mail by its Message-ID (a header is a
 * few KiB; a longer one is read up to its last whole line here). */
#define RM_LISTEN_MAX_HEAD (64u << 10)
/* A public-inbox download (the mails of a day and more): the gzipped
 * answer, and the mboxrd it unpacks to.  A larger one fails the pass as
 * temporary (exit 75), naming the cap. */
#define RM_LISTEN_MAX_DOWNLOAD (64u << 20)
#define RM_LISTEN_MAX_MBOX (512u << 20)
/* An IMAP answer other than a mail (STATUS, UID SEARCH ALL: ~11 bytes a
 * mail, so 16 MiB is a mailbox of ~1.5 million mails), and what the IDLE
 * connection of `listen --follow` reads while it opens or in one wait (a
 * few lines: more drops the connection with a warning). */
#define RM_LISTEN_MAX_IMAP_ANSWER (16u << 20)

enum rm_listen_cmd_kind {
	RM_CMD_INVALID,
	RM_CMD_FIXED,
	RM_CMD_DUP,
	RM_CMD_UNSUBSCRIBE,
	RM_CMD_UNDO,
	RM_CMD_BAD, /* not understood: `problem` says why */
};

struct rm_listen_cmd {
	enum rm_listen_cmd_kind kind;
	char *line;    /* the command line as written (trimmed) */
	char *arg;     /* FIXED: commit or subject; DUP: Message-ID without <>;
			* UNSUBSCRIBE: "all" or NULL (this tree); else NULL */
	char *problem; /* BAD: what was not understood */
};

/* The commands in a mail's body (LF or CRLF line ends).  *out is malloc'd
 * (free with rm_listen_cmds_free); a body without commands gives n == 0. */
void rm_listen_parse_commands(const char *body, struct rm_listen_cmd **out, size_t *n);
void rm_listen_cmds_free(struct rm_listen_cmd *v, size_t n);

/* An inbound mail as listen sees it.  Every string is valid UTF-8 (a byte
 * of no well-formed sequence becomes '?'); the Subject's RFC 2047 words
 * are decoded; the header values hold no control character. */
struct rm_inmail {
	char *message_id;      /* without <>, or NULL */
	char *from;            /* the sender's address, lower case, or NULL */
	char *subject;         /* or NULL */
	char **refs;           /* In-Reply-To first, then References newest first */
	size_t nrefs;
	char **rcpts;          /* To and Cc addresses, lower case */
	size_t nrcpts;
	char *auto_submitted, *precedence, *list_id; /* the headers, or NULL */
	char *body;            /* the first text/plain part, decoded, in UTF-8 */
};

/* Parse a mail (RFC 5322, MIME).  0, or -1 with err (RM_ERR_INPUT) when it
 * is not a mail at all.  Free with rm_inmail_free. */
int rm_listen_parse_mail(const char *bytes, size_t len, struct rm_inmail *m,
			 struct rm_error *err);
void rm_inmail_free(struct rm_inmail *m);

/* A public-inbox download (an mboxrd) split into its mails: where each
 * begins (after its From_ line: a line starting "From ") into *at, malloc'd
 * (the caller frees it), n mails in the order given, and (*at)[n] = len
 * (*at is NULL when there is no From_ line).  A mail ends at the next
 * From_ line. */
void rm_listen_mbox_split(const char *mbox, size_t len, size_t **at, size_t *n);

/* Who answers a mail, and the answer's own Message-ID and Date. */
struct rm_listen_answer_from {
	const char *name, *address;
	const char *message_id;
	time_t date;
	long zone_seconds;
};

/* The answer to mail m naming the commands of c[0..n) not understood
 * (RM_CMD_BAD) and listing those there are: from `from`, to m's sender,
 * with `subject`, in m's thread (In-Reply-To and References from its
 * Message-ID and References; none when it has no Message-ID), marked
 * Auto-Submitted.  0 with *bytes, *len the message (malloc'd: caller
 * frees), or -1 with err (rm_message_build's: a sender it refuses). */
int rm_listen_answer_build(const struct rm_inmail *m, const struct rm_listen_cmd *c, size_t n,
			   const struct rm_listen_answer_from *from, const char *subject,
			   char **bytes, size_t *len, struct rm_error *err);

/* One mail of the mboxrd, from p (a (*at)[k]) up to the next From_ line
 * or end, with its quoting undone (">From " -> "From ", ">>From " ->
 * ">From "), into out (reset first). */
void rm_listen_mbox_mail(const char *p, const char *end, struct rm_sb *out);

/* Where mail k of rm_listen_mbox_split's (at, n) ends in the mbox: where
 * the next mail's From_ line begins, or at[n] for the last.  Its size, the
 * one RM_LISTEN_MAX_MAIL caps, is that less at[k]. */
size_t rm_listen_mbox_end(const char *mbox, const size_t *at, size_t n, size_t k);

/* Why a mail must never be answered (or acted on): a static string, or NULL
 * when it may be.  The loop rules: Auto-Submitted other than "no",
 * Precedence junk, or bulk or list without a List-Id in listen.lists (a
 * list marks what it distributes so), a List-Id not in listen.lists, mail
 * from the robot itself. */
const char *rm_listen_loop_reason(const struct rm_inmail *m, const struct rm_config *cfg);

/* What one pass did, for the summary line. */
struct rm_listen_stats {
	int read;     /* mails read for the first time */
	int ignored;  /* loop rules, rate limit, not a reply to a report, no command */
	int refused;  /* commands from someone who may not give them */
	int applied;  /* commands that changed the store */
	int answered; /* answers queued (commands not understood) */
	int oversize; /* mails over RM_LISTEN_MAX_MAIL, skipped (not in `read`) */
};

/* The pass's line on out: "robotmail: listen: N read, N ignored, N
 * refused, N command(s) applied, N answer(s) queued", and when a mail was
 * over the cap ", N skipped (over the 4 MiB cap of one mail)". */
void rm_listen_stats_print(const struct rm_listen_stats *stats, FILE *out);

/* Every mail of a public-inbox download (the mboxrd `mbox`, len bytes,
 * newest first, as public-inbox answers) read as one pass of `source` does,
 * oldest first: each mail not read before is read, acted on and remembered
 * in the store; a mail over RM_LISTEN_MAX_MAIL (its bytes in the download,
 * From_ line not counted) is skipped (see RM_LISTEN_MAX_MAIL).
 * Counts go to *stats (added to).  0, or -1 with err (a store failure, or
 * libetpan cannot be loaded). */
int rm_listen_mbox_read(const struct rm_config *cfg, struct rm_store *st, time_t now,
			const char *source, const char *mbox, size_t len,
			struct rm_listen_stats *stats, struct rm_error *err);

/* One pass over every configured source: each mail not read before is
 * read, acted on, and remembered in the store.  Each mail's outcome is
 * logged on stderr ("robotmail: listen: <Message-ID>: ...").  Returns 0, or
 * -1 with err (a source that cannot be read: RM_ERR_CONFIG for a missing
 * Maildir or an unsupported source; a store failure). */
int rm_listen_run(const struct rm_config *cfg, struct rm_store *st, time_t now,
		  struct rm_listen_stats *stats, struct rm_error *err);

/* `listen --follow` between passes: wait until the first imaps:// source
 * has news (IMAP IDLE, over a connection kept in *w across calls; *w starts
 * NULL) or `seconds` are over; without IDLE (no imaps:// source, a server
 * without it, a broken connection: a warning once) a plain sleep.  Free *w
 * with rm_listen_waiter_free. */
struct rm_listen_waiter;
void rm_listen_wait(const struct rm_config *cfg, long seconds, struct rm_listen_waiter **w);
void rm_listen_waiter_free(struct rm_listen_waiter *w);

/* `robotmail listen`: one pass (interval 0), or with --follow a pass every
 * `interval` seconds (rm_listen_wait: sooner on IMAP IDLE news) until
 * killed or a pass fails (each mail is remembered in the store as it is
 * done, so a kill loses nothing and repeats nothing).
 * Each pass runs at `now`, or at the clock's time when now is 0; its stats
 * line goes to stderr after a single pass, a failed one, or a follow pass
 * that read mail.  Returns as rm_listen_run. */
int rm_listen_passes(const struct rm_config *cfg, struct rm_store *st, time_t now, long interval,
		     struct rm_error *err);

#endif
