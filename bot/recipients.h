/*
 * recipients.h - who gets a report, and who asked not to.
 *
 * Owns: the recipient list of a report, built from these sources in this
 * order (which is also the order the cap keeps them):
 *   To   the commit author (or the tree's mail_to when the author is unknown)
 *   Cc   the robot's always-copied lists; the tree's mail_cc; the
 *        per-subsystem rules (PCRE2 on the subject prefix, the changed paths
 *        or the testcase); the MAINTAINERS file (F:/X:/N: patterns of the
 *        changed paths to M:/R:/L: entries, at most maintainers_cap); the
 *        people in the commit's trailers (Signed-off-by, Reviewed-by,
 *        Acked-by, Cc; configurable); when replying to a patch, the patch
 *        mail's own To and Cc; the robot itself, last.
 * Every address goes through the strict parser of address.h (display
 * names kept as text, never parsed for an address; the author's address is
 * its own field, never cut out of "Name <addr>"); a fact that fails is left
 * out with a reason naming the field and the commit, never repaired;
 * duplicates are removed case-insensitively (the
 * first keeps its place), the opt-out file (addresses, and /regex/ lines
 * matched case-insensitively) is applied last to every source, and
 * recipients beyond `max` are dropped from the end of the Cc list (the
 * robot's own copy is kept).  Every address left out is reported with its
 * reason.
 * Also owns the recipients context of a run (struct rm_recipients_ctx):
 * the per-subsystem rules compiled once, the MAINTAINERS file parsed once
 * and the opt-out file read once (each file the first time a report needs
 * it, so that a run that never needs one never reads it, and a failure to
 * read one fails each report that needs it, with the same error, as when
 * every report read the files).
 * Must not: build headers or send.
 */
#ifndef RM_RECIPIENTS_H
#define RM_RECIPIENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "commit.h"
#include "config.h"
#include "message.h"
#include "patchmail.h"
#include "store.h"

struct rm_recipients {
	struct rm_address *to;
	size_t nto;
	struct rm_address *cc;
	size_t ncc;
	char **dropped;   /* "addr: reason" for each address left out */
	size_t ndropped;
	char **invalid;   /* those of `dropped` that are commit facts failing the
			   * address rule (address.h): the caller warns of each,
			   * verbose or not, as they name the commit and field */
	size_t ninvalid;
};

struct rm_recipients_in {
	const struct rm_config *cfg;
	const struct rm_tree_cfg *tree;       /* may be NULL */
	const struct rm_commit_facts *head;   /* may be NULL */
	const char *testcase;                 /* may be NULL */
	const struct rm_patch_mail *patch;    /* replying to a patch: its To/Cc, may be NULL */
	const char *override;                 /* --to: replaces everyone */
	struct rm_recipients_ctx *ctx;        /* the run's context (opened with
					       * the same cfg), or NULL: one for
					       * this call alone */
};

/* What does not change from report to report of a run.  Opened by the
 * pipeline once per run; used by one thread at a time (the rules' match
 * data live here). */
struct rm_recipients_ctx {
	const struct rm_config *cfg;          /* borrowed: outlives the context */
	struct pcre2_real_code_8 **rules;     /* cfg->rules[i] compiled, NULL if
					       * it does not compile */
	struct pcre2_real_match_data_8 **rules_md;
	bool optout_loaded;
	char **optout;                        /* exact addresses */
	size_t noptout;
	struct pcre2_real_code_8 **optre;     /* /regex/ lines of the opt-out file */
	char **optre_text;
	size_t noptre;
	bool maint_loaded;
	struct rm_recipients_section *maint;          /* the MAINTAINERS file's sections */
	size_t nmaint;
	unsigned compiled;                    /* patterns compiled, files read: */
	unsigned reads;                       /* counted for the tests */
};

/* Open ctx for cfg (borrowed; it must outlive ctx): compile the rules.  A
 * rule that does not compile is left out (config.c checks them when the
 * configuration is loaded).  Cannot fail; everything ctx holds is owned by
 * it until rm_recipients_ctx_close(). */
void rm_recipients_ctx_open(struct rm_recipients_ctx *ctx, const struct rm_config *cfg);
/* Free everything ctx holds (a zeroed ctx is left alone). */
void rm_recipients_ctx_close(struct rm_recipients_ctx *ctx);

/* Fill r (owned by the caller: rm_recipients_free()); err is set (and -1
 * returned) only when the MAINTAINERS or opt-out file cannot be read. */
int rm_recipients_build(struct rm_recipients *r, const struct rm_recipients_in *in,
			struct rm_error *err);
void rm_recipients_free(struct rm_recipients *r);

/* The operator's opt-out file works in rm_recipients_build(); the opt-outs
 * asked for by mail (`#robotmail unsubscribe`, listen.c) live in the store:
 * remove every address of r opted out of `tree` (or of all), each named in
 * r->dropped; when no To is left, the first Cc becomes the To.  A NULL
 * store opts nobody out.  0, or -1 with err when the store failed. */
int rm_recipients_drop_optouts(struct rm_recipients *r, struct rm_store *st, const char *tree,
			       struct rm_error *err);

#endif
