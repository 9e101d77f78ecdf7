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
 * Must not: build headers or send.
 */
#ifndef RM_RECIPIENTS_H
#define RM_RECIPIENTS_H

#include <stddef.h>

#include "commit.h"
#include "config.h"
#include "message.h"
#include "patchmail.h"

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
};

/* Fill r; err is set (and -1 returned) only when the MAINTAINERS or opt-out
 * file cannot be read. */
int rm_recipients_build(struct rm_recipients *r, const struct rm_recipients_in *in,
			struct rm_error *err);
void rm_recipients_free(struct rm_recipients *r);

#endif
