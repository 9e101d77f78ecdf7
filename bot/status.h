/*
 * status.h - the findings page: static HTML and JSON from the store.
 *
 * Owns: `robotmail status --html DIR` / `--json DIR`: DIR/index.html (every
 * finding: state, tree, the first report's subject, last seen, how many
 * reports; the trees with their findings' states), DIR/t/<tree>.html per
 * tree (its findings), DIR/f/<id>.html per finding (state, tree, first/last
 * seen, the thread's link under links.lore, the commands received) and
 * DIR/findings.json (the same as data).  A finding is a thread key of the
 * outbox; its state is open unless `listen` changed it.  Pages need no
 * script and load nothing: any web server can publish DIR.
 *
 * Must not: change the store, send anything.
 * A finding's page plots its headline metric per run on each commit tested
 * (the values the pipeline kept in the store from the archive's matrix:
 * rm_store_points: the report's base and commit, and the other heads where
 * the finding was seen) as inline SVG; a failure's per-run counts are a
 * table; a finding without values says "no per-run values recorded".
 * A report links to its finding's page when links.status is configured
 * (the pipeline adds <links.status>/f/<id>.html).
 * A finding's page (and its findings.json entry, "mentioned_by") lists the
 * later reports that mention it (rm_store_mentions: the same finding on
 * another commit or tree), each with its thread link and its own finding's
 * page.
 */
#ifndef RM_STATUS_H
#define RM_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "error.h"
#include "store.h"

/* The name of a finding's page (f/<id>.html) from its thread key: 16 hex
 * digits into id (17 bytes). */
void rm_status_finding_id(const char *key, char id[17]);

/* The plot of a finding's page: an inline <svg> (one group per point with
 * values: a circle class="run" per value, the mean and its +-stddev band,
 * its sha10, tree/branch and role under its column, a legend line of text)
 * into sb; nothing without values.  `label` names the tree/branch of points
 * kept without one (may be NULL). */
void rm_status_plot(struct rm_sb *sb, const char *metric, const struct rm_store_point *pt,
		    size_t n, const char *label);
/* A failure id's per-run counts (a finding whose headline is a failure):
 * a table, a row per point with values (tree/branch, sha10, role,
 * fail:runs, the count of each run). */
void rm_status_fail_table(struct rm_sb *sb, const struct rm_store_point *pt, size_t n,
			  const char *label);

/* Write the pages (html) and/or findings.json (json) into dir (made when
 * missing); *nfindings says how many findings.  0, or -1 with err. */
int rm_status_write(const struct rm_config *cfg, struct rm_store *st, const char *dir,
		    bool html, bool json, size_t *nfindings, struct rm_error *err);

/* `--html HDIR` and/or `--json JDIR` (either may be NULL, not both): the
 * pages into HDIR and findings.json into JDIR, both into one when they name
 * the same directory.  0, or -1 with err. */
int rm_status_write_dirs(const struct rm_config *cfg, struct rm_store *st, const char *html,
			 const char *json, size_t *nfindings, struct rm_error *err);

#endif
