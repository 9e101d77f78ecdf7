/* cli.c - see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "checkconfig.h"
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
#include "yamlcache.h"

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
	struct rm_archive_opts opts = { NULL, NULL, true, 0 };
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
	/* glibc's own malloc thresholds: the M_MMAP_THRESHOLD of 128 KiB set here
	 * once (peak RSS -0.6..-1.1 MiB when libcurl, libpq and libetpan were
	 * linked) cost ~10% cpu at 10x20k in page faults (0.110 -> 0.099 s, best
	 * of 15) for no RSS gain since those libraries load on demand (12.2 MiB
	 * either way; 5.0 at 10x2k). */
	if (rm_setup_open(&e, config, metrics, programs, true, true, err)) {
		rm_setup_close(&e);
		return -1;
	}
	/* commit subjects only when a configuration names the trees: libcurl
	 * is loaded (and set up) by the first lookup (dynlib.h) */
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

/* ================================================================ dry run, run */

/* The options of `--dry-run` (dry) or `run` into *ro (which borrows the
 * strings); each has its own table, the values they share are read alike.
 * Returns 0, 1 when -h printed the help, or -1 with err (RM_ERR_USAGE). */
static int run_args(int argc, char **argv, bool dry, struct rm_run_opts *ro, struct rm_error *err)
{
	static const struct option dry_opts[] = {
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
	static const struct option run_opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", required_argument, NULL, 'O' },
		{ "now", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 't' },
		{ "materials", required_argument, NULL, 'm' },
		{ "note", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(ro, 0, sizeof(*ro));
	ro->now = time(NULL);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, dry ? "c:o:vh" : "c:vh", dry ? dry_opts : run_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			break;
		case 'c':
			ro->config = optarg;
			break;
		case 'o':
			ro->output = optarg;
			break;
		case 'O':
			ro->once = optarg;
			break;
		case 'm':
			ro->materials = optarg;
			break;
		case 'n':
			ro->note = optarg;
			break;
		case 'N': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (!*optarg || *end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "%s--now: expected seconds since the epoch, not '%s'",
						    dry ? "" : "run: ", optarg);
			ro->now = (time_t)v;
			break;
		}
		case 't':
			ro->to = optarg;
			if (!rm_address_valid(ro->to))
				return rm_error_set(err, RM_ERR_USAGE, "--to: '%s' is not an address", ro->to);
			break;
		case 'F':
			ro->force = true;
			break;
		case 'v':
			ro->verbose = 1;
			break;
		case 'h':
			rm_help_print(dry ? "dry-run" : "run", stdout);
			return 1;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "%s: unknown option or missing value: '%s'",
					    dry ? "--dry-run" : "run", argv[optind - 1]);
		}
	}
	return 0;
}

int rm_cmd_dry_run(int argc, char **argv, struct rm_error *err)
{
	struct rm_run_opts ro;
	int rc = run_args(argc, argv, true, &ro, err);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "--dry-run: expected one or more ARCHIVEs");
	rm_yamlcache_set_readonly(); /* a dry run writes nothing, not even the rule cache */
	return rm_run_dry(&ro, argv + optind, (size_t)(argc - optind), err);
}

int rm_cmd_run(int argc, char **argv, struct rm_error *err)
{
	struct rm_run_opts ro;
	int rc = run_args(argc, argv, false, &ro, err);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (optind < argc)
		return rm_error_set(err, RM_ERR_USAGE, "run: unexpected argument '%s'", argv[optind]);
	return rm_run(&ro, err);
}

int rm_cmd_queue(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
	struct rm_schedule_queue_args qa;
	struct rm_sb out = RM_SB_INIT;
	struct rm_setup e;
	int i = 1, rc;

	if (i + 1 < argc && (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config"))) {
		config = argv[i + 1];
		i += 2;
	}
	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		rm_help_print("queue", stdout);
		return 0;
	}
	if (rm_schedule_queue_args(&qa, argc, argv, i, err)) /* the action, an ID or filters */
		return 2;
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err) ||
	    rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		rm_setup_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	/* a person reads the list under its column names; scripts get rows */
	rc = rm_schedule_queue_apply(e.ob, &qa, isatty(STDOUT_FILENO), time(NULL), &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
	rm_setup_close(&e);
	return rc < 0 ? rm_error_exit_code(err->kind) : rc;
}

/* ================================================================ listen */

int rm_cmd_listen(int argc, char **argv, struct rm_error *err)
{
	const char *config = NULL;
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
	/* --follow: a pass every --interval seconds until killed */
	rc = rm_listen_passes(&e.cfg, e.ob, now, follow ? interval : 0, err);
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
	rc = rm_status_write_dirs(&e.cfg, e.ob, html, json, &n, err);
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
	if (rm_setup_open(&e, config, NULL, NULL, false, false, err)) {
		rm_setup_close(&e);
		return rm_error_exit_code(err->kind);
	}
	rm_sb_init(&out);
	rc = rm_store_check_or_migrate(!strcmp(action, "migrate"), from ? from : e.cfg.state_db, to,
				       &out, err);
	fwrite(out.buf, 1, out.len, stdout);
	rm_sb_release(&out);
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
