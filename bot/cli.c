/* cli.c - see cli.h. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "checkconfig.h"
#include "fileutil.h"
#include "gitweb.h"
#include "help.h"
#include "listen.h"
#include "lookup.h"
#include "pipeline.h"
#include "run.h"
#include "schedule.h"
#include "setup.h"
#include "status.h"
#include "store.h"

void rm_usage(int to_stderr)
{
	rm_help_print(NULL, to_stderr ? stderr : stdout);
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
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, metrics, programs, true, true, err)) {
		rm_setup_close(&e);
		return -1;
	}
	/* commit subjects only when a configuration names the trees */
	rc = rm_pipeline_compare(&e.rules, e.cfg.file ? &e.cfg : NULL, e.ob ? &e.cache : NULL, &opts,
				 argv + optind, (size_t)(argc - optind), verbose, err);
	rm_setup_close(&e);
	return rc;
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
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, NULL, NULL, false, use_cache, err)) {
		rm_setup_close(&e);
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.tree = rm_config_tree(&e.cfg, argv[optind]);
	if (!req.tree) {
		rm_error_set(err, RM_ERR_USAGE, "commit: no tree '%s' in %s", argv[optind],
			     e.cfg.file ? e.cfg.file : "the built-in configuration");
		rm_setup_close(&e);
		return -1;
	}
	req.sha = argv[optind + 1];
	req.subject = subject;
	if (!rm_commit_valid_sha(req.sha)) {
		rm_error_set(err, RM_ERR_USAGE, "commit: '%.80s' is not a commit sha (4 to 64 hex digits)",
			     req.sha);
		rm_setup_close(&e);
		return -1;
	}
	rm_gitweb_opts_from_config(&o, &e.cfg);
	if (rm_lookup_run(&req, 1, &o, e.ob ? &e.cache : NULL, err)) {
		rm_setup_close(&e);
		return -1;
	}
	switch (req.status) {
	case RM_LOOKUP_FOUND: {
		struct rm_sb out = RM_SB_INIT;

		rm_sb_init(&out);
		rm_lookup_format(&req, &out);
		fwrite(out.buf, 1, out.len, stdout);
		rm_sb_release(&out);
		rc = 0;
		break;
	}
	case RM_LOOKUP_UNKNOWN:
		rm_error_set(err, RM_ERR_INPUT, "commit %s is unknown to %s (%s)", req.sha,
			     req.tree->name, req.tree->api);
		rc = -1;
		break;
	default:
		rc = rm_error_set(err, req.error_kind, "commit %s: %s", req.sha, req.error);
		break;
	}
	rm_commit_free(&req.facts);
	rm_setup_close(&e);
	return rc;
}

/* ================================================================ dry run */

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
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, NULL, NULL, true, false, err) ||
	    rm_config_check_identity(&e.cfg, err) ||
	    (note && rm_setup_read_note(&e, note, err)) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		rm_setup_close(&e);
		return -1;
	}
	if (outdir && rm_mkdir_p(outdir)) {
		rm_error_set(err, RM_ERR_USAGE, "--dry-run: -o: cannot create directory '%s': %s", outdir,
			     strerror(errno));
		rm_setup_close(&e);
		return -1;
	}
	rm_setup_wire_cache(&e); /* without a store too: the wait rule of unknown commits */
	rm_setup_pipeline(&e, &p, to, now, verbose);
	rm_pipeline_print_sink_init(&ps, &p, stdout, outdir, force);
	rc = rm_pipeline_run(&p, argv + optind, (size_t)(argc - optind), err);
	if (!rc && !p.nth && verbose)
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

/* ================================================================ run */

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
	struct rm_run_opts ro;
	int c;

	memset(&ro, 0, sizeof(ro));
	ro.now = time(NULL);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			ro.config = optarg;
			break;
		case 'o':
			ro.once = optarg;
			break;
		case 'm':
			ro.materials = optarg;
			break;
		case 'n':
			ro.note = optarg;
			break;
		case 'N': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (!*optarg || *end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "run: --now: expected seconds since the epoch, not '%s'",
						    optarg);
			ro.now = (time_t)v;
			break;
		}
		case 't':
			ro.to = optarg;
			if (!rm_address_valid(ro.to))
				return rm_error_set(err, RM_ERR_USAGE, "--to: '%s' is not an address", ro.to);
			break;
		case 'v':
			ro.verbose = 1;
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
	return rm_run(&ro, err);
}

int rm_cmd_queue(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL, *which = NULL;
	enum rm_schedule_queue_cmd cmd;
	struct rm_schedule_filter f;
	struct rm_sb out = RM_SB_INIT;
	struct rm_setup e;
	int i = 1, rc, used;

	if (i + 1 < argc && (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config"))) {
		config = argv[i + 1];
		i += 2;
	}
	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		rm_help_print("queue", stdout);
		return 0;
	}
	if (i >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "queue: expected list, show ID, retry ID, drop ID, hold ID, release ID or resend ID"), 2;
	if (rm_schedule_queue_cmd_parse(argv[i], &cmd))
		return rm_error_set(err, RM_ERR_USAGE, "queue: unknown action '%s'", argv[i]), 2;
	/* an ID, or filters (schedule.c parses them) */
	rm_schedule_filter_init(&f);
	for (i++; i < argc; i += used) {
		used = rm_schedule_filter_arg(&f, argc, argv, i, err);
		if (used < 0)
			return 2;
		if (!used && !which && argv[i][0] != '-' && rm_schedule_queue_cmd_needs_id(cmd)) {
			which = argv[i];
			used = 1;
		} else if (!used) {
			return rm_error_set(err, RM_ERR_USAGE, "queue: unexpected argument '%s'", argv[i]), 2;
		}
	}
	if (which && rm_schedule_filter_any(&f))
		return rm_error_set(err, RM_ERR_USAGE, "queue: an ID or filters, not both"), 2;
	if (!which && cmd == RM_SCHEDULE_QUEUE_SHOW)
		return rm_error_set(err, RM_ERR_USAGE, "queue show: expected an ID"), 2;
	if (which && f.dry_run)
		return rm_error_set(err, RM_ERR_USAGE, "queue: --dry-run goes with --all or a filter"), 2;
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		rm_setup_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	if (cmd == RM_SCHEDULE_QUEUE_LIST && isatty(STDOUT_FILENO)) /* a person reads it; scripts get rows */
		rm_sb_adds(&out, "ID\tSTATE\tATTEMPTS\tMESSAGE-ID\tSUBJECT\tLAST-ERROR\n");
	if (which || (cmd == RM_SCHEDULE_QUEUE_LIST && !rm_schedule_filter_any(&f)))
		rc = rm_schedule_queue(e.ob, cmd, which, time(NULL), &out, err);
	else
		rc = rm_schedule_queue_many(e.ob, cmd, &f, time(NULL), &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
	rm_setup_close(&e);
	return rc < 0 ? rm_error_exit_code(err->kind) : rc;
}

/* ================================================================ listen */

int rm_cmd_listen(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
	struct rm_listen_stats ls;
	struct rm_listen_waiter *waiter = NULL;
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		rm_setup_close(&e);
		return -1;
	}
	/* --follow: a pass every --interval seconds until killed; each mail
	 * is remembered in the store as it is done, so a kill loses nothing
	 * and repeats nothing */
	do {
		rc = rm_listen_run(&e.cfg, e.ob, now ? now : time(NULL), &ls, err);
		if (rc || !follow || ls.read)
			rm_listen_stats_print(&ls, stderr);
		if (!rc && follow)
			rm_listen_wait(&e.cfg, interval, &waiter);
	} while (!rc && follow);
	rm_listen_waiter_free(waiter);
	rm_setup_close(&e);
	return rc;
}

/* ================================================================ status */

int rm_cmd_status(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL, *html = NULL, *json = NULL;
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		rm_setup_close(&e);
		return -1;
	}
	if (html && json && strcmp(html, json))
		rc = rm_status_write(&e.cfg, e.ob, html, true, false, &n, err) ||
		     rm_status_write(&e.cfg, e.ob, json, false, true, &n, err);
	else
		rc = rm_status_write(&e.cfg, e.ob, html ? html : json, html != NULL, json != NULL, &n, err);
	if (!rc)
		printf("robotmail: status: %zu finding(s) written to %s\n", n, html ? html : json);
	rm_setup_close(&e);
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
	struct rm_setup e;
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
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&src, from ? from : e.cfg.state_db,
			  RM_STORE_READONLY, err) ||
	    (to && rm_store_open(&dst, to, RM_STORE_READWRITE, err))) {
		rm_store_close(src);
		rm_setup_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	rc = !strcmp(action, "check") ? rm_store_check(src, &out, err) :
					 rm_store_migrate(src, dst, &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
	rm_store_close(dst);
	rm_store_close(src);
	rm_setup_close(&e);
	return rc < 0 ? rm_error_exit_code(err->kind) : rc;
}

/* ================================================================ check-config */

int rm_cmd_check_config(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
	bool online = false;
	struct rm_setup e;
	struct rm_error ce;
	int i, bad;

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
	if (rm_setup_open(&e, config, NULL, NULL, true, false, &ce)) {
		rm_checkconfig_load_failed(stdout, ce.msg);
		rm_setup_close(&e);
		return rm_error_logged(err, RM_ERR_CONFIG); /* said on stdout */
	}
	bad = rm_checkconfig_run(&e.cfg, &e.rules, rm_setup_templates_dir(&e.cfg), online, stdout);
	rm_setup_close(&e);
	/* each problem was said on stdout */
	return bad ? rm_error_logged(err, RM_ERR_CONFIG) : 0;
}
