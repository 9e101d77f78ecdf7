/* pipeline.c - see pipeline.h. */
#include "pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "inbox.h"
#include "notice.h"
#include "listen.h"
#include "status.h"
#include "strbuf.h"
#include "table.h"

static void print_warnings(const struct rm_archive *a)
{
	size_t i;

	for (i = 0; i < a->nwarnings; i++)
		fprintf(stderr, "robotmail: warning: %s\n", a->warnings[i]);
}

/* Everything one invocation turns into reports.  Reports borrow from the
 * archives (result roots) and from the lookups (commit facts), so all three
 * are freed together. */
struct batch {
	struct rm_archive *archives;
	size_t narchives;
	struct rm_report *reports;
	size_t nreports;
	size_t *report_archive;        /* which archive each report came from */
	struct rm_lookup_req *lookups; /* unique (tree, sha) */
	size_t nlookups;
	struct rm_patch_mail *patches; /* per report, when it replies to a patch */
	int failed;                    /* archives that could not be read */
	const char **stalled;          /* unreadable, maybe a stalled writer's: wait (borrowed) */
	size_t nstalled;
};

static void batch_free(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nreports; i++) {
		rm_report_free(&b->reports[i]);
		if (b->patches)
			rm_patchmail_free(&b->patches[i]);
	}
	free(b->patches);
	free(b->reports);
	free(b->report_archive);
	free(b->stalled);
	for (i = 0; i < b->nlookups; i++) {
		rm_commit_free(&b->lookups[i].facts);
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
/* A commit its tree does not know may only not be fetched yet (a mirror
 * behind): until the archive is gitweb.lookup_horizon old its report waits
 * (held: the archive stays in the inbox, exit 75; the commit is asked again
 * after a growing wait, lookup.c), then the archive fails naming the commit
 * and the asks (the last one made after the horizon: see fresh_after). */
static time_t horizon_end(const struct rm_pipeline *e, const struct batch *b, size_t i)
{
	struct stat st;

	if (stat(b->archives[b->report_archive[i]].source, &st))
		return 0;
	return st.st_mtime + (time_t)e->cfg->lookup_horizon;
}

static void stamp(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void unknown_within_horizon(const struct rm_pipeline *e, const struct batch *b, size_t i,
				   struct rm_report *r, const struct rm_lookup_req *l)
{
	const struct rm_archive *ar = &b->archives[b->report_archive[i]];
	time_t until = horizon_end(e, b, i);
	char wait[32], first[32], next[32];
	const char *sha = r->head_unknown ? r->tests[0].head->commit : r->tests[0].base->commit;

	stamp(l->miss.first_at, first, sizeof(first));
	if (!until || e->now >= until) {
		/* past the horizon: the archive fails, saying how long it waited */
		if (l->miss.attempts)
			r->bad_reason = rm_xstrfmt("%s %s is unknown to the git web API of tree '%s' "
						   "after %u ask%s since %s (gitweb.lookup_horizon %lds)",
						   r->head_unknown ? "commit" : "base commit", sha,
						   l->tree->name, l->miss.attempts,
						   l->miss.attempts == 1 ? "" : "s", first,
						   e->cfg->lookup_horizon);
		return;
	}
	stamp(until, wait, sizeof(wait));
	stamp(l->miss.next_at, next, sizeof(next));
	if (l->miss.attempts)
		fprintf(stderr, "robotmail: '%s': commit %s is not known to the git web API yet; "
			"the report waits until %s (gitweb.lookup_horizon); %u ask%s since %s, "
			"the next after %s\n", ar->source, sha, wait, l->miss.attempts,
			l->miss.attempts == 1 ? "" : "s", first, next);
	else /* a miss from a store without its count */
		fprintf(stderr, "robotmail: '%s': commit %s is not known to the git web API yet; "
			"the report waits until %s (gitweb.lookup_horizon)\n", ar->source, sha, wait);
	r->base_unknown = r->head_unknown = false; /* no facts: the report is held */
}

/* ---------------------------------------------------------------- deferrals by cause */

/* One cause of deferral and what it held back (issue 13 item 7: a forge
 * answering 429 made one line per archive and commit; now one per cause). */
struct rm_pipeline_tally {
	int kind;     /* TALLY_LOOKUP, TALLY_REPORT */
	char *cause;  /* the error, the commit itself replaced by <commit> */
	char *first;  /* the first one's whole line (said alone when it stays one) */
	struct rm_sb names; /* the first few commits or archives */
	int count;
};

enum { TALLY_LOOKUP, TALLY_REPORT, TALLY_NAMES = 5 };

/* Note a deferral of `name` (a commit, an archive) for `cause`; with -v
 * (or for a dry run's print sink) say it at once, as before. */
static void tally_add(struct rm_pipeline *p, int kind, const char *name, const char *cause)
{
	struct rm_sb line = RM_SB_INIT, norm = RM_SB_INIT;
	struct rm_pipeline_tally *t = NULL;
	const char *c = cause, *hit;
	size_t i;

	rm_sb_init(&line);
	if (kind == TALLY_LOOKUP)
		rm_sb_addf(&line, "robotmail: commit %s: %s", name, cause);
	else
		rm_sb_addf(&line, "robotmail: '%s': report deferred: %s", name, cause);
	if (p->verbose) {
		fprintf(stderr, "%s\n", line.buf);
		rm_sb_release(&line);
		return;
	}
	rm_sb_init(&norm);
	while (kind == TALLY_LOOKUP && *name && (hit = strstr(c, name))) {
		rm_sb_add(&norm, c, (size_t)(hit - c));
		rm_sb_adds(&norm, "<commit>");
		c = hit + strlen(name);
	}
	rm_sb_adds(&norm, c);
	for (i = 0; i < p->ntally; i++)
		if (p->tally[i].kind == kind && !strcmp(p->tally[i].cause, norm.buf))
			t = &p->tally[i];
	if (!t) {
		p->tally = rm_xrealloc(p->tally, (p->ntally + 1) * sizeof(*p->tally));
		t = &p->tally[p->ntally++];
		memset(t, 0, sizeof(*t));
		t->kind = kind;
		t->cause = rm_sb_detach(&norm, NULL);
		t->first = rm_sb_detach(&line, NULL);
		rm_sb_init(&t->names);
	}
	if (t->count < TALLY_NAMES)
		rm_sb_addf(&t->names, "%s%s%s%s", t->count ? ", " : "",
			   kind == TALLY_REPORT ? "'" : "", name, kind == TALLY_REPORT ? "'" : "");
	t->count++;
	rm_sb_release(&norm);
	rm_sb_release(&line);
}

/* Say each cause once: alone as before, or with its count and the first
 * few names; then forget them. */
static void tally_flush(struct rm_pipeline *p)
{
	size_t i;

	for (i = 0; i < p->ntally; i++) {
		struct rm_pipeline_tally *t = &p->tally[i];
		char more[48] = "";

		if (t->count > TALLY_NAMES)
			snprintf(more, sizeof(more), " and %d more", t->count - TALLY_NAMES);
		if (t->count == 1)
			fprintf(stderr, "%s\n", t->first);
		else if (t->kind == TALLY_LOOKUP)
			fprintf(stderr, "robotmail: %d commit lookups failed (%s%s): %s\n", t->count,
				t->names.buf, more, t->cause);
		else
			fprintf(stderr, "robotmail: %d reports deferred (%s%s): %s\n", t->count,
				t->names.buf, more, t->cause);
		free(t->cause);
		free(t->first);
		rm_sb_release(&t->names);
	}
	free(p->tally);
	p->tally = NULL;
	p->ntally = 0;
}

/* ---------------------------------------------------------------- the batch */

/* The note of an archive: `<archive>.note.txt` beside it, else the one of
 * --note, else none.  The caller frees it. */
static char *archive_note(const struct rm_pipeline *e, const char *path)
{
	struct rm_sb p = RM_SB_INIT;
	struct stat st;
	char *note = NULL;

	rm_sb_init(&p);
	rm_sb_addf(&p, "%s.note.txt", path);
	if (!stat(p.buf, &st) && S_ISREG(st.st_mode)) {
		struct rm_error ne;
		size_t len;

		if (rm_read_file(p.buf, RM_PIPELINE_NOTE_MAX, &note, &len, &ne))
			fprintf(stderr, "robotmail: warning: %s\n", ne.msg);
	}
	rm_sb_release(&p);
	if (!note && e->note)
		note = rm_xstrdup(e->note);
	return note;
}

/* Threads begun earlier in this run (a dry run stores nothing, so these
 * stand in for the store: the preview threads as `run` would). */
struct rm_pipeline_thread {
	char *thread_key;
	struct rm_thread_first first;
	bool begun; /* this run's mail began the thread (no earlier report) */
};

/* Whether two result roots are the same test: the same axes but the commit. */
static bool same_test(const struct rm_result_root *a, const struct rm_result_root *b)
{
	size_t i, na = 0, nb = 0;

	for (i = 0; i < b->job.naxes; i++)
		nb += strcmp(b->job.axes[i].key, "commit") != 0;
	for (i = 0; i < a->job.naxes; i++) {
		const char *k = a->job.axes[i].key, *bv;

		if (!strcmp(k, "commit"))
			continue;
		na++;
		bv = rm_job_axis(&b->job, k);
		if (!bv || strcmp(bv, a->job.axes[i].value))
			return false;
	}
	return na == nb;
}

/* Whether the root's runs show the kernel-log or test id `name`. */
static bool root_shows(const struct rm_result_root *root, const char *name)
{
	const struct rm_series *s = rm_matrix_get(&root->all, name);
	size_t i;

	for (i = 0; s && !s->is_bad && !s->is_string && i < s->n; i++)
		if (s->v[i] > 0)
			return true;
	return false;
}

/* A patch of a series ("[PATCH 3/5] ...") whose mail has no base-commit:
 * line: git format-patch --base writes it into the cover letter when the
 * series has one, so the mail it replies to is read when that is the
 * series' "0/5".  Its base-commit: becomes the patch's.  Best effort: a
 * cover letter that cannot be read leaves the patch as it is (said with
 * -v). */
static void cover_base_commit(const struct rm_pipeline *e, struct rm_patch_mail *p,
			      const struct rm_gitweb_opts *o)
{
	struct rm_patch_mail cover;
	struct rm_error ce;
	unsigned n, total, cn, ctotal;
	int got;

	if (p->base_commit || !p->in_reply_to || !rm_patchmail_series_number(p->subject, &n, &total) ||
	    n == 0)
		return;
	got = rm_patchmail_lookup(&cover, e->cfg->patch_mail_base, p->in_reply_to, o, &ce);
	if (got == 1 && rm_patchmail_series_number(cover.subject, &cn, &ctotal) && cn == 0 &&
	    ctotal == total && cover.base_commit) {
		p->base_commit = cover.base_commit;
		cover.base_commit = NULL;
		if (e->verbose)
			fprintf(stderr, "robotmail: patch mail: base-commit: %s from the cover letter <%s>\n",
				p->base_commit, p->in_reply_to);
	} else if (got != 1 && e->verbose) {
		fprintf(stderr, "robotmail: cover letter <%s>: %s\n", p->in_reply_to,
			got ? ce.msg : "not in the archive");
	}
	if (got == 1)
		rm_patchmail_free(&cover);
}

/* Bracket lines of a functional report (report-format.md section 4 item 4):
 * the other tested heads of known trees (a branch a configured tree names)
 * on which the same test shows the same failure id, besides the heads of
 * its own archive (rm_report_test.also): first the result roots of the
 * batch's other archives that tested a branch head (the root's commit is its
 * job's head_commit), in run order, then the commits of earlier reports on
 * the same finding (the store's threads, newest first; in a dry run also the
 * threads begun by this run).  One line per tree, its newest head: by
 * commit time when both are known (seen_commit_time), else the first found
 * (this run's heads before the store's, the store's latest report first).
 * The tested commit itself is not another
 * head; its own tree's later head is (published reports on linux-next
 * name "[test failed on linux-next/master <its head>]"). */
#define SEEN_STORE_MAX 16

/* The committer time of `commit` on the tree `where` names ("<tree>/<branch>",
 * a configured tree): from this batch's lookups, else from the commit cache
 * (a bracket line asks no forge: a head the cache does not know has no
 * time); 0 when unknown.  Used to keep the newest head per tree: the
 * heads of one tree found in one run (several archives) or in earlier
 * reports are otherwise in no reliable order of age. */
static long long seen_commit_time(const struct rm_pipeline *e, const struct batch *b,
				  const char *where, const char *commit)
{
	const char *slash = strchr(where, '/');
	size_t tl = slash ? (size_t)(slash - where) : strlen(where), i;
	long long t = 0;
	char *tree, *json = NULL;
	bool found = false;

	for (i = 0; i < b->nlookups; i++) {
		const struct rm_lookup_req *l = &b->lookups[i];

		if (l->tree && l->status == RM_LOOKUP_FOUND && !strcmp(l->sha, commit) &&
		    strlen(l->tree->name) == tl && !strncmp(l->tree->name, where, tl))
			return l->facts.commit_time;
	}
	if (!e->cache || !e->cache->get)
		return 0;
	tree = rm_xstrndup(where, tl);
	if (e->cache->get(e->cache->ctx, tree, commit, &json, &found) == 1 && found && json) {
		struct rm_commit_facts f;

		memset(&f, 0, sizeof(f));
		if (!rm_commit_from_cache_json(&f, json))
			t = f.commit_time;
		rm_commit_free(&f);
	}
	free(json);
	free(tree);
	return t;
}

static int add_seen(struct rm_pipeline *e, struct batch *b, size_t i, struct rm_error *err)
{
	struct rm_report *r = &b->reports[i];
	const struct rm_report_test *t0 = &r->tests[0];
	char *suffix, **keys = NULL;
	size_t a, g, m, k, nkeys = 0;

	for (a = 0; a < b->narchives; a++) {
		const struct rm_archive *ar = &b->archives[a];

		if (a == b->report_archive[i])
			continue;
		for (g = 0; g < ar->ngroups; g++) {
			const struct rm_group *grp = &ar->groups[g];

			for (m = 1; m < grp->nmembers + grp->nothers; m++) {
				const struct rm_result_root *h =
					m < grp->nmembers ? grp->members[m] : grp->others[m - grp->nmembers];
				const char *hc = rm_job_field(&h->job, "head_commit");
				bool known;
				char *where = rm_report_where(e->cfg, rm_job_field(&h->job, "branch"), &known);

				if (where && known && (!hc || !strcmp(hc, h->commit)) &&
				    strcmp(h->commit, t0->head->commit) && same_test(t0->head, h) &&
				    root_shows(h, t0->headline->name)) {
					rm_report_add_seen_at(r, where, h->commit,
							      seen_commit_time(e, b, where, h->commit));
					/* every such head's values: keep_points */
					r->seen_roots = rm_xrealloc(r->seen_roots, (r->nseen_roots + 1) *
									   sizeof(*r->seen_roots));
					r->seen_roots[r->nseen_roots++] = h;
				}
				free(where);
			}
		}
	}
	suffix = rm_report_finding_suffix(t0, t0->kind);
	if (rm_store_threads_ending(e->ob, suffix, SEEN_STORE_MAX, &keys, &nkeys, err)) {
		free(suffix);
		return -1;
	}
	for (k = 0; k <= nkeys + e->nthreads; k++) {
		const char *key = k < nkeys ? keys[k] : k - nkeys < e->nthreads ?
			e->threads[e->nthreads - 1 - (k - nkeys)].thread_key : NULL;
		char *branch, *commit, *where;
		bool known;

		if (!key || rm_report_thread_key_split(key, suffix, &branch, &commit))
			continue;
		where = rm_report_where(e->cfg, branch, &known);
		if (known && strcmp(commit, t0->head->commit))
			rm_report_add_seen_at(r, where, commit, seen_commit_time(e, b, where, commit));
		free(where);
		free(branch);
		free(commit);
	}
	rm_store_keys_free(keys, nkeys);
	free(suffix);
	return 0;
}

static int build_batch(struct rm_pipeline *e, char *const *paths, size_t npaths, struct batch *b,
		       struct rm_error *err)
{
	size_t a, g, i, *base_idx = NULL, *head_idx = NULL;
	struct rm_gitweb_opts o;
	int verbose = e->verbose;

	memset(b, 0, sizeof(*b));
	b->archives = rm_xcalloc(npaths + 1, sizeof(*b->archives));
	for (a = 0; a < npaths; a++) {
		struct rm_archive *ar = &b->archives[b->narchives];
		struct rm_error ae;
		size_t first = b->nreports;

		rm_error_clear(&ae);
		if (rm_archive_open(ar, paths[a], e->rules, NULL, &ae)) {
			/* `run`: unreadable, but maybe its writer stalled: it stays
			 * in the inbox until delivery.settle_max (never failed
			 * while it may still be finished) */
			if (e->ob && !e->ob->readonly && rm_inbox_maybe_writing(e->cfg, paths[a], e->now)) {
				struct rm_sb key = RM_SB_INIT;

				/* said once (a warning), then only with -v */
				rm_sb_init(&key);
				rm_sb_addf(&key, "stalled %s", paths[a]);
				if (verbose || rm_notice_due(e->cfg->state_db, key.buf, e->now,
							     e->cfg->settle_max))
					fprintf(stderr,
						"robotmail: warning: '%s' cannot be read yet (%s); left in the inbox: "
						"its writer may have stalled (delivery.settle_max %ld s)\n",
						paths[a], ae.msg, e->cfg->settle_max);
				rm_sb_release(&key);
				b->stalled = rm_xrealloc(b->stalled, (b->nstalled + 1) * sizeof(char *));
				b->stalled[b->nstalled++] = paths[a];
				continue;
			}
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
			size_t nchanged, nfailures;
			const struct rm_group *grp = &ar->groups[g];
			const char *branch = rm_job_field(&grp->members[1]->job, "branch");
			struct rm_report *r = NULL;

			if (rm_stats_compare(e->rules, grp->members[0], grp->members[1], &cmp, err))
				goto fail;
			nchanged = cmp.n - cmp.nfailure;
			nfailures = cmp.nfailure;
			if (!rm_report_pick(e->rules, grp->members[0], grp->members[1], &cmp, &t)) {
				/* say why: how much changed, and what the rules left */
				const char *tc = rm_job_field(&grp->members[1]->job, "testcase");

				if (verbose)
					fprintf(stderr,
						"robotmail: '%s': no report: %zu changed stats, none passes the perf-metric rules for testcase %s; %zu changed failure stats, none new in the head\n",
						grp->members[1]->path, nchanged, tc ? tc : "(none)", nfailures);
				continue;
			}
			/* a failure: its kernel-log (or test-output) excerpt, read
			 * from the archive now */
			if (t.kind == RM_REPORT_FUNCTIONAL) {
				struct rm_evidence_limits lim;
				bool log = !strncmp(t.headline->name, "dmesg.", 6) ||
					   !strncmp(t.headline->name, "kmsg.", 5);

				rm_evidence_limits_default(&lim);
				lim.max_lines = (size_t)e->cfg->evidence_max_lines;
				lim.max_bytes = (size_t)e->cfg->evidence_max_bytes;
				if ((log ? rm_evidence_for_failure : rm_evidence_for_test)(
					    ar, grp->members[1], t.headline->name, &lim, &t.evidence, err)) {
					rm_report_test_free(&t);
					goto fail;
				}
				/* a log cut at its cap (a compression bomb), or unreadable */
				for (i = 0; i < t.evidence.nwarnings; i++)
					fprintf(stderr, "robotmail: warning: '%s': %s\n", ar->source,
						t.evidence.warnings[i]);
			}
			/* the same test on other trees' heads, against the same base */
			if (grp->nothers) {
				t.also = rm_xcalloc(grp->nothers, sizeof(*t.also));
				t.also_cmp = rm_xcalloc(grp->nothers, sizeof(*t.also_cmp));
				for (i = 0; i < grp->nothers; i++) {
					const char *ob = rm_job_field(&grp->others[i]->job, "branch");

					if (ob && branch && !strcmp(ob, branch))
						continue; /* the same tree: not another tree's head */
					if (rm_stats_compare(e->rules, grp->members[0], grp->others[i],
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
				r->preamble = archive_note(e, paths[a]);
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
		t = rm_config_tree_for_branch(e->cfg, rm_job_field(&r->tests[0].head->job, "branch"));
		base_idx[i] = lookup_index(b, t, r->tests[0].base->commit);
		head_idx[i] = lookup_index(b, t, r->tests[0].head->commit);
		if (e->cfg->lookup_horizon > 0) {
			/* about to give up on an unknown commit: on an answer
			 * given after the horizon, not a cached one from before */
			time_t until = horizon_end(e, b, i);

			if (until && e->now >= until) {
				if (b->lookups[base_idx[i]].fresh_after < until)
					b->lookups[base_idx[i]].fresh_after = until;
				if (b->lookups[head_idx[i]].fresh_after < until)
					b->lookups[head_idx[i]].fresh_after = until;
			}
		}
	}
	rm_gitweb_opts_from_config(&o, e->cfg);
	if (b->nlookups && rm_lookup_run(b->lookups, b->nlookups, &o, e->cache, err))
		goto fail;
	/* a lookup the operator must fix (credentials, a clone git refuses)
	 * stops the run (exit 2); one that failed for now defers its reports:
	 * say why, once */
	for (i = 0; i < b->nlookups; i++)
		if (b->lookups[i].status == RM_LOOKUP_FAILED &&
		    b->lookups[i].error_kind == RM_ERR_CONFIG) {
			rm_error_set(err, RM_ERR_CONFIG, "commit %s: %s", b->lookups[i].sha,
				     b->lookups[i].error);
			goto fail;
		}
	for (i = 0; i < b->nlookups; i++)
		if (b->lookups[i].status == RM_LOOKUP_FAILED && b->lookups[i].tree)
			/* (a branch no tree names is the report's own message: unknown_branch) */
			tally_add(e, TALLY_LOOKUP, b->lookups[i].sha, b->lookups[i].error);
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		const struct rm_lookup_req *bl = &b->lookups[base_idx[i]];
		const struct rm_lookup_req *hl = &b->lookups[head_idx[i]];
		const struct rm_lookup_req *bad;

		r->base_facts = bl->status == RM_LOOKUP_FOUND ? &bl->facts : NULL;
		r->head_facts = hl->status == RM_LOOKUP_FOUND ? &hl->facts : NULL;
		r->base_unknown = bl->status == RM_LOOKUP_UNKNOWN;
		r->head_unknown = hl->status == RM_LOOKUP_UNKNOWN;
		if ((r->base_unknown || r->head_unknown) && e->cfg->lookup_horizon > 0)
			unknown_within_horizon(e, b, i, r, r->head_unknown ? hl : bl);
		bad = hl->status == RM_LOOKUP_FAILED && hl->error_kind == RM_ERR_INPUT ? hl :
		      bl->status == RM_LOOKUP_FAILED && bl->error_kind == RM_ERR_INPUT ? bl : NULL;
		if (bad && !r->bad_reason)
			/* an answer that never parses: the archive fails, naming it */
			r->bad_reason = rm_xstrfmt("%s %s: %s", bad == hl ? "commit" : "base commit",
						   bad->sha, bad->error);
		if (!b->patches)
			b->patches = rm_xcalloc(b->nreports + 1, sizeof(*b->patches));
		if (e->cfg->patch_mail_base && hl->tree && hl->tree->patches && r->head_facts &&
		    r->head_facts->patch_msgid) {
			/* the patch's own mail: its [PATCH] subject and its To/Cc */
			struct rm_error pe;
			int got = rm_patchmail_lookup(&b->patches[i], e->cfg->patch_mail_base,
						       r->head_facts->patch_msgid, &o, &pe);

			if (got == 1) {
				cover_base_commit(e, &b->patches[i], &o);
				r->patch = &b->patches[i];
			} else if (verbose)
				fprintf(stderr, "robotmail: patch mail <%s>: %s\n", r->head_facts->patch_msgid,
					got ? pe.msg : "not in the archive");
		}
		if (r->tests[0].kind == RM_REPORT_FUNCTIONAL && add_seen(e, b, i, err))
			goto fail;
		if (rm_report_build(r, e->cfg, e->templates_dir, e->now, err))
			goto fail;
	}
	free(base_idx);
	free(head_idx);
	return 0;
fail:
	free(base_idx);
	free(head_idx);
	return -1;
}

/* ---------------------------------------------------------------- compare */

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
	struct rm_lookup_req reqs[2];
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
	if (rm_lookup_run(reqs, 2, &o, cache, &e))
		return;
	for (i = 0; i < 2; i++) {
		if (reqs[i].status == RM_LOOKUP_FOUND)
			subjects[i] = rm_xstrdup(reqs[i].facts.subject);
		else if (verbose)
			fprintf(stderr, "robotmail: commit %s: %s\n", reqs[i].sha,
				reqs[i].status == RM_LOOKUP_UNKNOWN ? "unknown upstream" :
								      reqs[i].error);
		rm_commit_free(&reqs[i].facts);
	}
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

		if (rm_stats_compare(rules, grp->members[0], grp->members[1], &cmp, err))
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
		rm_stats_comparison_free(&cmp);
		free(subjects[0]);
		free(subjects[1]);
	}
	return 0;
}

int rm_pipeline_compare(const struct rm_rules *rules, const struct rm_config *cfg,
			const struct rm_commit_cache *cache, const struct rm_archive_opts *opts,
			char *const *paths, size_t npaths, int verbose, struct rm_error *err)
{
	enum rm_error_kind worst = RM_OK;
	size_t i;

	if (npaths == 2 && is_commit_dir(paths[0]) && is_commit_dir(paths[1])) {
		struct rm_archive a;
		int rc;

		if (rm_archive_open_pair(&a, paths[0], paths[1], rules, opts, err))
			return -1;
		rc = compare_archive(&a, rules, cfg, cache, verbose, err);
		rm_archive_free(&a);
		return rc;
	}
	for (i = 0; i < npaths; i++) {
		struct rm_archive a;
		struct rm_error ae;
		int bad;

		rm_error_clear(&ae);
		if (rm_archive_open(&a, paths[i], rules, opts, &ae)) {
			bad = 1;
		} else {
			bad = compare_archive(&a, rules, cfg, cache, verbose, &ae) != 0;
			rm_archive_free(&a);
		}
		if (bad) {
			/* each bad archive once, and go on with the others */
			fprintf(stderr, "robotmail: error: %s\n", ae.msg);
			if (rm_error_exit_code(ae.kind) > rm_error_exit_code(worst))
				worst = ae.kind;
		}
	}
	return worst == RM_OK ? 0 : rm_error_logged(err, worst);
}

/* ---------------------------------------------------------------- mails */

static void mail_free(struct rm_mail *m)
{
	size_t i;

	for (i = 0; i < m->nmentions; i++) {
		free(m->mention_keys[i]);
		free(m->mention_ids[i]);
	}
	free(m->mention_keys);
	free(m->mention_ids);
	free(m->bytes);
	free(m->rcpts);
	rm_recipients_free(&m->rcp);
	rm_message_thread_free(&m->thread);
	free(m->message_id);
	memset(m, 0, sizeof(*m));
}

/* A --to copy's own Message-ID: the report's with "-reflect-<now>" before
 * the '@', so the real report keeps its Message-ID for the real mail. */
static char *reflect_id(const char *id, time_t now)
{
	const char *at = strrchr(id, '@');
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	if (at)
		rm_sb_addf(&sb, "%.*s-reflect-%lld%s", (int)(at - id), id, (long long)now, at);
	else
		rm_sb_addf(&sb, "%s-reflect-%lld", id, (long long)now);
	return rm_sb_detach(&sb, NULL);
}

static const struct rm_thread_first *run_thread_find(const struct rm_pipeline *p, const char *key)
{
	size_t i;

	for (i = 0; key && i < p->nthreads; i++)
		if (!strcmp(p->threads[i].thread_key, key))
			return &p->threads[i].first;
	return NULL;
}

static void run_thread_add(struct rm_pipeline *p, const char *key, const struct rm_mail *m)
{
	struct rm_pipeline_thread *t;

	if (!key || run_thread_find(p, key))
		return;
	p->threads = rm_xrealloc(p->threads, (p->nthreads + 1) * sizeof(*p->threads));
	t = &p->threads[p->nthreads++];
	t->begun = !m->thread.first_id;
	t->thread_key = rm_xstrdup(key);
	t->first.message_id = rm_xstrdup(m->message_id);
	t->first.subject = rm_xstrdup(m->thread.subject);
	t->first.refs = rm_message_thread_refs_text(&m->thread);
}

static void run_threads_free(struct rm_pipeline *p)
{
	size_t i;

	for (i = 0; i < p->nthreads; i++) {
		free(p->threads[i].thread_key);
		rm_message_thread_first_free(&p->threads[i].first);
	}
	free(p->threads);
	p->threads = NULL;
	p->nthreads = 0;
}

/* ---------------------------------------------------------------- links back */

/* Did a mail of this run begin the thread of `key`? */
static bool run_thread_begun(const struct rm_pipeline *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		if (!strcmp(p->threads[i].thread_key, key))
			return p->threads[i].begun;
	return false;
}

static void mention_add(struct rm_mail *m, const char *key, const char *id)
{
	size_t i;

	for (i = 0; i < m->nmentions; i++)
		if (!strcmp(m->mention_keys[i], key))
			return;
	m->mention_keys = rm_xrealloc(m->mention_keys, (m->nmentions + 1) * sizeof(char *));
	m->mention_ids = rm_xrealloc(m->mention_ids, (m->nmentions + 1) * sizeof(char *));
	m->mention_keys[m->nmentions] = rm_xstrdup(key);
	m->mention_ids[m->nmentions++] = rm_xstrdup(id);
}

/* The earlier findings report r mentions (store.h: a thread key other than
 * its own that ends in its finding suffix -- the same test, id or metric
 * and direction on another commit or tree), into m: the store's, newest
 * first, at most RM_PIPELINE_MENTIONS, each with its first report's
 * Message-ID.  Only findings reported by earlier runs: a thread begun in
 * this run is left out (the batch's other heads are the bracket lines'; a
 * thread an earlier run began stays, even when this run followed it up),
 * so what a report mentions never depends on the order of the run's
 * archives, and a dry run (which stores nothing) shows what `run` sends.
 * -1 (err set) when the store failed. */
static int find_mentions(struct rm_pipeline *p, const struct rm_report *r, struct rm_mail *m,
			 struct rm_error *err)
{
	char *suffix, **keys = NULL;
	size_t k, nkeys = 0;
	int rc = 0;

	if (!r->thread_key || !r->ntests || !r->tests[0].headline)
		return 0;
	suffix = rm_report_finding_suffix(&r->tests[0], r->kind);
	/* enough for the run's own threads of this finding to be left out */
	if (rm_store_threads_ending(p->ob, suffix, RM_PIPELINE_MENTIONS + 1 + p->nthreads, &keys,
				    &nkeys, err))
		rc = -1;
	for (k = 0; !rc && k < nkeys && m->nmentions < RM_PIPELINE_MENTIONS; k++) {
		struct rm_thread_first first;
		int got;

		if (!strcmp(keys[k], r->thread_key) || run_thread_begun(p, keys[k]))
			continue;
		got = rm_message_thread_first(p->ob, keys[k], &first, err);
		if (got < 0)
			rc = -1;
		else if (got)
			mention_add(m, keys[k], first.message_id);
		if (got > 0)
			rm_message_thread_first_free(&first);
	}
	rm_store_keys_free(keys, nkeys);
	free(suffix);
	return rc;
}

/* The footer lines linking back to the earlier reports m mentions: each
 * one's list archive link (links.lore and its Message-ID), else its
 * finding's page (links.status); nothing when neither is configured. */
static void mention_lines(const struct rm_pipeline *p, const struct rm_mail *m, struct rm_sb *fb)
{
	const char *lore = p->cfg->lore_base && *p->cfg->lore_base ? p->cfg->lore_base : NULL;
	size_t i;

	if (!m->nmentions || (!lore && !p->cfg->status_base))
		return;
	rm_sb_adds(fb, m->nmentions > 1 ?
		   "This finding was reported before on other commits or trees:\n" :
		   "This finding was reported before on another commit or tree:\n");
	for (i = 0; i < m->nmentions; i++) {
		char id[17];

		if (lore) {
			rm_sb_addf(fb, "  %s/%s\n", lore, m->mention_ids[i]);
			continue;
		}
		rm_status_finding_id(m->mention_keys[i], id);
		rm_sb_addf(fb, "  %s/f/%s.html\n", p->cfg->status_base, id);
	}
}

/* The message stage: recipients, the thread (the store's first mail of
 * the finding), headers and bytes.  Returns 0, or -1 with *err set: kind
 * RM_ERR_TEMP or RM_ERR_INTERNAL when the store failed (the run stops),
 * else the report's mail cannot be made (the archive fails). */
static int make_mail(struct rm_pipeline *p, const struct rm_report *r, const char *source,
		     struct rm_mail *m, bool *store_failed, struct rm_error *err)
{
	struct rm_message_in in;
	const struct rm_tree_cfg *t = rm_config_tree_for_branch(
		p->cfg, rm_job_field(&r->tests[0].head->job, "branch"));
	struct rm_recipients_in ri = { p->cfg, t, r->head_facts,
				       rm_job_field(&r->tests[0].head->job, "testcase"), r->patch,
				       p->to, &p->rcx };
	struct rm_thread_first first;
	const struct rm_thread_first *fp = run_thread_find(p, r->thread_key);
	char *footer = NULL;
	size_t k;
	int rc;

	memset(m, 0, sizeof(*m));
	*store_failed = false;
	memset(&first, 0, sizeof(first));
	if (!fp) {
		int got = rm_message_thread_first(p->ob, r->thread_key, &first, err);

		if (got < 0) {
			*store_failed = true;
			return -1;
		}
		fp = got ? &first : NULL;
	}
	m->reflect = p->to != NULL;
	m->message_id = m->reflect ? reflect_id(r->message_id, p->now) : rm_xstrdup(r->message_id);
	rm_message_thread(fp, r->message_id, r->patch_msgid, r->subject, &m->thread);
	rm_message_thread_first_free(&first);
	if (find_mentions(p, r, m, err)) {
		*store_failed = true;
		return -1;
	}
	if (rm_recipients_build(&m->rcp, &ri, err))
		return -1;
	if (!p->to && rm_recipients_drop_optouts(&m->rcp, p->ob, r->tree_name, err)) {
		*store_failed = true;
		return -1;
	}
	/* a hostile fact left out is said even in a quiet run */
	for (k = 0; k < m->rcp.ninvalid; k++)
		fprintf(stderr, "robotmail: warning: '%s': recipient left out: %s\n", source,
			m->rcp.invalid[k]);
	m->mail_from = p->cfg->robot_address;
	m->rcpts = rm_xcalloc(m->rcp.nto + m->rcp.ncc + 1, sizeof(char *));
	for (k = 0; k < m->rcp.nto; k++)
		m->rcpts[m->nrcpts++] = m->rcp.to[k].addr;
	for (k = 0; k < m->rcp.ncc; k++)
		m->rcpts[m->nrcpts++] = m->rcp.cc[k].addr;
	memset(&in, 0, sizeof(in));
	in.from_name = p->cfg->robot_name;
	in.from_addr = p->cfg->robot_address;
	in.to = m->rcp.to;
	in.nto = m->rcp.nto;
	in.cc = m->rcp.cc;
	in.ncc = m->rcp.ncc;
	in.subject = m->thread.subject;
	in.message_id = m->message_id;
	in.date = p->now; /* when it is (or would be) queued */
	in.zone_seconds = rm_report_zone_seconds(p->cfg->timezone);
	in.report_key = r->report_key;
	in.charset = p->cfg->charset;
	in.latin1_floor = r->kind != RM_REPORT_FUNCTIONAL; /* perf reports, as LKP's */
	in.body = r->body;
	if (p->cfg->nlisten) /* someone reads the answers: say how to opt out */
		in.list_unsubscribe = p->cfg->robot_address;
	if ((p->cfg->nlisten && p->cfg->listen_footer) || p->cfg->status_base ||
	    (m->nmentions && p->cfg->lore_base && *p->cfg->lore_base)) {
		struct rm_sb fb = RM_SB_INIT;

		rm_sb_init(&fb);
		rm_sb_adds(&fb, r->body);
		if (*r->body && r->body[strlen(r->body) - 1] != '\n')
			rm_sb_addc(&fb, '\n');
		rm_sb_adds(&fb, "\n-- \n");
		mention_lines(p, m, &fb);
		if (p->cfg->status_base && r->thread_key) {
			char id[17];

			rm_status_finding_id(r->thread_key, id);
			rm_sb_addf(&fb, "This finding: %s/f/%s.html\n", p->cfg->status_base, id);
		}
		if (p->cfg->nlisten && p->cfg->listen_footer)
			rm_sb_adds(&fb, "Reply with '#robotmail invalid', '#robotmail fixed: <commit>'"
					" or '#robotmail unsubscribe' on a line of its own.\n");
		footer = rm_sb_detach(&fb, NULL);
		in.body = footer;
	}
	in.in_reply_to = m->thread.in_reply_to;
	if (m->thread.send_refs) {
		in.references = (const char *const *)m->thread.refs;
		in.nreferences = m->thread.nrefs;
	}
	rc = rm_message_build(&in, &m->bytes, &m->len, err);
	free(footer);
	return rc;
}

/* ---------------------------------------------------------------- the loop */

/* A report skipped by unknown_branch: skip: one warning per reason (it
 * names the branch) per day, on stderr even when quiet: `run` remembers
 * what it said beside its state database (notice.h; on a shared store, and
 * for a dry run, which writes nothing, once per run). */
static void warn_skip(struct rm_pipeline *p, const char *reason)
{
	size_t i;

	for (i = 0; i < p->nskipped; i++)
		if (!strcmp(p->skipped[i], reason))
			return;
	p->skipped = rm_xrealloc(p->skipped, (p->nskipped + 1) * sizeof(char *));
	p->skipped[p->nskipped++] = rm_xstrdup(reason);
	if (p->ob && !p->ob->readonly && !rm_notice_due(p->cfg->state_db, reason, p->now, 86400)) {
		if (p->verbose)
			fprintf(stderr, "robotmail: no report: %s (warned within a day)\n", reason);
		return;
	}
	fprintf(stderr, "robotmail: warning: no report: %s\n", reason);
}

/* Hand an archive's fate to the sink, and count it. */
static void archive_fate(struct rm_pipeline *p, const char *path, enum rm_fate fate)
{
	if (fate == RM_FATE_FAILED)
		p->st.arch_failed++;
	else if (fate == RM_FATE_WAIT)
		p->st.arch_waiting++;
	else
		p->st.arch_done++;
	p->sink->archive(p->sink, path, fate);
}

/* One chunk: read and report paths[0..npaths), hand each report and then
 * each archive to the sink. */
/* ---------------------------------------------------------------- no longer seen */

static double mean_of(const double *v, size_t n)
{
	unsigned char *is_int = rm_xcalloc(n + 1, 1);
	double m = rm_stats_mean(v, is_int, n);

	free(is_int);
	return m;
}

/* The reply for finding `key` no longer seen on `sha`, handed to the sink.
 * Its recipients are the first report's To and Cc (read back from its
 * bytes with listen's parser, the one mail reader). */
static int gone_reply(struct rm_pipeline *p, const char *key, const char *tree,
		      const char *metric, const char *sha, const char *fix, const char *how,
		      double mb, double mh, double mv, size_t nv, struct rm_error *err)
{
	struct rm_thread_first tf;
	struct rm_store_msg first;
	struct rm_inmail im;
	struct rm_error pe;
	struct rm_message_in in;
	struct rm_address *to = NULL;
	struct rm_sb body = RM_SB_INIT, dk = RM_SB_INIT;
	struct rm_gone g;
	char **refs = NULL, *mid = NULL, *subject = NULL, *bytes = NULL;
	const char **rv = NULL;
	size_t nrefs = 0, len = 0, i;
	int got, rc = -1;

	memset(&first, 0, sizeof(first));
	memset(&im, 0, sizeof(im));
	got = rm_message_thread_first(p->ob, key, &tf, err);
	if (got <= 0)
		return got; /* no report to reply to */
	if (rm_store_get(p->ob, tf.message_id, &first, err) < 0)
		goto out;
	if (first.bytes && rm_listen_parse_mail(first.bytes, first.len, &im, &pe))
		memset(&im, 0, sizeof(im));
	rm_sb_init(&dk);
	rm_sb_addf(&dk, "gone:%s", key);
	mid = rm_report_message_id(p->cfg, dk.buf, p->now);
	subject = rm_xstrfmt("Re: %s", tf.subject ? tf.subject : "");
	rm_sb_init(&body);
	rm_sb_addf(&body,
		   "Hello,\n\nthe change of %s reported in this thread is no longer seen since\n"
		   "commit %s, %s:\n\n"
		   "  the reported commit's parent  mean %.6g\n"
		   "  the reported commit           mean %.6g\n"
		   "  %.12s                  mean %.6g (%zu runs)\n\n"
		   "The finding %s marked fixed by %s.  If that is wrong, reply with\n"
		   "'#robotmail undo' on a line of its own.\n",
		   metric, sha, how, mb, mh, sha, mv, nv, fix ? "stays" : "is", fix ? fix : sha);
	rm_store_split_lines(tf.refs ? tf.refs : "", &refs, &nrefs);
	rv = rm_xcalloc(nrefs + 2, sizeof(char *));
	for (i = 0; i < nrefs; i++)
		rv[i] = refs[i];
	rv[nrefs] = tf.message_id;
	to = rm_xcalloc(im.nrcpts + 1, sizeof(*to));
	for (i = 0; i < im.nrcpts; i++)
		to[i].addr = im.rcpts[i];
	memset(&in, 0, sizeof(in));
	in.from_name = p->cfg->robot_name;
	in.from_addr = p->cfg->robot_address;
	in.to = to;
	in.nto = im.nrcpts;
	in.subject = subject;
	in.message_id = mid;
	in.in_reply_to = tf.message_id;
	in.references = rv;
	in.nreferences = nrefs + 1;
	in.date = p->now;
	in.zone_seconds = rm_report_zone_seconds(p->cfg->timezone);
	in.charset = "auto";
	in.body = body.buf;
	if (!im.nrcpts || !p->cfg->robot_address ||
	    rm_message_build(&in, &bytes, &len, &pe)) {
		fprintf(stderr, "robotmail: warning: finding %s no longer seen since %s: no reply: %s\n",
			tf.message_id, sha, im.nrcpts ? pe.msg : "the first report has no recipients");
		rc = 0;
		goto out;
	}
	memset(&g, 0, sizeof(g));
	g.key = key;
	g.tree = tree;
	g.sha = sha;
	g.fix = fix;
	g.message_id = mid;
	g.in_reply_to = tf.message_id;
	g.dedupe_key = dk.buf;
	g.subject = subject;
	g.mail_from = p->cfg->robot_address;
	g.rcpts = im.rcpts;
	g.nrcpts = im.nrcpts;
	g.bytes = bytes;
	g.len = len;
	rc = p->sink->gone ? p->sink->gone(p->sink, &g, err) : 0;
out:
	free(bytes);
	free(to);
	free(rv);
	for (i = 0; i < nrefs; i++)
		free(refs[i]);
	free(refs);
	free(subject);
	free(mid);
	rm_sb_release(&body);
	rm_sb_release(&dk);
	rm_inmail_free(&im);
	rm_store_msg_free(&first);
	rm_message_thread_first_free(&tf);
	return rc;
}

/* Does the tested commit contain `ancestor` (the commit itself, or a
 * descendant per the tree's git history: rm_lookup_is_ancestor)?  1 yes, 0
 * no, -1 when that cannot be known: said (in a dry run always, in `run` once
 * a day per finding and commit) and nothing claimed. */
static int gone_contains(struct rm_pipeline *p, const struct rm_tree_cfg *tree, const char *key,
			 const char *what, const char *ancestor, const char *tested)
{
	struct rm_gitweb_opts o;
	struct rm_error ae;
	char *nk;
	int got;

	if (!strncasecmp(tested, ancestor, strlen(ancestor)))
		return 1; /* the commit itself (a sha or its abbreviation) */
	rm_error_clear(&ae);
	rm_gitweb_opts_from_config(&o, p->cfg);
	got = rm_lookup_is_ancestor(tree, &o, ancestor, tested, &ae);
	if (got >= 0)
		return got;
	nk = rm_xstrfmt("ancestry %s %s %s", key, ancestor, tested);
	if (!(p->ob && !p->ob->readonly) || p->verbose ||
	    rm_notice_due(p->cfg->state_db, nk, p->now, 86400))
		fprintf(stderr,
			"robotmail: finding %s looks back to normal on %s, but whether that commit"
			" contains %s %s cannot be known (%s): no 'no longer seen' reply\n",
			key, tested, what, ancestor, ae.msg);
	free(nk);
	return -1;
}

/* Is the finding `key` (its metric `metric`) no longer seen in the group
 * `grp` of a later archive?  Its tested commit's metric must be back (its
 * mean nearer the report's parent's than the reported commit's), and the
 * commit must carry what the report was about:
 *   - a finding marked fixed by a commit (`#robotmail fixed: <sha>`): the
 *     tested commit contains that fix (is it, or descends from it);
 *   - else: the tested commit's parent in the archive is the reported
 *     commit, or the tested commit descends from the reported commit (git
 *     ancestry), so a bisection's older commits never count.
 * When ancestry cannot be known, that is said and nothing claimed.  Only
 * once (the reply's dedupe key); an invalid or dup finding is left alone. */
static int gone_one(struct rm_pipeline *p, const struct rm_tree_cfg *tree,
		    const struct rm_group *grp, const char *key, const char *metric,
		    struct rm_error *err)
{
	const struct rm_store_point *b = NULL, *h = NULL;
	const struct rm_series *se;
	struct rm_store_point *pt = NULL;
	struct rm_store_finding f;
	const char *tested = grp->members[1]->commit;
	char *dk = NULL, *seen_id = NULL, *fix = NULL, *how = NULL;
	size_t npt = 0, i;
	time_t at;
	double mb, mh, mv;
	int got, rc = -1;

	got = rm_store_finding_get(p->ob, key, &f, err);
	if (got < 0)
		return -1;
	if (got && (f.state == RM_FINDING_INVALID || f.state == RM_FINDING_DUP)) {
		rm_store_finding_free(&f);
		return 0;
	}
	if (got && f.state == RM_FINDING_FIXED && f.arg && rm_commit_valid_sha(f.arg))
		fix = rm_xstrdup(f.arg); /* a fix named by its sha (a subject names no commit) */
	if (got)
		rm_store_finding_free(&f);
	if (rm_store_points(p->ob, key, &pt, &npt, err)) {
		free(fix);
		return -1;
	}
	for (i = 0; i < npt; i++) {
		if (!b && !strcmp(pt[i].role, "base") && pt[i].n)
			b = &pt[i];
		if (!h && !strcmp(pt[i].role, "head") && pt[i].n)
			h = &pt[i];
	}
	rc = 0;
	if (!b || !h || !strcmp(tested, h->commit))
		goto out;
	se = rm_matrix_get(&grp->members[1]->complete, metric);
	if (!se || !se->n || se->is_string || se->is_bad)
		goto out;
	mb = mean_of(b->v, b->n);
	mh = mean_of(h->v, h->n);
	mv = mean_of(se->v, se->n);
	if (!(fabs(mv - mb) < fabs(mv - mh)))
		goto out; /* still nearer the reported commit */
	dk = rm_xstrfmt("gone:%s", key);
	got = rm_store_report_get(p->ob, dk, &seen_id, &at, err);
	if (got < 0) {
		rc = -1;
		goto out;
	}
	if (got)
		goto out; /* told once */
	if (fix) {
		if (gone_contains(p, tree, key, "the fix", fix, tested) == 1)
			how = rm_xstrfmt("which contains the fix %s named in this thread", fix);
	} else if (!strcmp(grp->members[0]->commit, h->commit)) {
		how = rm_xstrdup("tested with the reported commit as its parent");
	} else if (gone_contains(p, tree, key, "the reported commit", h->commit, tested) == 1) {
		how = rm_xstrdup("which contains the reported commit (git ancestry)");
	}
	if (how)
		rc = gone_reply(p, key, tree->name, metric, tested, fix, how, mb, mh, mv, se->n,
				err);
out:
	free(how);
	free(fix);
	free(seen_id);
	free(dk);
	rm_store_points_free(pt, npt);
	return rc;
}

/* A later archive's head `tested` that shows the finding `key` (test key
 * `test`) again without a report of its own (the failure in its base too,
 * the change already there): its values of `metric` kept as "seen" on the
 * finding's plot or table, labelled with its tree/branch (unless the
 * finding has that commit already: the store keeps the first).  Shows: a
 * failure id counted in one of its runs; a metric whose mean is nearer the
 * reported commit's than its parent's (the values kept at report time).  A
 * dry run or a --to reflection keeps nothing. */
static int seen_again(struct rm_pipeline *p, const struct rm_group *grp, const char *key,
		      const char *test, const char *metric, bool failure, struct rm_error *err)
{
	const struct rm_result_root *head = grp->members[1];
	const struct rm_series *se =
		rm_matrix_get(failure ? &head->all : &head->complete, metric);
	struct rm_store_point *pt = NULL;
	const struct rm_store_point *b = NULL, *h = NULL;
	size_t npt = 0, i;
	bool shows = false;
	int rc = 0;

	if (!p->ob || p->ob->readonly || p->to || !se || !se->n || se->is_string || se->is_bad)
		return 0;
	if (rm_store_points(p->ob, key, &pt, &npt, err))
		return -1;
	for (i = 0; i < npt; i++) {
		if (!b && !strcmp(pt[i].role, "base") && pt[i].n)
			b = &pt[i];
		if (!h && !strcmp(pt[i].role, "head") && pt[i].n)
			h = &pt[i];
	}
	for (i = 0; failure && i < se->n; i++)
		shows |= se->v[i] > 0;
	if (!failure && b && h) {
		double mv = mean_of(se->v, se->n);

		shows = fabs(mv - mean_of(h->v, h->n)) < fabs(mv - mean_of(b->v, b->n));
	}
	if (shows && h && strcmp(h->commit, head->commit)) {
		char *where = rm_report_where(p->cfg, rm_job_field(&head->job, "branch"), NULL);

		if (rm_store_point_keep(p->ob, key, test, head->commit, "seen", where, se->v, se->n,
					p->now, err) < 0)
			rc = -1;
		free(where);
	}
	rm_store_points_free(pt, npt);
	return rc;
}

/* The findings of each test of an archive that its later commit no longer
 * shows, or shows again without a report (after the archive's reports:
 * their values are kept first). */
static int gone_archive(struct rm_pipeline *p, const struct rm_archive *ar, struct rm_error *err)
{
	size_t g, k;

	for (g = 0; g < ar->ngroups; g++) {
		const struct rm_group *grp = &ar->groups[g];
		const struct rm_tree_cfg *tree =
			rm_config_tree_for_branch(p->cfg, rm_job_field(&grp->members[1]->job, "branch"));
		char *prefix, **keys = NULL, **tests = NULL;
		size_t n = 0, pl;
		int rc = 0;

		if (!tree || grp->nmembers < 2)
			continue;
		prefix = rm_report_test_key(tree->name, tree->branch, &grp->members[1]->job, NULL, NULL);
		pl = strlen(prefix);
		if (rm_store_point_findings(p->ob, prefix, &keys, &tests, &n, err))
			rc = -1;
		for (k = 0; k < n && !rc; k++) {
			/* the test key goes on "METRIC|KIND"; only a regression is
			 * followed (an improvement gone is no news to fix) */
			const char *rest = tests[k] + pl, *bar = strrchr(rest, '|');
			char *metric;

			if (!bar)
				continue;
			metric = rm_xstrndup(rest, (size_t)(bar - rest));
			rc = seen_again(p, grp, keys[k], tests[k], metric, !strcmp(bar + 1, "failure"),
					err);
			/* only a regression is followed to its end (an
			 * improvement gone is no news to fix) */
			if (!rc && !strcmp(bar + 1, "regression"))
				rc = gone_one(p, tree, grp, keys[k], metric, err);
			free(metric);
		}
		rm_store_keys_free(keys, n);
		rm_store_keys_free(tests, n);
		free(prefix);
		if (rc)
			return -1;
	}
	return 0;
}

static int run_chunk(struct rm_pipeline *p, char *const *paths, size_t npaths,
		     struct rm_error *err)
{
	struct batch bb, *b = &bb;
	struct rm_sink *s = p->sink;
	int *deferred = NULL, *errors = NULL, rc = -1;
	size_t i;

	if (build_batch(p, paths, npaths, b, err))
		goto out;
	p->st.archives += (int)b->narchives;
	p->st.bad_archives += b->failed;
	if (p->progress)
		p->progress(p->progress_ctx, &p->st);
	deferred = rm_xcalloc(b->narchives + 1, sizeof(int));
	errors = rm_xcalloc(b->narchives + 1, sizeof(int));
	for (i = 0; i < b->nreports; i++) {
		struct rm_report *r = &b->reports[i];
		size_t ai = b->report_archive[i];
		struct rm_pipe_item it;
		struct rm_mail mail;
		struct rm_error me;
		char *seen_id = NULL, *closed;
		bool fate_failed = false, want_mail, store_failed;
		int seen, sunk;

		memset(&it, 0, sizeof(it));
		memset(&mail, 0, sizeof(mail));
		if (i && p->progress)
			p->progress(p->progress_ctx, &p->st);
		if (!r->skip_reason)
			p->st.reports++; /* a skipped one is no report */
		it.nth = ++p->nth;
		it.archive = &b->archives[ai];
		it.report = r;
		seen = rm_store_report_get(p->ob, r->dedupe_key ? r->dedupe_key : "", &seen_id,
					    &it.seen_at, err);
		if (seen < 0)
			goto out;
		it.seen_id = seen_id;
		closed = NULL;
		if (!seen && r->thread_key) {
			struct rm_store_finding f;
			int got = rm_store_finding_get(p->ob, r->thread_key, &f, err);

			if (got < 0) {
				free(seen_id);
				goto out;
			}
			if (got && f.state != RM_FINDING_OPEN)
				closed = rm_xstrfmt("its finding is marked %s%s%s (listen)",
						    rm_finding_state_name(f.state), f.arg ? ": " : "",
						    f.arg ? f.arg : "");
			rm_store_finding_free(&f);
		}
		/* what `run` does with it, in this order */
		if (r->skip_reason) {
			it.outcome = RM_OUT_SKIPPED;
			it.reason = r->skip_reason;
			warn_skip(p, r->skip_reason);
		} else if (seen) {
			it.outcome = RM_OUT_SEEN;
		} else if (closed) {
			it.outcome = RM_OUT_CLOSED;
			it.reason = closed;
		} else if (r->bad_reason) {
			it.outcome = RM_OUT_BAD;
			it.reason = r->bad_reason;
		} else if (r->hold_reason) {
			it.outcome = RM_OUT_HELD;
			it.reason = r->hold_reason;
		} else {
			it.outcome = RM_OUT_MAIL;
		}
		want_mail = it.outcome == RM_OUT_MAIL ||
			    (it.outcome == RM_OUT_SEEN && s->mail_when_seen && !r->bad_reason &&
			     !r->hold_reason);
		rm_error_clear(&me);
		if (want_mail && make_mail(p, r, it.archive->source, &mail, &store_failed, &me)) {
			if (store_failed) {
				*err = me;
				free(seen_id);
				free(closed);
				mail_free(&mail);
				goto out;
			}
			if (it.outcome == RM_OUT_MAIL) {
				it.outcome = RM_OUT_FAILED;
				it.reason = me.msg;
			} else {
				/* an already reported one's mail (--force) */
				fprintf(stderr, "robotmail: warning: '%s': %s\n", it.archive->source,
					me.msg);
			}
			mail_free(&mail);
		} else if (want_mail) {
			it.mail = &mail;
		}
		sunk = s->report(s, &it, &fate_failed, err);
		if (!sunk && it.outcome == RM_OUT_MAIL && !fate_failed && !mail.reflect)
			run_thread_add(p, r->thread_key, &mail);
		mail_free(&mail);
		free(seen_id);
		free(closed);
		if (sunk)
			goto out;
		switch (it.outcome) {
		case RM_OUT_SEEN:
			p->st.duplicates++;
			break;
		case RM_OUT_CLOSED:
			p->st.closed++;
			break;
		case RM_OUT_HELD:
			p->st.deferred++;
			deferred[ai] = 1;
			break;
		case RM_OUT_BAD:
		case RM_OUT_FAILED:
			p->st.failed_reports++;
			errors[ai] = 1;
			break;
		case RM_OUT_MAIL:
		case RM_OUT_SKIPPED:
			break;
		}
		if (fate_failed)
			errors[ai] = 1;
	}
	for (i = 0; i < b->narchives; i++)
		if (gone_archive(p, &b->archives[i], err))
			goto out;
	for (i = 0; i < b->narchives; i++) {
		p->st.bad_archives += errors[i]; /* exit 1: a report could not be made */
		archive_fate(p, b->archives[i].source,
			     errors[i] ? RM_FATE_FAILED : deferred[i] ? RM_FATE_WAIT : RM_FATE_DONE);
	}
	/* archives that could not be read at all */
	for (i = 0; i < npaths; i++) {
		size_t k;
		bool opened = false, stalled = false;

		for (k = 0; k < b->narchives; k++)
			opened |= !strcmp(b->archives[k].source, paths[i]);
		for (k = 0; k < b->nstalled; k++)
			stalled |= b->stalled[k] == paths[i];
		if (!opened)
			archive_fate(p, paths[i], stalled ? RM_FATE_WAIT : RM_FATE_FAILED);
	}
	rc = 0;
out:
	free(deferred);
	free(errors);
	batch_free(b);
	return rc;
}

int rm_pipeline_run(struct rm_pipeline *p, char *const *paths, size_t npaths,
		    struct rm_error *err)
{
	size_t i;
	int rc = 0;

	/* the recipient rules compiled, MAINTAINERS and the opt-out file read
	 * once for the run, not once per report */
	rm_recipients_ctx_open(&p->rcx, p->cfg);
	for (i = 0; i < npaths && !rc; i += RM_PIPELINE_CHUNK)
		rc = run_chunk(p, paths + i,
			       npaths - i < RM_PIPELINE_CHUNK ? npaths - i : RM_PIPELINE_CHUNK, err);
	rm_recipients_ctx_close(&p->rcx);
	tally_flush(p);
	run_threads_free(p);
	for (i = 0; i < p->nskipped; i++)
		free(p->skipped[i]);
	free(p->skipped);
	p->skipped = NULL;
	p->nskipped = 0;
	return rc;
}

void rm_pipeline_refuse(struct rm_pipeline *p, const struct rm_inbox_refused *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		fprintf(stderr, "robotmail: error: '%s': %s\n", v[i].path, v[i].reason);
		p->st.bad_archives++;
		archive_fate(p, v[i].path, RM_FATE_FAILED);
	}
}

/* ---------------------------------------------------------------- the queueing sink */

/* The reproduction materials of a report from its head's first run:
 * job.yaml, job-script, reproduce and the kernel config (config-<release>). */
static void write_materials(const char *dir, const struct rm_archive *a,
			    const struct rm_result_root *head, const struct rm_evidence *ev,
			    const char *message_id, int verbose)
{
	static const char *const names[][2] = { { "job.yaml", "job.yaml" },
						{ "job.sh", "job-script" },
						{ "reproduce.sh", "reproduce" } };
	struct rm_material *files;
	char run[16], *rd, **paths;
	size_t i, k, n = 0, rl;

	if (!dir)
		return;
	files = rm_xcalloc(3 + a->nfiles, sizeof(*files));
	paths = rm_xcalloc(3 + 1, sizeof(char *));
	snprintf(run, sizeof(run), "%d", head->runs[0]);
	rd = rm_path_join(head->path, run);
	for (i = 0; i < 3; i++) {
		paths[i] = rm_path_join(rd, names[i][0]);
		files[n].data = rm_archive_file(a, paths[i], &files[n].len);
		if (files[n].data)
			files[n++].name = names[i][1];
	}
	rl = strlen(rd);
	for (k = 0; k < a->nfiles; k++) {
		const char *fp = rm_archive_file_path(a, k);

		if (strncmp(fp, rd, rl) || fp[rl] != '/' || strncmp(fp + rl + 1, "config-", 7) ||
		    strchr(fp + rl + 1, '/'))
			continue;
		files[n].name = fp + rl + 1;
		files[n].data = rm_archive_file(a, fp, &files[n].len);
		n++;
	}
	rm_inbox_write_materials(dir, message_id, files, n, verbose);
	if (ev && ev->file) {
		/* the kernel log the excerpt came from, as stored (dmesg.xz ...),
		 * streamed from the archive rather than held in memory */
		const char *b = strrchr(ev->file, '/');
		char *d = rm_inbox_materials_dir(dir, message_id);
		char *dst = rm_path_join(d, b ? b + 1 : ev->file);
		struct rm_error ce;

		if (rm_evidence_copy_log(a, ev->file, dst, &ce))
			fprintf(stderr, "robotmail: warning: %s\n", ce.msg);
		else if (verbose)
			fprintf(stderr, "robotmail: wrote %s\n", dst);
		free(dst);
		free(d);
	}
	for (i = 0; i < 3; i++)
		free(paths[i]);
	free(paths);
	free(files);
	free(rd);
}

/* Store a report's mail in the outbox: rm_store_enqueue()'s result (1, 0,
 * RM_STORE_THREAD_TAKEN, -1); *held says whether it was stored held. */
static int enqueue_mail(struct rm_queue_sink *q, const struct rm_report *r,
			const struct rm_mail *mail, bool *held, struct rm_error *err)
{
	struct rm_pipeline *p = q->p;
	struct rm_store_msg m;
	char *refs;
	int got;

	memset(&m, 0, sizeof(m));
	refs = rm_message_thread_refs_text(&mail->thread);
	m.message_id = mail->message_id;
	/* a --to reflection consumes nothing: no dedupe key, no thread */
	m.dedupe_key = mail->reflect ? NULL : r->dedupe_key;
	m.thread_key = mail->reflect ? NULL : r->thread_key;
	/* built as the finding's first report (a reply to a patch mail too) */
	m.starts_thread = m.thread_key && !mail->thread.first_id;
	/* the earlier findings it mentions, kept with it (store.h) */
	m.mentions = mail->reflect ? NULL : mail->mention_keys;
	m.nmentions = mail->reflect ? 0 : mail->nmentions;
	m.refs = refs;
	m.tree = r->tree_name;
	m.subject = mail->thread.subject;
	m.mail_from = (char *)mail->mail_from;
	m.rcpts = mail->rcpts;
	m.nrcpts = mail->nrcpts;
	m.bytes = mail->bytes;
	m.len = mail->len;
	m.state = q->held && q->held(p->cfg, r->tree_name, m.rcpts, m.nrcpts) ? RM_STORE_HELD :
										  RM_STORE_QUEUED;
	*held = m.state == RM_STORE_HELD;
	got = rm_store_enqueue(p->ob, &m, p->now, err);
	free(refs);
	return got;
}

/* The per-run values of the test's headline on `root` into *v (malloc'd;
 * NULL and 0 when it has none): a performance metric's values in the
 * complete runs; a failure id's count in each of all runs, 0 in a run
 * without it (what fail:runs sums). */
static size_t headline_values(const struct rm_report_test *t, const struct rm_result_root *root,
			      double **v)
{
	const struct rm_series *se =
		rm_matrix_get(t->headline->failure ? &root->all : &root->complete, t->headline->name);

	*v = NULL;
	if (se && (se->is_string || se->is_bad))
		return 0;
	if (se && se->n) {
		*v = rm_xcalloc(se->n, sizeof(double));
		memcpy(*v, se->v, se->n * sizeof(double));
		return se->n;
	}
	if (!t->headline->failure || !root->all.cols)
		return 0;
	*v = rm_xcalloc(root->all.cols, sizeof(double));
	return root->all.cols;
}

/* Keep `root`'s values of the headline under the finding `key` (test key
 * `test`) as `role` on `label`.  0, or -1 with err. */
static int keep_root(struct rm_pipeline *p, const struct rm_report *r, const char *key,
		     const char *test, const struct rm_result_root *root, const char *role,
		     const char *label, struct rm_error *err)
{
	double *v;
	size_t n = headline_values(&r->tests[0], root, &v);
	int rc = n ? rm_store_point_keep(p->ob, key, test, root->commit, role, label, v, n,
					 r->created, err) :
		     0;

	free(v);
	return rc < 0 ? -1 : 0;
}

/* Whether the test's `also` head i shows the headline the way the report
 * does (add_brackets' rule: the failure reproduced, or the change in the
 * same direction). */
static bool also_shows(const struct rm_report *r, size_t i)
{
	const struct rm_report_test *t = &r->tests[0];
	const struct rm_comparison *c = &t->also_cmp[i];
	size_t j;

	for (j = 0; j < c->n; j++) {
		const struct rm_row *row = &c->rows[j];

		if (strcmp(row->name, t->headline->name))
			continue;
		return r->kind == RM_REPORT_FUNCTIONAL ? row->reproduction > 0 :
		       (row->change < 0) == (t->headline->change < 0);
	}
	return false;
}

/* The findings of the same test and headline on other heads (their
 * reports, in the store): each gets the other's head values ("seen"), so a
 * finding's page shows where else it was seen, earlier or later. */
static int keep_cross(struct rm_pipeline *p, const struct rm_report *r, const char *label,
		      struct rm_error *err)
{
	const struct rm_report_test *t = &r->tests[0];
	char *suffix = rm_report_finding_suffix(t, r->kind), **keys = NULL;
	size_t nkeys = 0, k, sl = strlen(suffix);
	int rc = 0;

	if (rm_store_threads_ending(p->ob, suffix, SEEN_STORE_MAX, &keys, &nkeys, err))
		rc = -1;
	for (k = 0; k < nkeys && !rc; k++) {
		struct rm_store_point *pt = NULL;
		char *branch, *commit, *where, *test;
		size_t npt = 0;
		bool known;

		if (!strcmp(keys[k], r->thread_key) ||
		    rm_report_thread_key_split(keys[k], suffix, &branch, &commit))
			continue;
		where = rm_report_where(p->cfg, branch, &known);
		/* its test key: the thread key without "|<head>" */
		test = rm_xstrfmt("%.*s%s", (int)(strlen(keys[k]) - sl - strlen(commit) - 1),
				  keys[k], suffix);
		if (known && strcmp(commit, t->head->commit)) {
			size_t i;

			if (rm_store_points(p->ob, keys[k], &pt, &npt, err))
				rc = -1;
			for (i = 0; i < npt && !rc; i++)
				if (!strcmp(pt[i].role, "head") && !strcmp(pt[i].commit, commit) &&
				    pt[i].n &&
				    rm_store_point_keep(p->ob, r->thread_key, r->test_key, commit, "seen",
							pt[i].label ? pt[i].label : where, pt[i].v,
							pt[i].n, pt[i].at, err) < 0)
					rc = -1;
			if (!rc && keep_root(p, r, keys[k], test, t->head, "seen", label, err))
				rc = -1;
		}
		rm_store_points_free(pt, npt);
		free(test);
		free(where);
		free(branch);
		free(commit);
	}
	rm_store_keys_free(keys, nkeys);
	free(suffix);
	return rc;
}

/* The finding's numbers for its page's plot (status.c): the headline's
 * per-run values on the report's base and head commits, then on every
 * other head where it was seen (role "seen", labelled with its tree/branch):
 * the test's heads on other trees in the same archive, other archives'
 * heads of the run (a functional report's bracket lines), and the heads of
 * the same finding's other reports in the store (keep_cross, both ways).
 * Kept once per commit (a retest against another base adds its base). */
static int keep_points(struct rm_pipeline *p, const struct rm_report *r, struct rm_error *err)
{
	static const char *const roles[2] = { "base", "head" };
	const struct rm_report_test *t = &r->tests[0];
	const struct rm_result_root *roots[2] = { t->base, t->head };
	char *label;
	size_t i;
	int rc = 0;

	if (!r->thread_key || !r->test_key || !t->headline)
		return 0;
	label = rm_xstrfmt("%s/%s", r->tree_name, r->branch);
	for (i = 0; i < 2 && !rc; i++)
		rc = keep_root(p, r, r->thread_key, r->test_key, roots[i], roles[i], label, err);
	for (i = 0; i < t->nalso && !rc; i++) {
		char *where = also_shows(r, i) ?
			rm_report_where(p->cfg, rm_job_field(&t->also[i]->job, "branch"), NULL) : NULL;

		if (where)
			rc = keep_root(p, r, r->thread_key, r->test_key, t->also[i], "seen", where,
				       err);
		free(where);
	}
	for (i = 0; i < r->nseen_roots && !rc; i++) {
		const struct rm_result_root *h = r->seen_roots[i];
		char *where = rm_report_where(p->cfg, rm_job_field(&h->job, "branch"), NULL);

		rc = keep_root(p, r, r->thread_key, r->test_key, h, "seen", where, err);
		free(where);
	}
	if (!rc)
		rc = keep_cross(p, r, label, err);
	free(label);
	return rc;
}

static int queue_report(struct rm_sink *s, const struct rm_pipe_item *it, bool *fate_failed,
			struct rm_error *err)
{
	struct rm_queue_sink *q = s->ctx;
	struct rm_pipeline *p = q->p;
	const struct rm_report *r = it->report;
	const struct rm_mail *mail = it->mail;
	struct rm_mail again;
	bool held = false;
	int got;

	switch (it->outcome) {
	case RM_OUT_SEEN:
		if (p->verbose)
			fprintf(stderr, "robotmail: %s: already reported\n", r->subject);
		/* (a run killed between the report and its values keeps them now) */
		return keep_points(p, r, err);
	case RM_OUT_CLOSED:
		fprintf(stderr, "robotmail: %s: not sent: %s\n", r->subject, it->reason);
		return 0;
	case RM_OUT_BAD:
	case RM_OUT_FAILED:
		fprintf(stderr, "robotmail: error: '%s': %s\n", it->archive->source, it->reason);
		return 0;
	case RM_OUT_HELD:
		tally_add(p, TALLY_REPORT, it->archive->source, it->reason);
		return 0;
	case RM_OUT_SKIPPED:
		return 0; /* warned once per branch by the pipeline */
	case RM_OUT_MAIL:
		break;
	}
	memset(&again, 0, sizeof(again));
	got = enqueue_mail(q, r, mail, &held, err);
	if (got == RM_STORE_THREAD_TAKEN) {
		/* another run (here or on another host) stored the first report
		 * of this finding after this mail was built as the first: build
		 * it again, now a reply to that run's report */
		struct rm_error me;
		bool store_failed;

		rm_error_clear(&me);
		if (make_mail(p, r, it->archive->source, &again, &store_failed, &me)) {
			mail_free(&again);
			if (store_failed) {
				*err = me;
				return -1;
			}
			fprintf(stderr, "robotmail: error: '%s': %s\n", it->archive->source, me.msg);
			p->st.failed_reports++;
			*fate_failed = true;
			return 0;
		}
		if (p->verbose)
			fprintf(stderr,
				"robotmail: %s: another run started the thread of this finding first:"
				" replying to <%s>\n",
				again.message_id, again.thread.first_id ? again.thread.first_id : "?");
		mail = &again;
		got = again.thread.first_id ? enqueue_mail(q, r, mail, &held, err) :
					      rm_error_set(err, RM_ERR_INTERNAL,
							   "'%s': the thread of its finding is taken"
							   " but has no first message",
							   it->archive->source);
		if (got == RM_STORE_THREAD_TAKEN)
			got = rm_error_set(err, RM_ERR_INTERNAL,
					   "'%s': a reply was refused as a thread's start",
					   it->archive->source);
		if (got == 1)
			run_thread_add(p, r->thread_key, mail); /* the run's own memory: this reply */
	}
	if (got < 0) {
		mail_free(&again);
		return -1;
	}
	if (got == 0) {
		p->st.duplicates++;
		if (p->verbose)
			fprintf(stderr, "robotmail: %s: already queued\n", mail->message_id);
		mail_free(&again);
		return 0;
	}
	p->st.queued++;
	if (held)
		p->st.held++;
	/* (the mentions were kept with the message: enqueue_mail) */
	if (!mail->reflect && keep_points(p, r, err))
		return -1;
	write_materials(q->materials, it->archive, r->tests[0].head, &r->tests[0].evidence,
			mail->message_id, p->verbose);
	if (p->verbose)
		fprintf(stderr, "robotmail: queued %s%s: %s\n", mail->message_id,
			held ? " (held)" : "", mail->thread.subject);
	mail_free(&again);
	return 0;
}

/* Queue the reply and mark the finding fixed by the commit (the mark names
 * the reply, so a run killed between the two marks it next time). */
static int queue_gone(struct rm_sink *s, const struct rm_gone *g, struct rm_error *err)
{
	struct rm_queue_sink *q = s->ctx;
	struct rm_pipeline *p = q->p;
	struct rm_store_msg m;
	char *cmd;
	int got;

	memset(&m, 0, sizeof(m));
	m.message_id = (char *)g->message_id;
	m.dedupe_key = (char *)g->dedupe_key;
	m.thread_key = (char *)g->key;
	m.tree = (char *)g->tree;
	m.subject = (char *)g->subject;
	m.mail_from = (char *)g->mail_from;
	m.rcpts = g->rcpts;
	m.nrcpts = g->nrcpts;
	m.bytes = (char *)g->bytes;
	m.len = g->len;
	m.state = RM_STORE_QUEUED;
	got = rm_store_enqueue(p->ob, &m, p->now, err);
	if (got < 0)
		return -1;
	cmd = g->fix ? rm_xstrfmt("no longer seen since %s (it contains the fix %s)", g->sha, g->fix) :
		       rm_xstrfmt("no longer seen since %s", g->sha);
	if (rm_store_finding_set(p->ob, g->key, g->tree, RM_FINDING_FIXED, g->fix ? g->fix : g->sha, cmd,
				 g->mail_from, g->message_id, p->now, err) < 0) {
		free(cmd);
		return -1;
	}
	if (got) {
		p->st.queued++;
		fprintf(stderr, "robotmail: <%s>: %s: reply queued\n", g->in_reply_to, cmd);
	}
	free(cmd);
	return 0;
}

static void queue_archive(struct rm_sink *s, const char *path, enum rm_fate fate)
{
	struct rm_queue_sink *q = s->ctx;
	struct rm_error me;
	struct stat st;

	if (q->keep || fate == RM_FATE_WAIT)
		return; /* stays in the inbox for the next run */
	if (fate == RM_FATE_FAILED && lstat(path, &st))
		return; /* gone: nothing to set aside */
	rm_error_clear(&me);
	if (rm_inbox_move(path, fate == RM_FATE_FAILED ? q->p->cfg->failed_dir : q->p->cfg->done_dir,
			  &me))
		fprintf(stderr, "robotmail: warning: %s\n", me.msg);
}

void rm_pipeline_queue_sink_init(struct rm_queue_sink *q, struct rm_pipeline *p, const char *materials,
			bool keep,
			bool (*held)(const struct rm_config *, const char *, char *const *, size_t))
{
	memset(q, 0, sizeof(*q));
	q->sink.report = queue_report;
	q->sink.archive = queue_archive;
	q->sink.gone = queue_gone;
	q->sink.ctx = q;
	q->p = p;
	q->materials = materials;
	q->keep = keep;
	q->held = held;
	p->sink = &q->sink;
}

/* ---------------------------------------------------------------- the printing sink */

static void print_mail(struct rm_print_sink *ps, const struct rm_pipe_item *it)
{
	const struct rm_mail *m = it->mail;
	FILE *f = ps->out;
	char *msg = rm_xmalloc(m->len + 1);
	size_t len, k;

	memcpy(msg, m->bytes, m->len);
	len = rm_message_crlf_to_lf(msg, m->len);
	if (ps->outdir) {
		struct rm_sb name = RM_SB_INIT;
		char *path;

		rm_sb_init(&name);
		rm_sb_addf(&name, "%s.eml", m->message_id);
		path = rm_path_join(ps->outdir, name.buf);
		if (rm_write_file(path, msg, len)) {
			fprintf(stderr, "robotmail: error: cannot write '%s'\n", path);
			ps->rc |= 1;
		} else if (ps->p->verbose) {
			fprintf(stderr, "robotmail: wrote %s\n", path);
		}
		free(path);
		rm_sb_release(&name);
	} else {
		if (m->thread.in_reply_to)
			fprintf(f, "# robotmail dry-run: would reply to <%s>%s\n", m->thread.in_reply_to,
				m->thread.first_id ? "" : " (the patch mail)");
		fprintf(f, "MAIL FROM:<%s>\n", m->mail_from);
		for (k = 0; k < m->nrcpts; k++)
			fprintf(f, "RCPT TO:<%s>\n", m->rcpts[k]);
		fprintf(f, "DATA\n");
		fwrite(msg, 1, len, f);
		fprintf(f, ".\n");
	}
	for (k = 0; ps->p->verbose && k < m->rcp.ndropped; k++)
		fprintf(stderr, "robotmail: recipient left out: %s\n", m->rcp.dropped[k]);
	free(msg);
}

static int print_report(struct rm_sink *s, const struct rm_pipe_item *it, bool *fate_failed,
			struct rm_error *err)
{
	struct rm_print_sink *ps = s->ctx;
	const char *src = it->archive->source;

	(void)fate_failed;
	(void)err;
	switch (it->outcome) {
	case RM_OUT_SEEN: {
		char when[64];
		struct tm tm;
		time_t at = it->seen_at;

		gmtime_r(&at, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s: already reported as <%s> on %s, nothing sent\n",
			it->nth, src, it->seen_id, when);
		if (it->mail)
			print_mail(ps, it);
		return 0;
	}
	case RM_OUT_CLOSED:
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s: not sent: %s\n", it->nth,
			src, it->reason);
		return 0;
	case RM_OUT_BAD:
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s: REFUSED: %s\n", it->nth, src,
			it->reason);
		fprintf(stderr, "robotmail: error: '%s': %s\n", src, it->reason);
		ps->rc |= 1;
		return 0;
	case RM_OUT_HELD:
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s: HELD: %s\n", it->nth, src,
			it->reason);
		ps->rc |= 2;
		return 0;
	case RM_OUT_FAILED:
		fprintf(stderr, "robotmail: error: '%s': %s\n", src, it->reason);
		ps->rc |= 1;
		return 0;
	case RM_OUT_SKIPPED:
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s: SKIPPED: %s\n", it->nth, src,
			it->reason);
		return 0;
	case RM_OUT_MAIL:
		break;
	}
	if (!ps->outdir)
		fprintf(ps->out, "# robotmail dry-run: report %zu from %s\n", it->nth, src);
	print_mail(ps, it);
	return 0;
}

static int print_gone(struct rm_sink *s, const struct rm_gone *g, struct rm_error *err)
{
	struct rm_print_sink *ps = s->ctx;
	char *msg = rm_xmalloc(g->len + 1);
	size_t len, k;

	(void)err;
	memcpy(msg, g->bytes, g->len);
	len = rm_message_crlf_to_lf(msg, g->len);
	fprintf(ps->out, "# robotmail dry-run: would reply to <%s>: no longer seen since %s%s%s%s\n",
		g->in_reply_to, g->sha, g->fix ? " (it contains the fix " : "", g->fix ? g->fix : "",
		g->fix ? ")" : "");
	fprintf(ps->out, "MAIL FROM:<%s>\n", g->mail_from);
	for (k = 0; k < g->nrcpts; k++)
		fprintf(ps->out, "RCPT TO:<%s>\n", g->rcpts[k]);
	fprintf(ps->out, "DATA\n");
	fwrite(msg, 1, len, ps->out);
	fprintf(ps->out, ".\n");
	free(msg);
	return 0;
}

static void print_archive(struct rm_sink *s, const char *path, enum rm_fate fate)
{
	struct rm_print_sink *ps = s->ctx;

	(void)path;
	if (fate == RM_FATE_FAILED)
		ps->rc |= 1;
}

void rm_pipeline_print_sink_init(struct rm_print_sink *ps, struct rm_pipeline *p, FILE *out,
			const char *outdir, bool force)
{
	memset(ps, 0, sizeof(*ps));
	ps->sink.mail_when_seen = force;
	ps->sink.report = print_report;
	ps->sink.archive = print_archive;
	ps->sink.gone = print_gone;
	ps->sink.ctx = ps;
	ps->p = p;
	ps->out = out;
	ps->outdir = outdir;
	ps->force = force;
	p->sink = &ps->sink;
}
