/*
 * bench-gitweb.c - the gitweb benchmark's driver (tests/bench.sh builds it).
 *
 *   bench-gitweb CONFIG TREE MANIFEST [LIMIT]
 *
 * Loads CONFIG, reads the commit SHAs of MANIFEST (one "<sha> <subject>" per
 * line, as tests/peers/make-bench-repo.sh prints; only the first LIMIT when
 * given), and looks them all up on
 * TREE with one rm_lookup_run call (gitweb.concurrency at a time), with
 * the commit cache in CONFIG's state database, as `robotmail commit` does.
 * Prints one line:
 *   lookups N found F unknown U failed X requests R cached C seconds S rate L
 * (R: HTTP requests made, C: answered from the cache, L: lookups per second),
 * then the first failure, if any.  Exit 0 when every lookup got a status,
 * 1 when some were not FOUND (the figures are still printed), 2 on setup
 * errors.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "error.h"
#include "lookup.h"
#include "store.h"
#include "strbuf.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rm_config cfg;
	struct rm_error err;
	const struct rm_tree_cfg *tree;
	struct rm_store *ob = NULL;
	struct rm_commit_cache cache;
	struct rm_gitweb_opts o;
	struct rm_lookup_req *reqs;
	char **shas = NULL, line[4096];
	size_t n = 0, i, found = 0, unknown = 0, failed = 0, cached = 0, wrong = 0;
	unsigned long requests = 0;
	char problem[600] = "";
	double t0, t1;
	size_t limit = (size_t)-1;
	FILE *f;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s CONFIG TREE MANIFEST [LIMIT]\n", argv[0]);
		return 2;
	}
	if (argc == 5)
		limit = strtoul(argv[4], NULL, 10);
	rm_error_clear(&err);
	if (rm_config_load(&cfg, argv[1], &err)) {
		fprintf(stderr, "bench-gitweb: %s\n", err.msg);
		return 2;
	}
	tree = rm_config_tree(&cfg, argv[2]);
	if (!tree) {
		fprintf(stderr, "bench-gitweb: no tree '%s' in %s\n", argv[2], argv[1]);
		rm_config_free(&cfg);
		return 2;
	}
	f = fopen(argv[3], "r");
	if (!f) {
		perror(argv[3]);
		rm_config_free(&cfg);
		return 2;
	}
	while (n < limit && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, " \n");

		if (!l)
			continue;
		shas = rm_xrealloc(shas, (n + 1) * sizeof(*shas));
		shas[n++] = rm_xstrndup(line, l);
	}
	fclose(f);
	if (rm_store_open(&ob, cfg.state_db, RM_STORE_READWRITE, &err)) {
		fprintf(stderr, "bench-gitweb: %s\n", err.msg);
		return 2;
	}
	rm_store_commit_cache(ob, cfg.miss_ttl, &cache); /* the cache robotmail uses */
	rm_gitweb_opts_from_config(&o, &cfg);

	reqs = rm_xcalloc(n ? n : 1, sizeof(*reqs));
	for (i = 0; i < n; i++) {
		reqs[i].tree = tree;
		reqs[i].sha = shas[i];
	}
	t0 = now_s();
	if (rm_lookup_run(reqs, n, &o, &cache, &err)) {
		fprintf(stderr, "bench-gitweb: %s\n", err.msg);
		return 2;
	}
	t1 = now_s();
	for (i = 0; i < n; i++) {
		struct rm_lookup_req *r = &reqs[i];

		requests += r->requests;
		cached += r->from_cache;
		switch (r->status) {
		case RM_LOOKUP_FOUND:
			found++;
			if (!r->facts.sha || strcmp(r->facts.sha, r->sha) || !r->facts.subject)
				wrong++;
			break;
		case RM_LOOKUP_UNKNOWN:
			unknown++;
			if (!problem[0])
				snprintf(problem, sizeof(problem), "%s is unknown to %s", r->sha,
					 tree->name);
			break;
		case RM_LOOKUP_FAILED:
			failed++;
			if (!problem[0])
				snprintf(problem, sizeof(problem), "%s", r->error);
			break;
		}
	}
	printf("lookups %zu found %zu unknown %zu failed %zu requests %lu cached %zu seconds %.3f rate %.1f\n",
	       n, found, unknown, failed, requests, cached, t1 - t0,
	       t1 > t0 ? (double)n / (t1 - t0) : 0.0);
	if (problem[0])
		printf("first problem: %s\n", problem);
	if (wrong)
		printf("%zu found lookups have facts for another sha or no subject\n", wrong);
	for (i = 0; i < n; i++) {
		rm_commit_free(&reqs[i].facts);
		free(shas[i]);
	}
	free(reqs);
	free(shas);
	rm_store_close(ob);
	rm_config_free(&cfg);
	return found == n && !wrong ? 0 : 1;
}
