/* cli.c - see cli.h. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <strings.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "deliver.h"
#include "fileutil.h"
#include "gitweb.h"
#include "help.h"
#include "inbox.h"
#include "listen.h"
#include "status.h"
#include "lookup.h"
#include "message.h"
#include "pipeline.h"
#include "schedule.h"
#include "store.h"
#include "template.h"

#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif
#ifndef RM_TEMPLATEDIR
#define RM_TEMPLATEDIR "/usr/share/robotmail/templates"
#endif

void rm_usage(int to_stderr)
{
	rm_help_print(NULL, to_stderr ? stderr : stdout);
}

static char *data_file(const char *name)
{
	const char *dir = getenv("ROBOTMAIL_DATADIR");

	return rm_path_join(dir && *dir ? dir : RM_DATADIR, name);
}

static int load_rules(struct rm_rules *rules, const char *metrics, const char *programs,
		      struct rm_error *err);

static int load_rules(struct rm_rules *rules, const char *metrics, const char *programs,
		      struct rm_error *err)
{
	char *m = metrics ? rm_xstrdup(metrics) : data_file("metrics.yaml");
	char *p = programs ? rm_xstrdup(programs) : data_file("lkp-programs.yaml");
	int rc = rm_rules_load(rules, m, p, err);

	free(m);
	free(p);
	return rc;
}

/* Shared setup: the config (when given), the rules and the cache. */
struct env {
	struct rm_config cfg;
	bool have_cfg;
	struct rm_rules rules;
	bool have_rules;
	struct rm_store *ob;
	struct rm_commit_cache cache;
	char *note;   /* --note FILE: the operator's note for every archive */
};

static const char *config_path(const char *opt)
{
	const char *env = getenv("ROBOTMAIL_CONFIG");

	if (opt)
		return opt;
	return env && *env ? env : NULL;
}

/* The commit cache over the open store (read-only for --dry-run: no put). */
static void env_wire_cache(struct env *e)
{
	rm_store_commit_cache(e->ob, e->cfg.miss_ttl, &e->cache);
}

static int env_open(struct env *e, const char *config, const char *metrics, const char *programs,
		    bool need_rules, bool use_cache, struct rm_error *err)
{
	memset(e, 0, sizeof(*e));
	if (rm_config_load(&e->cfg, config_path(config), err))
		return -1;
	e->have_cfg = true;
	if (need_rules) {
		if (load_rules(&e->rules, metrics ? metrics : e->cfg.metrics,
			       programs ? programs : e->cfg.programs, err))
			return -1;
		e->have_rules = true;
	}
	if (use_cache && e->cfg.file) {
		if (rm_store_open(&e->ob, e->cfg.state_db, RM_STORE_READWRITE, err))
			return -1;
		env_wire_cache(e);
	}
	return 0;
}

/* The operator's note (a few sentences opening the report): read from
 * `path`, at most RM_PIPELINE_NOTE_MAX bytes.  Returns -1 with err set
 * (kind RM_ERR_USAGE: the option names a file that cannot be read). */
static int read_note(const char *path, char **note, struct rm_error *err)
{
	size_t len;

	if (rm_read_file(path, RM_PIPELINE_NOTE_MAX, note, &len, err)) {
		err->kind = RM_ERR_USAGE;
		return -1;
	}
	return 0;
}

static void env_close(struct env *e)
{
	free(e->note);
	e->note = NULL;
	if (e->have_rules)
		rm_rules_free(&e->rules);
	if (e->have_cfg)
		rm_config_free(&e->cfg);
	rm_store_close(e->ob);
}

int rm_cmd_compare(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'H' },
		{ "config", required_argument, NULL, 'c' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "programs", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rm_archive_opts opts = { NULL, NULL };
	const char *metrics = NULL, *programs = NULL, *config = NULL;
	struct env e;
	int c, verbose = 0, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			opts.base = optarg;
			break;
		case 'H':
			opts.head = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'm':
			metrics = optarg;
			break;
		case 'p':
			programs = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			rm_help_print("compare", stdout);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "compare: unknown option or missing value: '%s'",
					    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "compare: expected an ARCHIVE or BASE_DIR HEAD_DIR");
	if (env_open(&e, config, metrics, programs, true, true, err)) {
		env_close(&e);
		return -1;
	}
	/* commit subjects only when a configuration names the trees */
	rc = rm_pipeline_compare(&e.rules, e.cfg.file ? &e.cfg : NULL, e.ob ? &e.cache : NULL, &opts,
				 argv + optind, (size_t)(argc - optind), verbose, err);
	env_close(&e);
	return rc;
}

static void print_facts(const struct rm_lookup_req *r)
{
	const struct rm_commit_facts *f = &r->facts;
	size_t i;

	printf("sha: %s\n", f->sha ? f->sha : "");
	if (f->upstream_sha)
		printf("matched-by-subject: %s\n", f->upstream_sha);
	printf("subject: %s\n", f->subject ? f->subject : "");
	printf("author: %s <%s>\n", f->author.name ? f->author.name : "",
	       f->author.email ? f->author.email : "");
	if (f->committer.name || f->committer.email)
		printf("committer: %s <%s>\n", f->committer.name ? f->committer.name : "",
		       f->committer.email ? f->committer.email : "");
	if (f->date)
		printf("date: %s\n", f->date);
	if (f->commit_time) {
		char when[32];
		struct tm tm;
		time_t t = (time_t)f->commit_time;

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("committed: %s\n", when);
	}
	if (f->parent)
		printf("parent: %s\n", f->parent);
	if (f->patch_msgid)
		printf("patch-message-id: <%s>\n", f->patch_msgid);
	for (i = 0; i < f->ntrailers; i++)
		printf("trailer: %s: %s\n", f->trailers[i].key, f->trailers[i].value);
	for (i = 0; i < f->nfiles; i++)
		printf("file: %s\n", f->files[i]);
	printf("source: %s (%u request%s)\n", r->from_cache ? "cache" : "network", r->requests,
	       r->requests == 1 ? "" : "s");
}

int rm_cmd_commit(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "subject", required_argument, NULL, 's' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *subject = NULL;
	bool use_cache = true;
	struct env e;
	struct rm_lookup_req req;
	struct rm_gitweb_opts o;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			subject = optarg;
			break;
		case 'n':
			use_cache = false;
			break;
		case 'h':
			rm_help_print("commit", stdout);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "commit: unknown option or missing value: '%s'",
					    argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return rm_error_set(err, RM_ERR_USAGE, "commit: expected TREE SHA");
	if (env_open(&e, config, NULL, NULL, false, use_cache, err)) {
		env_close(&e);
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.tree = rm_config_tree(&e.cfg, argv[optind]);
	if (!req.tree) {
		rm_error_set(err, RM_ERR_USAGE, "commit: no tree '%s' in %s", argv[optind],
			     e.cfg.file ? e.cfg.file : "the built-in configuration");
		env_close(&e);
		return -1;
	}
	req.sha = argv[optind + 1];
	req.subject = subject;
	if (!rm_commit_valid_sha(req.sha)) {
		rm_error_set(err, RM_ERR_USAGE, "commit: '%.80s' is not a commit sha (4 to 64 hex digits)",
			     req.sha);
		env_close(&e);
		return -1;
	}
	rm_gitweb_opts_from_config(&o, &e.cfg);
	if (rm_lookup_run(&req, 1, &o, e.ob ? &e.cache : NULL, err)) {
		env_close(&e);
		return -1;
	}
	switch (req.status) {
	case RM_LOOKUP_FOUND:
		print_facts(&req);
		rc = 0;
		break;
	case RM_LOOKUP_UNKNOWN:
		rm_error_set(err, RM_ERR_INPUT, "commit %s is unknown to %s (%s)", req.sha,
			     req.tree->name, req.tree->api);
		rc = -1;
		break;
	default:
		rc = rm_error_set(err, req.error_kind == RM_ERR_CONFIG ? RM_ERR_CONFIG : RM_ERR_TEMP,
				  "commit %s: %s", req.sha, req.error);
		break;
	}
	rm_commit_free(&req.facts);
	env_close(&e);
	return rc;
}

/* ================================================================ dry run */

static const char *templates_dir(const struct rm_config *cfg)
{
	const char *env_t = getenv("ROBOTMAIL_TEMPLATES");

	return cfg->templates ? cfg->templates : env_t && *env_t ? env_t : RM_TEMPLATEDIR;
}

static void pipeline_init(struct rm_pipeline *p, struct env *e, const char *to, time_t now,
			  int verbose)
{
	memset(p, 0, sizeof(*p));
	p->cfg = &e->cfg;
	p->rules = &e->rules;
	p->ob = e->ob;
	p->cache = e->ob ? &e->cache : NULL;
	p->templates_dir = templates_dir(&e->cfg);
	p->to = to;
	p->note = e->note;
	p->now = now;
	p->verbose = verbose;
}

int rm_cmd_dry_run(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "now", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'F' },
		{ "note", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *outdir = NULL, *to = NULL, *note = NULL;
	time_t now = time(NULL);
	int c, verbose = 0, rc;
	bool force = false;
	struct env e;
	struct rm_pipeline p;
	struct rm_print_sink ps;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			break;
		case 'c':
			config = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'n':
			note = optarg;
			break;
		case 'N': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (!*optarg || *end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "--now: expected seconds since the epoch, not '%s'", optarg);
			now = (time_t)v;
			break;
		}
		case 't':
			to = optarg;
			if (!rm_address_valid(to))
				return rm_error_set(err, RM_ERR_USAGE, "--to: '%s' is not an address", to);
			break;
		case 'F':
			force = true;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			rm_help_print("dry-run", stdout);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "--dry-run: unknown option or missing value: '%s'",
					    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "--dry-run: expected one or more ARCHIVEs");
	/* the store is read, never written: open it read-only */
	if (env_open(&e, config, NULL, NULL, true, false, err) ||
	    rm_config_check_identity(&e.cfg, err) ||
	    (note && read_note(note, &e.note, err)) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		env_close(&e);
		return -1;
	}
	if (outdir && rm_mkdir_p(outdir)) {
		rm_error_set(err, RM_ERR_USAGE, "--dry-run: -o: cannot create directory '%s': %s", outdir,
			     strerror(errno));
		env_close(&e);
		return -1;
	}
	if (e.ob)
		env_wire_cache(&e);
	pipeline_init(&p, &e, to, now, verbose);
	rm_pipeline_print_sink_init(&ps, &p, stdout, outdir, force);
	rc = rm_pipeline_run(&p, argv + optind, (size_t)(argc - optind), err);
	if (!rc && !p.nth && verbose)
		fprintf(stderr, "robotmail: nothing to report\n");
	env_close(&e);
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

/* ================================================================ run */

struct run_stats {
	int archives, reports, queued, duplicates, held, sent, retried, failed_msgs;
	int bad_archives, deferred;
};

/* Schedule's log lines on stderr: errors and warnings always, the rest
 * with -v. */
static void schedule_log(void *ctx, enum rm_schedule_level level, const char *text)
{
	const int *verbose = ctx;

	if (level == RM_SCHEDULE_INFO && !*verbose)
		return;
	fprintf(stderr, "robotmail: %s%s\n", level == RM_SCHEDULE_ERROR ? "error: " : "", text);
}

/* The run's last line, even when quiet (issue 13 item 7): what became of
 * the archives (reported and done, failed, still waiting in the inbox), the
 * new reports, and the mails: queued, sent, failed this run, and all that
 * wait in the outbox after it (a backoff or a cap; held ones apart). */
static void summary_line(struct env *e, const struct rm_pipeline_stats *ps, const struct run_stats *st)
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

int rm_cmd_run(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", required_argument, NULL, 'o' },
		{ "now", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 't' },
		{ "materials", required_argument, NULL, 'm' },
		{ "note", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *once = NULL, *to = NULL, *materials = NULL, *note = NULL;
	time_t now = time(NULL);
	struct run_stats st;
	struct env e;
	struct rm_pipeline p;
	struct rm_queue_sink q;
	struct rm_inbox_scan scan;
	struct rm_schedule_log slog = { schedule_log, NULL };
	struct rm_schedule_counts sc;
	int c, verbose = 0, rc = -1, lockfd, got;
	size_t i, batch = 1;

	memset(&st, 0, sizeof(st));
	memset(&scan, 0, sizeof(scan));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'o':
			once = optarg;
			break;
		case 'm':
			materials = optarg;
			break;
		case 'n':
			note = optarg;
			break;
		case 'N': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (!*optarg || *end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "run: --now: expected seconds since the epoch, not '%s'",
						    optarg);
			now = (time_t)v;
			break;
		}
		case 't':
			to = optarg;
			if (!rm_address_valid(to))
				return rm_error_set(err, RM_ERR_USAGE, "--to: '%s' is not an address", to);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			rm_help_print("run", stdout);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "run: unknown option or missing value: '%s'",
					    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rm_error_set(err, RM_ERR_USAGE, "run: unexpected argument '%s'", argv[optind]);
	slog.ctx = &verbose;
	if (env_open(&e, config, NULL, NULL, true, false, err) ||
	    rm_config_check_identity(&e.cfg, err) || rm_inbox_check_state_dir(&e.cfg, err) ||
	    (!once && rm_inbox_check_dir(&e.cfg, err)) || rm_deliver_check(&e.cfg, err) ||
	    (note && read_note(note, &e.note, err))) {
		env_close(&e);
		return -1;
	}
	/* one run at a time: another run holding the inbox is not an error */
	got = rm_inbox_claim(&e.cfg, &lockfd, err);
	if (got <= 0) {
		env_close(&e);
		return got;
	}
	if (rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err))
		goto out;
	env_wire_cache(&e);
	{
		char host[201] = "";

		if (!e.cfg.host_id && gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "unknown");
		rm_store_set_owner(e.ob, e.cfg.host_id ? e.cfg.host_id : host, e.cfg.lease);
	}
	if (rm_schedule_recover(e.ob, &slog, err))
		goto out;
	if (once) {
		scan.ready = rm_xcalloc(1, sizeof(char *));
		scan.ready[0] = rm_xstrdup(once);
		scan.nready = 1;
	} else if (rm_inbox_scan(&e.cfg, now, verbose, &scan, err)) {
		goto out;
	}
	pipeline_init(&p, &e, to, now, verbose);
	/* --once and --to leave the archives where they are: a reflection
	 * consumes nothing */
	rm_pipeline_queue_sink_init(&q, &p, materials, once != NULL || to != NULL, rm_schedule_held);
	{
		/* entries that are no archive: on a shared store one run sets each aside */
		struct rm_inbox_refused *rv;
		size_t nrv;
		struct rm_error re;
		int prc = rm_inbox_claim_refused(e.ob, &e.cfg, scan.refused, scan.nrefused, &rv, &nrv,
						 err);

		if (!prc)
			rm_pipeline_refuse(&p, rv, nrv);
		if (rm_inbox_release_refused(e.ob, rv, nrv, prc ? &re : err) && !prc)
			prc = -1;
		free(rv);
		if (prc)
			goto out;
	}
	/* a few archives at a time, each claimed in the store first (on a
	 * shared store other hosts' runs take the rest) */
	for (i = 0; i < scan.nready; i += batch) {
		char **mine;
		size_t nmine;
		struct rm_error re;
		int prc;

		batch = rm_inbox_claim_batch(&e.cfg, scan.nready);
		prc = rm_inbox_claim_archives(e.ob, &e.cfg, scan.ready + i,
					      scan.nready - i < batch ? scan.nready - i : batch, &mine,
					      &nmine, err);
		if (!prc && nmine)
			prc = rm_pipeline_run(&p, mine, nmine, err);
		if (rm_inbox_release_archives(e.ob, mine, nmine, prc ? &re : err) && !prc)
			prc = -1;
		free(mine);
		if (prc)
			goto out;
	}
	st.archives = p.st.archives;
	st.reports = p.st.reports;
	st.queued = p.st.queued;
	st.held = p.st.held;
	st.duplicates = p.st.duplicates;
	st.deferred = p.st.deferred;
	st.bad_archives = p.st.bad_archives;
	memset(&sc, 0, sizeof(sc));
	if (rm_schedule_deliver(e.ob, &e.cfg, now, &slog, &sc, err))
		goto out;
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
	/* each failure was logged as it happened; the worst sets the exit */
	if (st.bad_archives || st.failed_msgs) /* a bad archive, or a message no server accepted */
		rc = rm_error_logged(err, RM_ERR_INPUT);
	else if (st.deferred || st.retried)
		rc = rm_error_logged(err, RM_ERR_TEMP);
	else
		rc = 0;
out:
	rm_inbox_scan_free(&scan);
	env_close(&e);
	rm_inbox_release(lockfd);
	return rc;
}

int rm_cmd_queue(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL, *which = NULL;
	enum rm_schedule_queue_cmd cmd;
	struct rm_sb out = RM_SB_INIT;
	struct env e;
	int i = 1, rc;

	if (i + 1 < argc && (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config"))) {
		config = argv[i + 1];
		i += 2;
	}
	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		rm_help_print("queue", stdout);
		return 0;
	}
	if (i >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "queue: expected list, show ID, retry ID, drop ID, hold ID or release ID"), 2;
	if (rm_schedule_queue_cmd_parse(argv[i], &cmd) ||
	    (rm_schedule_queue_cmd_needs_id(cmd) && i + 1 >= argc))
		return rm_error_set(err, RM_ERR_USAGE, "queue: unknown action '%s'", argv[i]), 2;
	if (rm_schedule_queue_cmd_needs_id(cmd))
		which = argv[++i];
	if (i + 1 < argc)
		return rm_error_set(err, RM_ERR_USAGE, "queue: unexpected argument '%s'", argv[i + 1]), 2;
	if (env_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	rc = rm_schedule_queue(e.ob, cmd, which, time(NULL), &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
	env_close(&e);
	return rc < 0 ? rm_error_exit_code(err->kind) : rc;
}

/* ================================================================ listen */

int rm_cmd_listen(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
	struct rm_listen_stats ls;
	struct rm_listen_waiter *waiter = NULL;
	struct env e;
	time_t now = 0;
	long interval = 60;
	bool follow = false;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (i + 1 < argc && (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config"))) {
			config = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--now")) {
			char *end;
			long long v = strtoll(argv[++i], &end, 10);

			if (*end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "listen: --now: expected seconds since 1970, not '%s'",
						    argv[i]);
			now = (time_t)v;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			return rm_help_print("listen", stdout), 0;
		} else if (!strcmp(argv[i], "--follow")) {
			follow = true;
		} else if (i + 1 < argc && !strcmp(argv[i], "--interval")) {
			char *end;

			interval = strtol(argv[++i], &end, 10);
			if (*end || interval < 1 || interval > 86400)
				return rm_error_set(err, RM_ERR_USAGE,
						    "listen: --interval: expected 1 to 86400 seconds, not '%s'",
						    argv[i]);
		} else {
			return rm_error_set(err, RM_ERR_USAGE, "listen: unknown option '%s'", argv[i]);
		}
	}
	if (env_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		env_close(&e);
		return -1;
	}
	/* --follow: a pass every --interval seconds until killed; each mail
	 * is remembered in the store as it is done, so a kill loses nothing
	 * and repeats nothing */
	do {
		rc = rm_listen_run(&e.cfg, e.ob, now ? now : time(NULL), &ls, err);
		if (rc || !follow || ls.read)
			fprintf(stderr,
				"robotmail: listen: %d read, %d ignored, %d refused, %d command(s) applied, %d answer(s) queued\n",
				ls.read, ls.ignored, ls.refused, ls.applied, ls.answered);
		if (!rc && follow)
			rm_listen_wait(&e.cfg, interval, &waiter);
	} while (!rc && follow);
	rm_listen_waiter_free(waiter);
	env_close(&e);
	return rc;
}

/* ================================================================ status */

int rm_cmd_status(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL, *html = NULL, *json = NULL;
	struct env e;
	size_t n = 0;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (i + 1 < argc && (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")))
			config = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--html"))
			html = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--json"))
			json = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return rm_help_print("status", stdout), 0;
		else
			return rm_error_set(err, RM_ERR_USAGE, "status: unknown option '%s'", argv[i]);
	}
	if (!html && !json)
		return rm_error_set(err, RM_ERR_USAGE, "status: expected --html DIR and/or --json DIR");
	if (env_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		env_close(&e);
		return -1;
	}
	if (html && json && strcmp(html, json))
		rc = rm_status_write(&e.cfg, e.ob, html, true, false, &n, err) ||
		     rm_status_write(&e.cfg, e.ob, json, false, true, &n, err);
	else
		rc = rm_status_write(&e.cfg, e.ob, html ? html : json, html != NULL, json != NULL, &n, err);
	if (!rc)
		printf("robotmail: status: %zu finding(s) written to %s\n", n, html ? html : json);
	env_close(&e);
	return rc ? -1 : 0;
}

/* `store check` and `store migrate --to URL [--from PATH]`: the options;
 * store.c does the work.  The source is the configured store unless
 * --from names a SQLite file. */
int rm_cmd_store(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL, *to = NULL, *from = NULL, *action = NULL;
	struct rm_store *src = NULL, *dst = NULL;
	struct rm_sb out = RM_SB_INIT;
	struct env e;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc)
			config = argv[++i];
		else if (!strcmp(argv[i], "--to") && i + 1 < argc)
			to = argv[++i];
		else if (!strcmp(argv[i], "--from") && i + 1 < argc)
			from = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return rm_help_print("store", stdout), 0;
		else if (!action && (!strcmp(argv[i], "check") || !strcmp(argv[i], "migrate")))
			action = argv[i];
		else
			return rm_error_set(err, RM_ERR_USAGE, "store: unknown argument '%s'", argv[i]), 2;
	}
	if (!action)
		return rm_error_set(err, RM_ERR_USAGE, "store: expected check or migrate --to URL"), 2;
	if (!strcmp(action, "migrate") && !rm_store_location_shared(to))
		return rm_error_set(err, RM_ERR_USAGE,
				    "store migrate: --to must name a postgresql:// store"), 2;
	if (env_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&src, from ? from : e.cfg.state_db,
			  RM_STORE_READONLY, err) ||
	    (to && rm_store_open(&dst, to, RM_STORE_READWRITE, err))) {
		rm_store_close(src);
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	rc = !strcmp(action, "check") ? rm_store_check(src, &out, err) :
					 rm_store_migrate(src, dst, &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
	rm_store_close(dst);
	rm_store_close(src);
	env_close(&e);
	return rc < 0 ? rm_error_exit_code(err->kind) : rc;
}

/* ================================================================ check-config */

static void check_line(int *bad, bool ok, const char *what, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail && *detail ? ": " : "",
	       detail ? detail : "");
	if (!ok)
		(*bad)++;
}

int rm_cmd_check_config(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
	bool online = false;
	struct env e;
	struct rm_error ce;
	int i, bad = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc)
			config = argv[++i];
		else if (!strcmp(argv[i], "--online"))
			online = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return rm_help_print("check-config", stdout), 0;
		else
			return rm_error_set(err, RM_ERR_USAGE, "check-config: unknown argument '%s'", argv[i]);
	}
	rm_error_clear(&ce);
	if (env_open(&e, config, NULL, NULL, true, false, &ce)) {
		check_line(&bad, false, "configuration and rule files", ce.msg);
		env_close(&e);
		return rm_error_logged(err, RM_ERR_CONFIG); /* said on stdout */
	}
	check_line(&bad, true, "configuration", e.cfg.file ? e.cfg.file : "(built-in defaults)");
	rm_error_clear(&ce);
	check_line(&bad, !rm_config_check_identity(&e.cfg, &ce), "robot identity",
		   ce.kind ? ce.msg : e.cfg.robot_address);
	check_line(&bad, true, "metric rules", e.rules.metrics_file);
	check_line(&bad, true, "program facts", e.rules.programs_file);
	{
		/* every template parses and knows every name it uses: rendered
		 * against the variables report.c provides, once with each
		 * filled and once with each empty (both sides of a section) */
		static const char *const names[] = { "perf.txt", "functional.txt" };
		const char *env_t = getenv("ROBOTMAIL_TEMPLATES");
		const char *tdir = e.cfg.templates ? e.cfg.templates : env_t && *env_t ? env_t : RM_TEMPLATEDIR;
		struct rm_tdata *full = rm_report_sample_vars(true), *empty = rm_report_sample_vars(false);

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			struct rm_sb out = RM_SB_INIT;
			struct rm_error te;
			char what[64];
			int trc;

			rm_error_clear(&te);
			rm_sb_init(&out);
			snprintf(what, sizeof(what), "template %s", names[k]);
			trc = rm_template_render(tdir, names[k], full, &out, &te);
			if (!trc)
				trc = rm_template_render(tdir, names[k], empty, &out, &te);
			check_line(&bad, !trc, what, trc ? te.msg : tdir);
			rm_sb_release(&out);
		}
		rm_tdata_free(full);
		rm_tdata_free(empty);
	}
	if (e.cfg.password_file) {
		struct stat st;

		if (stat(e.cfg.password_file, &st))
			check_line(&bad, false, "password file", strerror(errno));
		else
			check_line(&bad, !(st.st_mode & 077), "password file",
				   (st.st_mode & 077) ? "readable by others: chmod 600 it" : e.cfg.password_file);
	}
	if (e.cfg.password_env)
		check_line(&bad, getenv(e.cfg.password_env) != NULL, "password variable", e.cfg.password_env);
	for (k = 0; k < e.cfg.ntrees; k++) {
		const struct rm_tree_cfg *t = &e.cfg.trees[k];
		char what[200];

		snprintf(what, sizeof(what), "tree %s:%s (%s)", t->name, t->branch, rm_config_provider_name(t->provider));
		if (t->token_file) {
			struct stat st;

			check_line(&bad, !stat(t->token_file, &st) && !(st.st_mode & 077), what,
				   "token file must exist and be readable by robotmail only");
		}
		if (online && t->provider != RM_PROVIDER_NONE && t->provider != RM_PROVIDER_LOCAL_GIT) {
			struct rm_gitweb_opts o;
			char why[256];

			rm_gitweb_opts_from_config(&o, &e.cfg);
			check_line(&bad, !rm_gitweb_ping(t->api, &o, why, sizeof(why)), what, why);
		} else if (t->provider == RM_PROVIDER_LOCAL_GIT) {
			struct stat st;

			check_line(&bad, !stat(t->api, &st) && S_ISDIR(st.st_mode), what, t->api);
		} else {
			check_line(&bad, true, what, t->url);
		}
	}
	if (online && (!strncmp(e.cfg.transport, "smtp://", 7) || !strncmp(e.cfg.transport, "smtps://", 8))) {
		struct rm_smtp_cfg sc;
		char why[256];

		memset(&sc, 0, sizeof(sc));
		sc.url = e.cfg.transport;
		sc.starttls = e.cfg.starttls;
		sc.verify = e.cfg.tls_verify;
		sc.ca_file = e.cfg.ca_file;
		sc.connect_timeout = e.cfg.smtp_connect_timeout;
		sc.timeout = e.cfg.smtp_timeout;
		check_line(&bad, !rm_smtp_ping(&sc, why, sizeof(why)), "SMTP server", why);
	} else {
		struct rm_error te;

		rm_error_clear(&te);
		check_line(&bad, !rm_deliver_check(&e.cfg, &te), "transport", te.kind ? te.msg : e.cfg.transport);
	}
	if (rm_store_location_shared(e.cfg.state_db)) {
		/* a PostgreSQL store: `robotmail store check` connects to it */
		char *shown = rm_store_redact(e.cfg.state_db);
		struct rm_error pe;

		check_line(&bad, true, "state store", shown);
		free(shown);
		rm_error_clear(&pe);
		check_line(&bad, !rm_inbox_check_dir(&e.cfg, &pe), "inbox", pe.kind ? pe.msg : e.cfg.inbox);
	} else {
		struct rm_error pe;
		struct stat st;
		char *dir = rm_xstrdup(e.cfg.state_db), *slash = strrchr(dir, '/');

		/* the state directory: must exist or be creatable (nothing is created here) */
		rm_error_clear(&pe);
		if (slash) {
			*slash = '\0';
			while (*dir && stat(dir, &st) && errno == ENOENT && (slash = strrchr(dir, '/')))
				*slash = '\0';
		}
		if (slash && *dir && (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)))
			rm_error_set(&pe, RM_ERR_CONFIG, "paths.state_db (%s): '%s' is not a writable directory",
				     rm_config_where(&e.cfg, "paths.state_db"), dir);
		check_line(&bad, !pe.kind, "state directory", pe.kind ? pe.msg : e.cfg.state_db);
		free(dir);
		rm_error_clear(&pe);
		check_line(&bad, !rm_inbox_check_dir(&e.cfg, &pe), "inbox", pe.kind ? pe.msg : e.cfg.inbox);
	}
	if (e.cfg.nlisten) {
		/* listen's sources, and the opt-outs received by mail so far */
		struct rm_store *ls = NULL;
		struct rm_error se;
		long n = 0;
		int v = 0;

		for (k = 0; k < e.cfg.nlisten; k++)
			check_line(&bad, !strncmp(e.cfg.listen[k].source, "maildir:", 8) ||
					       !strncmp(e.cfg.listen[k].source, "imaps://", 8) ||
					       !strncmp(e.cfg.listen[k].source, "public-inbox:", 13),
				   "listen source",
				   e.cfg.listen[k].source);
		rm_error_clear(&se);
		if (rm_store_open(&ls, e.cfg.state_db, RM_STORE_READONLY, &se) ||
		    rm_store_schema_version(ls, &v, &se) ||
		    (v >= 4 && rm_store_optout_count(ls, &n, &se))) {
			check_line(&bad, false, "opt-outs by mail", se.msg);
		} else {
			char detail[128];

			snprintf(detail, sizeof(detail), "%ld address(es) opted out", n);
			check_line(&bad, true, "opt-outs by mail", detail);
		}
		rm_store_close(ls);
	}
	env_close(&e);
	printf("%s\n", bad ? "check-config: problems found" : "check-config: all good");
	/* each problem was said on stdout */
	return bad ? rm_error_logged(err, RM_ERR_CONFIG) : 0;
}
