/*
 * fuzz_common.h - shared set-up for the libFuzzer targets in tests/fuzz/.
 *
 * The metric rules are loaded once per process from $ROBOTMAIL_DATADIR (or
 * the RM_DATADIR the Makefile compiles in) and kept for the whole run: they
 * are reachable at exit, so LeakSanitizer does not count them.  Everything
 * a single input allocates must be freed before LLVMFuzzerTestOneInput
 * returns.
 */
#ifndef RM_FUZZ_COMMON_H
#define RM_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "error.h"
#include "rules.h"
#include "stats.h"
#include "strbuf.h"
#include "table.h"

#ifndef RM_DATADIR
#define RM_DATADIR "config"
#endif

static struct rm_rules fuzz_rules;

static inline char *fuzz_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	if (!p)
		abort();
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

static inline void fuzz_load_rules(void)
{
	const char *dir = getenv("ROBOTMAIL_DATADIR");
	struct rm_error err;
	char *m, *p;

	if (!dir || !*dir)
		dir = RM_DATADIR;
	setenv("ROBOTMAIL_CACHE", "off", 1); /* no rule cache in the real home */
	m = fuzz_join(dir, "metrics.yaml");
	p = fuzz_join(dir, "lkp-programs.yaml");
	rm_error_clear(&err);
	if (rm_rules_load(&fuzz_rules, m, p, &err)) {
		fprintf(stderr, "fuzz: cannot load rules from %s: %s\n", dir, err.msg);
		abort();
	}
	free(m);
	free(p);
}

/* Compare and render every group of an opened archive, as `compare` does. */
static inline void fuzz_compare_all(struct rm_archive *a)
{
	size_t g;

	for (g = 0; g < a->ngroups; g++) {
		const struct rm_group *grp = &a->groups[g];
		struct rm_table_commit base = { grp->members[0]->commit, NULL };
		struct rm_table_commit head = { grp->members[1]->commit, "fuzz subject" };
		struct rm_comparison cmp;
		struct rm_error err;
		struct rm_sb out;

		rm_error_clear(&err);
		if (rm_stats_compare(&fuzz_rules, grp->members[0], grp->members[1], &cmp, &err))
			continue;
		rm_sb_init(&out);
		rm_table_render(&out, &grp->members[1]->job, &base, &head, &cmp);
		rm_sb_release(&out);
		rm_stats_comparison_free(&cmp);
	}
}

#endif
