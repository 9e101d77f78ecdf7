/* cli.c - see cli.h. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <strings.h>
#include <sys/file.h>
#include <dirent.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive.h"
#include "config.h"
#include "deliver.h"
#include "fileutil.h"
#include "gitweb.h"
#include "message.h"
#include "recipients.h"
#include "report.h"
#include "rules.h"
#include "schedule.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "table.h"
#include "template.h"

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
	      "       robotmail store [-c CONFIG] check | migrate --to postgresql://... [--from FILE]\n"
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
	struct rm_store *ob;
	struct rm_commit_cache cache;
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

static void env_close(struct env *e)
{
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

		if (rm_archive_open_pair(&a, argv[optind], argv[optind + 1], &e.rules, &opts, err)) {
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
	struct rm_patch_mail *patches; /* per report, when it replies to a patch */
	int failed;                    /* archives that could not be read */
};

static void batch_free(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nreports; i++) {
		rm_report_free(&b->reports[i]);
		if (b->patches)
			rm_patch_mail_free(&b->patches[i]);
	}
	free(b->patches);
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
			for (i = first; i < b->nreports; i++)
				if (rm_report_same_report(&b->reports[i].tests[0], &t))
					r = &b->reports[i];
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
	/* a lookup that failed for now defers its reports: say why, once */
	for (i = 0; i < b->nlookups; i++)
		if (b->lookups[i].status == RM_GITWEB_FAILED)
			fprintf(stderr, "robotmail: commit %s: %s\n", b->lookups[i].sha,
				b->lookups[i].error);
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		const struct rm_gitweb_req *bl = &b->lookups[base_idx[i]];
		const struct rm_gitweb_req *hl = &b->lookups[head_idx[i]];

		r->base_facts = bl->status == RM_GITWEB_FOUND ? &bl->facts : NULL;
		r->head_facts = hl->status == RM_GITWEB_FOUND ? &hl->facts : NULL;
		r->base_unknown = bl->status == RM_GITWEB_UNKNOWN;
		r->head_unknown = hl->status == RM_GITWEB_UNKNOWN;
		if (!b->patches)
			b->patches = rm_xcalloc(b->nreports + 1, sizeof(*b->patches));
		if (e->cfg.patch_mail_base && hl->tree && hl->tree->patches && r->head_facts &&
		    r->head_facts->patch_msgid) {
			/* the patch's own mail: its [PATCH] subject and its To/Cc */
			struct rm_error pe;
			int got = rm_patch_mail_lookup(&b->patches[i], e->cfg.patch_mail_base,
						       r->head_facts->patch_msgid, &o, &pe);

			if (got == 1)
				r->patch = &b->patches[i];
			else if (verbose)
				fprintf(stderr, "robotmail: patch mail <%s>: %s\n", r->head_facts->patch_msgid,
					got ? pe.msg : "not in the archive");
		}
		if (rm_report_build(r, &e->cfg, tdir, now, err))
			goto fail;
		if (e->ob && !r->hold_reason) {
			/* a follow-up on a finding already reported replies to it */
			char *fid, *fsubj, *frefs;
			int found = rm_store_thread_first(e->ob, r->thread_key, &fid, &fsubj, &frefs, err);

			if (found < 0)
				goto fail;
			if (found && strcmp(fid, r->message_id))
				rm_report_follow_up(r, fid, fsubj, frefs);
			free(fid);
			free(fsubj);
			free(frefs);
		}
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

	struct rm_recipients_in ri = { &e->cfg, t, r->head_facts,
				       rm_job_field(&r->tests[0].head->job, "testcase"), r->patch,
				       to_override };

	if (rm_recipients_build(rc, &ri, err))
		return -1;
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
	in.charset = e->cfg.charset;
	in.latin1_floor = r->kind != RM_REPORT_FUNCTIONAL; /* perf reports, as LKP's */
	in.body = r->body;
	in.in_reply_to = r->in_reply_to;
	{
		char **refs = NULL;
		size_t nrefs = 0;
		const char *p = r->refs_header ? r->refs : NULL;
		int built;

		while (p && *p) {
			size_t l = strcspn(p, "\n");

			if (l) {
				refs = rm_xrealloc(refs, (nrefs + 1) * sizeof(char *));
				refs[nrefs++] = rm_xstrndup(p, l);
			}
			p += l + (p[l] ? 1 : 0);
		}
		in.references = (const char *const *)refs;
		in.nreferences = nrefs;
		built = rm_message_build(&in, msg, len, err);
		while (nrefs)
			free(refs[--nrefs]);
		free(refs);
		return built;
	}
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

/* Archives held in memory at once: `run` and `--dry-run` read, report and
 * hand on (queue or print) their archives this many at a time, so their
 * memory does not grow with the number of archives. */
#define RUN_CHUNK 64
#define RUN_SHARED_CHUNK 8

/* One chunk of a dry run (at most RUN_CHUNK archives): every report of
 * paths[0..npaths) as it would be sent, on stdout (or as DIR/<msgid>.eml
 * with an outdir).  *nth numbers the reports across chunks.  Returns a mask:
 * 1 when an archive or a report failed (said on stderr), 2 when a report is
 * held (`run` would defer it); or -1 with *err set (configuration, template
 * or commit-lookup trouble).  Borrows everything. */
static int dry_run_chunk(struct env *e, char **paths, size_t npaths, const char *outdir,
			 const char *to, time_t now, int verbose, size_t *nth, struct rm_error *err)
{
	struct batch bb, *b = &bb;
	int rc = 0;
	size_t i;

	if (build_batch(e, paths, npaths, now, verbose, b, err)) {
		batch_free(b);
		return -1;
	}
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		struct rm_recipients rcp;
		struct rm_error me;
		char *msg = NULL;
		size_t len = 0, no = ++*nth;

		r->date_sent = now;
		rm_error_clear(&me);
		if (r->bad_reason) {
			printf("# robotmail dry-run: report %zu from %s: REFUSED: %s\n", no,
			       b->archives[b->report_archive[i]].source, r->bad_reason);
			fprintf(stderr, "robotmail: error: '%s': %s\n",
				b->archives[b->report_archive[i]].source, r->bad_reason);
			rc |= 1;
			continue;
		}
		if (r->hold_reason) {
			printf("# robotmail dry-run: report %zu from %s: HELD: %s\n", no,
			       b->archives[b->report_archive[i]].source, r->hold_reason);
			rc |= 2;
			continue;
		}
		if (report_message(e, r, to, &rcp, &msg, &len, &me)) {
			fprintf(stderr, "robotmail: error: report %s: %s\n", r->message_id, me.msg);
			rm_recipients_free(&rcp);
			rc |= 1;
			continue;
		}
		len = rm_crlf_to_lf(msg, len);
		if (outdir) {
			char *name = rm_xmalloc(strlen(r->message_id) + 5);
			char *path;

			sprintf(name, "%s.eml", r->message_id);
			path = rm_path_join(outdir, name);
			if (rm_write_file(path, msg, len)) {
				fprintf(stderr, "robotmail: error: cannot write '%s'\n", path);
				rc |= 1;
			} else if (verbose) {
				fprintf(stderr, "robotmail: wrote %s\n", path);
			}
			free(path);
			free(name);
		} else {
			printf("# robotmail dry-run: report %zu from %s\n", no,
			       b->archives[b->report_archive[i]].source);
			print_envelope(stdout, e, &rcp);
			printf("DATA\n");
			fwrite(msg, 1, len, stdout);
			printf(".\n");
		}
		for (size_t k = 0; verbose && k < rcp.ndropped; k++)
			fprintf(stderr, "robotmail: recipient left out: %s\n", rcp.dropped[k]);
		rm_recipients_free(&rcp);
		free(msg);
	}
	if (b->failed)
		rc |= 1;
	batch_free(b);
	return rc;
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
	size_t i, nth = 0;

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
	if (rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READONLY, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	if (e.ob)
		env_wire_cache(&e);
	for (i = 0; i < (size_t)(argc - optind); i += RUN_CHUNK) {
		size_t n = (size_t)(argc - optind) - i;
		int got = dry_run_chunk(&e, argv + optind + i, n < RUN_CHUNK ? n : RUN_CHUNK, outdir, to,
					now, verbose, &nth, err);

		if (got < 0) {
			env_close(&e);
			return rm_error_exit_code(err->kind);
		}
		rc |= got;
	}
	if (!nth && verbose)
		fprintf(stderr, "robotmail: nothing to report\n");
	env_close(&e);
	/* as `run` would exit: 1 for bad input, else 75 for a deferral */
	return rc & 1 ? 1 : rc & 2 ? 75 : 0;
}

/* ================================================================ run */

struct run_stats {
	int archives, reports, queued, duplicates, held, sent, retried, failed_msgs;
	int bad_archives, deferred;
};

static int move_into(const char *path, const char *dir, struct rm_error *err)
{
	const char *base = strrchr(path, '/');
	char *dst;
	int rc = 0;

	base = base ? base + 1 : path;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return rm_error_set(err, RM_ERR_TEMP, "cannot create '%s': %s", dir, strerror(errno));
	dst = rm_path_join(dir, base);
	if (rename(path, dst)) {
		rc = rm_error_set(err, RM_ERR_TEMP, "cannot move '%s' to '%s': %s", path, dst,
				  strerror(errno));
	} else {
		/* its "finished" marker has done its job */
		char *marker = rm_xmalloc(strlen(path) + 6);

		sprintf(marker, "%s.done", path);
		unlink(marker);
		free(marker);
	}
	free(dst);
	return rc;
}

static int cmp_cstr2(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Finished archives in the inbox: a "<name>.done" marker beside it, or not
 * modified for `settle` seconds.  Hidden entries and markers are skipped. */
static char **scan_inbox(const struct rm_config *cfg, time_t now, size_t *n, int verbose)
{
	DIR *d = opendir(cfg->inbox);
	struct dirent *de;
	char **v = NULL;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		struct stat st;
		char *p, *marker;
		size_t l = strlen(de->d_name);
		bool done;

		if (de->d_name[0] == '.' || (l > 5 && !strcmp(de->d_name + l - 5, ".done")))
			continue;
		p = rm_path_join(cfg->inbox, de->d_name);
		marker = rm_xmalloc(strlen(p) + 6);
		sprintf(marker, "%s.done", p);
		done = !access(marker, F_OK);
		free(marker);
		if (lstat(p, &st) || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
			free(p);
			continue;
		}
		if (!done && now - st.st_mtime < cfg->settle) {
			if (verbose)
				fprintf(stderr, "robotmail: '%s' may still be written; later\n", p);
			free(p);
			continue;
		}
		v = rm_xrealloc(v, (*n + 1) * sizeof(char *));
		v[(*n)++] = p;
	}
	closedir(d);
	rm_sort(v, *n, sizeof(char *), cmp_cstr2);
	return v;
}

/* Write the reproduction materials of a report (job.yaml, job-script,
 * reproduce) into <dir>/<YYYYMMDD>/<msgid>/, ready to publish. */
static void write_materials(const char *dir, const struct rm_archive *a, const struct rm_report *r,
			    int verbose)
{
	static const char *const files[][2] = { { "job.yaml", "job.yaml" },
						{ "job.sh", "job-script" },
						{ "reproduce.sh", "reproduce" } };
	const struct rm_result_root *head = r->tests[0].head;
	char day[9], *d1, *d2, run[16];
	size_t i;

	if (!dir)
		return;
	snprintf(day, sizeof(day), "%.8s", r->message_id);
	d1 = rm_path_join(dir, day);
	d2 = rm_path_join(d1, r->message_id);
	mkdir(dir, 0755);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	snprintf(run, sizeof(run), "%d", head->runs[0]);
	for (i = 0; i < 3; i++) {
		char *rd = rm_path_join(head->path, run), *src = rm_path_join(rd, files[i][0]);
		size_t len;
		const char *data = rm_archive_file(a, src, &len);

		if (data) {
			char *dst = rm_path_join(d2, files[i][1]);

			if (rm_write_file(dst, data, len))
				fprintf(stderr, "robotmail: warning: cannot write '%s'\n", dst);
			else if (verbose)
				fprintf(stderr, "robotmail: wrote %s\n", dst);
			free(dst);
		}
		free(rd);
		free(src);
	}
	{
		/* the kernel config, when the run has one: config-<release> */
		char *rd = rm_path_join(head->path, run);
		size_t rl = strlen(rd), k;

		for (k = 0; k < a->nfiles; k++) {
			const char *p = rm_archive_file_path(a, k);
			size_t len;
			const char *data;

			if (strncmp(p, rd, rl) || p[rl] != '/' || strncmp(p + rl + 1, "config-", 7) ||
			    strchr(p + rl + 1, '/'))
				continue;
			data = rm_archive_file(a, p, &len);
			{
				char *dst = rm_path_join(d2, p + rl + 1);

				if (rm_write_file(dst, data, len))
					fprintf(stderr, "robotmail: warning: cannot write '%s'\n", dst);
				free(dst);
			}
		}
		free(rd);
	}
	free(d1);
	free(d2);
}

/* Schedule's log lines on stderr: errors and warnings always, the rest
 * with -v. */
static void schedule_log(void *ctx, enum rm_schedule_level level, const char *text)
{
	const int *verbose = ctx;

	if (level == RM_SCHEDULE_INFO && !*verbose)
		return;
	fprintf(stderr, "robotmail: %s%s\n", level == RM_SCHEDULE_ERROR ? "error: " : "", text);
}

/* One chunk of a run: read and report the archives at paths[0..npaths),
 * queue each report not seen before (with its final bytes), and move each
 * archive whose reports are all queued to done/ (failed/ when a report could
 * not be built); an archive with a deferred report stays in the inbox.  With
 * `once` nothing is moved.  Counts go to *st.  Returns 0, or -1 with *err set
 * when the state database failed (what was queued so far stays queued).
 * Borrows everything; frees what it built. */
static int queue_chunk(struct env *e, char **paths, size_t npaths, bool once, const char *to,
		       const char *materials, time_t now, int verbose, struct run_stats *st,
		       struct rm_error *err)
{
	struct batch bb, *b = &bb;
	int *deferred = NULL, *errors = NULL, rc = -1;
	size_t i;

	if (build_batch(e, paths, npaths, now, verbose, b, err))
		goto out;
	st->archives += (int)b->narchives;
	st->bad_archives += b->failed;
	/* per archive: queue its reports; done when all are queued */
	deferred = rm_xcalloc(b->narchives + 1, sizeof(int));
	errors = rm_xcalloc(b->narchives + 1, sizeof(int));
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		size_t ai = b->report_archive[i];
		struct rm_recipients rcp;
		struct rm_store_msg m;
		struct rm_error me;
		char *bytes = NULL;
		size_t len = 0, k;
		int q;
		bool seen;

		st->reports++;
		r->date_sent = now;
		if (rm_store_report_seen(e->ob, r->dedupe_key ? r->dedupe_key : "", &seen, err))
			goto out;
		if (seen) {
			st->duplicates++;
			if (verbose)
				fprintf(stderr, "robotmail: %s: already reported\n", r->subject);
			continue;
		}
		if (r->bad_reason) {
			fprintf(stderr, "robotmail: error: '%s': %s\n", b->archives[ai].source,
				r->bad_reason);
			errors[ai] = 1;
			continue;
		}
		if (r->hold_reason) {
			st->deferred++;
			deferred[ai] = 1;
			fprintf(stderr, "robotmail: '%s': report deferred: %s\n",
				b->archives[ai].source, r->hold_reason);
			continue;
		}
		rm_error_clear(&me);
		if (report_message(e, r, to, &rcp, &bytes, &len, &me)) {
			fprintf(stderr, "robotmail: error: '%s': %s\n", b->archives[ai].source, me.msg);
			rm_recipients_free(&rcp);
			errors[ai] = 1;
			continue;
		}
		memset(&m, 0, sizeof(m));
		m.message_id = r->message_id;
		m.dedupe_key = r->dedupe_key;
		m.thread_key = r->thread_key;
		m.refs = r->refs;
		m.tree = r->tree_name;
		m.subject = r->subject;
		m.mail_from = e->cfg.robot_address;
		m.rcpts = rm_xcalloc(rcp.nto + rcp.ncc + 1, sizeof(char *));
		for (k = 0; k < rcp.nto; k++)
			m.rcpts[m.nrcpts++] = rcp.to[k].addr;
		for (k = 0; k < rcp.ncc; k++)
			m.rcpts[m.nrcpts++] = rcp.cc[k].addr;
		m.bytes = bytes;
		m.len = len;
		m.state = rm_schedule_held(&e->cfg, r->tree_name, m.rcpts, m.nrcpts) ? RM_STORE_HELD :
										       RM_STORE_QUEUED;
		q = rm_store_enqueue(e->ob, &m, now, err);
		free(m.rcpts);
		free(bytes);
		rm_recipients_free(&rcp);
		if (q < 0)
			goto out;
		if (q == 0) {
			st->duplicates++;
			continue;
		}
		st->queued++;
		if (m.state == RM_STORE_HELD)
			st->held++;
		write_materials(materials, &b->archives[ai], r, verbose);
		if (verbose)
			fprintf(stderr, "robotmail: queued %s%s: %s\n", r->message_id,
				m.state == RM_STORE_HELD ? " (held)" : "", r->subject);
	}
	for (i = 0; i < b->narchives; i++)
		st->bad_archives += errors[i]; /* exit 1: a report could not be made */
	if (!once) {
		for (i = 0; i < b->narchives; i++) {
			struct rm_error me;

			if (deferred[i])
				continue; /* stays in the inbox for the next run */
			if (move_into(b->archives[i].source,
				      errors[i] ? e->cfg.failed_dir : e->cfg.done_dir, &me))
				fprintf(stderr, "robotmail: warning: %s\n", me.msg);
		}
		/* archives that could not be read at all */
		for (i = 0; i < npaths; i++) {
			size_t k;
			bool opened = false;
			struct rm_error me;

			for (k = 0; k < b->narchives; k++)
				opened |= !strcmp(b->archives[k].source, paths[i]);
			if (!opened && !access(paths[i], F_OK) &&
			    move_into(paths[i], e->cfg.failed_dir, &me))
				fprintf(stderr, "robotmail: warning: %s\n", me.msg);
		}
	}

	rc = 0;
out:
	free(deferred);
	free(errors);
	batch_free(b);
	return rc;
}

/* queue_chunk() over the archives of paths[0..npaths) this run claims in
 * the store (all of them with SQLite; with PostgreSQL those no other live run
 * holds and that are still in the inbox), released again afterwards. */
static int claimed_chunk(struct env *e, char **paths, size_t npaths, bool once, const char *to,
			 const char *materials, time_t now, int verbose, struct run_stats *st,
			 struct rm_error *err)
{
	char **mine = rm_xcalloc(npaths + 1, sizeof(char *));
	size_t n = 0, i;
	int rc = 0;

	if (rm_store_renew(e->ob, err)) {
		free(mine);
		return -1;
	}
	for (i = 0; i < npaths && !rc; i++) {
		const char *base = strrchr(paths[i], '/');
		bool got;

		rc = rm_store_claim_archive(e->ob, base ? base + 1 : paths[i], &got, err);
		if (rc || !got)
			continue;
		if (rm_store_location_shared(e->cfg.state_db) && access(paths[i], F_OK)) {
			/* another run finished it meanwhile */
			rc = rm_store_release_archive(e->ob, base ? base + 1 : paths[i], err);
			continue;
		}
		mine[n++] = paths[i];
	}
	if (!rc && n)
		rc = queue_chunk(e, mine, n, once, to, materials, now, verbose, st, err);
	for (i = 0; i < n; i++) {
		const char *base = strrchr(mine[i], '/');
		struct rm_error re;

		if (rm_store_release_archive(e->ob, base ? base + 1 : mine[i], rc ? &re : err) && !rc)
			rc = -1; /* its lease expires by itself */
	}
	free(mine);
	return rc;
}

int rm_cmd_run(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", required_argument, NULL, 'o' },
		{ "now", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 't' },
		{ "materials", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *once = NULL, *to = NULL, *materials = NULL;
	time_t now = time(NULL);
	struct run_stats st;
	struct env e;
	char **paths = NULL, *lockpath;
	size_t npaths = 0, i, chunk;
	int c, verbose = 0, rc = 0, lockfd;

	memset(&st, 0, sizeof(st));
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
		case 'N':
			now = (time_t)strtoll(optarg, NULL, 10);
			break;
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
			return rm_error_set(err, RM_ERR_USAGE, "run: unknown option or missing value: '%s'",
					    argv[optind - 1]), 2;
		}
	}
	if (optind < argc)
		return rm_error_set(err, RM_ERR_USAGE, "run: unexpected argument '%s'", argv[optind]), 2;
	if (env_open(&e, config, NULL, NULL, true, false, err)) {
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	/* one run at a time: the lock beside the state database (SQLite); runs
	 * on a shared PostgreSQL store overlap and claim their work there */
	lockpath = rm_xmalloc(strlen(e.cfg.state_db) + 6);
	sprintf(lockpath, "%s.lock", e.cfg.state_db);
	lockfd = rm_store_location_shared(e.cfg.state_db) ? open("/dev/null", O_RDONLY | O_CLOEXEC) :
		 open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd < 0) {
		rm_error_set(err, RM_ERR_TEMP, "cannot open the lock '%s': %s", lockpath, strerror(errno));
		free(lockpath);
		env_close(&e);
		return 75;
	}
	if (!rm_store_location_shared(e.cfg.state_db) && flock(lockfd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "robotmail: another run is active (lock '%s'); nothing to do\n", lockpath);
		close(lockfd);
		free(lockpath);
		env_close(&e);
		return 0;
	}
	free(lockpath);
	if (rm_store_open(&e.ob, e.cfg.state_db, RM_STORE_READWRITE, err)) {
		close(lockfd);
		env_close(&e);
		return rm_error_exit_code(err->kind);
	}
	env_wire_cache(&e);
	{
		struct rm_schedule_log slog = { schedule_log, &verbose };
		char host[201] = "";

		if (!e.cfg.host_id && gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "unknown");
		rm_store_set_owner(e.ob, e.cfg.host_id ? e.cfg.host_id : host, e.cfg.lease);
		if (rm_schedule_recover(e.ob, &slog, err))
			goto out_err;
	}
	if (once) {
		paths = rm_xcalloc(1, sizeof(char *));
		paths[0] = rm_xstrdup(once);
		npaths = 1;
	} else {
		paths = scan_inbox(&e.cfg, now, &npaths, verbose);
	}
	/* on a shared store, small chunks: the other hosts' runs claim the rest */
	chunk = rm_store_location_shared(e.cfg.state_db) ? RUN_SHARED_CHUNK : RUN_CHUNK;
	for (i = 0; i < npaths; i += chunk)
		if (claimed_chunk(&e, paths + i, npaths - i < chunk ? npaths - i : chunk,
				  once != NULL, to, materials, now, verbose, &st, err))
			goto out_err;
	{
		struct rm_schedule_log slog = { schedule_log, &verbose };
		struct rm_schedule_counts sc;

		memset(&sc, 0, sizeof(sc));
		if (rm_schedule_deliver(e.ob, &e.cfg, now, &slog, &sc, err))
			goto out_err;
		st.sent += sc.sent;
		st.retried += sc.retried;
		st.failed_msgs += sc.failed;
		rc = sc.retried ? 75 : 0;
	}
	if (st.deferred && !rc)
		rc = 75;
	if (st.bad_archives || st.failed_msgs)
		rc = 1; /* a bad archive, or a message no server accepted */
	if (verbose)
		fprintf(stderr,
			"robotmail: %d archive(s), %d report(s): %d queued (%d held), %d already reported,"
			" %d deferred; %d sent, %d to retry, %d failed\n",
			st.archives, st.reports, st.queued, st.held, st.duplicates, st.deferred, st.sent,
			st.retried, st.failed_msgs);
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	env_close(&e);
	close(lockfd);
	return rc;
out_err:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	env_close(&e);
	close(lockfd);
	return rm_error_exit_code(err->kind);
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
	if (i >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "queue: expected list, show ID, retry ID, drop ID, hold ID or release ID"), 2;
	if (rm_schedule_queue_cmd_parse(argv[i], &cmd) ||
	    (rm_schedule_queue_cmd_needs_id(cmd) && i + 1 >= argc))
		return rm_error_set(err, RM_ERR_USAGE, "queue: unknown action '%s'", argv[i]), 2;
	if (rm_schedule_queue_cmd_needs_id(cmd))
		which = argv[i + 1];
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
		else
			return rm_error_set(err, RM_ERR_USAGE, "check-config: unknown argument '%s'", argv[i]), 2;
	}
	rm_error_clear(&ce);
	if (env_open(&e, config, NULL, NULL, true, false, &ce)) {
		check_line(&bad, false, "configuration and rule files", ce.msg);
		env_close(&e);
		return 2;
	}
	check_line(&bad, true, "configuration", e.cfg.file ? e.cfg.file : "(built-in defaults)");
	check_line(&bad, true, "metric rules", e.rules.metrics_file);
	check_line(&bad, true, "program facts", e.rules.programs_file);
	{
		/* every template parses and knows every name it uses */
		static const char *const names[] = { "perf.txt", "functional.txt" };
		const char *env_t = getenv("ROBOTMAIL_TEMPLATES");
		const char *tdir = e.cfg.templates ? e.cfg.templates : env_t && *env_t ? env_t : RM_TEMPLATEDIR;
		struct rm_tdata *d = rm_tdata_new(), *it;
		static const char *const vars[] = {
			"preamble", "pct", "kind", "metric", "is_regression", "commit_sha", "commit_subject",
			"tree_url", "tree_branch", "testcase", "kconfig", "compiler", "machine", "in_addition",
			"reported_by", "closes_url", "archive_url", "failure", "patch_link", "patch_subject",
			"patch_url", "has_brackets", "version", "param_block"
		};

		for (k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
			rm_tdata_set(d, vars[k], "x");
		it = rm_tdata_add(d, "params");
		rm_tdata_set(it, "key", "k");
		rm_tdata_set(it, "value", "v");
		it = rm_tdata_add(d, "brackets");
		rm_tdata_set(it, "line", "[x]");
		it = rm_tdata_add(d, "details");
		rm_tdata_set(it, "table", "t\n");
		rm_tdata_set(it, "additional", "yes");
		rm_tdata_set(it, "tbox_group", "t");
		rm_tdata_set(it, "machine", "m");
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			struct rm_sb out = RM_SB_INIT;
			struct rm_error te;
			char what[64];

			int trc;

			rm_error_clear(&te);
			rm_sb_init(&out);
			snprintf(what, sizeof(what), "template %s", names[k]);
			trc = rm_template_render(tdir, names[k], d, &out, &te);
			check_line(&bad, !trc, what, trc ? te.msg : tdir);
			rm_sb_release(&out);
		}
		rm_tdata_free(d);
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

		snprintf(what, sizeof(what), "tree %s:%s (%s)", t->name, t->branch, rm_provider_name(t->provider));
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
		struct rm_transport *t;
		struct rm_smtp_cfg sc;
		struct rm_error te;

		memset(&sc, 0, sizeof(sc));
		sc.pi_address = e.cfg.pi_address;
		sc.pi_config = e.cfg.pi_config;
		check_line(&bad, !rm_transport_open(&t, e.cfg.transport, &sc, &te), "transport",
			   e.cfg.transport);
		rm_transport_free(t);
	}
	env_close(&e);
	printf("%s\n", bad ? "check-config: problems found" : "check-config: all good");
	return bad ? 2 : 0;
}
