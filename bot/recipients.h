/*
 * recipients.h - who gets a report.
 *
 * Owns: the recipient list of a report: To the commit author; Cc the
 * robot's always-copied lists, the tree's mail_to/mail_cc, and the robot
 * itself last; addresses validated and deduplicated case-insensitively
 * (the first occurrence keeps its place and its display name).
 * Must not: build headers or send.
 */
#ifndef RM_RECIPIENTS_H
#define RM_RECIPIENTS_H

#include <stddef.h>

#include "config.h"
#include "gitweb.h"
#include "message.h"

struct rm_recipients {
	struct rm_address *to;
	size_t nto;
	struct rm_address *cc;
	size_t ncc;
	char **dropped;   /* "addr: reason" for each address left out */
	size_t ndropped;
};

/* Fill r for a report on `head` (its author) in `tree` (may be NULL).
 * `override` (e.g. --to) replaces every recipient when not NULL. */
void rm_recipients_build(struct rm_recipients *r, const struct rm_config *cfg,
			 const struct rm_tree_cfg *tree, const struct rm_commit_facts *head,
			 const char *override);
void rm_recipients_free(struct rm_recipients *r);

#endif
