/*
 * table.h - the LKP comparison table, byte for byte.
 *
 * Owns: rendering one group as lkp-tests' ncompare prints it
 * (archive-format.md 3.5, report-format.md 6.1): the 89 '=' line, the axis
 * keys in `key=value` sort order and their values, the `commit: ` block,
 * the 16/27-character commit header with its trailing blanks (none in the
 * functional style, report-format.md 6.4), the fail:runs block, the %stddev
 * block, and every column (%10.2f / truncated %10d /
 * %10.4g values, ` ±NNN%` only above 2%, %+10.1f or %+10.2g changes).
 * `±` is written as UTF-8 (message.c re-encodes when a charset needs it).
 *
 * Must not: decide which rows exist or their order (stats.c does).
 */
#ifndef RM_TABLE_H
#define RM_TABLE_H

#include "job.h"
#include "stats.h"
#include "strbuf.h"

struct rm_table_commit {
	const char *id;      /* the commit axis value (40-hex sha or a tag) */
	const char *subject; /* upstream subject, or NULL when unknown */
};

/* How the header lines are laid out: as ncompare prints them (the commit
 * header and the fail:runs bar line end in blanks), or as hand-assembled
 * functional reports show them, with no trailing blanks
 * (report-format.md 6.4).  Rows are the same in both. */
enum rm_table_style {
	RM_TABLE_NCOMPARE,
	RM_TABLE_FUNCTIONAL,
};

/* Append the group header and rows to out.  `job` supplies the axes (the
 * head's job.yaml).  A comparison with no rows appends nothing.  Commit
 * lines read `  <id>` or, with a subject, `  <id[0:10]> ("<subject>")`. */
void rm_table_render(struct rm_sb *out, const struct rm_job *job,
		     const struct rm_table_commit *base, const struct rm_table_commit *head,
		     const struct rm_comparison *cmp);
/* The same in a given style (rm_table_render is RM_TABLE_NCOMPARE). */
void rm_table_render_style(struct rm_sb *out, const struct rm_job *job,
			   const struct rm_table_commit *base, const struct rm_table_commit *head,
			   const struct rm_comparison *cmp, enum rm_table_style style);

/* One row of the boot/dmesg result table: a name and its count of runs on
 * the parent and on the tested commit. */
struct rm_table_boot_row {
	const char *name;
	long count[2];
};

/* The boot/dmesg result table of functional reports (report-format.md
 * 6.2): a first column as wide as the longest name + 2, then two cells of
 * width 12 headed by the parent's and the tested commit's sha10, every
 * value left-aligned after one blank; the rows in the order given.  Ends
 * with a newline. */
void rm_table_render_boot(struct rm_sb *out, const char *base_sha, const char *head_sha,
			  const struct rm_table_boot_row *rows, size_t n);

/* Single cells, exposed for unit tests: each appends exactly what
 * lkp-tests prints. */
void rm_table_value(struct rm_sb *out, double avg);
void rm_table_stddev(struct rm_sb *out, double avg, double stddev);
void rm_table_change(struct rm_sb *out, double change, int abs_change);

#endif
