/* report.c - see report.h. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
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

/* A kernel-log id ("dmesg.<id>", "kmsg.<id>"), not one of the log's
 * bookkeeping stats. */
static bool is_log_id(const char *name)
{
	const char *id = !strncmp(name, "dmesg.", 6) ? name + 6 :
			 !strncmp(name, "kmsg.", 5) ? name + 5 : NULL;

	return id && strncmp(id, "timestamp:", 10) && strncmp(id, "bootstage:", 10) &&
	       strcmp(id, "boot_failures") && strcmp(id, "boot_successes");
}

/* The ids that only follow the first message of an oops (report-format.md
 * section 4 item 2): never the headline while a first message is known. */
static bool is_secondary_id(const char *name)
{
	const char *id = strchr(name, '.') + 1;

	return !strcmp(id, "Oops") || !strncmp(id, "Oops:", 5) || !strncmp(id, "RIP:", 4) ||
	       !strncmp(id, "EIP:", 4) || !strncmp(id, "calltrace:", 10) ||
	       !strncmp(id, "Kernel_panic-not_syncing:Fatal_exception", 40);
}

double rm_report_log_time(const struct rm_result_root *root, const char *name)
{
	const char *dot = strchr(name, '.');
	const struct rm_series *s;
	struct rm_sb key = RM_SB_INIT;
	double best = -1;
	size_t i;

	if (!dot)
		return -1;
	rm_sb_init(&key);
	rm_sb_addf(&key, "%.*s.timestamp:%s", (int)(dot - name), name, dot + 1);
	s = rm_matrix_get(&root->all, key.buf);
	rm_sb_release(&key);
	for (i = 0; s && !s->is_bad && !s->is_string && i < s->n; i++)
		if (s->v[i] > 0 && (best < 0 || s->v[i] < best))
			best = s->v[i];
	return best;
}

/* The failure a functional report names (report-format.md section 4 item
 * 2): among the ids new in the head (no failure in the base's runs), a
 * kernel-log id wins, the one whose first message came earliest
 * (dmesg.timestamp:<id>; an id without a time after those with one, a
 * secondary id after every first message; then the most reproduced, then
 * by name); without one, the test's own id (the most reproduced).
 * last_state.* and stderr.* never name a failure. */
static const struct rm_row *pick_failure(const struct rm_result_root *head,
					 const struct rm_comparison *cmp)
{
	const struct rm_row *best = NULL;
	double best_t = -1;
	int best_rank = 0;
	size_t i;

	for (i = 0; i < cmp->nfailure; i++) {
		const struct rm_row *r = &cmp->rows[i];
		double t = -1;
		int rank;

		/* more frequent in the head, and never in the base's runs */
		if (r->fails[0] > 0 || !(r->reproduction > 0))
			continue;
		if (!strncmp(r->name, "last_state.", 11) || !strncmp(r->name, "stderr.", 7))
			continue;
		if (is_log_id(r->name)) {
			t = rm_report_log_time(head, r->name);
			rank = is_secondary_id(r->name) ? 2 : t >= 0 ? 4 : 3;
		} else if (!strncmp(r->name, "dmesg.", 6) || !strncmp(r->name, "kmsg.", 5)) {
			continue; /* boot_failures, timestamps */
		} else {
			rank = 1;
		}
		if (best && rank < best_rank)
			continue;
		if (best && rank == best_rank) {
			if (rank == 4 && t != best_t) {
				if (t > best_t)
					continue;
			} else if (r->reproduction != best->reproduction) {
				if (r->reproduction < best->reproduction)
					continue;
			} else if (strcmp(r->name, best->name) >= 0) {
				continue;
			}
		}
		best = r;
		best_t = t;
		best_rank = rank;
	}
	return best;
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
		best = pick_failure(head, cmp);
		if (!best) {
			rm_stats_comparison_free(cmp);
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
		rm_stats_comparison_free(&t->also_cmp[i]);
	free(t->also_cmp);
	free(t->also);
	rm_stats_comparison_free(&t->cmp);
	rm_evidence_free(&t->evidence);
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

long rm_report_zone_seconds(const char *z)
{
	long h, m;

	if (!z || strlen(z) != 5)
		return 0;
	h = (z[1] - '0') * 10 + (z[2] - '0');
	m = (z[3] - '0') * 10 + (z[4] - '0');
	return (z[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
}

/* FNV-1a of a string, `bits` 32 or 64 wide: the one hash of report keys
 * (64 bits: the report key) and Message-IDs (32 bits, as the robot's
 * 8-hex-digit hashes).  32-bit FNV-1a is the 64-bit loop with the 32-bit
 * offset basis and prime, reduced mod 2^32. */
static uint64_t fnv1a(const char *s, unsigned bits)
{
	uint64_t h = bits == 32 ? 2166136261u : 14695981039346656037ull;
	uint64_t prime = bits == 32 ? 16777619u : 1099511628211ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= prime;
		if (bits == 32)
			h &= 0xffffffffu;
	}
	return h;
}

char *rm_report_message_id(const struct rm_config *cfg, const char *dedupe_key, time_t t)
{
	struct tm tm;
	time_t local = t + rm_report_zone_seconds(cfg->timezone);
	char stamp[32];
	struct rm_sb sb = RM_SB_INIT;

	/* a time gmtime cannot take, or past year 9999, would not give
	 * 12 digits: such a time never gets here (archive_time), but stay safe */
	if (!gmtime_r(&local, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1970 ||
	    strftime(stamp, sizeof(stamp), "%Y%m%d%H%M", &tm) != 12)
		snprintf(stamp, sizeof(stamp), "197001010000");
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s.%08x-%s@%s", stamp, (unsigned)fnv1a(dedupe_key, 32), cfg->msgid_local,
		   cfg->msgid_domain ? cfg->msgid_domain : "robotmail.invalid");
	return rm_sb_detach(&sb, NULL);
}

/* The report's time: the head's end_time (epoch seconds in job.yaml), else
 * its start_time, else now. */
static time_t archive_time(const struct rm_report_test *t, time_t now)
{
	time_t v = rm_job_epoch(&t->head->job, "end_time");

	if (!v)
		v = rm_job_epoch(&t->head->job, "start_time");
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
	rm_rubyfmt_double(&sb, "", 0, 1, 'f', v);
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
		rows[i][1] = rm_hosts_machine_line(job);
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
 * the lines to the list "brackets" of v (made by the caller); returns
 * their count. */
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
 * the robot pushed the tested patch to.  The job names it (`branch:
 * linux-review/<Author-Name>/<slug>/<time>`, report-format.md 3 item 4): it
 * is read from there.  A job that names another branch gets it rebuilt:
 * the commit's committer date (the robot applied the patch) in the robot's
 * zone; the slug of the patch subject without its "[PATCH ...]" tags.  NULL
 * when a fact is missing.  The caller frees it. */
static char *patch_branch_url(const struct rm_config *cfg, const struct rm_job *job,
			      const struct rm_commit_facts *f, const char *subject)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *branch = rm_job_field(job, "branch");
	time_t t;
	struct tm tm;
	char when[32];

	if (cfg->patch_branches && *cfg->patch_branches && branch &&
	    !strncmp(branch, "linux-review/", 13) && branch[13]) {
		rm_sb_init(&sb);
		rm_sb_addf(&sb, "%s/%s", cfg->patch_branches, branch + 13);
		return rm_sb_detach(&sb, NULL);
	}
	if (!cfg->patch_branches || !*cfg->patch_branches || !f || !f->commit_time ||
	    !f->author.name || !*f->author.name || !subject)
		return NULL;
	while (*subject == '[' && strchr(subject, ']'))
		subject = strchr(subject, ']') + 1 + (strchr(subject, ']')[1] == ' ');
	t = (time_t)(f->commit_time + rm_report_zone_seconds(cfg->timezone));
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

/* ------------------------------------------------------------ identity */

char *rm_report_test_key(const char *tree, const char *branch, const struct rm_job *job,
			 const char *metric, const char *kind)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s:%s|", tree, branch);
	for (i = 0; i < job->naxes; i++)
		if (strcmp(job->axes[i].key, "commit"))
			rm_sb_addf(&sb, "%s=%s/", job->axes[i].key, job->axes[i].value);
	rm_sb_addc(&sb, '|');
	if (metric)
		rm_sb_addf(&sb, "%s|%s", metric, kind);
	return rm_sb_detach(&sb, NULL);
}

/* Fills the report's keys: the dedupe key (tree, commit pair, test axes,
 * headline metric), its 16-hex-digit report key, the report's time, the
 * Message-ID, and the thread key (the finding, whatever the tree or base:
 * follow-ups thread on it).  Needs r->tree_name and r->branch. */
static void report_identity(struct rm_report *r, const struct rm_config *cfg, time_t now)
{
	const struct rm_report_test *t0 = &r->tests[0];
	const struct rm_job *job = &t0->head->job;
	struct rm_sb sb = RM_SB_INIT, axes = RM_SB_INIT;
	char hex[20], *suffix;
	size_t i;

	rm_sb_init(&axes);
	for (i = 0; i < job->naxes; i++)
		if (strcmp(job->axes[i].key, "commit"))
			rm_sb_addf(&axes, "%s=%s/", job->axes[i].key, job->axes[i].value);
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s:%s|%s|%s|%s|%s", r->tree_name, r->branch, t0->base->commit,
		   t0->head->commit, axes.buf, t0->headline->name);
	r->dedupe_key = rm_sb_detach(&sb, NULL);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)fnv1a(r->dedupe_key, 64));
	r->report_key = rm_xstrdup(hex);
	r->created = archive_time(t0, now);
	r->message_id = rm_report_message_id(cfg, r->dedupe_key, r->created);
	rm_sb_init(&sb);
	/* the finding, whatever the base: the tree, the tested commit, the
	 * test, the metric and its direction; follow-ups thread on it (a
	 * regression never replies to an improvement, nor one tree's report to
	 * another's) */
	suffix = rm_report_finding_suffix(t0, r->kind);
	rm_sb_addf(&sb, "%s:%s|%s%s", r->tree_name, r->branch, t0->head->commit, suffix);
	free(suffix);
	r->thread_key = rm_sb_detach(&sb, NULL);
	r->test_key = rm_report_test_key(r->tree_name, r->branch, job, t0->headline->name,
					 kind_word(r->kind));
	rm_sb_release(&axes);
}

char *rm_report_finding_suffix(const struct rm_report_test *t, enum rm_report_kind kind)
{
	const struct rm_job *job = &t->head->job;
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_init(&sb);
	rm_sb_addc(&sb, '|');
	for (i = 0; i < job->naxes; i++)
		if (strcmp(job->axes[i].key, "commit"))
			rm_sb_addf(&sb, "%s=%s/", job->axes[i].key, job->axes[i].value);
	rm_sb_addf(&sb, "|%s|%s", t->headline->name, kind_word(kind));
	return rm_sb_detach(&sb, NULL);
}

char *rm_report_where(const struct rm_config *cfg, const char *job_branch, bool *known)
{
	const struct rm_tree_cfg *tree = job_branch ? rm_config_tree_for_branch(cfg, job_branch) : NULL;
	struct rm_sb sb = RM_SB_INIT;

	if (known)
		*known = tree != NULL;
	if (!job_branch)
		return NULL;
	rm_sb_init(&sb);
	if (tree)
		rm_sb_addf(&sb, "%s/%s", tree->name, tree->branch);
	else
		rm_sb_adds(&sb, job_branch);
	return rm_sb_detach(&sb, NULL);
}

int rm_report_thread_key_split(const char *key, const char *suffix, char **branch, char **commit)
{
	size_t kl = strlen(key), sl = strlen(suffix), hl;
	const char *bar, *colon;

	*branch = *commit = NULL;
	if (kl <= sl || strcmp(key + kl - sl, suffix))
		return -1;
	/* "<tree>:<branch>|<head>": the head is the text after the last '|'
	 * before the suffix, the tree the text before the first ':' */
	for (bar = key + kl - sl; bar > key && bar[-1] != '|'; bar--)
		;
	hl = (size_t)(key + kl - sl - bar);
	colon = strchr(key, ':');
	if (bar == key || !colon || colon >= bar - 1 || hl == 0)
		return -1;
	*branch = rm_xstrndup(key, (size_t)(bar - 1 - key));
	(*branch)[colon - key] = '/';
	*commit = rm_xstrndup(bar, hl);
	return 0;
}

void rm_report_add_seen(struct rm_report *r, const char *where, const char *commit)
{
	rm_report_add_seen_at(r, where, commit, 0);
}

void rm_report_add_seen_at(struct rm_report *r, const char *where, const char *commit,
			   long long commit_time)
{
	size_t i;

	for (i = 0; i < r->nseen; i++)
		if (!strcmp(r->seen[i].commit, commit))
			return;
	for (i = 0; i < r->nseen; i++) {
		struct rm_report_seen *s = &r->seen[i];

		if (strcmp(s->where, where))
			continue;
		if (commit_time > 0 && s->commit_time > 0 && commit_time > s->commit_time) {
			free(s->commit);
			s->commit = rm_xstrdup(commit);
			s->commit_time = commit_time;
		}
		return;
	}
	r->seen = rm_xrealloc(r->seen, (r->nseen + 1) * sizeof(*r->seen));
	r->seen[r->nseen].where = rm_xstrdup(where);
	r->seen[r->nseen].commit = rm_xstrdup(commit);
	r->seen[r->nseen].commit_time = commit_time;
	r->nseen++;
}

/* ------------------------------------------------------------ template variables */

/* The variables every report provides to templates/ (the only names a
 * template may use; check-config renders the templates against this table).
 * report.c sets each through set_var()/list_var(), by these indices, so the
 * table cannot drift from what is really provided: build checks that every
 * one was set. */
enum {
	V_PREAMBLE, V_PATCH_LINK, V_PATCH_SUBJECT, V_PATCH_URL, V_PATCH_BASE, V_PCT, V_KIND, V_METRIC,
	V_IS_REGRESSION, V_COMMIT_SHA, V_COMMIT_SUBJECT, V_TREE_URL, V_TREE_BRANCH, V_BRACKETS,
	V_HAS_BRACKETS, V_TESTCASE, V_PARAM_BLOCK, V_VERSION, V_KCONFIG, V_COMPILER, V_MACHINE,
	V_PARAMS, V_IN_ADDITION, V_REPORTED_BY, V_CLOSES_URL, V_ARCHIVE_URL, V_FAILURE, V_DETAILS,
	V_BOOT_TABLE, V_EXCERPT, V_CONFIG_LINE, V_ROBOT_NAME, V_DISCLAIMER, V_SIGNATURE, V_HAS_DETAILS,
	V_WIDE_GAP, V_COUNT
};

static const char *const param_items[] = { "key", "value", NULL };
static const char *const bracket_items[] = { "line", NULL };
static const char *const detail_items[] = { "table", "additional", "tbox_group", "machine", NULL };
enum { P_KEY, P_VALUE };
enum { B_LINE };
enum { D_TABLE, D_ADDITIONAL, D_TBOX_GROUP, D_MACHINE };

const struct rm_report_var rm_report_vars[] = {
	[V_PREAMBLE] = { "preamble", NULL },
	[V_PATCH_LINK] = { "patch_link", NULL },
	[V_PATCH_SUBJECT] = { "patch_subject", NULL },
	[V_PATCH_URL] = { "patch_url", NULL },
	[V_PATCH_BASE] = { "patch_base", NULL },
	[V_PCT] = { "pct", NULL },
	[V_KIND] = { "kind", NULL },
	[V_METRIC] = { "metric", NULL },
	[V_IS_REGRESSION] = { "is_regression", NULL },
	[V_COMMIT_SHA] = { "commit_sha", NULL },
	[V_COMMIT_SUBJECT] = { "commit_subject", NULL },
	[V_TREE_URL] = { "tree_url", NULL },
	[V_TREE_BRANCH] = { "tree_branch", NULL },
	[V_BRACKETS] = { "brackets", bracket_items },
	[V_HAS_BRACKETS] = { "has_brackets", NULL },
	[V_TESTCASE] = { "testcase", NULL },
	[V_PARAM_BLOCK] = { "param_block", NULL },
	[V_VERSION] = { "version", NULL },
	[V_KCONFIG] = { "kconfig", NULL },
	[V_COMPILER] = { "compiler", NULL },
	[V_MACHINE] = { "machine", NULL },
	[V_PARAMS] = { "params", param_items },
	[V_IN_ADDITION] = { "in_addition", NULL },
	[V_REPORTED_BY] = { "reported_by", NULL },
	[V_CLOSES_URL] = { "closes_url", NULL },
	[V_ARCHIVE_URL] = { "archive_url", NULL },
	[V_FAILURE] = { "failure", NULL },
	[V_DETAILS] = { "details", detail_items },
	[V_BOOT_TABLE] = { "boot_table", NULL },
	[V_EXCERPT] = { "excerpt", NULL },
	[V_CONFIG_LINE] = { "config_line", NULL },
	[V_ROBOT_NAME] = { "robot_name", NULL },
	[V_DISCLAIMER] = { "disclaimer", NULL },
	[V_SIGNATURE] = { "signature", NULL },
	[V_HAS_DETAILS] = { "has_details", NULL },
	[V_WIDE_GAP] = { "wide_gap", NULL },
};
const size_t rm_report_nvars = V_COUNT;

/* The template data being filled, and which variables are set so far. */
struct vars {
	struct rm_tdata *d;
	unsigned char set[V_COUNT];
};

static void set_var(struct vars *v, int which, const char *value)
{
	rm_tdata_set(v->d, rm_report_vars[which].name, value);
	v->set[which] = 1;
}

/* set_var() with a printf format */
#define set_varf(v, which, ...) \
	((void)rm_tdata_setf((v)->d, rm_report_vars[which].name, __VA_ARGS__), (v)->set[which] = 1)

/* Make a list variable (empty); items are added with add_item(). */
static void list_var(struct vars *v, int which)
{
	rm_tdata_list(v->d, rm_report_vars[which].name);
	v->set[which] = 1;
}

static struct rm_tdata *add_item(struct vars *v, int which)
{
	return rm_tdata_add(v->d, rm_report_vars[which].name);
}

static void set_item(struct rm_tdata *item, int list, int field, const char *value)
{
	rm_tdata_set(item, rm_report_vars[list].items[field], value);
}

static size_t add_brackets(struct vars *v, const struct rm_config *cfg, const struct rm_report *r)
{
	const struct rm_report_test *t0 = &r->tests[0];
	enum rm_report_kind kind = r->kind;
	char **names = rm_xcalloc(t0->nalso + 1, sizeof(char *));
	size_t i, n = 0, w = 0;

	for (i = 0; i < t0->nalso; i++) {
		const struct rm_comparison *c = &t0->also_cmp[i];
		const char *b = rm_job_field(&t0->also[i]->job, "branch");
		size_t j;

		if (!b)
			continue;
		for (j = 0; j < c->n && !names[i]; j++) {
			const struct rm_row *row = &c->rows[j];

			if (strcmp(row->name, t0->headline->name))
				continue;
			if (kind == RM_REPORT_FUNCTIONAL ? !(row->reproduction > 0) :
			    (row->change < 0) != (t0->headline->change < 0))
				continue;
			names[i] = rm_report_where(cfg, b, NULL);
			if (strlen(names[i]) > w)
				w = strlen(names[i]);
		}
	}
	/* then the heads of other archives of the run and of earlier reports
	 * (the caller found them: rm_report_add_seen), a tree or a commit
	 * already printed not again */
	bool *dup = rm_xcalloc(r->nseen + 1, sizeof(bool));

	for (i = 0; i < r->nseen; i++) {
		size_t j;

		for (j = 0; j < t0->nalso && !dup[i]; j++)
			dup[i] = names[j] && (!strcmp(names[j], r->seen[i].where) ||
					      !strcmp(t0->also[j]->commit, r->seen[i].commit));
		if (!dup[i] && strlen(r->seen[i].where) > w)
			w = strlen(r->seen[i].where);
	}
	for (i = 0; i < t0->nalso; i++) {
		if (!names[i])
			continue;
		if (kind == RM_REPORT_FUNCTIONAL)
			rm_tdata_setf(add_item(v, V_BRACKETS), bracket_items[B_LINE], "[test failed on %-*s %s]",
				      (int)w, names[i], t0->also[i]->commit);
		else
			rm_tdata_setf(add_item(v, V_BRACKETS), bracket_items[B_LINE], "[still %s on %-*s %s]",
				      kind_word(kind), (int)w, names[i], t0->also[i]->commit);
		n++;
	}
	for (i = 0; i < r->nseen; i++) {
		if (dup[i])
			continue;
		rm_tdata_setf(add_item(v, V_BRACKETS), bracket_items[B_LINE], "[%s on %-*s %s]",
			      kind == RM_REPORT_FUNCTIONAL ? "test failed" :
			      kind == RM_REPORT_REGRESSION ? "still regression" : "still improvement",
			      (int)w, r->seen[i].where, r->seen[i].commit);
		n++;
	}
	for (i = 0; i < t0->nalso; i++)
		free(names[i]);
	free(names);
	free(dup);
	return n;
}

struct rm_tdata *rm_report_sample_vars(bool filled)
{
	struct rm_tdata *d = rm_tdata_new();
	size_t i, k;

	for (i = 0; i < rm_report_nvars; i++) {
		const struct rm_report_var *v = &rm_report_vars[i];

		if (!v->items) {
			rm_tdata_set(d, v->name, filled ? "x" : "");
			continue;
		}
		rm_tdata_list(d, v->name);
		if (filled) {
			struct rm_tdata *it = rm_tdata_add(d, v->name);

			for (k = 0; v->items[k]; k++)
				rm_tdata_set(it, v->items[k], "x");
		}
	}
	return d;
}

/* ------------------------------------------------------------ build */

/* The tree of the report: from the configuration, else from the job's
 * branch (held: the tree is not configured). */
static void report_tree(struct rm_report *r, const struct rm_config *cfg, const struct rm_tree_cfg *tree,
			const char *branch)
{
	if (tree) {
		r->tree_name = rm_xstrdup(tree->name);
		r->branch = rm_xstrdup(tree->branch);
		r->tree_url = rm_xstrdup(tree->url);
	} else {
		static const char *const policy[] = { "skip", "hold", "fail" };
		struct rm_sb why = RM_SB_INIT;

		if (branch && strchr(branch, '/')) {
			r->tree_name = rm_xstrndup(branch, (size_t)(strchr(branch, '/') - branch));
			r->branch = rm_xstrdup(strchr(branch, '/') + 1);
		} else {
			r->tree_name = rm_xstrdup(branch ? branch : "unknown");
			r->branch = rm_xstrdup("unknown");
		}
		/* what happens follows unknown_branch:, and the words name the branch */
		rm_sb_init(&why);
		if (branch)
			rm_sb_addf(&why, "no tree in the configuration names the job's branch '%s'", branch);
		else
			rm_sb_adds(&why, "the job names no branch, so no tree in the configuration matches");
		rm_sb_addf(&why, " (unknown_branch: %s)", policy[cfg->unknown_branch]);
		rm_error_scrub(why.buf);
		if (cfg->unknown_branch == RM_UNKNOWN_BRANCH_HOLD)
			hold(r, why.buf);
		else if (cfg->unknown_branch == RM_UNKNOWN_BRANCH_FAIL)
			refuse(r, rm_xstrdup(why.buf));
		else if (!r->skip_reason)
			r->skip_reason = rm_xstrdup(why.buf);
		rm_sb_release(&why);
	}
}

/* Refuses (bad input) or holds (missing facts) the report when what it
 * needs is missing. */
static void report_check(struct rm_report *r, const struct rm_config *cfg,
			 const struct rm_tree_cfg *tree, const char *head_subject,
			 const char *base_subject)
{
	const struct rm_report_test *t0 = &r->tests[0];
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

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

			if (v && *v)
				continue;
			rm_sb_init(&sb);
			rm_sb_addf(&sb, "'%s/%d/job.yaml': no '%s' field", r->tests[i].head->path,
				   r->tests[i].head->nruns ? r->tests[i].head->runs[0] : 0, need[k]);
			refuse(r, rm_sb_detach(&sb, NULL));
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
}

/* The headline's words: r->metric and r->pct. */
static void report_headline(struct rm_report *r)
{
	const struct rm_report_test *t0 = &r->tests[0];

	if (r->kind == RM_REPORT_FUNCTIONAL) {
		char pct[32];

		r->metric = rm_xstrdup(failure_id(t0->headline->name));
		snprintf(pct, sizeof(pct), "%.0f", t0->pct); /* a failure rate: 0..100 */
		r->pct = rm_xstrdup(pct);
	} else {
		r->metric = rm_xstrdup(t0->headline->name);
		r->pct = fmt_pct(t0->pct);
	}
}

/* The subject: "[tree:branch] [subsys] sha10: metric N.N% regression" (or
 * the failure id); a report on a mailing-list patch replies to the patch
 * mail: "Re: " + the patch mail's subject (else the commit's), and the
 * patch variables are set (empty for a branch report). */
static void report_subject(struct rm_report *r, const struct rm_config *cfg,
			   const struct rm_tree_cfg *tree, const char *head_subject, struct vars *v)
{
	const struct rm_report_test *t0 = &r->tests[0];
	struct rm_sb sb = RM_SB_INIT;
	char *subsys = subsystem(head_subject), *hs10 = sha10(t0->head->commit);

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
	if (tree && tree->patches && r->head_facts && r->head_facts->patch_msgid) {
		/* the patch mail's own subject ("[PATCH v2 1/3] ...") when it was
		 * found, else the commit's; the message stage makes it "Re: " */
		const char *ps = r->patch && r->patch->subject ? r->patch->subject : head_subject;
		char *url = patch_branch_url(cfg, &t0->head->job, r->head_facts, ps);

		r->patch_msgid = rm_xstrdup(r->head_facts->patch_msgid);
		free(r->subject);
		r->subject = rm_xstrdup(ps ? ps : "");
		set_varf(v, V_PATCH_LINK, "%s/%s/", cfg->patch_link_base, r->patch_msgid);
		set_var(v, V_PATCH_SUBJECT, ps);
		/* the commit: line names the patch by its raw mail subject */
		set_var(v, V_COMMIT_SUBJECT, ps ? ps : "");
		set_var(v, V_PATCH_URL, url);
		free(url);
		/* "base: <tree-url> <branch-or-sha40>": what the series was
		 * applied on.  The submitter's base (git format-patch --base:
		 * base-commit: in the patch mail or its cover letter) when it
		 * names one (report-format.md 3 item 4), else the branch of the
		 * tree the robot applied it to (the report's tree).  With
		 * robot.patch_base: guessed (the 0-day profile) a series that
		 * names its base gets no base: line: so the robot's published
		 * reports on such series read (tests/data 2421, and 2025-03,
		 * 2025-07, 2023-12 reports named in its README) */
		if (!r->patch || !r->patch->base_commit)
			set_var(v, V_PATCH_BASE, r->branch);
		else
			set_var(v, V_PATCH_BASE, cfg->patch_base_guessed ? "" : r->patch->base_commit);
	} else {
		set_var(v, V_PATCH_LINK, "");
		set_var(v, V_PATCH_SUBJECT, "");
		set_var(v, V_PATCH_URL, "");
		set_var(v, V_PATCH_BASE, "");
	}
}

/* Runs of a root in which the stat `name` happened (value > 0). */
static long runs_with(const struct rm_result_root *root, const char *name)
{
	const struct rm_series *s = rm_matrix_get(&root->all, name);
	long n = 0;
	size_t i;

	for (i = 0; s && !s->is_bad && !s->is_string && i < s->n; i++)
		n += s->v[i] > 0;
	return n;
}

struct boot_id {
	const char *name;
	double t;
};

/* Where an id's line comes in the report the kernel prints for one crash:
 * die() prints "Oops: ...", then the registers ("RIP: ..."/"EIP: ..."),
 * then the call trace, and panic() comes last; other messages between. */
static int crash_order(const char *name)
{
	const char *id = strchr(name, '.') ? strchr(name, '.') + 1 : name;

	if (!strncmp(id, "Oops", 4))
		return 0;
	if (!strncmp(id, "RIP:", 4) || !strncmp(id, "EIP:", 4))
		return 1;
	if (!strncmp(id, "calltrace:", 10))
		return 2;
	if (!strncmp(id, "Kernel_panic", 12))
		return 4;
	return 3;
}

/* By the time first printed; ids printed in the same microsecond (one
 * crash report) in the order the kernel prints the parts of a crash, then
 * by name. */
static int cmp_boot_id(const void *a, const void *b)
{
	const struct boot_id *x = a, *y = b;

	if ((x->t < 0) != (y->t < 0))
		return x->t < 0 ? 1 : -1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (crash_order(x->name) != crash_order(y->name))
		return crash_order(x->name) - crash_order(y->name);
	return strcmp(x->name, y->name);
}

/* The boot/dmesg table of a functional report whose headline is a
 * kernel-log id (report-format.md 6.2): boot_successes and boot_failures
 * when the runs count boots, the headline id, then the other kernel-log
 * ids of the tested commit in the order they were first printed; each
 * without its "dmesg." prefix, counted in runs.  NULL for another
 * headline.  The caller frees it. */
static char *boot_table(const struct rm_report_test *t)
{
	const struct rm_result_root *rt[2] = { t->base, t->head };
	const char *pfx = !strncmp(t->headline->name, "kmsg.", 5) ? "kmsg." : "dmesg.";
	struct rm_table_boot_row *rows;
	struct boot_id *ids;
	struct rm_sb sb = RM_SB_INIT, bf = RM_SB_INIT;
	size_t i, n = 0, nids = 0, k;

	if (!is_log_id(t->headline->name))
		return NULL;
	rows = rm_xcalloc(t->cmp.nfailure + 3, sizeof(*rows));
	ids = rm_xcalloc(t->cmp.nfailure + 1, sizeof(*ids));
	rm_sb_init(&bf);
	rm_sb_addf(&bf, "%sboot_failures", pfx);
	if (rm_matrix_get(&t->base->all, bf.buf) || rm_matrix_get(&t->head->all, bf.buf)) {
		rows[n].name = "boot_successes";
		rows[n + 1].name = "boot_failures";
		for (k = 0; k < 2; k++) {
			rows[n + 1].count[k] = runs_with(rt[k], bf.buf);
			rows[n].count[k] = (long)rt[k]->all.cols - rows[n + 1].count[k];
		}
		n += 2;
	}
	for (i = 0; i < t->cmp.nfailure; i++) {
		const struct rm_row *r = &t->cmp.rows[i];

		if (r == t->headline || !is_log_id(r->name) || strncmp(r->name, pfx, strlen(pfx)) ||
		    !(r->fails[1] > 0))
			continue;
		ids[nids].name = r->name;
		ids[nids++].t = rm_report_log_time(t->head, r->name);
	}
	rm_sort(ids, nids, sizeof(*ids), cmp_boot_id);
	rows[n].name = failure_id(t->headline->name);
	for (k = 0; k < 2; k++)
		rows[n].count[k] = runs_with(rt[k], t->headline->name);
	n++;
	for (i = 0; i < nids; i++, n++) {
		rows[n].name = failure_id(ids[i].name);
		for (k = 0; k < 2; k++)
			rows[n].count[k] = runs_with(rt[k], ids[i].name);
	}
	rm_sb_init(&sb);
	rm_table_render_boot(&sb, t->base->commit, t->head->commit, rows, n);
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	free(rows);
	free(ids);
	rm_sb_release(&bf);
	return rm_sb_detach(&sb, NULL);
}

/* The evidence of the headline test as the report prints it: the log
 * excerpt (without its last newline), or one line saying why there is
 * none.  NULL when no log was looked for.  The caller frees it. */
static char *excerpt_text(const struct rm_report_test *t)
{
	const struct rm_evidence *e = &t->evidence;
	struct rm_sb sb = RM_SB_INIT;

	if (!e->excerpt && !e->problem)
		return NULL;
	rm_sb_init(&sb);
	if (e->excerpt) {
		rm_sb_adds(&sb, e->excerpt);
		if (sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = '\0';
		if (e->capped)
			rm_sb_addf(&sb, "\n(excerpt cut at the configured limit; the whole log is %s)",
				   e->file ? e->file : "in the materials");
		/* a log read only to its cap (evidence.h): the excerpt may end
		 * before the trace does */
		if (e->cut)
			rm_sb_addf(&sb, "\n(%s was read only to its first %llu MiB, the cap on one log; the excerpt may be incomplete)",
				   e->file ? e->file : "the log", e->bytes >> 20);
		/* the robot leaves one blank line more after a test's output
		 * than after a kernel-log excerpt (two): the five published
		 * kernel-log reports of tests/data/24xx against the kselftest
		 * and LTP ones */
		if (!is_log_id(t->headline->name))
			rm_sb_addc(&sb, '\n');
	} else {
		rm_sb_addf(&sb, "(no %s excerpt: %s)", is_log_id(t->headline->name) ? "kernel log" : "test output",
			   e->problem);
	}
	return rm_sb_detach(&sb, NULL);
}

/* 2025-01-01 00:00:00 UTC */
#define CONFIG_LINE_SINCE ((time_t)1735689600)
/* Performance reports print "config:" and "compiler:" since a day between
 * 2024-08-08 (the last report seen without them: tests/data 2423's of
 * 2024-08-06, and <3577dbb192> of 2024-08-08) and 2024-11-07 (the first seen
 * with them, on d4148aeab4): the first day seen, 2024-11-07 00:00:00 UTC */
#define PERF_CONFIG_LINE_SINCE ((time_t)1730937600)
/* Improvements without "In addition" printed six blank lines after the
 * parameters (four more than now) until a day between 2025-02-17 (the last
 * seen, on e38e699a42) and 2025-07-31 (the first seen with two, on
 * 36df6e3dbd): the first day seen, 2025-07-31 00:00:00 UTC */
#define PERF_NARROW_GAP_SINCE ((time_t)1753920000)

/* The template variables of the body (all but the patch ones, which
 * report_subject() sets). */
static void report_vars(struct rm_report *r, const struct rm_config *cfg, const char *head_subject,
			const char *base_subject, struct vars *v)
{
	const struct rm_report_test *t0 = &r->tests[0];
	const struct rm_job *job = &t0->head->job;
	const char *tc = rm_job_field(job, "testcase");
	bool no_details;
	size_t i;
	char *m;

	/* the operator's note: its own line ends, no trailing blank lines
	 * (the templates place the blank lines after it) */
	if (r->preamble) {
		struct rm_sb pb = RM_SB_INIT;
		const char *q;

		rm_sb_init(&pb);
		for (q = r->preamble; *q; q++)
			if (*q != '\r')
				rm_sb_addc(&pb, *q);
		while (pb.len && (pb.buf[pb.len - 1] == '\n' || pb.buf[pb.len - 1] == ' ' ||
				  pb.buf[pb.len - 1] == '\t'))
			pb.buf[--pb.len] = '\0';
		set_var(v, V_PREAMBLE, pb.buf);
		rm_sb_release(&pb);
	} else {
		set_var(v, V_PREAMBLE, "");
	}
	set_var(v, V_PCT, r->pct);
	set_var(v, V_KIND, kind_word(r->kind));
	set_var(v, V_METRIC, r->metric);
	set_var(v, V_IS_REGRESSION, r->kind != RM_REPORT_IMPROVEMENT ? "yes" : "");
	set_var(v, V_COMMIT_SHA, t0->head->commit);
	if (!v->set[V_COMMIT_SUBJECT])
		set_var(v, V_COMMIT_SUBJECT, head_subject ? head_subject : "");
	set_var(v, V_TREE_URL, r->tree_url ? r->tree_url : "");
	set_var(v, V_TREE_BRANCH, r->branch);
	list_var(v, V_BRACKETS);
	/* functional reports print the blank before the bracket lines only
	 * when there are some (report-format.md section 4 item 4) */
	set_var(v, V_HAS_BRACKETS, add_brackets(v, cfg, r) ? "yes" : "");
	set_var(v, V_TESTCASE, tc);
	/* functional reports on a boot test have no version and parameters
	 * block (report-format.md section 4 item 5) */
	set_var(v, V_PARAM_BLOCK, tc && !strcmp(tc, "boot") ? "" : "yes");
	/* "version: <testsuite-version>" of functional reports, empty when
	 * unknown (report-format.md section 4 item 5): the job's `version`
	 * field, the only version a job.yaml carries (archive-format.md 1.6,
	 * appended after the run by lkp-tests' bin/run-lkp) */
	set_var(v, V_VERSION, rm_job_field(job, "version"));
	set_var(v, V_KCONFIG, rm_job_field(job, "kconfig"));
	/* functional boot reports print "config:" only since 2025
	 * (report-format.md section 4 item 6): by the report's time */
	set_var(v, V_CONFIG_LINE, (r->kind == RM_REPORT_FUNCTIONAL && tc && !strcmp(tc, "boot") &&
				   r->created < CONFIG_LINE_SINCE) ||
					  (r->kind != RM_REPORT_FUNCTIONAL && r->created < PERF_CONFIG_LINE_SINCE)
				  ? ""
				  : "yes");
	set_var(v, V_COMPILER, rm_job_axis(job, "compiler"));
	m = rm_hosts_machine_line(job);
	set_var(v, V_MACHINE, m);
	free(m);
	list_var(v, V_PARAMS);
	for (i = 0; i < job->nparams; i++) {
		struct rm_tdata *p;

		if (!job->params[i].value)
			continue;
		p = add_item(v, V_PARAMS);
		set_item(p, V_PARAMS, P_KEY, job->params[i].key);
		set_item(p, V_PARAMS, P_VALUE, job->params[i].value);
	}
	/* only performance reports have the table (a report's tests are all
	 * functional or all performance: rm_report_same_report) */
	if (r->ntests > 1 && r->kind != RM_REPORT_FUNCTIONAL) {
		char *tbl = addition_table(r);

		set_var(v, V_IN_ADDITION, tbl);
		free(tbl);
	} else {
		set_var(v, V_IN_ADDITION, "");
	}
	set_var(v, V_WIDE_GAP, r->kind == RM_REPORT_IMPROVEMENT && r->ntests == 1 &&
				       r->created < PERF_NARROW_GAP_SINCE ? "yes" : "");
	/* identity, links, disclaimer and signature: all from the configuration */
	set_var(v, V_ROBOT_NAME, cfg->robot_name);
	set_varf(v, V_REPORTED_BY, "%s <%s>", cfg->robot_name ? cfg->robot_name : "",
		 cfg->robot_address ? cfg->robot_address : "");
	if (cfg->lore_base)
		set_varf(v, V_CLOSES_URL, "%s/%s", cfg->lore_base, r->message_id);
	else
		set_var(v, V_CLOSES_URL, "");
	if (cfg->archive_base)
		set_varf(v, V_ARCHIVE_URL, "%s/%.8s/%s", cfg->archive_base, r->message_id,
			 r->message_id);
	else
		set_var(v, V_ARCHIVE_URL, "");
	set_var(v, V_DISCLAIMER, cfg->disclaimer);
	set_var(v, V_SIGNATURE, cfg->signature);
	set_var(v, V_FAILURE, r->kind == RM_REPORT_FUNCTIONAL ? r->metric : "");
	{
		char *bt = r->kind == RM_REPORT_FUNCTIONAL ? boot_table(t0) : NULL;
		char *ex = r->kind == RM_REPORT_FUNCTIONAL ? excerpt_text(t0) : NULL;

		set_var(v, V_BOOT_TABLE, bt);
		set_var(v, V_EXCERPT, ex);
		free(bt);
		free(ex);
	}
	list_var(v, V_DETAILS);
	/* A test's own failure quoted from its output (the excerpt is the
	 * evidence) carries no fail:runs table: none of the published kselftest
	 * and LTP reports (tests/data 2405, 2411, and the LTP reports read for
	 * them) has one but in an operator's note (report-format.md 6.4:
	 * "hand-assembled").  Without the output the table stays. */
	no_details = r->kind == RM_REPORT_FUNCTIONAL && !is_log_id(t0->headline->name) &&
		     t0->evidence.excerpt;
	set_var(v, V_HAS_DETAILS, no_details ? "" : "yes");
	for (i = 0; i < r->ntests && !no_details; i++) {
		const struct rm_report_test *t = &r->tests[i];
		struct rm_tdata *det = add_item(v, V_DETAILS);
		struct rm_table_commit bc = { t->base->commit, base_subject };
		struct rm_table_commit hc = { t->head->commit, head_subject };
		struct rm_sb tb = RM_SB_INIT;

		rm_sb_init(&tb);
		rm_table_render_style(&tb, &t->head->job, &bc, &hc, &t->cmp,
				      r->kind == RM_REPORT_FUNCTIONAL ? RM_TABLE_FUNCTIONAL :
									RM_TABLE_NCOMPARE);
		set_item(det, V_DETAILS, D_TABLE, tb.buf);
		rm_sb_release(&tb);
		set_item(det, V_DETAILS, D_ADDITIONAL, i ? "yes" : "");
		set_item(det, V_DETAILS, D_TBOX_GROUP, rm_job_field(&t->head->job, "tbox_group"));
		m = rm_hosts_machine_line(&t->head->job);
		set_item(det, V_DETAILS, D_MACHINE, m);
		free(m);
	}
}

int rm_report_build(struct rm_report *r, const struct rm_config *cfg, const char *templates_dir,
		    time_t now, struct rm_error *err)
{
	const char *branch = rm_job_field(&r->tests[0].head->job, "branch");
	const struct rm_tree_cfg *tree = rm_config_tree_for_branch(cfg, branch);
	char *head_subject = subject_of(r->head_facts);
	char *base_subject = subject_of(r->base_facts);
	struct vars v;
	struct rm_sb body = RM_SB_INIT;
	size_t i;
	int rc = 0;

	memset(&v, 0, sizeof(v));
	v.d = rm_tdata_new();
	r->kind = r->tests[0].kind;
	report_tree(r, cfg, tree, branch);
	report_check(r, cfg, tree, head_subject, base_subject);
	report_headline(r);
	report_identity(r, cfg, now);
	report_subject(r, cfg, tree, head_subject, &v);
	report_vars(r, cfg, head_subject, base_subject, &v);
	for (i = 0; i < V_COUNT && !rc; i++)
		if (!v.set[i])
			rc = rm_error_set(err, RM_ERR_INTERNAL,
					  "report: template variable '%s' was not set",
					  rm_report_vars[i].name);
	rm_sb_init(&body);
	if (!rc)
		rc = rm_template_render(templates_dir,
					r->kind == RM_REPORT_FUNCTIONAL ? "functional.txt" : "perf.txt",
					v.d, &body, err);
	rm_tdata_free(v.d);
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
	free(r->test_key);
	free(r->patch_msgid);
	free(r->bad_reason);
	free(r->message_id);
	free(r->body);
	free(r->hold_reason);
	free(r->preamble);
	free(r->skip_reason);
	for (i = 0; i < r->nseen; i++) {
		free(r->seen[i].where);
		free(r->seen[i].commit);
	}
	free(r->seen);
	free(r->seen_roots);
	memset(r, 0, sizeof(*r));
}
