/*
 * run.h - `robotmail run`: the cron entry, one pass from inbox to delivery;
 * and `robotmail --dry-run`, what such a pass would do.
 *
 * Owns: the order of a run: the setup and its checks (identity, state
 * directory, inbox, transport, --note), one run at a time (the inbox lock),
 * the store's owner and recovery, the inbox scan (or the one --once
 * archive), entries that are no archive, claiming archives a few at a time
 * and running the pipeline with the queueing sink over them, the delivery
 * pass, the log lines of it (schedule's on stderr: errors and warnings
 * always, the rest with -v) and the run's closing summary line, and the
 * exit the worst outcome sets; and `--dry-run`, the same pipeline with the
 * printing sink on the store opened read-only, exiting as `run` would.
 * Must not: parse arguments (cli.c), hold a stage's logic (inbox.c,
 * pipeline.c, schedule.c do the work), print an error (returned as
 * rm_error; failures already logged one by one return rm_error_logged).
 */
#ifndef RM_RUN_H
#define RM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "error.h"

struct rm_run_opts {
	const char *config;    /* -c FILE, or NULL */
	const char *once;      /* --once ARCHIVE (left where it is), or NULL: the inbox */
	const char *to;        /* --to ADDR: reflect every mail there, or NULL */
	const char *materials; /* --materials DIR, or NULL */
	const char *note;      /* --note FILE, or NULL */
	const char *output;    /* --dry-run -o DIR: each mail into DIR too, or NULL */
	bool force;            /* --dry-run --force: print mails already reported */
	time_t now;
	int verbose;
};

/* One run.  Returns 0 (also when another run holds the inbox), or -1 with
 * err: a setup or store error, or rm_error_logged with RM_ERR_INPUT (a bad
 * archive, a message no server accepted) or RM_ERR_TEMP (a deferral, a
 * message to retry). */
int rm_run(const struct rm_run_opts *o, struct rm_error *err);

/* `--dry-run`: the pipeline over archives[0..n) with the printing sink, on
 * the store opened read-only (o->once and o->materials are not used).
 * Returns 0, or -1 with err: a setup or store error, -o's directory not
 * made, or rm_error_logged as `run` would exit (RM_ERR_INPUT for a bad
 * archive, RM_ERR_TEMP for a deferral; each already said). */
int rm_run_dry(const struct rm_run_opts *o, char **archives, size_t n, struct rm_error *err);

#endif
