/* cli.c - see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive.h"
#include "config.h"
#include "fileutil.h"
#include "gitweb.h"
#include "outbox.h"
#include "rules.h"
#include "stats.h"
#include "strbuf.h"
#include "table.h"

#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif

void rm_usage(int to_stderr)
{
	fputs("usage: robotmail compare [options] ARCHIVE...\n"
	      "       robotmail compare [options] BASE_DIR HEAD_DIR\n"
	      "       robotmail commit [--config FILE] [--subject S] [--no-cache] TREE SHA\n"
	      "\n"
	      "compare options:\n"
	      "  -c, --config FILE  configuration (trees for commit subjects); also $ROBOTMAIL_CONFIG\n"
	      "  --base COMMIT      use COMMIT (or a prefix) as the base of every group\n"
	      "  --head COMMIT      use COMMIT (or a prefix) as the head of every group\n"
	      "  --metrics FILE     metric rules (default: $ROBOTMAIL_DATADIR/metrics.yaml)\n"
	      "  --programs FILE    LKP program facts (default: $ROBOTMAIL_DATADIR/lkp-programs.yaml)\n"
	      "  -v, --verbose      report skipped groups and stats on stderr\n"
	      "\n"
	      "ARCHIVE is a result directory or a .tar, .tar.gz, .tar.xz or .tar.zst file.\n"
	      "Exit codes: 0 ok, 1 bad archive or unknown commit, 2 usage or configuration error,\n"
	      "75 temporary failure (try again later).\n",
	      to_stderr ? stderr : stdout);
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

static int is_commit_dir(const char *path)
{
	/* a _result_root: a directory with <run>/job.yaml in it */
	struct stat st;
	int i, found = 0;

	for (i = 0; i < 100 && !found; i++) {
		char run[16];
		char *d, *probe;

		snprintf(run, sizeof(run), "%d", i);
		d = rm_path_join(path, run);
		probe = rm_path_join(d, "job.yaml");
		found = !stat(probe, &st) && S_ISREG(st.st_mode);
		free(d);
		free(probe);
	}
	return found;
}

/* ---- the commit cache over the state database */

struct cache_ctx {
	struct rm_outbox *ob;
	long miss_ttl;
};

static int cache_get(void *ctx, const char *tree, const char *sha, char **json, bool *found)
{
	struct cache_ctx *c = ctx;
	struct rm_error e;

	return rm_outbox_cache_get(c->ob, tree, sha, time(NULL), json, found, &e);
}

static int cache_put(void *ctx, const char *tree, const char *sha, bool found, const char *json)
{
	struct cache_ctx *c = ctx;
	struct rm_error e;

	return rm_outbox_cache_put(c->ob, tree, sha, found, json, time(NULL), c->miss_ttl, &e);
}

/* Commit facts for the commit lines of compare: best effort, never fatal. */
static void lookup_subjects(const struct rm_config *cfg, const struct rm_commit_cache *cache,
			    const struct rm_group *g, char *subjects[2], int verbose)
{
	struct rm_gitweb_req reqs[2];
	struct rm_gitweb_opts o;
	struct rm_error e;
	const struct rm_tree_cfg *t =
		rm_config_tree_for_branch(cfg, rm_job_field(&g->members[1]->job, "branch"));
	int i;

	subjects[0] = subjects[1] = NULL;
	if (!t || t->provider == RM_PROVIDER_NONE)
		return;
	memset(reqs, 0, sizeof(reqs));
	for (i = 0; i < 2; i++) {
		reqs[i].tree = t;
		reqs[i].sha = g->members[i]->commit;
	}
	rm_gitweb_opts_from_config(&o, cfg);
	if (rm_gitweb_lookup(reqs, 2, &o, cache, &e))
		return;
	for (i = 0; i < 2; i++) {
		if (reqs[i].status == RM_GITWEB_FOUND)
			subjects[i] = rm_xstrdup(reqs[i].facts.subject);
		else if (verbose)
			fprintf(stderr, "robotmail: commit %s: %s\n", reqs[i].sha,
				reqs[i].status == RM_GITWEB_UNKNOWN ? "unknown upstream" :
								      reqs[i].error);
		rm_facts_free(&reqs[i].facts);
	}
}

static void print_warnings(const struct rm_archive *a)
{
	size_t i;

	for (i = 0; i < a->nwarnings; i++)
		fprintf(stderr, "robotmail: warning: %s\n", a->warnings[i]);
}

static int compare_archive(struct rm_archive *a, const struct rm_rules *rules,
			   const struct rm_config *cfg, const struct rm_commit_cache *cache,
			   int verbose, struct rm_error *err)
{
	size_t g;

	if (verbose)
		print_warnings(a);
	for (g = 0; g < a->ngroups; g++) {
		const struct rm_group *grp = &a->groups[g];
		struct rm_comparison cmp;
		char *subjects[2] = { NULL, NULL };
		struct rm_table_commit base = { grp->members[0]->commit, NULL };
		struct rm_table_commit head = { grp->members[1]->commit, NULL };
		struct rm_sb out = RM_SB_INIT;

		if (rm_compare(rules, grp->members[0], grp->members[1], &cmp, err))
			return -1;
		if (cfg && cmp.n)
			lookup_subjects(cfg, cache, grp, subjects, verbose);
		base.subject = subjects[0];
		head.subject = subjects[1];
		if (cmp.skipped_bad)
			fprintf(stderr,
				"robotmail: warning: '%s': %zu stats with NaN, Infinity or non-numbers left out\n",
				grp->members[1]->path, cmp.skipped_bad);
		if (verbose && !cmp.n)
			fprintf(stderr, "robotmail: '%s' vs '%s': no changed stats\n",
				grp->members[0]->path, grp->members[1]->path);
		rm_sb_init(&out);
		rm_table_render(&out, &grp->members[1]->job, &base, &head, &cmp);
		fwrite(out.buf, 1, out.len, stdout);
		rm_sb_release(&out);
		rm_comparison_free(&cmp);
		free(subjects[0]);
		free(subjects[1]);
	}
	return 0;
}

/* Shared setup: the config (when given), the rules and the cache. */
struct env {
	struct rm_config cfg;
	bool have_cfg;
	struct rm_rules rules;
	bool have_rules;
	struct rm_outbox *ob;
	struct cache_ctx cctx;
	struct rm_commit_cache cache;
};

static const char *config_path(const char *opt)
{
	const char *env = getenv("ROBOTMAIL_CONFIG");

	if (opt)
		return opt;
	return env && *env ? env : NULL;
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
		if (rm_outbox_open(&e->ob, e->cfg.state_db, RM_OUTBOX_READWRITE, err))
			return -1;
		e->cctx.ob = e->ob;
		e->cctx.miss_ttl = e->cfg.miss_ttl;
		e->cache.ctx = &e->cctx;
		e->cache.get = cache_get;
		e->cache.put = cache_put;
	}
	return 0;
}

static void env_close(struct env *e)
{
	if (e->have_rules)
		rm_rules_free(&e->rules);
	if (e->have_cfg)
		rm_config_free(&e->cfg);
	rm_outbox_close(e->ob);
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
	const struct rm_config *cfg;
	const struct rm_commit_cache *cache;
	int c, i, verbose = 0, rc = 0;

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
			rm_usage(0);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "compare: unknown option or missing value: '%s'",
					    argv[optind - 1]), 2;
		}
	}
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "compare: expected an ARCHIVE or BASE_DIR HEAD_DIR"), 2;
	if (env_open(&e, config, metrics, programs, true, true, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	/* commit subjects only when a configuration names the trees */
	cfg = e.cfg.file ? &e.cfg : NULL;
	cache = e.ob ? &e.cache : NULL;
	if (argc - optind == 2 && is_commit_dir(argv[optind]) && is_commit_dir(argv[optind + 1])) {
		struct rm_archive a;

		if (rm_archive_open_pair(&a, argv[optind], argv[optind + 1], &e.rules, err)) {
			rc = rm_error_exit_code(err->kind);
		} else {
			if (compare_archive(&a, &e.rules, cfg, cache, verbose, err))
				rc = rm_error_exit_code(err->kind);
			rm_archive_free(&a);
		}
		env_close(&e);
		return rc;
	}
	for (i = optind; i < argc; i++) {
		struct rm_archive a;
		struct rm_error ae;
		int bad;

		rm_error_clear(&ae);
		if (rm_archive_open(&a, argv[i], &e.rules, &opts, &ae)) {
			bad = 1;
		} else {
			bad = compare_archive(&a, &e.rules, cfg, cache, verbose, &ae) != 0;
			rm_archive_free(&a);
		}
		if (bad) {
			/* report each bad archive once, and go on with the others */
			fprintf(stderr, "robotmail: error: %s\n", ae.msg);
			if (rm_error_exit_code(ae.kind) > rc)
				rc = rm_error_exit_code(ae.kind);
		}
	}
	env_close(&e);
	return rc;
}

static void print_facts(const struct rm_gitweb_req *r)
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
	struct rm_gitweb_req req;
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
			rm_usage(0);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "commit: unknown option or missing value: '%s'",
					    argv[optind - 1]), 2;
		}
	}
	if (argc - optind != 2)
		return rm_error_set(err, RM_ERR_USAGE, "commit: expected TREE SHA"), 2;
	if (env_open(&e, config, NULL, NULL, false, use_cache, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	memset(&req, 0, sizeof(req));
	req.tree = rm_config_tree(&e.cfg, argv[optind]);
	if (!req.tree) {
		rm_error_set(err, RM_ERR_USAGE, "commit: no tree '%s' in %s", argv[optind],
			     e.cfg.file ? e.cfg.file : "the built-in configuration");
		env_close(&e);
		return 2;
	}
	req.sha = argv[optind + 1];
	req.subject = subject;
	if (!rm_gitweb_valid_sha(req.sha)) {
		rm_error_set(err, RM_ERR_USAGE, "commit: '%.80s' is not a commit sha (4 to 64 hex digits)",
			     req.sha);
		env_close(&e);
		return 2;
	}
	rm_gitweb_opts_from_config(&o, &e.cfg);
	if (rm_gitweb_lookup(&req, 1, &o, e.ob ? &e.cache : NULL, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	switch (req.status) {
	case RM_GITWEB_FOUND:
		print_facts(&req);
		rc = 0;
		break;
	case RM_GITWEB_UNKNOWN:
		rm_error_set(err, RM_ERR_INPUT, "commit %s is unknown to %s (%s)", req.sha,
			     req.tree->name, req.tree->api);
		rc = 1;
		break;
	default:
		rm_error_set(err, RM_ERR_TEMP, "commit %s: %s", req.sha, req.error);
		rc = 75;
		break;
	}
	rm_facts_free(&req.facts);
	env_close(&e);
	return rc;
}
