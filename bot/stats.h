/*
 * stats.h - comparing a base and a head commit, stat by stat, as lkp-tests does.
 *
 * Owns: the arithmetic of lkp-tests' ncompare (archive-format.md section 3):
 * which stats changed (sorted upper medians, the separation test, the >= 3
 * runs rule, ratio thresholds 1.01 / 1.05, perf-metric classes, the
 * threshold table, deny/allow lists, function (failure) stats, the
 * incomplete-run pass), the numbers shown for each changed stat (mean as
 * Ruby's Array#sum computes it, population stddev, %change or absolute
 * change, fail:runs and %reproduction), and the row order.
 *
 * Must not: format text (table.c does), read files, decide what to report.
 */
#ifndef RM_STATS_H
#define RM_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "archive.h"
#include "error.h"
#include "rules.h"

/* One changed stat: index 0 is the base, 1 the head. */
struct rm_row {
	char *name;
	bool failure;      /* a function (failure/pass) stat: fail:runs block */
	/* performance rows */
	double avg[2];
	double stddev[2];  /* population stddev, or -1 when fewer than 2 values */
	double change;     /* %change, or the absolute change when abs_change */
	bool abs_change;   /* perf-profile.* and names ending in '%' */
	/* failure rows */
	double fails[2];   /* runs in which the event happened (sum of values) */
	size_t runs[2];    /* all runs of each side */
	double reproduction; /* %reproduction (lkp-tests divides by the base runs) */
	/* direction weight from the rules (0 = none): > 0 higher is better */
	double weight;
};

struct rm_comparison {
	struct rm_row *rows; /* sorted as lkp-tests sorts them */
	size_t n;
	size_t nfailure;     /* rows[0..nfailure) are failure rows, in order */
	size_t skipped_bad;  /* stats left out because of NaN/Infinity/non-numbers */
};

/* Compare base and head.  Fills out (caller frees with rm_stats_comparison_free()). */
int rm_stats_compare(const struct rm_rules *rules, const struct rm_result_root *base,
	       const struct rm_result_root *head, struct rm_comparison *out, struct rm_error *err);
void rm_stats_comparison_free(struct rm_comparison *c);

/* Exposed for unit tests. */

/* Ruby's Array#sum for a column of values (exact integer prefix, then
 * Kahan-Babuska compensated float summation). */
double rm_stats_ruby_sum(const double *v, const unsigned char *is_int, size_t n);
/* lkp-tests' Array#average and population standard deviation. */
double rm_stats_mean(const double *v, const unsigned char *is_int, size_t n);
double rm_stats_pstddev(const double *v, const unsigned char *is_int, size_t n);

struct rm_summary {
	double min, mean, max;   /* mean is the upper median s[size/2] */
	bool mean_is_int;
	size_t size;
};
/* StatSummary: sort, drop leading -1, trim min(size>>5, max_margin) from
 * each end.  Returns false when nothing is left. */
bool rm_stats_summarize(const double *v, const unsigned char *is_int, size_t n, size_t max_margin,
		  struct rm_summary *out);

#endif
