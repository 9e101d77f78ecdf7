/*
 * pipeline.h - one report pipeline, two sinks.
 *
 * Owns: running the stages in order for a list of archives, RM_PIPELINE_CHUNK
 * at a time: archives (archive.c) -> compared tests (stats.c) -> reports,
 * words and keys only (report.c, commit facts looked up through gitweb.c) ->
 * what `run` does with each report (already reported? refused? held?) ->
 * the mail (recipients.c, threading from the store and the bytes in
 * message.c) -> a sink.  `run` uses the queueing sink (the outbox, the
 * materials, moving archives to done/ or failed/), `--dry-run` the printing
 * sink (the same decisions and the same bytes on stdout, or .eml files), so
 * a preview can never differ from what `run` queues.  `--to ADDR`
 * reflects: the diverted copy gets its own Message-ID and is stored with no
 * dedupe or thread key, so it never consumes or starts the real report's
 * thread, and no archive moves.
 *
 * `robotmail compare` runs the first stages alone (archives -> tables).
 *
 * Must not: decide the policy of any stage (what to report, who gets it,
 * when to deliver), print an error that ends the command (main.c does).
 */
#ifndef RM_PIPELINE_H
#define RM_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "archive.h"
#include "config.h"
#include "error.h"
#include "lookup.h"
#include "patchmail.h"
#include "inbox.h"
#include "message.h"
#include "store.h"
#include "recipients.h"
#include "report.h"
#include "rules.h"

/* The operator's note opening a report: at most this many bytes. */
#define RM_PIPELINE_NOTE_MAX (16 * 1024)

/* Archives held in memory at once: the pipeline reads, reports and hands
 * on its archives this many at a time, so its memory does not grow with
 * the number of archives. */
#define RM_PIPELINE_CHUNK 64

/* What `run` does with one report. */
enum rm_outcome {
	RM_OUT_MAIL,   /* new: its mail is queued */
	RM_OUT_SEEN,   /* reported before (dedupe key): nothing sent */
	RM_OUT_BAD,    /* bad input makes it impossible: the archive fails */
	RM_OUT_HELD,   /* required facts missing for now: the archive waits */
	RM_OUT_FAILED, /* its mail could not be built: the archive fails */
	RM_OUT_SKIPPED,/* unknown_branch: skip: nothing to report, the archive is done */
	RM_OUT_CLOSED, /* its finding is marked invalid, fixed or dup (listen):
			* nothing sent, the archive is done */
};

/* A report's mail, as the message stage made it. */
struct rm_mail {
	char *bytes;               /* wire form, CRLF */
	size_t len;
	const char *mail_from;     /* borrowed from the configuration */
	char **rcpts;              /* envelope: To then Cc (borrowed from rcp) */
	size_t nrcpts;
	struct rm_recipients rcp;  /* owned */
	struct rm_thread thread;   /* owned */
	char *message_id;          /* the report's, or a reflection's own */
	bool reflect;              /* a --to copy: stored without dedupe or thread key */
	/* the earlier findings this report mentions (store.h's rule: the same
	 * finding suffix under another thread key, reported by an earlier
	 * run), newest first, at most RM_PIPELINE_MENTIONS: their thread keys
	 * and first reports' Message-IDs (owned).  The mail links back to each when links.lore or
	 * links.status can build a link; `run` keeps each mention once queued. */
	char **mention_keys, **mention_ids;
	size_t nmentions;
};
#define RM_PIPELINE_MENTIONS 4

/* One report and what happens to it, handed to the sink. */
struct rm_pipe_item {
	size_t nth;                      /* numbered across the whole run, from 1 */
	const struct rm_archive *archive;
	const struct rm_report *report;
	enum rm_outcome outcome;
	const char *reason;              /* BAD, HELD, FAILED, CLOSED */
	const char *seen_id;             /* SEEN: the Message-ID it was reported as */
	time_t seen_at;                  /* SEEN: when */
	const struct rm_mail *mail;      /* MAIL; SEEN too when the sink wants it */
};

/* Where an archive goes once all its reports are handled. */
enum rm_fate { RM_FATE_DONE, RM_FATE_FAILED, RM_FATE_WAIT };

/* A finding no longer seen: a later archive tested the same test on the
 * same tree, and the metric on its commit is back (its mean nearer the
 * report's parent's than the reported commit's) on a commit that carries
 * what the report was about: one whose parent is the reported commit, or
 * that descends from it, or (a finding marked fixed by a sha) that contains
 * the named fix.  The reply saying so, built, for the sink. */
struct rm_gone {
	const char *key, *tree, *sha;   /* the finding, its tree, the commit */
	const char *fix;                /* the fix named by `#robotmail fixed:` that
					 * the commit contains, or NULL: the finding is
					 * then marked fixed by the commit */
	const char *message_id, *in_reply_to, *dedupe_key, *subject, *mail_from;
	char **rcpts;
	size_t nrcpts;
	const char *bytes;              /* CRLF */
	size_t len;
};

struct rm_sink {
	/* Build the mail of an already reported report too (dry run --force). */
	bool mail_when_seen;
	/* Each report, in order.  Returns 0, or -1 (err set) to stop the run
	 * (the state database failed); a report it cannot take sets
	 * *fate_failed instead. */
	int (*report)(struct rm_sink *s, const struct rm_pipe_item *it, bool *fate_failed,
		      struct rm_error *err);
	/* Each archive once its reports are handled (also one that could not
	 * be read: RM_FATE_FAILED). */
	void (*archive)(struct rm_sink *s, const char *path, enum rm_fate fate);
	/* A finding no longer seen, once (NULL: not told).  -1 (err set) stops
	 * the run. */
	int (*gone)(struct rm_sink *s, const struct rm_gone *g, struct rm_error *err);
	void *ctx;
};

/* What a pipeline did, for the summary line and the exit code. */
struct rm_pipeline_stats {
	int archives, reports, queued, duplicates, held, deferred, bad_archives, failed_reports;
	int arch_done, arch_failed, arch_waiting; /* what became of each archive */
	int closed; /* RM_OUT_CLOSED */
};

struct rm_pipeline_tally; /* pipeline.c */

struct rm_pipeline {
	const struct rm_config *cfg;
	const struct rm_rules *rules;
	struct rm_store *ob;                /* the store (read-only for a dry run), may be NULL */
	const struct rm_commit_cache *cache; /* may be NULL */
	const char *templates_dir;
	const char *to;                      /* --to ADDR: reflect, or NULL */
	const char *note;                    /* --note FILE's text for every archive, or NULL */
	time_t now;
	int verbose;
	struct rm_sink *sink;
	size_t nth;                          /* reports handed on so far */
	struct rm_pipeline_stats st;
	/* threads begun in this run (a dry run stores nothing: these stand
	 * in for the store, so the preview threads as `run` would) */
	struct rm_pipeline_thread *threads;
	size_t nthreads;
	/* the reasons of skipped reports warned about in this run (one
	 * warning per branch per run) */
	char **skipped;
	size_t nskipped;
	/* the recipients context of a run: opened and closed by
	 * rm_pipeline_run (owned) */
	struct rm_recipients_ctx rcx;
	/* deferrals by cause (failed commit lookups, deferred reports): without
	 * -v one line per cause with a count at the end of rm_pipeline_run */
	struct rm_pipeline_tally *tally;
	size_t ntally;
	/* called (when not NULL) after each chunk's archives are read and
	 * after each report: `run`'s progress line on a terminal */
	void (*progress)(void *ctx, const struct rm_pipeline_stats *st);
	void *progress_ctx;
};

/* Run the pipeline over paths[0..npaths).  Errors of single archives and
 * reports are logged (stderr) and counted; returns 0, or -1 (err set) when
 * a configuration, template or store error ends the run (what the sink took
 * so far stays). */
int rm_pipeline_run(struct rm_pipeline *p, char *const *paths, size_t npaths,
		    struct rm_error *err);

/* `robotmail compare`: the comparison tables of each archive (or of the
 * commit directories BASE_DIR HEAD_DIR) on stdout, with commit subjects
 * when `cfg` (may be NULL) names the trees.  A bad archive is logged and
 * the others go on.  Returns 0, or -1 with err: for several archives the
 * worst one's kind with an empty message (each was logged). */
int rm_pipeline_compare(const struct rm_rules *rules, const struct rm_config *cfg,
			const struct rm_commit_cache *cache, const struct rm_archive_opts *opts,
			char *const *paths, size_t npaths, int verbose, struct rm_error *err);

/* Inbox entries that can never be archives (inbox.c said why): each is
 * logged as an error, counted as a bad archive and handed to the sink as
 * failed (the queueing sink moves it to failed/). */
void rm_pipeline_refuse(struct rm_pipeline *p, const struct rm_inbox_refused *v, size_t n);

/* The queueing sink of `run`: each new mail into the outbox (held when its
 * tree or a recipient is on delivery.hold), materials into `materials`
 * (may be NULL), archives to done/ or failed/ unless `keep` (--once, --to). */
struct rm_queue_sink {
	struct rm_sink sink;
	struct rm_pipeline *p;
	const char *materials;
	bool keep;
	/* the delivery policy's hold rule (tree or recipient on delivery.hold) */
	bool (*held)(const struct rm_config *cfg, const char *tree, char *const *rcpts, size_t n);
};
void rm_pipeline_queue_sink_init(struct rm_queue_sink *q, struct rm_pipeline *p, const char *materials,
			bool keep,
			bool (*held)(const struct rm_config *, const char *, char *const *, size_t));

/* The printing sink of `--dry-run`: for each report the line
 * "# robotmail dry-run: report N from ARCHIVE" and what `run` would do: the
 * SMTP envelope, "DATA", the message (LF line ends) and "." for a new
 * mail (with "# robotmail dry-run: would reply to <ID>" before it when it
 * threads), or ": already reported as <ID> on DATE, nothing sent" (the mail
 * too with `force`), ": HELD: why", ": REFUSED: why".  With `outdir` each
 * mail goes into OUTDIR/<Message-ID>.eml instead. */
struct rm_print_sink {
	struct rm_sink sink;
	struct rm_pipeline *p;
	FILE *out;
	const char *outdir;
	bool force;
	int rc;                        /* 1: something failed; 2: something held */
};
void rm_pipeline_print_sink_init(struct rm_print_sink *ps, struct rm_pipeline *p, FILE *out,
			const char *outdir, bool force);

#endif
