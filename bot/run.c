/* run.c - see run.h. */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deliver.h"
#include "fileutil.h"
#include "inbox.h"
#include "metrics.h"
#include "pipeline.h"
#include "schedule.h"
#include "setup.h"
#include "strbuf.h"

struct run_stats {
	int archives, reports, queued, duplicates, held, sent, retried, failed_msgs;
	int bad_archives, deferred;
};

/* The progress line on a terminal (issue 13 item 7): archives read and
 * reports built, then mails sent, each with a rate and an estimate; never
 * when stderr is no terminal (cron, a pipe, a file) nor with -v (whose
 * lines say as much).  Redrawn in place at most five times a second; the
 * summary line takes its place at the end. */
struct progress {
	bool on, drawn;
	size_t archives;                    /* archives to read this run */
	const struct rm_schedule_counts *sc; /* during delivery, else NULL */
	struct timespec start, last;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_draw(struct progress *g, int done, int total, const char *what,
			  const char *extra, bool force)
{
	struct timespec now;
	double t, rate;

	if (!g->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && g->drawn && since(&g->last, &now) < 0.2)
		return;
	g->last = now;
	g->drawn = true;
	t = since(&g->start, &now);
	rate = t > 0 ? done / t : 0;
	fprintf(stderr, "\r\033[Krobotmail: %s %d/%d%s, %.1f/s", what, done, total, extra, rate);
	if (rate > 0 && total > done && (total - done) / rate >= 1)
		fprintf(stderr, ", about %.0f s left", (total - done) / rate);
	fputc('\r', stderr);
	fflush(stderr);
}

static void progress_archives(void *ctx, const struct rm_pipeline_stats *st)
{
	struct progress *g = ctx;
	char extra[64];

	snprintf(extra, sizeof(extra), " read, reports %d", st->reports);
	progress_draw(g, st->archives, (int)g->archives, "archives", extra, false);
}

static void progress_clear(struct progress *g)
{
	if (g->on && g->drawn)
		fputs("\r\033[K", stderr);
	g->drawn = false;
}

struct schedule_ctx {
	int verbose;
	struct progress *g;
};

/* Schedule's log lines on stderr: errors and warnings always, the rest
 * with -v; each line moves the progress line on. */
static void schedule_log(void *ctx, enum rm_schedule_level level, const char *text)
{
	struct schedule_ctx *c = ctx;
	const struct rm_schedule_counts *sc = c->g->sc;

	if (level != RM_SCHEDULE_INFO || c->verbose) {
		progress_clear(c->g);
		fprintf(stderr, "robotmail: %s%s\n", level == RM_SCHEDULE_ERROR ? "error: " : "",
			text);
	}
	if (sc) {
		int done = sc->sent + sc->failed + sc->retried;
		char extra[64];

		snprintf(extra, sizeof(extra), " (sent %d, failed %d, to retry %d)", sc->sent,
			 sc->failed, sc->retried);
		progress_draw(c->g, done, sc->claimed - sc->capped > done ? sc->claimed - sc->capped : done,
			      "mails", extra, false);
	}
}

/* The run's last line, even when quiet (issue 13 item 7): what became of
 * the archives (reported and done, failed, still waiting in the inbox), the
 * new reports, and the mails: queued, sent, failed this run, and all that
 * wait in the outbox after it (a backoff or a cap; held ones apart). */
static void summary_line(struct rm_setup *e, const struct rm_pipeline_stats *ps,
			 const struct run_stats *st)
{
	struct rm_error le;
	int waiting, held;
	bool known;

	rm_error_clear(&le);
	known = !rm_schedule_waiting(e->ob, &waiting, &held, &le);
	fprintf(stderr,
		"robotmail: archives %d (new %d, failed %d, deferred %d); reports %d; "
		"mails queued %d, sent %d, failed %d, waiting ",
		ps->arch_done + ps->arch_failed + ps->arch_waiting, ps->arch_done, ps->arch_failed,
		ps->arch_waiting, st->reports - st->duplicates, st->queued, st->sent, st->failed_msgs);
	if (!known)
		fprintf(stderr, "unknown (%s)\n", le.msg);
	else if (held)
		fprintf(stderr, "%d, held %d\n", waiting, held);
	else
		fprintf(stderr, "%d\n", waiting);
}

/* Entries that are no archive: on a shared store one run sets each aside. */
static int refuse_entries(struct rm_setup *e, struct rm_pipeline *p,
			  const struct rm_inbox_scan *scan, struct rm_error *err)
{
	struct rm_inbox_refused *rv;
	size_t nrv;
	struct rm_error re;
	int prc = rm_inbox_claim_refused(e->ob, &e->cfg, scan->refused, scan->nrefused, &rv, &nrv,
					 err);

	if (!prc)
		rm_pipeline_refuse(p, rv, nrv);
	if (rm_inbox_release_refused(e->ob, rv, nrv, prc ? &re : err) && !prc)
		prc = -1;
	free(rv);
	return prc;
}

/* A few archives at a time, each claimed in the store first (on a shared
 * store other hosts' runs take the rest). */
static int report_archives(struct rm_setup *e, struct rm_pipeline *p,
			   const struct rm_inbox_scan *scan, struct rm_error *err)
{
	size_t i, batch = 1;

	for (i = 0; i < scan->nready; i += batch) {
		char **mine;
		size_t nmine;
		struct rm_error re;
		int prc;

		batch = rm_inbox_claim_batch(&e->cfg, scan->nready);
		prc = rm_inbox_claim_archives(e->ob, &e->cfg, scan->ready + i,
					      scan->nready - i < batch ? scan->nready - i : batch, &mine,
					      &nmine, err);
		if (!prc && nmine)
			prc = rm_pipeline_run(p, mine, nmine, err);
		if (rm_inbox_release_archives(e->ob, mine, nmine, prc ? &re : err) && !prc)
			prc = -1;
		free(mine);
		if (prc)
			return -1;
	}
	return 0;
}

/* paths.metrics_file at the end of every run that loaded its config: its
 * true counts and the outbox after it (a failure to write is a warning).
 * A run that stopped early (exit 2, a store error) writes what it did
 * before it stopped with complete = false: ps, sc and scan are then its
 * zeroed or partial counts, and the outbox is left out when there is no
 * store to ask.  A config that does not load names no file to write. */
static void write_metrics(struct rm_setup *e, const struct rm_pipeline_stats *ps,
			  const struct rm_schedule_counts *sc, const struct rm_inbox_scan *scan,
			  time_t now, const struct timespec *started, int exit_code, bool complete)
{
	struct rm_metrics m;
	struct rm_error me;
	struct timespec end;

	memset(&m, 0, sizeof(m));
	clock_gettime(CLOCK_MONOTONIC, &end);
	m.end = time(NULL);
	m.seconds = (double)(end.tv_sec - started->tv_sec) + (end.tv_nsec - started->tv_nsec) / 1e9;
	m.exit_code = exit_code;
	m.complete = complete;
	m.arch_done = ps->arch_done;
	m.arch_failed = ps->arch_failed;
	m.arch_waiting = ps->arch_waiting;
	m.inbox_waiting = (int)scan->nwaiting;
	m.reports = ps->reports;
	m.duplicates = ps->duplicates;
	m.deferred = ps->deferred;
	m.queued = ps->queued;
	m.held = ps->held;
	m.sent = sc->sent;
	m.retried = sc->retried;
	m.failed = sc->failed;
	m.capped = sc->capped;
	m.stopped = sc->stopped;
	rm_error_clear(&me);
	if (e->ob)
		m.outbox_known = !rm_schedule_outbox(e->ob, now, m.outbox, &m.oldest_waiting, &me);
	if (e->ob && !m.outbox_known)
		fprintf(stderr, "robotmail: warning: metrics: the outbox is left out: %s\n", me.msg);
	if (rm_metrics_write(e->cfg.metrics_file, &m, &me))
		fprintf(stderr, "robotmail: warning: %s\n", me.msg);
}

int rm_run(const struct rm_run_opts *o, struct rm_error *err)
{
	struct run_stats st;
	struct rm_setup e;
	struct rm_pipeline p;
	struct rm_queue_sink q;
	struct rm_inbox_scan scan;
	int verbose = o->verbose;
	struct progress g;
	struct schedule_ctx sctx = { verbose, &g };
	struct rm_schedule_log slog = { schedule_log, &sctx };
	struct rm_schedule_counts sc;
	int rc = -1, lockfd, got;
	bool finished = false; /* false: stopped early (a store error) */
	struct timespec started;

	clock_gettime(CLOCK_MONOTONIC, &started);
	memset(&g, 0, sizeof(g));
	g.on = !verbose && isatty(STDERR_FILENO);
	memset(&st, 0, sizeof(st));
	memset(&scan, 0, sizeof(scan));
	memset(&p, 0, sizeof(p));
	memset(&sc, 0, sizeof(sc));
	if (rm_setup_open(&e, o->config, NULL, NULL, true, false, err) ||
	    rm_config_check_identity(&e.cfg, err) || rm_inbox_check_state_dir(&e.cfg, err) ||
	    (!o->once && rm_inbox_check_dir(&e.cfg, err)) || rm_deliver_check(&e.cfg, err) ||
	    (o->note && rm_setup_read_note(&e, o->note, err))) {
		if (e.have_cfg && e.cfg.metrics_file)
			write_metrics(&e, &p.st, &sc, &scan, o->now, &started,
				      rm_error_exit_code(err->kind), false);
		rm_setup_close(&e);
		return -1;
	}
	/* one run at a time: another run holding the inbox is not an error
	 * (and its metrics are that run's to write) */
	got = rm_inbox_claim(&e.cfg, &lockfd, err);
	if (got <= 0) {
		if (got < 0 && e.cfg.metrics_file)
			write_metrics(&e, &p.st, &sc, &scan, o->now, &started,
				      rm_error_exit_code(err->kind), false);
		rm_setup_close(&e);
		return got;
	}
	if (rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err))
		goto out;
	rm_setup_wire_cache(&e);
	{
		char host[201] = "";

		if (!e.cfg.host_id && gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "unknown");
		rm_store_set_owner(e.ob, e.cfg.host_id ? e.cfg.host_id : host, e.cfg.lease);
	}
	if (rm_schedule_recover(e.ob, &slog, err))
		goto out;
	if (o->once) {
		scan.ready = rm_xcalloc(1, sizeof(char *));
		scan.ready[0] = rm_xstrdup(o->once);
		scan.nready = 1;
	} else if (rm_inbox_scan(&e.cfg, o->now, verbose, &scan, err)) {
		goto out;
	}
	rm_setup_pipeline(&e, &p, o->to, o->now, verbose);
	g.archives = scan.nready;
	clock_gettime(CLOCK_MONOTONIC, &g.start);
	p.progress = progress_archives;
	p.progress_ctx = &g;
	/* --once and --to leave the archives where they are: a reflection
	 * consumes nothing */
	rm_pipeline_queue_sink_init(&q, &p, o->materials, o->once != NULL || o->to != NULL,
				    rm_schedule_held);
	if (refuse_entries(&e, &p, &scan, err) || report_archives(&e, &p, &scan, err))
		goto out;
	st.archives = p.st.archives;
	st.reports = p.st.reports;
	st.queued = p.st.queued;
	st.held = p.st.held;
	st.duplicates = p.st.duplicates;
	st.deferred = p.st.deferred;
	st.bad_archives = p.st.bad_archives;
	progress_clear(&g);
	if (g.on) {
		clock_gettime(CLOCK_MONOTONIC, &g.start);
		g.sc = &sc;
	}
	if (rm_schedule_deliver(e.ob, &e.cfg, o->now, &slog, &sc, err))
		goto out;
	g.sc = NULL;
	progress_clear(&g);
	st.sent = sc.sent;
	st.retried = sc.retried;
	st.failed_msgs = sc.failed;
	if (verbose)
		fprintf(stderr,
			"robotmail: %d archive(s), %d report(s): %d queued (%d held), %d already reported,"
			" %d deferred; %d sent, %d to retry, %d failed\n",
			st.archives, st.reports, st.queued, st.held, st.duplicates, st.deferred, st.sent,
			st.retried, st.failed_msgs);
	summary_line(&e, &p.st, &st);
	finished = true;
	/* each failure was logged as it happened; the worst sets the exit */
	if (st.bad_archives || st.failed_msgs) /* a bad archive, or a message no server accepted */
		rc = rm_error_logged(err, RM_ERR_INPUT);
	else if (st.deferred || st.retried)
		rc = rm_error_logged(err, RM_ERR_TEMP);
	else
		rc = 0;
out:
	progress_clear(&g);
	/* a run that stopped early too: what it did before, and its exit */
	if (e.cfg.metrics_file)
		write_metrics(&e, &p.st, &sc, &scan, o->now, &started,
			      rc ? rm_error_exit_code(err->kind) : 0, finished);
	rm_inbox_scan_free(&scan);
	rm_setup_close(&e);
	rm_inbox_release(lockfd);
	return rc;
}

int rm_run_dry(const struct rm_run_opts *o, char **archives, size_t n, struct rm_error *err)
{
	struct rm_setup e;
	struct rm_pipeline p;
	struct rm_print_sink ps;
	int rc;

	/* the store is read, never written: open it read-only */
	if (rm_setup_open(&e, o->config, NULL, NULL, true, false, err) ||
	    rm_config_check_identity(&e.cfg, err) ||
	    (o->note && rm_setup_read_note(&e, o->note, err)) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		rm_setup_close(&e);
		return -1;
	}
	if (o->output && rm_mkdir_p(o->output)) {
		rm_error_set(err, RM_ERR_USAGE, "--dry-run: -o: cannot create directory '%s': %s",
			     o->output, strerror(errno));
		rm_setup_close(&e);
		return -1;
	}
	rm_setup_wire_cache(&e); /* without a store too: the wait rule of unknown commits */
	rm_setup_pipeline(&e, &p, o->to, o->now, o->verbose);
	rm_pipeline_print_sink_init(&ps, &p, stdout, o->output, o->force);
	rc = rm_pipeline_run(&p, archives, n, err);
	if (!rc && !p.nth && o->verbose)
		fprintf(stderr, "robotmail: nothing to report\n");
	rm_setup_close(&e);
	if (rc)
		return -1;
	/* as `run` would exit: 1 for bad input, else 75 for a deferral (each
	 * already said on stderr or stdout) */
	if (ps.rc & 1 || p.st.bad_archives)
		return rm_error_logged(err, RM_ERR_INPUT);
	if (ps.rc & 2 || p.st.deferred)
		return rm_error_logged(err, RM_ERR_TEMP);
	return 0;
}
