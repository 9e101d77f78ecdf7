/*
 * report.h - deciding what to report, and the report's words.
 *
 * Owns: choosing, for each compared test, the headline (the test's own KPI
 * with a direction and the largest change; when no KPI moved, a failure new
 * in the head: the earliest first kernel message by dmesg.timestamp, else
 * the test's own id; report-format.md 4 item 2),
 * regression or improvement from the metric's direction, folding several
 * tests changed by the same commit into one report ("In addition to
 * that..." and one details section each), the subject line, the dedupe key,
 * the Message-ID (chosen before rendering, deterministic for the dedupe key
 * and the archive's time, so the body can link to itself), and the
 * template variables (the table rm_report_vars, which check-config renders
 * the templates against), the boot/dmesg table of a functional report and
 * the placement of its evidence (read by evidence.c, handed in on the
 * test); then rendering the body with template.c.  A report
 * whose required data is missing (no commit subject, no rows) is held with
 * a reason instead of rendered.  A report carries words and keys only:
 * the mail's recipients, threading (In-Reply-To, References, "Re:") and
 * headers are the message stage's.
 *
 * Must not: build mail headers (message.c), send, look commits up (the
 * caller hands commit facts in), read archives.
 */
#ifndef RM_REPORT_H
#define RM_REPORT_H

#include <stdbool.h>
#include <time.h>

#include "archive.h"
#include "commit.h"
#include "config.h"
#include "error.h"
#include "evidence.h"
#include "patchmail.h"
#include "rules.h"
#include "stats.h"
#include "template.h"

enum rm_report_kind {
	RM_REPORT_REGRESSION,
	RM_REPORT_IMPROVEMENT,
	RM_REPORT_FUNCTIONAL,
};

/* One compared test (one group of an archive) and what it would report. */
struct rm_report_test {
	const struct rm_result_root *base, *head;
	struct rm_comparison cmp;       /* owned */
	const struct rm_row *headline;  /* the KPI row, or the failure row */
	enum rm_report_kind kind;
	double pct;                     /* |change| of the headline, for ordering */
	/* the same test on other trees' heads, compared with the same base */
	const struct rm_result_root **also;
	struct rm_comparison *also_cmp; /* owned */
	size_t nalso;
	/* the kernel-log excerpt of a functional headline (owned; filled by
	 * the caller from the archive, evidence.c), empty when not read */
	struct rm_evidence evidence;
};

/* Pick the headline of a comparison.  Takes ownership of *cmp.  Returns
 * true when the test is worth reporting (out filled), false otherwise (cmp
 * freed, out zeroed). */
bool rm_report_pick(const struct rm_rules *rules, const struct rm_result_root *base,
		    const struct rm_result_root *head, struct rm_comparison *cmp,
		    struct rm_report_test *out);
void rm_report_test_free(struct rm_report_test *t);
/* The earliest time (seconds since boot, from `<log>.timestamp:<id>` in the
 * root's matrix) at which the kernel-log id `name` ("dmesg.<id>") was first
 * printed in any run, or -1 when no run records one. */
double rm_report_log_time(const struct rm_result_root *root, const char *name);
/* Whether two picked tests go into one report: the same tested and base
 * commit on the same branch, and both performance findings or both
 * functional ones (a functional report has no "In addition to that" table,
 * whose rows are performance changes: report-format.md 4 and 6.3). */
bool rm_report_same_report(const struct rm_report_test *a, const struct rm_report_test *b);

/* Another tested head of a known tree on which the reported failure showed
 * too (a bracket line "[test failed on <where> <commit>]"). */
struct rm_report_seen {
	char *where;  /* "<tree>/<branch>", as the line prints it */
	char *commit; /* sha40 */
	long long commit_time; /* committer date, epoch seconds; 0 when unknown */
};

struct rm_report {
	enum rm_report_kind kind;
	struct rm_report_test *tests;  /* [0] is the headline test; owned */
	size_t ntests;
	char *tree_name, *branch, *tree_url;
	const struct rm_commit_facts *base_facts, *head_facts; /* borrowed, may be NULL */
	bool base_unknown, head_unknown; /* the git web API knows no such commit */
	const struct rm_patch_mail *patch; /* the patch's original mail, borrowed, may be NULL */
	char *metric;       /* headline stat, or the failure id */
	char *pct;          /* "10.5" */
	char *subject;      /* the mail Subject */
	char *dedupe_key;
	char *report_key;   /* 16 hex digits naming the dedupe key (X-Robotmail-Report) */
	char *message_id;   /* without <> */
	time_t created;     /* the report's time: the head run's end time */
	char *body;         /* rendered, LF line ends */
	char *thread_key;   /* the finding: tree, head commit, test axes, headline
			     * metric and direction; a later report with the same
			     * key follows up on the first (message.c threads it) */
	char *test_key;     /* the thread key without the commit: the same test
			     * on the same tree (the finding's values are kept
			     * under it, store.h) */
	char *patch_msgid;  /* set: the report answers this patch mail (its
			     * Message-ID, without <>); `subject` is then the
			     * patch's own subject, which the mail replies to */
	char *preamble;     /* the operator's note opening the body, or NULL (owned) */
	struct rm_report_seen *seen; /* owned: other heads with the same failure, found by
				      * the caller in other archives of the run and in
				      * the store (rm_report_add_seen); printed after
				      * the test's own `also` heads */
	size_t nseen;
	const struct rm_result_root **seen_roots; /* owned array of borrowed roots: every
				      * other archive's head of the run where the
				      * failure showed (its values go beside the
				      * finding's: the status page's plot) */
	size_t nseen_roots;
	char *hold_reason;  /* set: the report must not be sent yet (missing facts) */
	char *skip_reason;  /* set: no report at all (a branch no tree names, under
			     * unknown_branch: skip); names the branch */
	char *bad_reason;   /* set: the archive can never make this report (bad
			     * input: an unknown commit, a job without testcase
			     * or kconfig); names the file or commit at fault */
};

/* The finding's part of a thread key, whatever the tree and tested commit:
 * "|<axes but commit>|<headline id>|<kind word>" (a thread key is
 * "<tree>:<branch>|<head sha>" followed by it).  Caller frees. */
char *rm_report_finding_suffix(const struct rm_report_test *t, enum rm_report_kind kind);
/* The name a bracket line gives the tree of a job's `branch:` value: the
 * configured tree as "<name>/<branch>", else the value itself; NULL for
 * NULL.  `known` (may be NULL) says whether a configured tree matched.
 * Caller frees. */
char *rm_report_where(const struct rm_config *cfg, const char *job_branch, bool *known);
/* Split a thread key ending in `suffix` (rm_report_finding_suffix) into the
 * job-branch form of its tree ("<tree>/<branch>") and its head sha: 0 and
 * both malloc'd, or -1 when the key has another shape. */
int rm_report_thread_key_split(const char *key, const char *suffix, char **branch, char **commit);
/* Add another head where the failure showed, unless its `where` or commit is
 * there already (one line per tree).  Copies both strings. */
void rm_report_add_seen(struct rm_report *r, const char *where, const char *commit);
/* The same, keeping the newest head per tree: a head of a tree already
 * there replaces it when both commit times are known (`commit_time` > 0)
 * and it is the later; otherwise the first one added stays (the caller adds
 * the heads newest first as far as it knows: this run's archives, then the
 * store's reports latest first). */
void rm_report_add_seen_at(struct rm_report *r, const char *where, const char *commit,
			   long long commit_time);

/* Fill the report's words from its tests and commit facts, and render the
 * body from `templates_dir`.  `now` is used when the archive has no time.
 * Returns -1 (err set) on a template error; a report with missing data is
 * returned held (r->hold_reason) with 0, one that bad input makes
 * impossible with r->bad_reason set. */
int rm_report_build(struct rm_report *r, const struct rm_config *cfg, const char *templates_dir,
		    time_t now, struct rm_error *err);
void rm_report_free(struct rm_report *r);

/* The template variables a report provides (the only names templates/ may
 * use): a string, or a list whose items carry the names `items`
 * (NULL-terminated).  rm_report_build() sets every one of them. */
struct rm_report_var {
	const char *name;
	const char *const *items; /* NULL: a string */
};
extern const struct rm_report_var rm_report_vars[];
extern const size_t rm_report_nvars;
/* Template data holding every variable of rm_report_vars: with `filled`,
 * each string "x" and each list one item of "x" values; else each string
 * empty and each list empty (so that a check renders both sides of every
 * section).  The caller frees it with rm_tdata_free(). */
struct rm_tdata *rm_report_sample_vars(bool filled);

/* The test key (a report's test_key): "TREE:BRANCH|AXES|METRIC|KIND", the
 * axes of `job` but its commit; with metric NULL only "TREE:BRANCH|AXES|",
 * the start every metric's key of that test shares.  Caller frees. */
char *rm_report_test_key(const char *tree, const char *branch, const struct rm_job *job,
			 const char *metric, const char *kind);

/* Exposed for tests: the Message-ID for a dedupe key and a time. */
char *rm_report_message_id(const struct rm_config *cfg, const char *dedupe_key, time_t t);
/* Seconds east of UTC of a "+HHMM" zone. */
long rm_report_zone_seconds(const char *zone);

#endif
