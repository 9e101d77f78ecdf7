/*
 * rules.h - the metric rules and LKP program facts robotmail compares by.
 *
 * Owns: loading `config/metrics.yaml` (deny/allow lists, failure and pass
 * patterns, perf-metric classes, the change thresholds and the per-metric
 * direction weights, all transcribed from lkp-tests' etc/ files) and
 * `config/lkp-programs.yaml` (which programs exist, which are tests, and the
 * options each declares), and answering questions about a stat name or a
 * job key from them.  Patterns are compiled with PCRE2 at load (what a
 * list's alternation checks is not compiled alone again), JIT-compiled only
 * once used often enough to repay it; lists are matched as one
 * alternation, so one match per stat per list (a pattern that only looks for a literal, such as
 * `.+\.pass$`, is a string compare instead; ASCII names use a copy of
 * the alternation compiled without UTF, made when first needed); the
 * ordered direction and threshold rules are one alternation each whose
 * matching branch names the rule ((*MARK)).
 * An alternation runs only for a name that holds one of the literals
 * every match of its patterns holds, when there are such (its gate; one
 * that lets most names through is dropped).  The compiled codes come
 * from the compiled-pattern cache (recache.h) when it has them.
 * Every answer about a stat name is computed once and cached (a hash table keyed
 * by the name, at most RM_RULES_CACHE_MAX names, then answers are computed
 * each time): a comparison asks about each row several times.  The cache's
 * copy of a name sits right behind that name's answers, so a caller holding
 * the copy (rm_rules_keep_stat_stored) reaches them without a lookup
 * (rm_rules_focus).
 *
 * Must not: read archives or compute statistics (stats.c asks, this answers).
 *
 * Deviation from design.md: the design puts rule loading in stats.c; it lives
 * here so that stats.c stays pure arithmetic and job.c can share the program
 * facts without depending on statistics.
 */
#ifndef RM_RULES_H
#define RM_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define RM_RULES_CACHE_MAX 4000000
#define RM_RULES_FIRST 128 /* ASCII: the bytes a pattern list is split by */

enum rm_match {
	RM_MATCH_START,  /* "^" + pattern (Ruby %r{^#{p}}) */
	RM_MATCH_FULL,   /* "^" + pattern + "$" */
	RM_MATCH_SEARCH, /* pattern anywhere */
	RM_MATCH_PREFIX, /* literal string prefix */
};

/* A pattern that says "LIT at offset >= min_off" (at the end of the name
 * when at_end); re is the pattern alone (UTF), for the other names. */
struct rm_literal {
	char *text;
	size_t len, min_off;
	bool at_end;
	void *re;
};

/* One alternation's copy without UTF: its text until first asked for,
 * then the code (NULL: the text is not ASCII or does not compile so; the
 * UTF code is used, JIT-compiled then). */
struct rm_ascii_re {
	char *text;
	void *code;
	bool done;
	size_t uses; /* matches asked of it (JIT code when they pay, rules.c) */
};
#define RM_RULES_ASCII_SLOTS (RM_RULES_FIRST + 2)

struct rm_pattern_list {
	enum rm_match match;
	size_t n;
	char **patterns;  /* as written in the rule file */
	void *combined;   /* pcre2_code * of the patterns as one alternation
			   * (search mode: only those anchored at the start) */
	void *rest;       /* search mode: the other patterns, or NULL */
	/* the anchored patterns whose matches all start with byte c, as one
	 * alternation per c (a prefix table: a name tries only its own
	 * first byte's patterns); these are not in `combined` */
	void *first[RM_RULES_FIRST];
	/* the alternations above compiled again without UTF, for names that
	 * are plain ASCII, when first needed: RM_RULES_ASCII_SLOTS, first[c]
	 * at c, then combined, then rest (rules.c) */
	struct rm_ascii_re *ascii;
	/* patterns decided without a regex: a literal looked for in the name
	 * (`.+LIT$`, `.+LIT.*`, `.*LIT`, LIT in search mode ...), for names of
	 * ASCII without control characters; these are not in the alternations above */
	struct rm_literal *lits;
	size_t nlits;
	/* per alternation slot (as `ascii`): the literals one of which every
	 * match of the slot's patterns contains, when known (rules.c: a
	 * printable ASCII name without them skips the alternation) */
	void *gates;
};

/* One ordered rule: first matching pattern decides. */
struct rm_rule {
	char *pattern;
	void *re;        /* pcre2_code *, anchored per the list's match mode
			  * (NULL until asked alone when the marked
			  * alternation checked it, rules.c) */
	double value;    /* threshold value or direction weight */
	bool is_int;     /* the value was written as an integer (Ruby Integer) */
};

enum rm_program_kind {
	RM_PROG_RUN = 1 << 0,
	RM_PROG_PARSE = 1 << 1,
	RM_PROG_SETUP = 1 << 2,
	RM_PROG_DAEMON = 1 << 3,
	RM_PROG_MONITOR = 1 << 4,
};

struct rm_option {
	char *name;
	char type; /* '-' or '=' */
};

struct rm_program {
	char *name;
	unsigned kinds;           /* enum rm_program_kind bits */
	struct rm_option *options;
	size_t noptions;
};

struct rm_rules {
	char *metrics_file;
	char *programs_file;
	char *lkp_tests_commit;
	long perf_profile_threshold;

	struct rm_pattern_list failure, pass;
	struct rm_pattern_list stat_denylist, stat_allowlist, report_allowlist;
	struct rm_pattern_list perf_metrics_patterns, perf_metrics_prefixes;

	struct rm_rule *thresholds;
	size_t nthresholds;
	enum rm_match thresholds_match;
	struct rm_rule *direction;
	size_t ndirection;
	enum rm_match direction_match;

	char **linux_test_cases;
	size_t nlinux_test_cases;
	char **other_test_cases;
	size_t nother_test_cases;

	struct rm_program *programs; /* sorted by name */
	size_t nprograms;
	struct rm_option *wrapper_options;
	size_t nwrapper_options;
	/* config/eras.yaml: program names of earlier lkp-tests eras and the
	 * name the programs file knows (rm_rules_load_eras) */
	char **era_old, **era_new;
	size_t neras;
	/* config/eras.yaml: until tests_set_until (epoch, 0: none) a test
	 * program's row count was reset only for programs not yet moved to
	 * programs/ (moved_at[i] of moved_name[i]; rm_rules_resets_count) */
	long long tests_set_until;
	char **moved_name;
	long long *moved_at;
	size_t nmoved;

	void *match_data; /* pcre2_match_data * shared by all matches */
	/* the decision cache: what the rules say about each stat name seen,
	 * computed once per name (rm_rules_* below read it) */
	void *cache;
	/* the direction and threshold rules as one alternation each, every
	 * branch marked with its rule number: one match finds the first rule
	 * that matches (NULL: tried one by one) */
	void *direction_any, *thresholds_any;
	/* the same per program (a name's text up to its first '.'), made when
	 * first needed (rules.c) */
	void *direction_first, *thresholds_first;
	/* struct rm_recache * (recache.h): the compiled-pattern cache of the
	 * metrics file, open from rm_rules_load to rm_rules_free (patterns
	 * compiled when first needed use it too) */
	void *recache;
};

/* Load both files.  On error, err names the file, line and field, and the
 * rules are left freed.  The caller owns the result and frees it with
 * rm_rules_free(). */
int rm_rules_load(struct rm_rules *r, const char *metrics_file, const char *programs_file,
		  struct rm_error *err);
/* Load the era table (config/eras.yaml: `programs: {old: new, ...}`).  A
 * program the programs file does not know is then looked up under its new
 * name, and a stat "<old>.<rest>" is decided (perf metric, reportable,
 * threshold, direction) as "<new>.<rest>"; names are printed as they are.
 * -1 with err naming the file and line on a malformed table. */
int rm_rules_load_eras(struct rm_rules *r, const char *file, struct rm_error *err);
/* Does the comparison table reset the row count of test program NAME (its
 * rows print first) for a job that ended at WHEN (epoch seconds, 0:
 * unknown)?  True for a test program, except in the era before
 * tests_set_until for a program already moved to programs/ then
 * (config/eras.yaml). */
bool rm_rules_resets_count(const struct rm_rules *r, const char *name, long long when);
void rm_rules_free(struct rm_rules *r);

bool rm_rules_list_match(const struct rm_rules *r, const struct rm_pattern_list *l,
			 const char *name);

/* The stat classes of lkp-tests (lib/stats.rb). */
bool rm_rules_is_function_stat(const struct rm_rules *r, const char *stat);
bool rm_rules_is_perf_metric(const struct rm_rules *r, const char *stat);
/* Not deny-listed, or allow-listed, or in the report allow-list. */
bool rm_rules_is_reportable(const struct rm_rules *r, const char *stat);
/* reasonable_perf_change?: the threshold table, then the name fallbacks. */
bool rm_rules_reasonable_change(const struct rm_rules *r, const char *stat, double delta,
				double max);
/* Direction weight of a stat (first matching rule), or 0 when it has none. */
double rm_rules_direction(const struct rm_rules *r, const char *stat);

/* Is the stat worth reading from a matrix at all: reportable, or a name
 * stats.c looks up for another stat (*.pass, *.error, *.warn, *.fail,
 * last_state.is_incomplete_run).  Rows refused here are dropped while
 * reading (matrix.h). */
bool rm_rules_keep_stat(const struct rm_rules *r, const char *stat);
/* rm_rules_keep_stat, and *stored set to the decision cache's copy of stat
 * (valid until rm_rules_free or rm_rules_load_eras), or NULL when the cache
 * is full (RM_RULES_CACHE_MAX) and keeps no copy.  With `read` not 0, the
 * copy is marked with it, and *again says whether it was already (a
 * matrix reading's duplicate key: matrix.h, rm_matrix_keep_fn). */
bool rm_rules_keep_stat_stored(const struct rm_rules *r, const char *stat, unsigned read,
			       const char **stored, bool *again);
/* The questions that follow are about the stat whose name `stored` is:
 * a *stored rm_rules_keep_stat_stored gave (of these rules, or of other
 * rules still loaded: those are told apart and ignored), or NULL.  They
 * are then answered with that name without a lookup by it (a comparison
 * asks about 200,000 names of two matrices, out of the cache by then). */
void rm_rules_focus(const struct rm_rules *r, const char *stored);

/* Compile `pattern` (PCRE2, UTF-8) and match it against s.  *ok is false when
 * the pattern does not compile (then the result is false). */
bool rm_rules_regex_match(const struct rm_rules *r, const char *pattern, const char *s, bool *ok);

const struct rm_program *rm_rules_program(const struct rm_rules *r, const char *name);
/* all_tests_set: programs with a run script, and daemons. */
bool rm_rules_is_test_program(const struct rm_rules *r, const char *name);

#endif
