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
#include "message.h"
#include "outbox.h"
#include "recipients.h"
#include "report.h"
#include "rules.h"
#include "stats.h"
#include "strbuf.h"
#include "table.h"

#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif
#ifndef RM_TEMPLATEDIR
#define RM_TEMPLATEDIR "/usr/share/robotmail/templates"
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

/* ================================================================ reports */

/* Everything one invocation turns into reports.  Reports borrow from the
 * archives (result roots) and from the lookups (commit facts), so all three
 * are freed together. */
struct batch {
	struct rm_archive *archives;
	size_t narchives;
	struct rm_report *reports;
	size_t nreports;
	size_t *report_archive;        /* which archive each report came from */
	struct rm_gitweb_req *lookups; /* unique (tree, sha) */
	size_t nlookups;
	int failed;                    /* archives that could not be read */
};

static void batch_free(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nreports; i++)
		rm_report_free(&b->reports[i]);
	free(b->reports);
	free(b->report_archive);
	for (i = 0; i < b->nlookups; i++) {
		rm_facts_free(&b->lookups[i].facts);
		free((char *)b->lookups[i].sha);
	}
	free(b->lookups);
	for (i = 0; i < b->narchives; i++)
		rm_archive_free(&b->archives[i]);
	free(b->archives);
	memset(b, 0, sizeof(*b));
}

static int cmp_test(const void *a, const void *b)
{
	const struct rm_report_test *x = a, *y = b;

	/* regressions lead, then the largest change */
	if ((x->kind == RM_REPORT_IMPROVEMENT) != (y->kind == RM_REPORT_IMPROVEMENT))
		return x->kind == RM_REPORT_IMPROVEMENT ? 1 : -1;
	if (x->pct != y->pct)
		return x->pct > y->pct ? -1 : 1;
	return strcmp(x->head->path, y->head->path);
}

static size_t lookup_index(struct batch *b, const struct rm_tree_cfg *t, const char *sha)
{
	size_t i;

	for (i = 0; i < b->nlookups; i++)
		if (b->lookups[i].tree == t && !strcmp(b->lookups[i].sha, sha))
			return i;
	b->lookups = rm_xrealloc(b->lookups, (b->nlookups + 1) * sizeof(*b->lookups));
	memset(&b->lookups[b->nlookups], 0, sizeof(b->lookups[b->nlookups]));
	b->lookups[b->nlookups].tree = t;
	b->lookups[b->nlookups].sha = rm_xstrdup(sha);
	return b->nlookups++;
}

/* Read every archive, compare, pick headlines, fold tests per commit into
 * reports, look the commits up, and build each report. */
static int build_batch(struct env *e, char **paths, size_t npaths, time_t now, int verbose,
		       struct batch *b, struct rm_error *err)
{
	size_t a, g, i, *base_idx = NULL, *head_idx = NULL;
	struct rm_gitweb_opts o;
	const char *env_t = getenv("ROBOTMAIL_TEMPLATES");
	char *tdir = rm_xstrdup(e->cfg.templates ? e->cfg.templates :
				env_t && *env_t ? env_t : RM_TEMPLATEDIR);

	memset(b, 0, sizeof(*b));
	b->archives = rm_xcalloc(npaths + 1, sizeof(*b->archives));
	for (a = 0; a < npaths; a++) {
		struct rm_archive *ar = &b->archives[b->narchives];
		struct rm_error ae;
		size_t first = b->nreports;

		rm_error_clear(&ae);
		if (rm_archive_open(ar, paths[a], &e->rules, NULL, &ae)) {
			fprintf(stderr, "robotmail: error: %s\n", ae.msg);
			b->failed++;
			continue;
		}
		b->narchives++;
		if (verbose)
			print_warnings(ar);
		for (g = 0; g < ar->ngroups; g++) {
			struct rm_comparison cmp;
			struct rm_report_test t;
			const struct rm_group *grp = &ar->groups[g];
			const char *branch = rm_job_field(&grp->members[1]->job, "branch");
			struct rm_report *r = NULL;

			if (rm_compare(&e->rules, grp->members[0], grp->members[1], &cmp, err))
				goto fail;
			if (!rm_report_pick(&e->rules, grp->members[0], grp->members[1], &cmp, &t)) {
				if (verbose)
					fprintf(stderr, "robotmail: '%s': nothing to report\n",
						grp->members[1]->path);
				continue;
			}
			/* the same test on other trees' heads, against the same base */
			if (grp->nothers) {
				t.also = rm_xcalloc(grp->nothers, sizeof(*t.also));
				t.also_cmp = rm_xcalloc(grp->nothers, sizeof(*t.also_cmp));
				for (i = 0; i < grp->nothers; i++) {
					const char *ob = rm_job_field(&grp->others[i]->job, "branch");

					if (ob && branch && !strcmp(ob, branch))
						continue; /* the same tree: not another tree's head */
					if (rm_compare(&e->rules, grp->members[0], grp->others[i],
						       &t.also_cmp[t.nalso], err)) {
						rm_report_test_free(&t);
						goto fail;
					}
					t.also[t.nalso++] = grp->others[i];
				}
			}
			/* one report per tested commit (and branch) of an archive */
			for (i = first; i < b->nreports; i++) {
				const struct rm_report_test *t0 = &b->reports[i].tests[0];
				const char *b0 = rm_job_field(&t0->head->job, "branch");

				if (!strcmp(t0->head->commit, t.head->commit) &&
				    !strcmp(t0->base->commit, t.base->commit) &&
				    !strcmp(b0 ? b0 : "", branch ? branch : ""))
					r = &b->reports[i];
			}
			if (!r) {
				b->reports = rm_xrealloc(b->reports, (b->nreports + 1) * sizeof(*b->reports));
				b->report_archive = rm_xrealloc(b->report_archive,
								(b->nreports + 1) * sizeof(size_t));
				r = &b->reports[b->nreports];
				memset(r, 0, sizeof(*r));
				b->report_archive[b->nreports] = b->narchives - 1;
				b->nreports++;
			}
			r->tests = rm_xrealloc(r->tests, (r->ntests + 1) * sizeof(*r->tests));
			r->tests[r->ntests++] = t;
		}
	}
	/* headline test first; look the commits up, all at once */
	base_idx = rm_xcalloc(b->nreports + 1, sizeof(size_t));
	head_idx = rm_xcalloc(b->nreports + 1, sizeof(size_t));
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		const struct rm_tree_cfg *t;

		rm_sort(r->tests, r->ntests, sizeof(*r->tests), cmp_test);
		t = rm_config_tree_for_branch(&e->cfg, rm_job_field(&r->tests[0].head->job, "branch"));
		base_idx[i] = lookup_index(b, t, r->tests[0].base->commit);
		head_idx[i] = lookup_index(b, t, r->tests[0].head->commit);
	}
	rm_gitweb_opts_from_config(&o, &e->cfg);
	if (b->nlookups && rm_gitweb_lookup(b->lookups, b->nlookups, &o, e->ob ? &e->cache : NULL, err))
		goto fail;
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		const struct rm_gitweb_req *bl = &b->lookups[base_idx[i]];
		const struct rm_gitweb_req *hl = &b->lookups[head_idx[i]];

		r->base_facts = bl->status == RM_GITWEB_FOUND ? &bl->facts : NULL;
		r->head_facts = hl->status == RM_GITWEB_FOUND ? &hl->facts : NULL;
		if (verbose && hl->status == RM_GITWEB_FAILED)
			fprintf(stderr, "robotmail: commit %s: %s\n", hl->sha, hl->error);
		if (rm_report_build(r, &e->cfg, tdir, now, err))
			goto fail;
	}
	free(base_idx);
	free(head_idx);
	free(tdir);
	return 0;
fail:
	free(base_idx);
	free(head_idx);
	free(tdir);
	return -1;
}

/* The message of one report, in wire form (CRLF). */
static int report_message(const struct env *e, const struct rm_report *r, const char *to_override,
			  struct rm_recipients *rc, char **msg, size_t *len, struct rm_error *err)
{
	struct rm_message_in in;
	const struct rm_tree_cfg *t = rm_config_tree_for_branch(
		&e->cfg, rm_job_field(&r->tests[0].head->job, "branch"));

	rm_recipients_build(rc, &e->cfg, t, r->head_facts, to_override);
	memset(&in, 0, sizeof(in));
	in.from_name = e->cfg.robot_name;
	in.from_addr = e->cfg.robot_address;
	in.to = rc->to;
	in.nto = rc->nto;
	in.cc = rc->cc;
	in.ncc = rc->ncc;
	in.subject = r->subject;
	in.message_id = r->message_id;
	in.date = r->date_sent;
	in.zone_seconds = rm_zone_seconds(e->cfg.timezone);
	in.report_key = r->report_key;
	in.body = r->body;
	return rm_message_build(&in, msg, len, err);
}

static void print_envelope(FILE *f, const struct env *e, const struct rm_recipients *rc)
{
	size_t i;

	fprintf(f, "MAIL FROM:<%s>\n", e->cfg.robot_address);
	for (i = 0; i < rc->nto; i++)
		fprintf(f, "RCPT TO:<%s>\n", rc->to[i].addr);
	for (i = 0; i < rc->ncc; i++)
		fprintf(f, "RCPT TO:<%s>\n", rc->cc[i].addr);
}

int rm_cmd_dry_run(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "now", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *outdir = NULL, *to = NULL;
	time_t now = time(NULL);
	int c, verbose = 0, rc = 0;
	struct env e;
	struct batch b;
	size_t i;

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
		case 'N': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (*end || v < 0)
				return rm_error_set(err, RM_ERR_USAGE, "--now: expected seconds since the epoch, not '%s'", optarg), 2;
			now = (time_t)v;
			break;
		}
		case 't':
			to = optarg;
			if (!rm_address_valid(to))
				return rm_error_set(err, RM_ERR_USAGE, "--to: '%s' is not an address", to), 2;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			rm_usage(0);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "--dry-run: unknown option or missing value: '%s'",
					    argv[optind - 1]), 2;
		}
	}
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "--dry-run: expected one or more ARCHIVEs"), 2;
	/* the cache is read, never written: open the state database read-only */
	if (env_open(&e, config, NULL, NULL, true, false, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	if (rm_outbox_open(&e.ob, e.cfg.state_db, RM_OUTBOX_READONLY, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	if (e.ob) {
		e.cctx.ob = e.ob;
		e.cctx.miss_ttl = e.cfg.miss_ttl;
		e.cache.ctx = &e.cctx;
		e.cache.get = cache_get;
		e.cache.put = NULL;
	}
	if (build_batch(&e, argv + optind, (size_t)(argc - optind), now, verbose, &b, err)) {
		batch_free(&b);
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	for (i = 0; i < b.nreports; i++) {
		struct rm_report *r = &b.reports[i];
		struct rm_recipients rcp;
		struct rm_error me;
		char *msg = NULL;
		size_t len = 0;

		r->date_sent = now;
		rm_error_clear(&me);
		if (r->hold_reason) {
			printf("# robotmail dry-run: report %zu of %zu from %s: HELD: %s\n", i + 1,
			       b.nreports, b.archives[b.report_archive[i]].source, r->hold_reason);
			continue;
		}
		if (report_message(&e, r, to, &rcp, &msg, &len, &me)) {
			fprintf(stderr, "robotmail: error: report %s: %s\n", r->message_id, me.msg);
			rm_recipients_free(&rcp);
			rc = 1;
			continue;
		}
		len = rm_crlf_to_lf(msg, len);
		if (outdir) {
			char *name = rm_xmalloc(strlen(r->message_id) + 5);
			char *path;
			FILE *f;

			sprintf(name, "%s.eml", r->message_id);
			path = rm_path_join(outdir, name);
			f = fopen(path, "w");
			if (!f || fwrite(msg, 1, len, f) != len || fclose(f)) {
				fprintf(stderr, "robotmail: error: cannot write '%s'\n", path);
				rc = 1;
			} else if (verbose) {
				fprintf(stderr, "robotmail: wrote %s\n", path);
			}
			free(path);
			free(name);
		} else {
			printf("# robotmail dry-run: report %zu of %zu from %s\n", i + 1, b.nreports,
			       b.archives[b.report_archive[i]].source);
			print_envelope(stdout, &e, &rcp);
			printf("DATA\n");
			fwrite(msg, 1, len, stdout);
			printf(".\n");
		}
		for (size_t k = 0; verbose && k < rcp.ndropped; k++)
			fprintf(stderr, "robotmail: recipient left out: %s\n", rcp.dropped[k]);
		rm_recipients_free(&rcp);
		free(msg);
	}
	if (!b.nreports && verbose)
		fprintf(stderr, "robotmail: nothing to report\n");
	if (b.failed)
		rc = 1;
	batch_free(&b);
	env_close(&e);
	return rc;
}
