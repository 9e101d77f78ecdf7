/* report.c - see report.h. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "rubyfmt.h"
#include "strbuf.h"
#include "table.h"
#include "template.h"

/* ------------------------------------------------------------ picking */

static bool base_is(const char *stat, const char *testcase)
{
	size_t n = strlen(testcase);

	return !strncmp(stat, testcase, n) && stat[n] == '.';
}

bool rm_report_pick(const struct rm_rules *rules, const struct rm_result_root *base,
		    const struct rm_result_root *head, struct rm_comparison *cmp,
		    struct rm_report_test *out)
{
	const char *testcase = rm_job_field(&head->job, "testcase");
	const struct rm_row *best = NULL;
	size_t i;
	int pass;

	(void)rules;
	memset(out, 0, sizeof(*out));
	if (!testcase)
		testcase = "";
	/* the test's own KPI first; then any stat with a direction */
	for (pass = 0; pass < 2 && !best; pass++) {
		for (i = cmp->nfailure; i < cmp->n; i++) {
			const struct rm_row *r = &cmp->rows[i];

			if (r->weight == 0 || r->abs_change || !isfinite(r->change))
				continue;
			if (pass == 0 && !base_is(r->name, testcase))
				continue;
			if (!best || fabs(r->change) > fabs(best->change) ||
			    (fabs(r->change) == fabs(best->change) && strcmp(r->name, best->name) < 0))
				best = r;
		}
	}
	if (best) {
		out->headline = best;
		out->kind = best->weight * best->change < 0 ? RM_REPORT_REGRESSION :
							       RM_REPORT_IMPROVEMENT;
		out->pct = fabs(best->change);
	} else {
		/* a failure that got more frequent */
		for (i = 0; i < cmp->nfailure; i++) {
			const struct rm_row *r = &cmp->rows[i];

			if (r->reproduction > 0 && (!best || r->reproduction > best->reproduction))
				best = r;
		}
		if (!best) {
			rm_comparison_free(cmp);
			return false;
		}
		out->headline = best;
		out->kind = RM_REPORT_FUNCTIONAL;
		out->pct = best->reproduction;
	}
	out->base = base;
	out->head = head;
	out->cmp = *cmp;
	memset(cmp, 0, sizeof(*cmp));
	return true;
}

void rm_report_test_free(struct rm_report_test *t)
{
	size_t i;

	for (i = 0; i < t->nalso; i++)
		rm_comparison_free(&t->also_cmp[i]);
	free(t->also_cmp);
	free(t->also);
	rm_comparison_free(&t->cmp);
	memset(t, 0, sizeof(*t));
}

bool rm_report_same_report(const struct rm_report_test *a, const struct rm_report_test *b)
{
	const char *ba = rm_job_field(&a->head->job, "branch");
	const char *bb = rm_job_field(&b->head->job, "branch");

	return !strcmp(a->head->commit, b->head->commit) &&
	       !strcmp(a->base->commit, b->base->commit) &&
	       !strcmp(ba ? ba : "", bb ? bb : "") &&
	       (a->kind == RM_REPORT_FUNCTIONAL) == (b->kind == RM_REPORT_FUNCTIONAL);
}

/* ------------------------------------------------------------ ids and times */

long rm_zone_seconds(const char *z)
{
	long h, m;

	if (!z || strlen(z) != 5)
		return 0;
	h = (z[1] - '0') * 10 + (z[2] - '0');
	m = (z[3] - '0') * 10 + (z[4] - '0');
	return (z[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
}

static unsigned fnv1a(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

char *rm_report_message_id(const struct rm_config *cfg, const char *dedupe_key, time_t t)
{
	struct tm tm;
	time_t local = t + rm_zone_seconds(cfg->timezone);
	char stamp[32];
	struct rm_sb sb = RM_SB_INIT;

	/* a time gmtime cannot take, or past year 9999, would not give
	 * 12 digits: such a time never gets here (archive_time), but stay safe */
	if (!gmtime_r(&local, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1970 ||
	    strftime(stamp, sizeof(stamp), "%Y%m%d%H%M", &tm) != 12)
		snprintf(stamp, sizeof(stamp), "197001010000");
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s.%08x-%s@%s", stamp, fnv1a(dedupe_key), cfg->msgid_local,
		   cfg->msgid_domain);
	return rm_sb_detach(&sb, NULL);
}

/* Epoch seconds from a job.yaml field, or 0 when it is missing or not a
 * time between 1970 and 9999 (strtoll's overflow included). */
static time_t job_epoch(const struct rm_job *job, const char *field)
{
	const char *s = rm_job_field(job, field);
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v <= 0 || v >= 253402300800LL - 86400)
		return 0;
	return (time_t)v;
}

/* The report's time: the head's end_time (epoch seconds in job.yaml), else
 * its start_time, else now. */
static time_t archive_time(const struct rm_report_test *t, time_t now)
{
	time_t v = job_epoch(&t->head->job, "end_time");

	if (!v)
		v = job_epoch(&t->head->job, "start_time");
	return v ? v : now;
}

/* ------------------------------------------------------------ words */

/* A percentage with one decimal, rounded as Ruby rounds it (like the table). */
/* A percentage with one decimal ("10.5"), every digit of it however large
 * (a parent of 0 gives changes like 5e+102).  The caller frees it. */
static char *fmt_pct(double v)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_ruby_format_double(&sb, "", 0, 1, 'f', v);
	return rm_sb_detach(&sb, NULL);
}

static const char *kind_word(enum rm_report_kind k)
{
	return k == RM_REPORT_REGRESSION ? "regression" :
	       k == RM_REPORT_IMPROVEMENT ? "improvement" : "failure";
}

/* "[mm]" from "mm: avoid ...": the text before the first ':' */
static char *subsystem(const char *subject)
{
	const char *colon = subject ? strchr(subject, ':') : NULL;

	if (!colon || colon == subject || colon - subject > 60)
		return NULL;
	return rm_xstrndup(subject, (size_t)(colon - subject));
}

/* A failure id as subjects print it: without the dmesg./kmsg. prefix. */
static const char *failure_id(const char *stat)
{
	if (!strncmp(stat, "dmesg.", 6))
		return stat + 6;
	if (!strncmp(stat, "kmsg.", 5))
		return stat + 5;
	return stat;
}

static char *sha10(const char *sha)
{
	return rm_xstrndup(sha, strlen(sha) < 10 ? strlen(sha) : 10);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "key=value" of the test parameters, sorted */
static char **sorted_params(const struct rm_job *job, size_t *n)
{
	char **v = rm_xcalloc(job->nparams + 1, sizeof(char *));
	size_t i;

	*n = 0;
	for (i = 0; i < job->nparams; i++) {
		struct rm_sb sb = RM_SB_INIT;

		if (!job->params[i].value)
			continue;
		rm_sb_init(&sb);
		rm_sb_addf(&sb, "%s=%s", job->params[i].key, job->params[i].value);
		v[(*n)++] = rm_sb_detach(&sb, NULL);
	}
	rm_sort(v, *n, sizeof(char *), cmp_str);
	return v;
}

/* The "In addition to that" table (report-format.md 6.3) of a performance
 * report: one block per further test. */
static char *addition_table(const struct rm_report *r)
{
	struct rm_sb sb = RM_SB_INIT;
	char ***rows = rm_xcalloc(r->ntests + 1, sizeof(char **));
	size_t *nrows = rm_xcalloc(r->ntests + 1, sizeof(size_t));
	size_t width = 0, i, k;

	/* rows per test: change, machine, params... */
	for (i = 1; i < r->ntests; i++) {
		const struct rm_report_test *t = &r->tests[i];
		const struct rm_job *job = &t->head->job;
		const char *tc = rm_job_field(job, "testcase");
		size_t np;
		char **params = sorted_params(job, &np);
		struct rm_sb c = RM_SB_INIT;

		rows[i] = rm_xcalloc(np + 3, sizeof(char *));
		char *pct = fmt_pct(t->pct);

		rm_sb_init(&c);
		/* a negative change keeps a blank where its minus sign was */
		rm_sb_addf(&c, "%s: %s %s%s%% %s", tc ? tc : "", t->headline->name,
			   t->headline->change < 0 ? " " : "", pct, kind_word(t->kind));
		free(pct);
		rows[i][0] = rm_sb_detach(&c, NULL);
		rows[i][1] = rm_machine_line(job);
		for (k = 0; k < np; k++)
			rows[i][2 + k] = params[k];
		free(params);
		nrows[i] = np + 2;
		for (k = 0; k < nrows[i]; k++)
			if (strlen(rows[i][k]) > width)
				width = strlen(rows[i][k]);
	}
	rm_sb_init(&sb);
	for (i = 1; i < r->ntests; i++) {
		if (i == 1) {
			rm_sb_adds(&sb, "+------------------+");
			rm_sb_addn(&sb, '-', width + 2);
			rm_sb_adds(&sb, "+\n");
		}
		for (k = 0; k < nrows[i]; k++) {
			const char *label = k == 0 ? "testcase: change" :
					    k == 1 ? "test machine" :
					    k == 2 ? "test parameters" : "";

			rm_sb_addf(&sb, "| %-16s | %-*s |\n", label, (int)width, rows[i][k]);
			free(rows[i][k]);
		}
		free(rows[i]);
		rm_sb_adds(&sb, "+------------------+");
		rm_sb_addn(&sb, '-', width + 2);
		rm_sb_adds(&sb, "+");
		if (i + 1 < r->ntests)
			rm_sb_addc(&sb, '\n');
	}
	free(rows);
	free(nrows);
	return rm_sb_detach(&sb, NULL);
}

/* A commit subject as reports print it: at most SUBJECT_MAX bytes (cut at a
 * character boundary, "..." appended), so that a hostile 2,000-character
 * subject cannot push a body line past 998 octets.  Caller frees. */
#define SUBJECT_MAX 200

static char *subject_of(const struct rm_commit_facts *f)
{
	size_t n;
	char *s;

	if (!f || !f->subject || !*f->subject)
		return NULL;
	n = strlen(f->subject);
	if (n <= SUBJECT_MAX)
		return rm_xstrdup(f->subject);
	n = SUBJECT_MAX;
	while (n && ((unsigned char)f->subject[n] & 0xc0) == 0x80)
		n--; /* do not split a UTF-8 character */
	s = rm_xmalloc(n + 4);
	memcpy(s, f->subject, n);
	memcpy(s + n, "...", 4);
	return s;
}

/* The bracket status lines (report-format.md section 3 item 5, section 4
 * item 4), one per other tree's head on which the finding shows too: the
 * headline stat moved the same way ("[still regression on linux-next/master
 * <sha40>]", "[still improvement on ...]") or, for a functional report, the
 * failure occurred ("[test failed on linux-next/master <sha40>]").  The
 * tree is named `<tree>/<branch>` as configured, else by the job's branch,
 * padded to the longest name printed so that the shas line up.  Appends
 * the lines to the list "brackets" of d (made here); returns their count. */
static size_t add_brackets(struct rm_tdata *d, const struct rm_config *cfg,
			   const struct rm_report_test *t0, enum rm_report_kind kind)
{
	char **names = rm_xcalloc(t0->nalso + 1, sizeof(char *));
	size_t i, n = 0, w = 0;

	rm_tdata_list(d, "brackets");
	for (i = 0; i < t0->nalso; i++) {
		const struct rm_comparison *c = &t0->also_cmp[i];
		const char *b = rm_job_field(&t0->also[i]->job, "branch");
		const struct rm_tree_cfg *tree = b ? rm_config_tree_for_branch(cfg, b) : NULL;
		size_t j;

		if (!b)
			continue;
		for (j = 0; j < c->n && !names[i]; j++) {
			const struct rm_row *row = &c->rows[j];
			struct rm_sb sb = RM_SB_INIT;

			if (strcmp(row->name, t0->headline->name))
				continue;
			if (kind == RM_REPORT_FUNCTIONAL ? !(row->reproduction > 0) :
			    (row->change < 0) != (t0->headline->change < 0))
				continue;
			rm_sb_init(&sb);
			if (tree)
				rm_sb_addf(&sb, "%s/%s", tree->name, tree->branch);
			else
				rm_sb_adds(&sb, b);
			names[i] = rm_sb_detach(&sb, NULL);
			if (strlen(names[i]) > w)
				w = strlen(names[i]);
		}
	}
	for (i = 0; i < t0->nalso; i++) {
		if (!names[i])
			continue;
		if (kind == RM_REPORT_FUNCTIONAL)
			rm_tdata_setf(rm_tdata_add(d, "brackets"), "line", "[test failed on %-*s %s]",
				      (int)w, names[i], t0->also[i]->commit);
		else
			rm_tdata_setf(rm_tdata_add(d, "brackets"), "line", "[still %s on %-*s %s]",
				      kind_word(kind), (int)w, names[i], t0->also[i]->commit);
		free(names[i]);
		n++;
	}
	free(names);
	return n;
}

static void hold(struct rm_report *r, const char *why)
{
	if (!r->hold_reason)
		r->hold_reason = rm_xstrdup(why);
}

/* The first reason bad input makes the report impossible; takes `why`. */
static void refuse(struct rm_report *r, char *why)
{
	if (r->bad_reason)
		free(why);
	else
		r->bad_reason = why;
}

/* "commit <sha> is unknown to the git web API of tree '<tree>'" */
static char *unknown_commit(const char *which, const char *sha, const char *tree)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s %s is unknown to the git web API of tree '%s'", which, sha, tree);
	return rm_sb_detach(&sb, NULL);
}

/* "commit <sha> has no subject in the git web API of tree '<tree>' ..." */
static char *no_subject(const char *which, const char *sha, const char *tree)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s %s has no subject in the git web API of tree '%s' (empty, or it begins with a NUL byte)",
		   which, sha, tree);
	return rm_sb_detach(&sb, NULL);
}

/* The branch-name form of a text, as the robot names its patch branches:
 * every run of characters other than letters, digits and "_" becomes one
 * "-", none at the ends ("crash_dump/dm-crypt: Don't print" ->
 * "crash_dump-dm-crypt-Don-t-print").  Appends to sb. */
static void add_slug(struct rm_sb *sb, const char *s)
{
	bool dash = false, any = false;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_') {
			if (dash && any)
				rm_sb_addc(sb, '-');
			rm_sb_addc(sb, (char)c);
			dash = false;
			any = true;
		} else {
			dash = true;
		}
	}
}

/* "url: <base>/<Author-Name>/<subject-slug>/<YYYYMMDD-HHMMSS>": the branch
 * the robot pushed the tested patch to.  Its time is the commit's committer
 * date (the robot applied the patch) in the robot's zone; the slug is of
 * the patch subject without its "[PATCH ...]" tags.  NULL when a fact is
 * missing.  The caller frees it. */
static char *patch_branch_url(const struct rm_config *cfg, const struct rm_commit_facts *f,
			      const char *subject)
{
	struct rm_sb sb = RM_SB_INIT;
	time_t t;
	struct tm tm;
	char when[32];

	if (!cfg->patch_branches || !*cfg->patch_branches || !f || !f->commit_time ||
	    !f->author.name || !*f->author.name || !subject)
		return NULL;
	while (*subject == '[' && strchr(subject, ']'))
		subject = strchr(subject, ']') + 1 + (strchr(subject, ']')[1] == ' ');
	t = (time_t)(f->commit_time + rm_zone_seconds(cfg->timezone));
	if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		return NULL;
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s/", cfg->patch_branches);
	add_slug(&sb, f->author.name);
	rm_sb_addc(&sb, '/');
	add_slug(&sb, subject);
	rm_sb_addf(&sb, "/%s", when);
	return rm_sb_detach(&sb, NULL);
}

/* ------------------------------------------------------------ build */

int rm_report_build(struct rm_report *r, const struct rm_config *cfg, const char *templates_dir,
		    time_t now, struct rm_error *err)
{
	const struct rm_report_test *t0 = &r->tests[0];
	const struct rm_job *job = &t0->head->job;
	const char *branch = rm_job_field(job, "branch");
	const struct rm_tree_cfg *tree = rm_config_tree_for_branch(cfg, branch);
	char *head_subject = subject_of(r->head_facts);
	char *base_subject = subject_of(r->base_facts);
	struct rm_tdata *d = rm_tdata_new();
	struct rm_sb sb = RM_SB_INIT, body = RM_SB_INIT;
	char *subsys, *hs10;
	size_t i, nbrackets = 0;
	int rc;

	r->kind = t0->kind;
	/* the tree: from the configuration, else from the job's branch */
	if (tree) {
		r->tree_name = rm_xstrdup(tree->name);
		r->branch = rm_xstrdup(tree->branch);
		r->tree_url = rm_xstrdup(tree->url);
	} else if (branch && strchr(branch, '/')) {
		r->tree_name = rm_xstrndup(branch, (size_t)(strchr(branch, '/') - branch));
		r->branch = rm_xstrdup(strchr(branch, '/') + 1);
		hold(r, "no tree in the configuration for the job's branch");
	} else {
		r->tree_name = rm_xstrdup(branch ? branch : "unknown");
		r->branch = rm_xstrdup("unknown");
		hold(r, "the job names no branch that maps to a configured tree");
	}
	if (r->head_unknown)
		refuse(r, unknown_commit("commit", t0->head->commit, r->tree_name));
	if (r->base_unknown)
		refuse(r, unknown_commit("base commit", t0->base->commit, r->tree_name));
	for (i = 0; i < r->ntests; i++) {
		/* the lines "testcase:" and "config:" need them */
		static const char *const need[] = { "testcase", "kconfig" };
		size_t k;

		for (k = 0; k < 2; k++) {
			const char *v = rm_job_field(&r->tests[i].head->job, need[k]);

			if (!v || !*v) {
				rm_sb_init(&sb);
				rm_sb_addf(&sb, "'%s/%d/job.yaml': no '%s' field", r->tests[i].head->path,
					   r->tests[i].head->nruns ? r->tests[i].head->runs[0] : 0, need[k]);
				refuse(r, rm_sb_detach(&sb, NULL));
			}
		}
	}
	/* permanent: no later run can look up a commit named by a tag, or
	 * give a subject to a commit whose record has none (empty, or
	 * beginning with a NUL byte) */
	if (tree && tree->provider != RM_PROVIDER_NONE) {
		const struct rm_result_root *side[2] = { t0->head, t0->base };
		static const char *const which[2] = { "commit", "base commit" };

		for (i = 0; i < 2; i++) {
			if (rm_commit_valid_sha(side[i]->commit))
				continue;
			rm_sb_init(&sb);
			rm_sb_addf(&sb, "'%s/%d/job.yaml': %s '%s' is not a sha (40 hex digits), so the git web API of tree '%s' cannot look it up",
				   side[i]->path, side[i]->nruns ? side[i]->runs[0] : 0, which[i],
				   side[i]->commit, r->tree_name);
			refuse(r, rm_sb_detach(&sb, NULL));
		}
	}
	if (r->head_facts && !head_subject)
		refuse(r, no_subject("commit", t0->head->commit, r->tree_name));
	if (r->base_facts && !base_subject)
		refuse(r, no_subject("base commit", t0->base->commit, r->tree_name));
	if (!head_subject && cfg->defer_on_failure)
		hold(r, "the tested commit's subject is unknown (git web API lookup failed or unknown commit)");
	if (!base_subject && cfg->defer_on_failure)
		hold(r, "the base commit's subject is unknown");
	if (!t0->cmp.n)
		hold(r, "the comparison table is empty");

	if (r->kind == RM_REPORT_FUNCTIONAL) {
		char pct[32];

		r->metric = rm_xstrdup(failure_id(t0->headline->name));
		snprintf(pct, sizeof(pct), "%.0f", t0->pct); /* a failure rate: 0..100 */
		r->pct = rm_xstrdup(pct);
	} else {
		r->metric = rm_xstrdup(t0->headline->name);
		r->pct = fmt_pct(t0->pct);
	}

	/* dedupe key: tree, commit pair, test axes, headline metric */
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s:%s|%s|%s|", r->tree_name, r->branch, t0->base->commit, t0->head->commit);
	for (i = 0; i < t0->head->job.naxes; i++)
		if (strcmp(t0->head->job.axes[i].key, "commit"))
			rm_sb_addf(&sb, "%s=%s/", t0->head->job.axes[i].key,
				   t0->head->job.axes[i].value);
	rm_sb_addf(&sb, "|%s", t0->headline->name);
	r->dedupe_key = rm_sb_detach(&sb, NULL);
	{
		unsigned long long h = 14695981039346656037ull;
		const char *q;
		char hex[20];

		for (q = r->dedupe_key; *q; q++) {
			h ^= (unsigned char)*q;
			h *= 1099511628211ull;
		}
		snprintf(hex, sizeof(hex), "%016llx", h);
		r->report_key = rm_xstrdup(hex);
	}
	r->created = archive_time(t0, now);
	r->message_id = rm_report_message_id(cfg, r->dedupe_key, r->created);
	{
		/* the finding, whatever the base: the tree, the tested commit,
		 * the test, the metric and its direction; follow-ups thread on
		 * it (a regression never replies to an improvement, nor one
		 * tree's report to another's) */
		struct rm_sb tk = RM_SB_INIT;

		rm_sb_init(&tk);
		rm_sb_addf(&tk, "%s:%s|%s|", r->tree_name, r->branch, t0->head->commit);
		for (i = 0; i < t0->head->job.naxes; i++)
			if (strcmp(t0->head->job.axes[i].key, "commit"))
				rm_sb_addf(&tk, "%s=%s/", t0->head->job.axes[i].key,
					   t0->head->job.axes[i].value);
		rm_sb_addf(&tk, "|%s|%s", t0->headline->name, kind_word(r->kind));
		r->thread_key = rm_sb_detach(&tk, NULL);
	}

	/* subject: [tree:branch] [subsys] sha10: metric N.N% regression */
	subsys = subsystem(head_subject);
	hs10 = sha10(t0->head->commit);
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "[%s:%s] ", r->tree_name, r->branch);
	if (subsys)
		rm_sb_addf(&sb, "[%s] ", subsys);
	if (r->kind == RM_REPORT_FUNCTIONAL)
		rm_sb_addf(&sb, "%s: %s", hs10, r->metric);
	else
		rm_sb_addf(&sb, "%s: %s %s%% %s", hs10, r->metric, r->pct, kind_word(r->kind));
	r->subject = rm_sb_detach(&sb, NULL);
	free(subsys);
	free(hs10);
	/* a patch from a mailing list: the report replies to the patch mail */
	if (tree && tree->patches && r->head_facts && r->head_facts->patch_msgid) {
		r->patch_msgid = rm_xstrdup(r->head_facts->patch_msgid);
		free(r->subject);
		/* the patch mail's own subject ("[PATCH v2 1/3] ...") when it was
		 * found, else the commit's */
		{
			const char *ps = r->patch && r->patch->subject ? r->patch->subject : head_subject;

			r->subject = rm_xstrdup(ps ? ps : "");
			rm_tdata_setf(d, "patch_link", "%s/%s/", cfg->patch_link_base, r->patch_msgid);
			rm_tdata_set(d, "patch_subject", ps);
			/* the commit: line names the patch by its raw mail subject */
			rm_tdata_set(d, "commit_subject", ps ? ps : "");
			{
				char *url = patch_branch_url(cfg, r->head_facts, ps);

				rm_tdata_set(d, "patch_url", url);
				free(url);
			}
		}
	} else {
		rm_tdata_set(d, "patch_link", "");
		rm_tdata_set(d, "patch_subject", "");
		rm_tdata_set(d, "patch_url", "");
	}

	/* template variables */
	rm_tdata_set(d, "preamble", "");
	rm_tdata_set(d, "pct", r->pct);
	rm_tdata_set(d, "kind", kind_word(r->kind));
	rm_tdata_set(d, "metric", r->metric);
	rm_tdata_set(d, "is_regression", r->kind != RM_REPORT_IMPROVEMENT ? "yes" : "");
	rm_tdata_set(d, "commit_sha", t0->head->commit);
	if (!rm_tdata_get(d, "commit_subject"))
		rm_tdata_set(d, "commit_subject", head_subject ? head_subject : "");
	rm_tdata_set(d, "tree_url", r->tree_url ? r->tree_url : "");
	rm_tdata_set(d, "tree_branch", r->branch);
	nbrackets = add_brackets(d, cfg, t0, r->kind);
	/* functional reports print the blank before the bracket lines only
	 * when there are some (report-format.md section 4 item 4) */
	rm_tdata_set(d, "has_brackets", nbrackets ? "yes" : "");
	rm_tdata_set(d, "testcase", rm_job_field(job, "testcase"));
	/* functional reports on a boot test have no version and parameters
	 * block (report-format.md section 4 item 5) */
	{
		const char *tc = rm_job_field(job, "testcase");

		rm_tdata_set(d, "param_block", tc && !strcmp(tc, "boot") ? "" : "yes");
	}
	/* "version: <testsuite-version>" of functional reports, empty when
	 * unknown (report-format.md section 4 item 5): the job's `version`
	 * field, the only version a job.yaml carries (archive-format.md 1.6,
	 * appended after the run by lkp-tests' bin/run-lkp) */
	rm_tdata_set(d, "version", rm_job_field(job, "version"));
	rm_tdata_set(d, "kconfig", rm_job_field(job, "kconfig"));
	rm_tdata_set(d, "compiler", rm_job_axis(job, "compiler"));
	{
		char *m = rm_machine_line(job);

		rm_tdata_set(d, "machine", m);
		free(m);
	}
	rm_tdata_list(d, "params");
	for (i = 0; i < job->nparams; i++) {
		struct rm_tdata *p;

		if (!job->params[i].value)
			continue;
		p = rm_tdata_add(d, "params");
		rm_tdata_set(p, "key", job->params[i].key);
		rm_tdata_set(p, "value", job->params[i].value);
	}
	/* only performance reports have the table (a report's tests are all
	 * functional or all performance: rm_report_same_report) */
	if (r->ntests > 1 && r->kind != RM_REPORT_FUNCTIONAL) {
		char *tbl = addition_table(r);

		rm_tdata_set(d, "in_addition", tbl);
		free(tbl);
	} else {
		rm_tdata_set(d, "in_addition", "");
	}
	rm_tdata_setf(d, "reported_by", "%s <%s>", cfg->robot_name, cfg->robot_address);
	rm_tdata_setf(d, "closes_url", "%s/%s", cfg->lore_base, r->message_id);
	rm_tdata_setf(d, "archive_url", "%s/%.8s/%s", cfg->archive_base, r->message_id,
		      r->message_id);
	rm_tdata_set(d, "failure", r->kind == RM_REPORT_FUNCTIONAL ? r->metric : "");
	rm_tdata_list(d, "details");
	for (i = 0; i < r->ntests; i++) {
		const struct rm_report_test *t = &r->tests[i];
		struct rm_tdata *det = rm_tdata_add(d, "details");
		struct rm_table_commit bc = { t->base->commit, base_subject };
		struct rm_table_commit hc = { t->head->commit, head_subject };
		struct rm_sb tb = RM_SB_INIT;

		rm_sb_init(&tb);
		rm_table_render_style(&tb, &t->head->job, &bc, &hc, &t->cmp,
				      r->kind == RM_REPORT_FUNCTIONAL ? RM_TABLE_FUNCTIONAL :
									RM_TABLE_NCOMPARE);
		rm_tdata_set(det, "table", tb.buf);
		rm_sb_release(&tb);
		rm_tdata_set(det, "additional", i ? "yes" : "");
		rm_tdata_set(det, "tbox_group", rm_job_field(&t->head->job, "tbox_group"));
		{
			char *m = rm_machine_line(&t->head->job);

			rm_tdata_set(det, "machine", m);
			free(m);
		}
	}
	rm_sb_init(&body);
	rc = rm_template_render(templates_dir,
				r->kind == RM_REPORT_FUNCTIONAL ? "functional.txt" : "perf.txt", d,
				&body, err);
	rm_tdata_free(d);
	free(head_subject);
	free(base_subject);
	if (rc) {
		rm_sb_release(&body);
		return -1;
	}
	r->body = rm_sb_detach(&body, NULL);
	return 0;
}

void rm_report_free(struct rm_report *r)
{
	size_t i;

	for (i = 0; i < r->ntests; i++)
		rm_report_test_free(&r->tests[i]);
	free(r->tests);
	free(r->tree_name);
	free(r->branch);
	free(r->tree_url);
	free(r->metric);
	free(r->pct);
	free(r->subject);
	free(r->dedupe_key);
	free(r->report_key);
	free(r->thread_key);
	free(r->patch_msgid);
	free(r->bad_reason);
	free(r->message_id);
	free(r->body);
	free(r->hold_reason);
	memset(r, 0, sizeof(*r));
}
